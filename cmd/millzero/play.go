package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
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
	bot, err := newBot(v, src, pc.Sims, pc.Seed, prover)
	if err != nil {
		return err
	}
	tg := newTextGame(v, seats.First(), bot, in, out)
	tg.humans = seats
	return tg.run()
}

// textGame is a game against the model in a terminal: the board after
// every action, the person's actions typed in the variant's notation.
type textGame struct {
	v      *engine.Variant
	g      *play.Game
	humans play.Seats // the people's seats; the model plays every other one
	bot    *play.Bot
	in     *bufio.Scanner
	out    io.Writer
	legal  []engine.Action
	told   bool // the result of the finished game has been printed
}

func newTextGame(v *engine.Variant, human int, bot *play.Bot, in io.Reader, out io.Writer) *textGame {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 4096), 1<<16)
	return &textGame{v: v, g: play.NewGame(v), humans: play.SeatsOf(human), bot: bot, in: sc, out: out,
		legal: make([]engine.Action, 0, engine.MaxActions)}
}

const textHelp = `Type an action in the game's notation: d6 (place), d6-d5 (move), xd7 (remove
after a mill), r1+ / r1- (turn ring 1 clockwise / anticlockwise). Or:
  moves   list the legal actions      hint   ask the model for a move
  undo    take back your last action  board  draw the board again
  new     start again                 quit   leave
`

// run plays until the person quits or the input ends.
func (t *textGame) run() error {
	var people, others []string
	for s := 0; s < t.v.Players; s++ {
		if t.humans.Has(s) {
			people = append(people, seatLabel(t.v, s))
		} else {
			others = append(others, seatLabel(t.v, s))
		}
	}
	if len(others) == 0 {
		others = []string{"no seat"}
	}
	fmt.Fprintf(t.out, "millzero play: %s. You are %s; the model plays %s.\n", t.v.Name, strings.Join(people, ", "), strings.Join(others, ", "))
	fmt.Fprintf(t.out, "Model: %s.\n", t.bot.Desc)
	fmt.Fprint(t.out, textHelp)
	t.show()
	for {
		r, why := t.g.Outcome()
		if r == engine.Ongoing && !t.humans.Has(int(t.g.Pos.Side)) {
			if err := t.modelMove(); err != nil {
				return err
			}
			continue
		}
		if r != engine.Ongoing && !t.told {
			fmt.Fprintf(t.out, "Game over: %s.\n", arena.ResultText(t.v, &t.g.Pos, r, why))
			fmt.Fprintln(t.out, "Type undo to take back your last action, new to play again, or quit.")
			t.told = true
		}
		fmt.Fprint(t.out, "> ")
		if !t.in.Scan() {
			fmt.Fprintln(t.out)
			if err := t.in.Err(); err != nil {
				return fmt.Errorf("reading input: %w", err)
			}
			return nil
		}
		line := strings.TrimSpace(t.in.Text())
		switch strings.ToLower(line) {
		case "":
		case "quit", "exit", "q":
			return nil
		case "help", "?":
			fmt.Fprint(t.out, textHelp)
		case "board":
			t.show()
		case "moves", "legal":
			t.listLegal()
		case "hint":
			t.hint()
		case "undo":
			t.undo()
		case "new":
			t.g = play.NewGame(t.v)
			t.told = false
			fmt.Fprintln(t.out, "New game.")
			t.show()
		default:
			t.humanMove(line)
		}
	}
}

// humanMove plays the person's action, or says why it cannot be played.
func (t *textGame) humanMove(text string) {
	if r, why := t.g.Outcome(); r != engine.Ongoing {
		fmt.Fprintf(t.out, "The game is over (%s): type undo, new or quit.\n", arena.ResultText(t.v, &t.g.Pos, r, why))
		return
	}
	a, err := t.v.ParseAction(&t.g.Pos, text)
	if err != nil {
		if errors.Is(err, engine.ErrIllegal) {
			fmt.Fprintf(t.out, "Illegal: %v.\n", err)
		} else {
			fmt.Fprintf(t.out, "Not understood: %v (type help for the commands).\n", err)
		}
		t.listLegal()
		return
	}
	t.play(a)
}

// modelMove searches and plays the model's action for the side to move.
func (t *textGame) modelMove() error {
	seat := int(t.g.Pos.Side)
	a, res, err := t.bot.Act(context.Background(), t.g.Game, 0, 0)
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	var alt []string
	for _, c := range play.TopChoices(t.v, res, 4)[1:] {
		alt = append(alt, fmt.Sprintf("%s %.0f%%", c.Action, 100*c.Share))
	}
	fmt.Fprintf(t.out, "%s plays %s  (%d visits, expected score for %s %.2f", arena.SeatName(t.v, seat), t.v.FormatAction(a),
		res.Visited, arena.SeatName(t.v, seat), res.Value[seat])
	if len(alt) > 0 {
		fmt.Fprintf(t.out, "; also considered %s", strings.Join(alt, ", "))
	}
	fmt.Fprintln(t.out, ")")
	t.play(a)
	return nil
}

// play makes legal action a and draws the board.
func (t *textGame) play(a engine.Action) {
	t.g.PlayAction(a) // a is legal: it came from ParseAction or the search
	t.show()
}

// undo takes back the person's last action and the model's replies.
func (t *textGame) undo() {
	taken := t.g.UndoSeats(t.humans)
	if len(taken) == 0 {
		fmt.Fprintln(t.out, "Nothing to undo: you have not played yet.")
		return
	}
	t.told = false
	fmt.Fprintf(t.out, "Took back %s.\n", t.g.Format(taken))
	t.show()
}

// hint searches the person's position and shows the model's choices.
func (t *textGame) hint() {
	if r, _ := t.g.Outcome(); r != engine.Ongoing {
		fmt.Fprintln(t.out, "The game is over: no hint.")
		return
	}
	res, err := t.bot.Think(context.Background(), t.g.Game, 0, 0)
	if err != nil {
		fmt.Fprintf(t.out, "No hint: %v.\n", err)
		return
	}
	var top []string
	for _, c := range play.TopChoices(t.v, res, 5) {
		top = append(top, fmt.Sprintf("%s %.0f%%", c.Action, 100*c.Share))
	}
	fmt.Fprintf(t.out, "Hint: %s  (%d visits: %s; your expected score %.2f)\n", t.v.FormatAction(res.Best), res.Visited,
		strings.Join(top, ", "), res.Value[t.g.Pos.Side])
}

// listLegal prints the legal actions of the side to move.
func (t *textGame) listLegal() {
	t.legal = t.v.Legal(&t.g.Pos, t.legal[:0])
	if len(t.legal) == 0 {
		fmt.Fprintln(t.out, "No legal actions.")
		return
	}
	names := make([]string, len(t.legal))
	for i, a := range t.legal {
		names[i] = t.v.FormatAction(a)
	}
	fmt.Fprintf(t.out, "Legal actions: %s\n", strings.Join(names, " "))
}

// show draws the board, with the point names on boards whose diagram has
// no coordinates round the edge (the ring board).
func (t *textGame) show() {
	fmt.Fprintln(t.out)
	if n := len(t.g.Actions); n > 0 {
		fmt.Fprintf(t.out, "Action %d: %s %s\n", n, arena.SeatName(t.v, t.g.Movers[n-1]), t.v.FormatAction(t.g.Actions[n-1]))
	}
	fmt.Fprint(t.out, t.v.Diagram(&t.g.Pos))
	if t.v.Board.Rotating {
		fmt.Fprint(t.out, play.PointKey(t.v, &t.g.Pos))
	}
}
