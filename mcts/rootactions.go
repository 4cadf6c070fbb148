package mcts

import (
	"slices"

	"github.com/millzero/millzero/engine"
)

// SetRootActions restricts the root of the tree to actions (a protocol's
// `go searchmoves`): the root is expanded with only those of its legal
// actions, so selection, the result, the principal variation and Choose
// see no other. Actions not legal at the root are ignored; when none is
// legal, or actions is empty, the root keeps every legal action. A
// different restriction than the tree was grown under discards the tree
// (the root must be expanded again). The restriction belongs to the
// current root: SetRoot, SetGame and Advance lift it.
func (s *Search) SetRootActions(actions []engine.Action) {
	if slices.Equal(actions, s.rootOnly) {
		return
	}
	s.rootOnly = append(s.rootOnly[:0], actions...)
	if s.nodes[0].state != fresh {
		s.resetTree()
	}
}

// restrictRoot keeps of the root's legal actions those SetRootActions
// named, in the engine's order, filtering legal in place; all of them
// when it named none that is legal.
func (s *Search) restrictRoot(legal []engine.Action) []engine.Action {
	n := 0
	for _, a := range legal {
		if slices.Contains(s.rootOnly, a) {
			n++
		}
	}
	if n == 0 {
		return legal
	}
	n = 0
	for _, a := range legal {
		if slices.Contains(s.rootOnly, a) {
			legal[n] = a
			n++
		}
	}
	return legal[:n]
}
