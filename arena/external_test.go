package arena

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/arena/rating"
	"github.com/millzero/millzero/engine"
)

const (
	fakeEngineEnv  = "MILLZERO_ARENA_FAKE_ENGINE"  // the fake engine's behaviour
	fakeVariantEnv = "MILLZERO_ARENA_FAKE_VARIANT" // the variant it plays
	fakeWantEnv    = "MILLZERO_ARENA_FAKE_WANT"    // the options mode sanmill wants besides the variant's
)

// fakeEngine is a tiny engine speaking the protocol, for the tests: mode
// random answers a uniformly random legal action; sanmill answers one as
// Sanmill does (`info score 0 bestmove M` on one line), but only once it
// has been sent the variant (its name and rule options) and the options fakeWantEnv names
// (NAME=VALUE, comma separated), else `bestmove (none)`; garbled answers
// something that is not an action; silent never answers go; illegal
// answers an occupied point; crash exits when asked to move; draw claims
// a draw (bestmove draw); none answers bestmove none. (The client against
// the real server is tested in package arena/uci.)
func fakeEngine(mode, variant string, in io.Reader, out io.Writer) int {
	v, err := engine.Load(variant)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 1))
	g := engine.NewGame(v)
	want := map[string]string{"Variant": v.Name}
	for _, o := range RuleValues(v) {
		want[o.Name] = o.Value
	}
	for _, o := range strings.FieldsFunc(os.Getenv(fakeWantEnv), func(r rune) bool { return r == ',' }) {
		name, value, _ := strings.Cut(o, "=")
		want[name] = value
	}
	var buf [engine.MaxActions]engine.Action
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "uci":
			fmt.Fprintln(out, "id name fake")
			fmt.Fprintln(out, "uciok")
		case "isready":
			fmt.Fprintln(out, "readyok")
		case "setoption":
			if len(f) == 5 && want[f[2]] == f[4] {
				delete(want, f[2])
			}
		case "position":
			g = engine.NewGame(v)
			if len(f) > 1 && f[1] == "fen" {
				p, err := v.ParseFEN(strings.Join(f[2:19], " "))
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					return 2
				}
				g = engine.NewGameFrom(v, p)
			}
			for i, m := range f {
				if m == "moves" {
					for _, s := range f[i+1:] {
						if err := g.PlayString(s); err != nil {
							fmt.Fprintln(os.Stderr, err)
							return 2
						}
					}
				}
			}
		case "go":
			legal := v.Legal(&g.Pos, buf[:0])
			switch mode {
			case "random":
				fmt.Fprintln(out, "info depth 1 score cp 0")
				fmt.Fprintln(out, "bestmove", v.FormatAction(legal[rng.IntN(len(legal))]))
			case "sanmill":
				if len(want) > 0 {
					fmt.Fprintf(out, "info string missing options %v\nbestmove (none)\n", want)
				} else {
					fmt.Fprintln(out, "info score 0 bestmove", v.FormatAction(legal[rng.IntN(len(legal))]))
				}
			case "garbled":
				fmt.Fprintln(out, "bestmove zz99")
			case "illegal":
				fmt.Fprintln(out, "bestmove", v.Board.Name(0)+"-"+v.Board.Name(0))
			case "crash":
				fmt.Fprintln(os.Stderr, "fake engine: crashing as asked")
				return 3
			case "silent":
			case "draw":
				fmt.Fprintln(out, "bestmove draw")
			case "none":
				fmt.Fprintln(out, "info string nothing to play\nbestmove none")
			}
		case "quit":
			return 0
		}
	}
	return 0
}

func fake(mode string) *External {
	return &External{Label: "fake-" + mode, Path: os.Args[0],
		Env:      []string{fakeEngineEnv + "=" + mode, fakeVariantEnv + "=nine"},
		MoveTime: 20 * time.Millisecond, Grace: 300 * time.Millisecond, Startup: 5 * time.Second}
}

func TestExternal_PlaysWholeGamesOverTheProtocol(t *testing.T) {
	v := loadVariant(t, "nine")
	for _, fen := range []bool{false, true} {
		e := fake("random")
		e.FEN = fen
		m := Match{Variant: v, A: e, B: Random{}, Pairs: 2, OpeningPlies: 2, Seed: 5, Workers: 2}
		recs, err := m.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 4 {
			t.Fatalf("fen %v: %d games, want 4", fen, len(recs))
		}
		for _, r := range recs {
			if r.Forfeit >= 0 || strings.HasPrefix(r.Reason, "forfeit") {
				t.Errorf("fen %v: pair %d game %d forfeited: %s", fen, r.Pair, r.Game, r.Reason)
			}
			if r.Plies <= r.Opening {
				t.Errorf("fen %v: %d plies after a %d-ply opening: the players did not play", fen, r.Plies, r.Opening)
			}
		}
	}
}

func TestExternal_SendsTheVariantsOptionsAndReadsBestmoveAnywhere(t *testing.T) {
	// Before: no options were sent but those given, and only a line that
	// began with bestmove was read.
	for _, name := range []string{"twelve", "three"} {
		v := loadVariant(t, name)
		p, err := ParsePlayer("engine:"+os.Args[0]+" --option Hash=64 --option=SkillLevel=3", v, DefaultSpecSettings())
		if err != nil {
			t.Fatal(err)
		}
		e := p.(*External)
		e.Env = []string{fakeEngineEnv + "=sanmill", fakeVariantEnv + "=" + name, fakeWantEnv + "=Hash=64,SkillLevel=3"}
		e.MoveTime, e.Grace = 20*time.Millisecond, 2*time.Second
		gp, err := e.NewGame(v, 0)
		if err != nil {
			t.Fatal(err)
		}
		g := engine.NewGame(v)
		for i := 0; i < 4; i++ {
			a, err := gp.Act(context.Background(), g)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := g.Play(a); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if err := gp.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestExternal_BadAnswersForfeitWithAClearReason(t *testing.T) {
	v := loadVariant(t, "nine")
	tests := []struct{ mode, reason string }{
		{"garbled", `answered "bestmove zz99"`},
		{"illegal", "illegal action"},
		{"crash", "exited before answering"},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			m := Match{Variant: v, A: fake(tc.mode), B: Random{}, Pairs: 1, OpeningPlies: 2, Seed: 6, Workers: 2}
			recs, err := m.Run(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				seat := int8(0)
				if r.Player1 == m.A.Name() {
					seat = 1
				}
				if r.Forfeit != seat || r.Winner != 1-seat {
					t.Errorf("game %d: forfeit %d winner %d, want seat %d to forfeit and lose", r.Game, r.Forfeit, r.Winner, seat)
				}
				if !strings.Contains(r.Reason, tc.reason) || !strings.Contains(r.Reason, m.A.Name()) {
					t.Errorf("game %d: reason %q, want it to name the engine and say %q", r.Game, r.Reason, tc.reason)
				}
				t.Log(r.Reason)
			}
		})
	}
}

func TestExternal_StartFailuresAreErrors(t *testing.T) {
	v := loadVariant(t, "nine")
	tests := []struct {
		name string
		e    *External
		want string
	}{
		{"missing program", &External{Path: "/nonexistent/engine"}, "start"},
		{"no handshake", &External{Path: "/bin/cat", Startup: 200 * time.Millisecond}, "no uciok within"},
		{"exits at once", &External{Path: "/bin/true"}, "exited before"},
		{"FEN on a board without one", &External{Path: os.Args[0], FEN: true}, "FEN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vv := v
			if tc.e.FEN {
				vv = loadVariant(t, "three")
			}
			gp, err := tc.e.NewGame(vv, 0)
			if err == nil {
				gp.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestExternal_CancelStopsTheWait(t *testing.T) {
	v := loadVariant(t, "nine")
	e := fake("silent")
	e.MoveTime = time.Hour
	gp, err := e.NewGame(v, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer gp.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = gp.Act(ctx, engine.NewGame(v))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the context's", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Act returned after %s", el)
	}
}

func TestExternal_DrawClaimsNoMoveAndTimeoutsAreUnfinishedAndUnscored(t *testing.T) {
	// Before: each was a forfeit, a loss in the score and the Elo.
	v := loadVariant(t, "nine")
	tests := []struct{ mode, kind, reason string }{
		{"draw", UnfinishedDrawClaim, `answered "bestmove draw"`},
		{"none", UnfinishedNoMove, `answered "bestmove none"`},
		{"silent", UnfinishedTimeout, "no bestmove within"},
	}
	var all []Record
	for _, tc := range tests {
		m := Match{Variant: v, A: fake(tc.mode), B: Random{}, Pairs: 1, OpeningPlies: 2, Seed: 6, Workers: 2}
		recs, err := m.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 2 {
			t.Fatalf("%s: %d games, want 2", tc.mode, len(recs))
		}
		for _, r := range recs {
			if r.Unfinished != tc.kind || r.Winner != -1 || r.Forfeit != -1 || r.ResultString() != "*" {
				t.Errorf("%s game %d: unfinished %q winner %d forfeit %d result %s, want %q, no winner, no forfeit, *",
					tc.mode, r.Game, r.Unfinished, r.Winner, r.Forfeit, r.ResultString(), tc.kind)
			}
			if !strings.Contains(r.Reason, tc.reason) || !strings.Contains(r.Reason, m.A.Name()) {
				t.Errorf("%s game %d: reason %q, want it to name the engine and say %q", tc.mode, r.Game, r.Reason, tc.reason)
			}
		}
		all = append(all, recs...)
	}
	u := CountUnfinished(all)
	if u != (Unfinisheds{DrawClaims: 2, NoMoves: 2, Timeouts: 2}) || u.String() != "unfinished: 6 (draw claims 2, no move 2, timeouts 2)" {
		t.Errorf("count %+v, %q", u, u)
	}
	// One finished pair beside them: the score and the Elo are that pair's alone.
	won := []Record{
		{Match: "m", Pair: 9, Game: 0, Player0: "fake-draw", Player1: RandomName, Winner: 0, Forfeit: -1},
		{Match: "m", Pair: 9, Game: 1, Player0: RandomName, Player1: "fake-draw", Winner: -1, Forfeit: -1},
	}
	row := StrengthOf("fake-draw", RandomName, append(append([]Record(nil), all...), won...))
	if row.Games != 2 || row.Unfinished != 2 || row.Wins != 1 || row.Draws != 1 || row.Losses != 0 || row.Penta.Pairs() != 1 {
		t.Errorf("strength: %+v, want 2 games (a win, a draw, one pair) and 2 unfinished apart", row)
	}
	ratings, err := FitElo(append(append([]Record(nil), all...), won...), rating.DefaultEloSettings())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ratings {
		if r.Games != 2 && (r.Name == "fake-draw" || r.Name == RandomName) {
			t.Errorf("elo: %s rated on %d games, want the 2 finished", r.Name, r.Games)
		}
		if r.Name == "fake-none" || r.Name == "fake-silent" {
			t.Errorf("elo: %s rated, but it finished no game", r.Name)
		}
	}
	tally := NewTally("fake-draw")
	for i := range all[:2] {
		if tally.Add(&all[i]) {
			t.Error("tally: a pair of unfinished games completed a pair")
		}
	}
	if tally.Penta.Pairs() != 0 {
		t.Errorf("tally: %d pairs, want none", tally.Penta.Pairs())
	}
	dir := t.TempDir()
	path, err := WriteRecords(dir, "unfinished", all)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	if CountUnfinished(back) != u {
		t.Errorf("read back: %+v, want %+v", CountUnfinished(back), u)
	}
}
