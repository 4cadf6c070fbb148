package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/millzero/millzero/configs"
)

func runCmd(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := dispatch(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestPerft_PrintsOneLinePerDepthAndSpeed(t *testing.T) {
	code, out, errOut := runCmd("perft", "--fen", "**@**@**/@@****@*/*O**OO** w m s 3 0 5 0 0 0 0 0 0 0 0 0 20", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"perft(1) = 48\n", "perft(2) = 577\n", "perft(3) = 25530\n", "nodes/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestPerft_DivideListsRootActions(t *testing.T) {
	code, out, errOut := runCmd("perft", "--moves", "d6 f4 d2 b4 g4 d7 a4 d1 e4 d5 c4 d3 f6 b6 b2 f2 g7 g1", "--divide", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "perft(2) = 36\n") || strings.Count(out, ": ") != 6 {
		t.Errorf("want 6 root actions summing to 36:\n%s", out)
	}
}

func TestPerft_BadInputIsAClearError(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"perft", "x"}, `depth "x"`},
		{[]string{"perft", "--variant", "ninety", "2"}, `variant "ninety"`},
		{[]string{"perft", "--moves", "d6 d6", "2"}, "action 2"},
		{[]string{"perft", "--fen", "garbage", "2"}, "FEN"},
		{[]string{"perft"}, "DEPTH"},
		{[]string{"frobnicate"}, "unknown command"},
	}
	for _, c := range cases {
		code, _, errOut := runCmd(c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want an error naming %q", c.args, code, errOut, c.want)
		}
	}
}

func TestHelp_EveryCommandShowsAnExample(t *testing.T) {
	for name := range commands() {
		code, out, _ := runCmd(name, "--help")
		if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "millzero "+name) {
			t.Errorf("%s --help: exit %d, output:\n%s", name, code, out)
		}
	}
}

func TestHelp_HelpCommandShowsThatCommandsHelp(t *testing.T) {
	for name := range commands() {
		code, out, _ := runCmd("help", name)
		if code != 0 || !strings.Contains(out, "millzero "+name) || !strings.Contains(out, "Examples:") {
			t.Errorf("help %s: exit %d, output:\n%s", name, code, out)
		}
	}
	if code, _, errOut := runCmd("help", "frobnicate"); code != 2 || !strings.Contains(errOut, "frobnicate") {
		t.Errorf("help frobnicate: exit %d, %q, want 2 naming the command", code, errOut)
	}
}

func TestVersion_PrintsTheModuleVersionAndCommit(t *testing.T) {
	code, out, _ := runCmd("--version")
	if code != 0 || !strings.HasPrefix(out, "millzero ") || !strings.Contains(out, "commit ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

func TestFlags_AnUnknownOrMalformedFlagExitsTwo(t *testing.T) {
	for _, args := range [][]string{
		{"perft", "--frobnicate", "2"},
		{"train", "--generations", "many"},
		{"status", "--no-such-flag"},
	} {
		if code, _, errOut := runCmd(args...); code != 2 || !strings.Contains(errOut, strings.TrimPrefix(args[1], "-")) {
			t.Errorf("%v: exit %d, stderr %q, want 2 naming %s", args, code, errOut, args[1])
		}
	}
}

func TestHelp_TrainListsEveryEmbeddedConfig(t *testing.T) {
	_, out, _ := runCmd("help", "train")
	names := configs.RunNames()
	if len(names) < 5 {
		t.Fatalf("embedded run configs %v: want nine, nine-long, three-test and more", names)
	}
	for _, name := range names {
		if !strings.Contains(out, name) {
			t.Errorf("help train does not name the embedded config %s:\n%s", name, out)
		}
	}
}
