package mcts

import "github.com/millzero/millzero/engine"

// PV appends to dst the principal variation of the last search: the action
// Result.Best names at the root, then at each node below the most visited
// child, while the node has been expanded and the child visited; at most
// maxLen actions. It is empty before the root has been searched.
func (s *Search) PV(dst []engine.Action, maxLen int) []engine.Action {
	root := &s.nodes[0]
	if root.state != expanded || root.children == 0 || maxLen <= 0 {
		return dst
	}
	i := root.first + int32(s.bestChild())
	for n := 0; n < maxLen; n++ {
		c := &s.nodes[i]
		dst = append(dst, c.action)
		if c.state != expanded || c.children == 0 {
			break
		}
		best := int32(-1)
		for k := c.first; k < c.first+int32(c.children); k++ {
			if s.nodes[k].visits > 0 && (best < 0 || s.nodes[k].visits > s.nodes[best].visits) {
				best = k
			}
		}
		if best < 0 {
			break
		}
		i = best
	}
	return dst
}
