// Command millzero trains, evaluates and plays Mill-family games.
//
// Usage:
//
//	millzero COMMAND [flags]
//
// Run `millzero help` for the commands and `millzero COMMAND --help` for
// the flags and an example of each.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	_ "go4.org/unsafe/assume-no-moving-gc" // Gorgonia's dependency panics at start on Go 1.26 without the new version

	"github.com/millzero/millzero/internal/version"
)

// command is one subcommand: its one-line summary, and run, which parses
// its flags from args and writes to out.
type command struct {
	summary string
	run     func(args []string, out io.Writer) error
}

func commands() map[string]command {
	return map[string]command{
		"perft":     {"count the positions reachable in N actions (move-generator check)", runPerft},
		"bench":     {benchSummary(), runBench},
		"variants":  {"list the named variants and their rules", runVariants},
		"export":    {"write a model as ONNX, or as a play-only checkpoint (.safetensors)", runExport},
		"play":      {"play against a model in the terminal or (--web) the browser", runPlay},
		"engine":    {"speak the UCI-style engine protocol on stdin/stdout for match runners and GUIs", runEngine},
		"train":     {"the whole loop: self-play, training, the gate (if on), the strength benchmark; resumable", runTrain},
		"oracle":    {"a model against the exact solver (3x3 variants, every opening) or the endgame tables (--tablebase)", runOracle},
		"arena":     {"play matches between players and print scores and Elo", runArena},
		"openings":  {"build an opening book of unbalanced positions for matches (--book)", runOpenings},
		"classic":   {"the classical engine's tools: tune fits its evaluation to games", runClassic},
		"selfplay":  {"add self-play games to a run with its best model (more machines, more games)", runSelfplay},
		"fork":      {"a new run that is a run as its first N generations left it, to train on differently from there", runFork},
		"status":    {"a run's generations, games per generation and worker, best model, trainer and last error", runStatus},
		"tablebase": {"build and probe endgame tables (every material up to N pieces, exact)", runTablebase},
	}
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the command args[0] with the rest of args and returns the
// exit status.
func dispatch(args []string, out, errOut io.Writer) int {
	cmds := commands()
	if len(args) == 2 && args[0] == "help" { // help CMD is CMD --help
		args = []string{args[1], "--help"}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(out, cmds)
		return 0
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(out, version.String())
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(errOut, "millzero: unknown command %q\n\n", args[0])
		usage(errOut, cmds)
		return 2
	}
	if err := c.run(args[1:], out); err != nil {
		var status exitStatus
		switch {
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &status):
			return int(status)
		}
		if sig := stopSignal(); sig != nil {
			// Asked to stop: what it finished is written. The error,
			// mostly the cancellation itself, is printed all the same.
			fmt.Fprintf(errOut, "millzero %s: stopped (%v): %v\n", args[0], sig, err)
			return 130
		}
		fmt.Fprintf(errOut, "millzero %s: %v\n", args[0], err)
		var usage usageError
		if errors.As(err, &usage) {
			return 2
		}
		return 1
	}
	return 0
}

// usageError is a command line the flags cannot parse (an unknown flag, a
// value of the wrong type): the command exits 2, as Go's flag package and
// POSIX utilities do, where a failure of the work itself exits 1.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitStatus is the error of a command that has said why it stopped and
// ends with this exit status (130: interrupted). A command stopped by
// SIGINT or SIGTERM that returns any other error also exits 130.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "millzero: self-play training for the Mill family of games")
	fmt.Fprintln(w, "\nUsage: millzero COMMAND [flags]   (millzero help COMMAND for details; millzero --version)")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, cmds[n].summary)
	}
}

// parseOnly is the output of a command line that is to be parsed and not
// run: a command given it as its output builds its flag set (newFlags
// keeps it here), parses its arguments with it (parseFlags keeps the
// positional ones) and returns errParsedOnly instead of doing its work.
// Every command builds and parses its flags before anything else, so a
// command line of the manual is checked against the real flag set with
// no side effect.
type parseOnly struct {
	io.Writer
	fs   *flag.FlagSet
	args []string
}

// errParsedOnly is what a command returns when its output is a parseOnly:
// its flags parsed, and nothing done.
var errParsedOnly = errors.New("parsed only, not run")

// newFlags makes a flag set whose --help prints the usage line, the
// examples and the flags.
func newFlags(name, usageLine string, examples []string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	if p, ok := out.(*parseOnly); ok {
		p.fs = fs
	}
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: millzero %s %s\n\nExamples:\n", name, usageLine)
		for _, e := range examples {
			fmt.Fprintf(out, "  %s\n", e)
		}
		fmt.Fprintln(out, "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, allowing flags after positional arguments. A
// flag it cannot parse is a usageError (exit 2).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, err
		} else if err != nil {
			return nil, usageError{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			if p, ok := fs.Output().(*parseOnly); ok {
				p.args = pos
				return nil, errParsedOnly
			}
			return pos, nil
		}
		if strings.HasPrefix(args[0], "-") && args[0] != "-" {
			continue
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// listFlag is the comma-separated numbers of flag name's value, each one
// ok says may be; an error names the flag and the first that is not
// (what: "a generation").
func listFlag[T int | float64](name, value, what string, ok func(T) bool) ([]T, error) {
	var out []T
	for _, f := range strings.Split(value, ",") {
		var x T
		var err error
		switch p := any(&x).(type) {
		case *int:
			*p, err = strconv.Atoi(strings.TrimSpace(f))
		case *float64:
			*p, err = strconv.ParseFloat(strings.TrimSpace(f), 64)
		}
		if err != nil || !ok(x) {
			return nil, fmt.Errorf("--%s %q: %q is not %s", name, value, f, what)
		}
		out = append(out, x)
	}
	return out, nil
}

// writeJSON prints v as indented JSON, the --json output of a command.
func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// stopContext is a context cancelled by an interrupt or a termination
// signal, so that a long command stopped from its terminal, by a service
// manager or by kill keeps what it finished (games written, checkpoints
// saved) before it exits.
func stopContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	lastStop.Store(&ctx)
	return ctx, stop
}

// lastStop is the context of the newest stopContext, from which dispatch
// tells a command stopped by a signal from one that failed.
var lastStop atomic.Pointer[context.Context]

// stopSignal is the signal that stopped the running command ("terminated
// signal received"), nil if none did.
func stopSignal() error {
	ctx := lastStop.Load()
	if ctx == nil {
		return nil
	}
	// A signal is the cause; the command's own stop leaves context.Canceled.
	if cause := context.Cause(*ctx); cause != nil && cause != context.Canceled {
		return cause
	}
	return nil
}
