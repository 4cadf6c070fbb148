package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/millzero/millzero/play"
)

func runPlay(args []string, out io.Writer) error {
	return playMain(args, os.Stdin, out)
}

// playMain is the play command reading the person's input from in.
func playMain(args []string, in io.Reader, out io.Writer) error {
	fs := newFlags("play", "[--model FILE | --run DIR] [--variant V] [--seat S] [--sims N] [--web [--addr HOST:PORT]]",
		[]string{
			"millzero play --variant three",
			"millzero play --run runs/nine --seat black --sims 800",
			"millzero play --model runs/nine/models/gen-000012.safetensors",
			"millzero play --variant moulin-rouge-3 --seat 2",
			"millzero play --web --addr 127.0.0.1:8080",
		}, out)
	var pc playerConfig
	addPlayerFlags(fs, &pc)
	seatFlag := fs.String("seat", "white", "your seat: white or black, or 1..N with 3-4 players; several as 1,3 or all (people take turns; the model plays the others)")
	web := fs.Bool("web", false, "play in the browser: serve the game page and print its URL")
	addr := fs.String("addr", "127.0.0.1:0", "with --web: the address to listen on; port 0 picks a free one")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", rest[0])
	}
	src, err := loadSource(pc)
	if err != nil {
		return err
	}
	v, err := src.variantFor(pc.Variant)
	if err != nil {
		return err
	}
	seats, err := play.ParseSeats(v, *seatFlag)
	if err != nil {
		return fmt.Errorf("--seat: %w", err)
	}
	if pc.Views < 1 {
		return fmt.Errorf("--orientations %d: want 1 or more (up to the variant's symmetries)", pc.Views)
	}
	if pc.Sims < 1 {
		return fmt.Errorf("--sims %d: want 1 or more", pc.Sims)
	}
	prover, err := tablesFor(v, pc.Tables)
	if err != nil {
		return err
	}
	if *web {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return play.ServeWeb(ctx, webConfig(pc, src, v, seats, *addr, prover), out, nil)
	}
	bot, err := newBot(v, src, pc.Sims, pc.Views, pc.Seed, prover)
	if err != nil {
		return err
	}
	return play.NewText(v, seats, bot, in, out).Run()
}
