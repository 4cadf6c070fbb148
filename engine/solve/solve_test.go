package solve

import (
	"errors"
	"testing"

	"github.com/millzero/millzero/engine"
)

func solved(t *testing.T, name string) *Table {
	t.Helper()
	v, err := engine.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Solve(v)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestSolve_KnownValues are the values of the 3x3 variants in docs/rules.md,
// "Known values".
func TestSolve_KnownValues(t *testing.T) {
	cases := []struct {
		variant string
		want    engine.Result
	}{
		{"three", engine.WinFor(0)},
		{"three-nodiagonal", engine.Draw},
		{"three-cross", engine.Draw},
	}
	for _, c := range cases {
		t.Run(c.variant, func(t *testing.T) {
			tab := solved(t, c.variant)
			start := tab.Variant().Start()
			val, err := tab.Value(&start)
			if err != nil {
				t.Fatal(err)
			}
			if val.Result != c.want {
				t.Errorf("start: %s in %d plies, want %s", val.Result, val.Plies, c.want)
			}
			t.Logf("%s: %d positions; start %s in %d plies", c.variant, tab.Positions(), val.Result, val.Plies)
		})
	}
}

// TestSolve_ValuesAgreeWithTheirChildren checks every position of the
// table against the rules and its children: a win has a child won by the
// same seat one ply nearer, a loss has every child won by the opponent,
// a draw has a drawn child and none won by its mover.
func TestSolve_ValuesAgreeWithTheirChildren(t *testing.T) {
	for _, name := range []string{"three", "three-nodiagonal", "three-cross"} {
		tab := solved(t, name)
		v := tab.Variant()
		var buf [engine.MaxActions]engine.Action
		for p, i := range tab.index {
			val := Value{tab.result[i], int(tab.plies[i])}
			if r, _ := v.Outcome(&p); r != engine.Ongoing {
				if val.Result != r || val.Plies != 0 {
					t.Fatalf("%s: over (%s) but valued %+v", v.FormatPosition(&p), r, val)
				}
				continue
			}
			mover := int(p.Side)
			winsNear, drawn, allLost, maxLoss := false, false, true, 0
			for _, a := range v.Legal(&p, buf[:0]) {
				q := v.Apply(&p, a)
				cv, err := tab.Value(&q)
				if err != nil {
					t.Fatal(err)
				}
				w, won := cv.Result.Winner()
				if won && w == mover && cv.Plies == val.Plies-1 {
					winsNear = true
				}
				if won && w == mover && cv.Plies < val.Plies-1 {
					t.Fatalf("%s: valued %+v but %s wins in %d", v.FormatPosition(&p), val, v.FormatAction(a), cv.Plies+1)
				}
				if cv.Result == engine.Draw {
					drawn = true
				}
				if !won || w == mover {
					allLost = false
				} else {
					maxLoss = max(maxLoss, cv.Plies+1)
				}
			}
			w, won := val.Result.Winner()
			switch {
			case won && w == mover:
				if !winsNear {
					t.Fatalf("%s: valued a win in %d with no child to show it", v.FormatPosition(&p), val.Plies)
				}
			case won:
				if !allLost || val.Plies != maxLoss {
					t.Fatalf("%s: valued a loss in %d; all children lost %v, longest %d", v.FormatPosition(&p), val.Plies, allLost, maxLoss)
				}
			default:
				if !drawn || allLost {
					t.Fatalf("%s: valued a draw; a drawn child %v", v.FormatPosition(&p), drawn)
				}
			}
		}
	}
}

func TestBest_KeepsTheValue(t *testing.T) {
	tab := solved(t, "three")
	v := tab.Variant()
	start := v.Start()
	best, err := tab.Best(&start, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(best) == 0 {
		t.Fatal("no best action at the start")
	}
	startVal, _ := tab.Value(&start)
	for _, a := range best {
		q := v.Apply(&start, a)
		val, _ := tab.Value(&q)
		if val.Result != startVal.Result || val.Plies != startVal.Plies-1 {
			t.Errorf("best %s leads to %+v from %+v", v.FormatAction(a), val, startVal)
		}
	}
}

func TestSolve_RefusesWhatItDoesNotModel(t *testing.T) {
	for _, name := range []string{"nine", "moulin-rouge-3"} {
		v, err := engine.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Solve(v); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", name, err)
		}
	}
}

func TestValue_UnknownPositionIsAnError(t *testing.T) {
	tab := solved(t, "three")
	v := tab.Variant()
	p, err := v.ParsePosition("OOO*@@@*/* side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:9")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Value(&p); !errors.Is(err, ErrUnknownPosition) {
		t.Errorf("both lines on the board: %v, want ErrUnknownPosition", err)
	}
}

// TestBest_KeepsTheValueEverywhere: in every position of the table, the
// best actions lead to the position's value one ply nearer (or the same
// draw), and there is one whenever the game is not over.
func TestBest_KeepsTheValueEverywhere(t *testing.T) {
	tab := solved(t, "three-cross")
	v := tab.Variant()
	var buf [engine.MaxActions]engine.Action
	for p := range tab.index {
		val, _ := tab.Value(&p)
		best, err := tab.Best(&p, buf[:0])
		if err != nil {
			t.Fatal(err)
		}
		if r, _ := v.Outcome(&p); r != engine.Ongoing {
			if len(best) != 0 {
				t.Fatalf("%s: over, but best %v", v.FormatPosition(&p), best)
			}
			continue
		}
		if len(best) == 0 {
			t.Fatalf("%s: no best action", v.FormatPosition(&p))
		}
		for _, a := range best {
			q := v.Apply(&p, a)
			cv, _ := tab.Value(&q)
			if cv.Result != val.Result || (val.Result != engine.Draw && cv.Plies != val.Plies-1) {
				t.Fatalf("%s: best %s leads to %+v from %+v", v.FormatPosition(&p), v.FormatAction(a), cv, val)
			}
		}
	}
}

// TestValue_GameOverIsItsResult: a position ended by a rule the table does
// not model (here the ply cap) is valued by its result.
func TestValue_GameOverIsItsResult(t *testing.T) {
	tab := solved(t, "three")
	v := tab.Variant()
	p, err := v.ParsePosition("O*@*O*@*/* side:0 hand:1,1 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:4 over:1,9")
	if err != nil {
		t.Fatal(err)
	}
	val, err := tab.Value(&p)
	if err != nil || val.Result != engine.Draw {
		t.Errorf("value %+v, %v: want a draw", val, err)
	}
}
