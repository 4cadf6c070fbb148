package engine

import (
	"slices"
	"strings"
	"testing"
)

// A position built by Placed from the board of a game in its moving phase
// is that position: the same hash, legal actions and outcome.
func TestPlaced_IsThePositionAGameReaches(t *testing.T) {
	for _, name := range []string{"nine", "twelve", "morabaraba", "moulin-rouge"} {
		t.Run(name, func(t *testing.T) {
			v := mustLoad(t, name)
			if v.Players != 2 {
				t.Skipf("%s has %d players", name, v.Players)
			}
			checked := 0
			bufA, bufB := make([]Action, 0, MaxActions), make([]Action, 0, MaxActions)
			randomGames(t, v, 20, 3, func(g *Game) {
				p := &g.Pos
				// A game over by a draw rule's counter is not a placed
				// position: those counters start at zero.
				if p.Hand[0]+p.Hand[1] != 0 || p.Removing() || p.LastRotation != NoRotation || p.Result != Ongoing {
					return
				}
				q, err := v.Placed([2]uint32{p.Pieces[0], p.Pieces[1]}, int(p.Side), int(p.Ply))
				if err != nil {
					t.Fatalf("Placed of a reached position: %v", err)
				}
				checked++
				if q.Hash != p.Hash {
					t.Fatalf("ply %d: hash %#x, the game's %#x", p.Ply, q.Hash, p.Hash)
				}
				if a, b := v.Legal(&q, bufA), v.Legal(p, bufB); !slices.Equal(a, b) {
					t.Fatalf("ply %d: legal %v, the game's %v", p.Ply, a, b)
				}
				if a, b := fmtOutcome(v, &q), fmtOutcome(v, p); a != b {
					t.Fatalf("ply %d: outcome %s, the game's %s", p.Ply, a, b)
				}
			})
			if checked == 0 {
				t.Fatalf("no random game of %s reached the moving phase", name)
			}
		})
	}
}

func TestPlaced_BadArgumentsAreErrors(t *testing.T) {
	v := mustLoad(t, "nine")
	for _, tc := range []struct {
		pieces    [2]uint32
		side, ply int
		want      string
	}{
		{[2]uint32{0b11, 0b10}, 0, 40, "share points"},
		{[2]uint32{1 << 30, 0b10}, 0, 40, "off the board"},
		{[2]uint32{0x3ff, 0x3ff << 10}, 0, 40, "a seat has 9"},
		{[2]uint32{0b111, 0b111000}, 2, 40, "side 2"},
		{[2]uint32{0b111, 0b111000}, 0, -1, "ply -1"},
	} {
		if _, err := v.Placed(tc.pieces, tc.side, tc.ply); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Placed(%#x, %d, %d): %v, want an error naming %q", tc.pieces, tc.side, tc.ply, err, tc.want)
		}
	}
	// Too few pieces is no error: the game is over, as Apply would say.
	p, err := v.Placed([2]uint32{0b11, 0b111000}, 0, 40)
	if err != nil || p.Result != WinFor(1) {
		t.Errorf("Placed with 2 pieces against 3: %v, result %v, want a win for seat 1", err, p.Result)
	}
}

func fmtOutcome(v *Variant, p *Position) string {
	r, why := v.Outcome(p)
	return r.String() + " " + why.String()
}
