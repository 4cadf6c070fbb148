package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/configs"
	"github.com/millzero/millzero/runconfig"
)

// parseCommand parses the command line args (args[0] the command) with
// the command's own flag set, without running it: the flag set, the
// positional arguments, or the error the command line gets (an unknown
// command or flag, a value of the wrong type).
func parseCommand(args []string) (*flag.FlagSet, []string, error) {
	if len(args) == 0 {
		return nil, nil, errors.New("no command")
	}
	if args[0] == "help" || args[0] == "--version" || args[0] == "version" {
		if len(args) == 2 && args[0] == "help" {
			if _, ok := commands()[args[1]]; !ok {
				return nil, nil, fmt.Errorf("help %q: no such command", args[1])
			}
		}
		return nil, nil, nil
	}
	c, ok := commands()[args[0]]
	if !ok {
		return nil, nil, fmt.Errorf("unknown command %q", args[0])
	}
	p := &parseOnly{Writer: discard{}}
	err := c.run(args[1:], p)
	if !errors.Is(err, errParsedOnly) {
		if err == nil {
			err = errors.New("the command ran instead of stopping after its flags")
		}
		return nil, nil, err
	}
	if args[0] == "bench" && len(p.args) > 0 && !slices.Contains(benchSpeed(), p.args[0]) {
		return nil, nil, fmt.Errorf("bench %q: no such measurement (%s)", p.args[0], benchWhat())
	}
	return p.fs, p.args, nil
}

// discard is an io.Writer that drops what it is given.
type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// manualCommand is one millzero command line of the manual: where it is,
// its words from "millzero" on, and whether it is a synopsis ([--flag X]
// alternatives, checked flag by flag rather than parsed).
type manualCommand struct {
	where    string
	words    []string
	synopsis bool
}

// manualFiles is README.md and docs/*.md, relative to this package.
func manualFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/*.md: %v (%d files)", err, len(docs))
	}
	return append([]string{"../../README.md"}, docs...)
}

var (
	fenceRE      = regexp.MustCompile("^\\s*```")
	inlineCodeRE = regexp.MustCompile("`+[^`]+`+")
	placeholder  = regexp.MustCompile(`^[A-Z][A-Z0-9_]*([.|:/-][A-Za-z0-9_.|:/-]*)?$`)
)

// manualCommands finds every millzero command line in file: in fenced code
// blocks (continuation lines joined) and in inline code, wherever the word
// millzero (or bin/millzero) stands where a shell runs a command.
func manualCommands(t *testing.T, file string) []manualCommand {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(file, "../../")
	var found []manualCommand
	add := func(line int, code string, inline bool) {
		for _, words := range shellCommands(code) {
			if len(words) > 0 && slices.Contains([]string{"nice", "taskset", "time", "/usr/bin/time", "timeout", "env"}, words[0]) {
				if i := slices.IndexFunc(words, isMillzero); i > 0 {
					words = words[i:] // nice -n 10 bin/millzero ...
				}
			}
			if len(words) < 2 || !isMillzero(words[0]) || !regexp.MustCompile(`^[a-z-]+$`).MatchString(words[1]) {
				continue
			}
			syn := inline && strings.ContainsAny(code, "[]")
			found = append(found, manualCommand{fmt.Sprintf("%s:%d", name, line), words, syn})
		}
	}
	inFence := false
	var pending string // a fenced line continued with a backslash
	var para []string  // the lines of a paragraph: inline code may wrap
	paraLine := 0
	flushPara := func() {
		for _, span := range inlineCodeRE.FindAllString(strings.Join(para, " "), -1) {
			add(paraLine, strings.ReplaceAll(strings.Trim(span, "`"), `\|`, "|"), true)
		}
		para = nil
	}
	for i, line := range strings.Split(string(text), "\n") {
		if fenceRE.MatchString(line) {
			flushPara()
			inFence = !inFence
			continue
		}
		if inFence {
			if s, ok := strings.CutSuffix(strings.TrimRight(line, " "), "\\"); ok {
				pending += s + " "
				continue
			}
			add(i+1, pending+line, false)
			pending = ""
			continue
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "|") {
			flushPara() // a table's rows are read one by one
		}
		if len(para) == 0 {
			paraLine = i + 1
		}
		para = append(para, line)
	}
	flushPara()
	return found
}

// isMillzero reports whether word runs the millzero binary.
func isMillzero(word string) bool {
	return word == "millzero" || word == "bin/millzero" || word == "./bin/millzero"
}

// shellCommands splits a shell line into its simple commands' words:
// quotes kept together and removed, a comment dropped, commands cut at
// | || && ; & and $( ... ), redirections and leading VAR=value
// assignments dropped, and a kubectl exec's command after its --; an
// arena player "engine:bin/millzero ..." is a command line of its own.
func shellCommands(line string) [][]string {
	var cmds [][]string
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	flushWord := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	flushCmd := func() {
		flushWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words = nil
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '#' && !inWord:
			i = len(rs)
		case r == '|' || r == ';' || r == '&' || r == '(' || r == ')':
			flushCmd()
		case r == ' ' || r == '\t':
			flushWord()
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	flushCmd()
	var out [][]string
	for _, w := range cmds {
		var kept []string
		for i := 0; i < len(w); i++ {
			switch {
			case regexp.MustCompile(`^[0-9]?[<>]`).MatchString(w[i]):
				if regexp.MustCompile(`^[0-9]?[<>]+$`).MatchString(w[i]) {
					i++ // the redirection's file is the next word
				}
			case len(kept) == 0 && regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`).MatchString(w[i]):
			default:
				kept = append(kept, w[i])
			}
		}
		if i := slices.Index(kept, "--"); i >= 0 && len(kept) > 0 && kept[0] == "kubectl" {
			kept = kept[i+1:]
		}
		for _, k := range kept {
			if inner, ok := strings.CutPrefix(k, "engine:"); ok {
				out = append(out, strings.Fields(inner))
			}
		}
		out = append(out, kept)
	}
	return out
}

// checkManualCommand parses c with its command's real flag set, the
// manual's placeholders (FILE, DIR, N) given the flag's default; a
// synopsis has each --flag looked up instead.
func checkManualCommand(c manualCommand) error {
	args := c.words[1:]
	if args[0] == "--version" {
		return nil
	}
	if len(args) == 1 || args[0] == "help" && len(args) == 2 && placeholder.MatchString(args[1]) {
		_, ok := commands()[args[0]] // a command named in prose
		if !ok && args[0] != "help" {
			return fmt.Errorf("unknown command %q", args[0])
		}
		return nil
	}
	if c.synopsis {
		var sub []string
		for _, w := range args {
			if !regexp.MustCompile(`^[a-z]+$`).MatchString(w) || len(sub) == 2 {
				break
			}
			sub = append(sub, w)
		}
		fs, _, err := parseCommand(sub)
		if err != nil && len(sub) == 2 { // "bench WHAT" or a command's first argument
			fs, _, err = parseCommand(sub[:1])
		}
		if err != nil || fs == nil {
			return err
		}
		for _, w := range args {
			w = strings.Trim(w, "[]|")
			if name, ok := strings.CutPrefix(w, "--"); ok && name != "" {
				name, _, _ = strings.Cut(name, "=")
				if fs.Lookup(name) == nil {
					return fmt.Errorf("flag --%s: %s has no such flag", name, fs.Name())
				}
			}
		}
		return nil
	}
	fs, _, err := parseCommand(withoutFlags(args))
	if err != nil || fs == nil {
		return err
	}
	var line []string // args, placeholders given their flags' defaults
	for i := 0; i < len(args); i++ {
		name, isFlag := strings.CutPrefix(args[i], "--")
		f := fs.Lookup(name)
		switch {
		case isFlag && f != nil && !isBoolFlag(f) && i+1 == len(args):
			continue // a flag named in prose, without its value
		case isFlag && f != nil && !isBoolFlag(f) && (placeholder.MatchString(args[i+1]) || args[i+1] == "..."):
			line = append(line, args[i], f.DefValue)
			i++
		case args[i] == "...":
		default:
			line = append(line, args[i])
		}
	}
	_, _, err = parseCommand(line)
	return err
}

// withoutFlags is args up to the first flag: the command and its
// subcommand, whose flag set tells which words are placeholders.
func withoutFlags(args []string) []string {
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			return args[:i]
		}
	}
	return args
}

// isBoolFlag reports whether f takes no value.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func TestManual_EveryCommandLineParses(t *testing.T) {
	n := 0
	for _, file := range manualFiles(t) {
		for _, c := range manualCommands(t, file) {
			n++
			if err := checkManualCommand(c); err != nil {
				t.Errorf("%s: %s: %v", c.where, strings.Join(c.words, " "), err)
			}
		}
	}
	if n < 100 {
		t.Errorf("found %d millzero command lines in README.md and docs/*.md; the manual has many more: is the search broken?", n)
	}
	t.Logf("%d command lines parsed", n)
}

func TestManual_TheCheckCatchesWhatIsWrong(t *testing.T) {
	for _, bad := range []string{
		"bin/millzero trian --run runs/nine",
		"bin/millzero train --run runs/nine --generatoins 5",
		"bin/millzero train --generations many",
		"bin/millzero bench speed",
		"bin/millzero tablebase dump tables/nine",
		"bin/millzero help trian",
		"printf 'uci\\n' | bin/millzero engine --nodes 800",
		"MINIO=1 bin/millzero status --run \"$RUN\" --jsn",
		"bin/millzero arena \"engine:bin/millzero engine --rnu runs/nine\" alphabeta:4",
	} {
		cmds := shellCommands(bad)
		failed := false
		for _, words := range cmds {
			if len(words) > 1 && isMillzero(words[0]) && checkManualCommand(manualCommand{"test", words, false}) != nil {
				failed = true
			}
		}
		if !failed {
			t.Errorf("%s: passed the check", bad)
		}
	}
	if err := checkManualCommand(manualCommand{"test", strings.Fields("millzero engine [--model FILE | --run DIR] [--sims N] [--depth N]"), true}); err == nil {
		t.Error("a synopsis with a flag the command lacks passed the check")
	}
	good := []string{
		"bin/millzero train --config FILE --run DIR --generations N",
		"printf 'uci\\nquit\\n' | bin/millzero engine --classic",
		"bin/millzero bench strength --run runs/nine --json > strength.json",
		"kubectl -n millzero exec deploy/nine-millzero-trainer -- millzero status --run '...'",
	}
	for _, ok := range good {
		for _, words := range shellCommands(ok) {
			if len(words) > 1 && isMillzero(words[0]) {
				if err := checkManualCommand(manualCommand{"test", words, false}); err != nil {
					t.Errorf("%s: %v", ok, err)
				}
			}
		}
	}
}

// everyCommand is each command and subcommand with flags of its own.
func everyCommand() [][]string {
	var lines [][]string
	for name := range commands() {
		lines = append(lines, []string{name})
	}
	for _, s := range benchSpeed() {
		lines = append(lines, []string{"bench", s})
	}
	for _, s := range benchStrength() {
		lines = append(lines, []string{"bench", s})
	}
	for _, s := range []string{"build", "probe", "stats"} {
		lines = append(lines, []string{"tablebase", s})
	}
	lines = append(lines, []string{"classic", "tune"})
	return slices.DeleteFunc(lines, func(l []string) bool { return len(l) == 1 && l[0] == "tablebase" }) // its usage alone
}

func TestParseOnly_EveryCommandStopsAfterItsFlags(t *testing.T) {
	for _, args := range everyCommand() {
		fs, _, err := parseCommand(args)
		if err != nil || fs == nil {
			t.Errorf("%s: %v, flag set %v", strings.Join(args, " "), err, fs)
		}
	}
}

func TestHelp_EveryFlagShowsItsTypeAndOneDefault(t *testing.T) {
	header := regexp.MustCompile(`^  -[a-z0-9-]+( (string|int|uint|float|duration|value))?$`)
	for _, args := range everyCommand() {
		fs, _, err := parseCommand(args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var b strings.Builder
		fs.SetOutput(&b)
		fs.PrintDefaults()
		for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			switch {
			case strings.HasPrefix(line, "  -") && !header.MatchString(line):
				t.Errorf("%s --help: %q: a flag's line names its type, if any, as string, int, float, duration or value (flag.UnquoteUsage reads `backquotes` in the usage as the type)", fs.Name(), line)
			case strings.Count(line, "(default") > 1:
				t.Errorf("%s --help: %q: the default said twice", fs.Name(), line)
			}
		}
	}
}

// joinAnd is words as a sentence lists them: "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// flatText is a Markdown file's text with its lines joined, spaces
// collapsed: a sentence as one string, wherever it wraps.
func flatText(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

func TestManual_TheDefaultYardsticksAreTheCodes(t *testing.T) {
	fs, _, err := parseCommand([]string{"bench", "strength"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := runconfig.LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Strength
	var loop []string
	for _, c := range s.Classic {
		loop = append(loop, "`"+c+"`")
	}
	for _, d := range s.Depths {
		loop = append(loop, fmt.Sprintf("`alphabeta:%d`", d))
	}
	every := map[float64]string{0.25: "every quarter hour", 0.5: "every half hour", 1: "every run hour"}[s.EveryHours]
	if every == "" {
		t.Fatalf("strength.every_hours %v: give this test its words", s.EveryHours)
	}
	want := fmt.Sprintf("**The default yardsticks:** `bench strength` meets `%s` (its `--classic` default), %s pairs each at %s visits a move, "+
		"and the loop's strength rows meet %s, %d pairs each at %d visits %s.",
		fs.Lookup("classic").DefValue, fs.Lookup("pairs").DefValue, fs.Lookup("sims").DefValue, joinAnd(loop), s.Pairs, s.Simulations, every)
	for _, file := range []string{"../../README.md", "../../docs/strength-benchmark.md"} {
		if !strings.Contains(flatText(t, file), want) {
			t.Errorf("%s lacks the sentence of the code's defaults:\n%s", file, want)
		}
	}
}

func TestManual_TheDefaultConfigIsTheCodes(t *testing.T) {
	cfg, _, err := runconfig.LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	v, err := cfg.LoadVariant()
	if err != nil {
		t.Fatal(err)
	}
	hours := map[float64]string{0.5: "half an hour", 1: "one hour", 2: "two hours"}[cfg.Loop.Hours]
	if hours == "" || cfg.Loop.Generations != 0 || cfg.Loop.RunHours != 0 {
		t.Fatalf("the default's budget (hours %v, generations %d, run hours %v): give this test its words", cfg.Loop.Hours, cfg.Loop.Generations, cfg.Loop.RunHours)
	}
	text := flatText(t, "../../README.md")
	want := fmt.Sprintf("**The default config** is the embedded `configs/%s`: %s for %s into `runs/%s`, what `make train` runs.",
		runconfig.DefaultConfigName, v.Description, hours, v.Name)
	if !strings.Contains(text, want) {
		t.Errorf("README.md lacks the sentence of the default config:\n%s", want)
	}
	// make train runs the default: the train target is the binary's train with no flag.
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^train:.*\n\t\$\(BIN\) train\n`).Match(mk) {
		t.Error("the Makefile's train target is not $(BIN) train alone, as the README says")
	}
	// The other embedded configs, each named once in their sentence.
	_, rest, ok := strings.Cut(text, "The other embedded configs are ")
	sentence, _, _ := strings.Cut(rest, ".")
	named := regexp.MustCompile("`([a-z0-9-]+)`").FindAllStringSubmatch(sentence, -1)
	var got []string
	for _, m := range named {
		got = append(got, m[1])
	}
	var others []string
	for _, n := range configs.RunNames() {
		if "runs/"+n+".yaml" != runconfig.DefaultConfigName {
			others = append(others, n)
		}
	}
	slices.Sort(got)
	if !ok || !slices.Equal(got, others) {
		t.Errorf("README.md's embedded configs %v, the binary's %v", got, others)
	}
}

// anchors is the heading anchors of a Markdown file, as GitHub makes
// them: lower case, punctuation dropped but - and _, spaces as -.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if fenceRE.MatchString(line) {
			inFence = !inFence
		}
		h, ok := strings.CutPrefix(line, "#")
		if inFence || !ok {
			continue
		}
		h = strings.TrimSpace(strings.TrimLeft(h, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '’':
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}

func TestManual_EveryLinkFindsItsFileAndHeading(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, file := range manualFiles(t) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), path)
			}
			b, err := os.ReadFile(dest)
			if err != nil {
				t.Errorf("%s: link %s: %v", file, target, err)
				continue
			}
			if anchor != "" && !anchors(string(b))[anchor] {
				t.Errorf("%s: link %s: %s has no heading #%s", file, target, dest, anchor)
			}
		}
	}
}

func TestManual_SpeaksOfTheProductNotOfItsMaking(t *testing.T) {
	// Phrases of a build's history: the record says which default or
	// change a figure was measured on instead.
	banned := []string{"the target was", "not landed", "this build", "previous build", "project's machines"}
	for _, file := range manualFiles(t) {
		text := strings.ToLower(flatText(t, file))
		for _, b := range banned {
			if i := strings.Index(text, b); i >= 0 {
				t.Errorf("%s: %q in %q", file, b, text[max(0, i-60):min(len(text), i+len(b)+60)])
			}
		}
	}
}
