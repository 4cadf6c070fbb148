package engine

import (
	"fmt"
	"io"
	"time"
)

// WritePerft prints the perft of g's position at every depth from 1 to
// depth, then the time and the speed of them all.
func (g *Game) WritePerft(out io.Writer, depth int) {
	var total uint64
	start := time.Now()
	for d := 1; d <= depth; d++ {
		n := g.V.Perft(&g.Pos, d, g.Hashes)
		total += n
		fmt.Fprintf(out, "perft(%d) = %d\n", d, n)
	}
	el := time.Since(start)
	fmt.Fprintf(out, "time %.3fs, %.1f million nodes/s (all depths)\n", el.Seconds(), float64(total)/el.Seconds()/1e6)
}

// WritePerftDivide prints each legal action of g's position with its
// perft count at depth, then their total, its time and speed.
func (g *Game) WritePerftDivide(out io.Writer, depth int) {
	start := time.Now()
	actions, counts := g.V.PerftDivide(&g.Pos, depth, g.Hashes)
	var total uint64
	for i, a := range actions {
		fmt.Fprintf(out, "%s: %d\n", g.V.FormatAction(a), counts[i])
		total += counts[i]
	}
	el := time.Since(start)
	fmt.Fprintf(out, "perft(%d) = %d\n", depth, total)
	fmt.Fprintf(out, "time %.3fs, %.1f million nodes/s\n", el.Seconds(), float64(total)/el.Seconds()/1e6)
}

// Perft counts the positions reachable from p in exactly depth actions,
// making every action in full (ApplyTo: Apply's copy-make) at every node,
// the leaves included. A position where the game is over has no children,
// so it adds nothing at greater depths. history holds the hashes of the
// positions before p (for repetition draws); it may be nil.
func (v *Variant) Perft(p *Position, depth int, history []uint64) uint64 {
	if depth == 0 {
		return 1
	}
	pf := perfter{v: v, bufs: make([][MaxActions]Action, depth), kids: make([]Position, depth)}
	pf.hist = append(make([]uint64, 0, len(history)+depth+1), history...)
	return pf.count(p, depth)
}

// PerftDivide returns, for each legal action of p, the perft count of the
// position after it at depth-1.
func (v *Variant) PerftDivide(p *Position, depth int, history []uint64) ([]Action, []uint64) {
	if depth < 1 {
		return nil, nil
	}
	actions := v.Legal(p, make([]Action, 0, MaxActions))
	if v.repeated(p, history) {
		actions = actions[:0]
	}
	counts := make([]uint64, len(actions))
	hist := append(append(make([]uint64, 0, len(history)+1), history...), p.Hash)
	for i, a := range actions {
		q := v.Apply(p, a)
		counts[i] = v.Perft(&q, depth-1, hist)
	}
	return actions, counts
}

type perfter struct {
	v    *Variant
	bufs [][MaxActions]Action
	kids []Position // the child being searched at each depth, so none escapes to the heap
	hist []uint64
	sink uint64
}

func (pf *perfter) count(p *Position, depth int) uint64 {
	v := pf.v
	if v.repeated(p, pf.hist) {
		return 0
	}
	actions := v.Legal(p, pf.bufs[depth-1][:0])
	q := &pf.kids[depth-1]
	if depth == 1 {
		sink := pf.sink
		for _, a := range actions {
			v.ApplyTo(q, p, a)
			sink ^= q.Hash // the leaf is made in full, and used
		}
		pf.sink = sink
		return uint64(len(actions))
	}
	var n uint64
	pf.hist = append(pf.hist, p.Hash)
	for _, a := range actions {
		v.ApplyTo(q, p, a)
		n += pf.count(q, depth-1)
	}
	pf.hist = pf.hist[:len(pf.hist)-1]
	return n
}
