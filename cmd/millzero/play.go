package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/millzero/millzero/play"
	"github.com/millzero/millzero/runconfig"
)

func runPlay(args []string, out io.Writer) error {
	return playMain(args, os.Stdin, out)
}

// playMain is the play command reading the person's input from in.
func playMain(args []string, in io.Reader, out io.Writer) error {
	fs := newFlags("play", "[--model FILE | --run DIR] [--variant V] [--seat S] [--sims N] [--web [--addr HOST:PORT] [--allow-host NAME]... [--max-games N]]",
		[]string{
			"millzero play --variant three",
			"millzero play --run runs/nine --seat black --sims 800",
			"millzero play --model runs/nine/models/gen-000012.safetensors",
			"millzero play --variant moulin-rouge-3 --seat 2",
			"millzero play --opponent classic@1s --tablebase auto",
			"millzero play --web --addr 127.0.0.1:8080",
			"millzero play --web --addr 0.0.0.0:8080 --allow-host mybox.local --max-games 8",
		}, out)
	var pc play.PlayerConfig
	addPlayerFlags(fs, &pc)
	seatFlag := fs.String("seat", "white", "your seat: white or black, or 1..N with 3-4 players; several as 1,3 or all (people take turns; the model plays the others)")
	serve := fs.Bool("web", false, "play in the browser: serve the game page and print its URL")
	opponent := fs.String("opponent", "", "play the classical engine instead of a model: classic@TIME (a move's time, classic@1s) or classic:N (N plies); two-player variants")
	web := play.WebOptions{}
	fs.StringVar(&web.Addr, "addr", "127.0.0.1:0", "with --web: the address to listen on; port 0 picks a free one")
	fs.Func("allow-host", "with --web: a host name the page may be reached by, besides localhost, the --addr host and IP addresses (repeatable, or comma separated); requests naming other hosts are refused", func(s string) error {
		for _, h := range strings.Split(s, ",") {
			if h = strings.TrimSpace(h); h != "" {
				web.AllowHosts = append(web.AllowHosts, h)
			}
		}
		return nil
	})
	fs.IntVar(&web.MaxGames, "max-games", play.DefaultMaxGames, "with --web: the games held at once, one per browser tab; a new game past it closes the game idle longest")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", rest[0])
	}
	if *opponent != "" && (pc.Model != "" || pc.Run != "") {
		return fmt.Errorf("--opponent %s plays without a network: give no --model or --run", *opponent)
	}
	src, err := play.LoadSource(pc)
	if err != nil {
		return err
	}
	v, err := src.VariantFor(pc.Variant)
	if err != nil {
		return err
	}
	seats, err := play.ParseSeats(v, *seatFlag)
	if err != nil {
		return fmt.Errorf("--seat: %w", err)
	}
	if pc.Views < 1 || pc.Views > v.NumSymmetries() {
		return fmt.Errorf("--orientations %d: want 1..%d (the symmetries of %s)", pc.Views, v.NumSymmetries(), v.Name)
	}
	if err := checkVisits("sims", pc.Sims); err != nil {
		return err
	}
	if web.MaxGames < 1 {
		return fmt.Errorf("--max-games %d: want 1 or more", web.MaxGames)
	}
	set, err := openTables(v, pc.Tables)
	if err != nil {
		return err
	}
	prover := runconfig.Prover(set)
	if web.Opponent, err = play.ParseOpponent(*opponent, v); err != nil {
		return fmt.Errorf("--opponent: %w", err)
	}
	if *serve {
		ctx, stop := stopContext()
		defer stop()
		return play.ServeWeb(ctx, play.NewWebConfig(pc, src, v, seats, web, prover), out, nil)
	}
	bot, err := play.NewOpponentBot(v, src, pc, web.Opponent, prover)
	if err != nil {
		return err
	}
	return play.NewText(v, seats, bot, in, out).Run()
}
