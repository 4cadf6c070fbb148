package engine

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// randomGames plays n random games of v to the end, calling visit on every
// position (with its history) before each action.
func randomGames(t testing.TB, v *Variant, n int, seed uint64, visit func(g *Game)) {
	rng := rand.New(rand.NewPCG(seed, 7))
	buf := make([]Action, 0, MaxActions)
	for i := 0; i < n; i++ {
		g := NewGame(v)
		for {
			visit(g)
			if r, _ := g.Outcome(); r != Ongoing {
				break
			}
			acts := v.Legal(&g.Pos, buf)
			g.play(acts[rng.IntN(len(acts))])
		}
	}
}

func checkInvariants(t *testing.T, v *Variant, g *Game) {
	t.Helper()
	p := &g.Pos
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s after %d actions (%s): "+format, append([]any{v.Name, len(g.Actions), v.FormatPosition(p)}, args...)...)
	}
	var seen uint32
	for s := 0; s < MaxSeats; s++ {
		if seen&p.Pieces[s] != 0 || p.Pieces[s]&^v.Board.All != 0 {
			fail("pieces overlap or lie off the board")
		}
		seen |= p.Pieces[s]
		if s >= v.Players && (p.Pieces[s] != 0 || p.Hand[s] != 0) {
			fail("seat %d of %d has pieces", s, v.Players)
		}
		if p.PiecesLeft(s) > v.Pieces {
			fail("seat %d has %d pieces", s, p.PiecesLeft(s))
		}
	}
	if p.Hash != v.hash(p) {
		fail("incremental hash %x, from scratch %x", p.Hash, v.hash(p))
	}
	if int(p.Side) >= v.Players || p.Out>>p.Side&1 != 0 {
		fail("side %d to move is not a live seat", p.Side)
	}
	if p.Pending[p.Side] != 0 {
		fail("the mover owes a removal from itself")
	}
	for o := 0; o < v.Players; o++ {
		if int(p.Pending[o]) > bits.OnesCount32(v.removable(p, o)) {
			fail("seat %d owes %d removals but %d are removable", o, p.Pending[o], bits.OnesCount32(v.removable(p, o)))
		}
	}
	if p.Result == Ongoing && v.Players == 2 && !v.LineWins {
		for s := 0; s < 2; s++ {
			if p.PiecesLeft(s) < 3 {
				fail("game goes on with seat %d at %d pieces", s, p.PiecesLeft(s))
			}
		}
	}
	if p.Result == Ongoing && v.Players > 2 && !v.HasLegal(p) {
		fail("a live seat is to move with no legal action")
	}
	acts := v.Legal(p, nil)
	if (len(acts) > 0) != v.HasLegal(p) {
		fail("HasLegal disagrees with Legal (%d actions)", len(acts))
	}
	dup := map[Action]bool{}
	for _, a := range acts {
		if dup[a] {
			fail("action %s generated twice", v.FormatAction(a))
		}
		dup[a] = true
		if i := v.ActionIndex(a); i < 0 || i >= v.NumActions() || v.ActionAt(i) != a {
			fail("action %s has index %d that does not map back", v.FormatAction(a), i)
		}
		b, err := v.ParseActionSyntax(v.FormatAction(a))
		if err != nil || b != a {
			fail("action %s does not parse back: %v", v.FormatAction(a), err)
		}
	}
	q, err := v.ParsePosition(v.FormatPosition(p))
	if err != nil {
		fail("position string does not parse: %v", err)
	}
	if q != *p {
		fail("position string round trip gives %s", v.FormatPosition(&q))
	}
	if v.fenBoard() == nil {
		fen, err := v.FEN(p)
		if err != nil {
			fail("FEN: %v", err)
		}
		q, err := v.ParseFEN(fen)
		if err != nil {
			fail("FEN %q does not parse: %v", fen, err)
		}
		// FEN holds neither the exact ply, the endgame counter nor the
		// quiet count, and a result only as "game over".
		q.Ply, q.Endgame, q.Quiet, q.Result, q.Reason = p.Ply, p.Endgame, p.Quiet, p.Result, p.Reason
		if q != *p {
			fail("FEN round trip %q gives %s", fen, v.FormatPosition(&q))
		}
		if again, _ := v.FEN(&q); again != fen {
			fail("FEN %q prints back as %q", fen, again)
		}
	}
}

// Every variant plays random games to the end without an illegal state.
func TestInvariants_RandomGamesOfEveryVariant(t *testing.T) {
	games := 30
	if testing.Short() {
		games = 5
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			v := mustLoad(t, name)
			ends := map[Reason]int{}
			randomGames(t, v, games, 1, func(g *Game) {
				checkInvariants(t, v, g)
				if _, why := g.Outcome(); why != NotOver {
					ends[why]++
				}
			})
			t.Logf("%s: %d games, endings %v", name, games, ends)
		})
	}
}

// legal(sym(p)) == sym(legal(p)) for every symmetry.
func TestSymmetry_CommutesWithMoveGeneration(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			v := mustLoad(t, name)
			positions := 0
			randomGames(t, v, 4, 2, func(g *Game) {
				positions++
				if positions%3 != 0 {
					return
				}
				p := g.Pos
				legal := v.Legal(&p, nil)
				for sym := 0; sym < v.NumSymmetries(); sym++ {
					sp := v.MapPosition(sym, p)
					want := map[Action]bool{}
					for _, a := range legal {
						want[v.MapAction(sym, a)] = true
					}
					got := v.Legal(&sp, nil)
					if len(got) != len(want) {
						t.Fatalf("symmetry %d of %s: %d actions, want %d", sym, v.FormatPosition(&p), len(got), len(want))
					}
					for _, a := range got {
						if !want[a] {
							t.Fatalf("symmetry %d of %s: %s is not the image of a legal action", sym, v.FormatPosition(&p), v.FormatAction(a))
						}
					}
					// Playing commutes too.
					if len(legal) > 0 {
						a := legal[positions%len(legal)]
						x := v.Apply(&p, a)
						y := v.Apply(&sp, v.MapAction(sym, a))
						if mx := v.MapPosition(sym, x); mx != y {
							t.Fatalf("symmetry %d: apply then map differs from map then apply", sym)
						}
					}
				}
			})
		})
	}
}

func TestSymmetry_GroupIsClosedWithInverses(t *testing.T) {
	for _, name := range []string{"nine", "four-square", "three", "moulin-rouge"} {
		v := mustLoad(t, name)
		for sym := 0; sym < v.NumSymmetries(); sym++ {
			inv := v.InverseSymmetry(sym)
			for pt := 0; pt < v.Board.Points; pt++ {
				if v.MapPoint(inv, v.MapPoint(sym, pt)) != pt {
					t.Fatalf("%s: symmetry %d has no inverse", name, sym)
				}
			}
			for r := 0; r < v.Board.Rings && v.Board.Rotating; r++ {
				a := RotateRing(r, true)
				if v.MapAction(inv, v.MapAction(sym, a)) != a {
					t.Fatalf("%s: symmetry %d does not invert on rotations", name, sym)
				}
			}
		}
	}
}

func TestCanonicalSymmetry_EveryImageHasTheSameCanonicalImage(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			v := mustLoad(t, name)
			positions, moved := 0, 0
			randomGames(t, v, 3, 7, func(g *Game) {
				positions++
				if positions%4 != 0 {
					return
				}
				p := g.Pos
				c := v.CanonicalSymmetry(&p)
				want := v.MapPosition(c, p)
				if c != 0 {
					moved++
				}
				for sym := 0; sym < v.NumSymmetries(); sym++ {
					q := v.MapPosition(sym, p)
					if got := v.MapPosition(v.CanonicalSymmetry(&q), q); got != want {
						t.Fatalf("symmetry %d of %s: canonical image %s, p's is %s", sym, v.FormatPosition(&p),
							v.FormatPosition(&got), v.FormatPosition(&want))
					}
				}
			})
			if moved == 0 {
				t.Errorf("no position of %d turned to its canonical image: the identity always least?", positions/4)
			}
		})
	}
	v := mustLoad(t, "nine")
	p := NewGame(v).Pos
	if n := testing.AllocsPerRun(10, func() { v.CanonicalSymmetry(&p) }); n != 0 {
		t.Errorf("CanonicalSymmetry allocates %v times", n)
	}
}
