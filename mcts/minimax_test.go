package mcts

import (
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

// After a search with the minimax backup on, every expanded node holds
// the minimax of the child best for its seat to move, over the children
// visited or known exactly, and every visited terminal node its score.
func TestMinimax_EveryNodeHoldsItsBestChildForItsMover(t *testing.T) {
	v := load(t, "nine")
	set := testSettings(300)
	set.MinimaxWeight = 0.5
	for gi, g := range randomPositions(v, 6, 11) {
		for _, root := range []string{RootPUCT, RootGumbel} {
			set.Root = root
			s := newSearch(t, v, set, uint64(gi))
			s.SetGame(g)
			if err := s.Run(rollouts(t, v, 1, uint64(gi))); err != nil {
				t.Fatal(err)
			}
			checked := 0
			var walk func(i int32, p engine.Position)
			walk = func(i int32, p engine.Position) {
				n := &s.nodes[i]
				if n.state == terminal && n.visits > 0 {
					want := s.score16(n.result)
					if n.minimax != want {
						t.Fatalf("position %d, %s root: terminal node %d (%s): minimax %v, want its score %v", gi, root, i, n.result, n.minimax, want)
					}
				}
				if n.state != expanded || n.result != engine.Ongoing {
					return
				}
				seat := int(p.Side)
				var best [2]uint16
				found := false
				for k := n.first; k < n.first+int32(n.children); k++ {
					c := &s.nodes[k]
					var val [2]uint16
					switch {
					case c.state == terminal:
						val = s.score16(c.result)
					case c.visits > 0:
						val = c.minimax
					default:
						continue
					}
					if !found || val[seat] > best[seat] {
						best, found = val, true
					}
				}
				if found {
					checked++
					if n.minimax != best {
						t.Fatalf("position %d, %s root: node %d, seat %d to move: minimax %v, want its best child's %v", gi, root, i, seat, n.minimax, best)
					}
				}
				for k := n.first; k < n.first+int32(n.children); k++ {
					walk(k, s.v.Apply(&p, s.nodes[k].action))
				}
			}
			walk(0, s.rootPos)
			if m := s.nodes[0].minimax; int(m[0])+int(m[1]) < score16One-2 || int(m[0])+int(m[1]) > score16One+2 {
				t.Fatalf("position %d, %s root: the root's minimax %v: want two seats' scores summing to 1", gi, root, m)
			}
			if checked < 10 {
				t.Fatalf("position %d, %s root: only %d nodes with visited children", gi, root, checked)
			}
		}
	}
}

// The two-player positions where one action wins only past a ply where
// the same seat acts again are found with the minimax backup too.
func TestMinimax_FindsTheOnlyGoodAction(t *testing.T) {
	for _, c := range mustFind {
		v := load(t, c.variant)
		if v.Players != 2 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			p := parse(t, v, c.pos)
			want := action(t, v, &p, c.want)
			for seed := uint64(1); seed <= 3; seed++ {
				set := testSettings(800)
				set.MinimaxWeight = 0.5
				s := newSearch(t, v, set, seed)
				s.SetRoot(p, nil)
				if err := s.Run(rollouts(t, v, 1, seed)); err != nil {
					t.Fatal(err)
				}
				if res := s.Result(); res.Best != want {
					t.Errorf("seed %d: best %s, want %s (visits %v)", seed, v.FormatAction(res.Best), c.want, visitsString(v, res))
				}
			}
		})
	}
}

func TestMinimax_RefusedWithMoreThanTwoPlayers(t *testing.T) {
	set := testSettings(10)
	set.MinimaxWeight = 0.3
	_, err := NewSearch(load(t, "moulin-rouge-3"), set, 1)
	if err == nil || !strings.Contains(err.Error(), "minimax_weight") {
		t.Fatalf("NewSearch with three players and minimax_weight 0.3 = %v; want an error naming minimax_weight", err)
	}
	set.MinimaxWeight = 1.5
	if err := set.Validate(); err == nil || !strings.Contains(err.Error(), "minimax_weight 1.5") {
		t.Fatalf("Validate of minimax_weight 1.5 = %v; want an error naming it", err)
	}
}
