package arena

import (
	"strconv"
	"strings"

	"github.com/millzero/millzero/engine"
)

// Places is the finishing order of a game of 3-4 seats: each seat's place
// from 1, and the winning seat (-1 when no seat is alone in first place).
// The seats still in at the end come first (the winner alone, or all of
// them together in a draw), then the eliminated seats, the later a seat
// went out the better its place; seats that went out on the same action
// share a place, as do the seats still in at a draw (competition ranking:
// 1, 2, 2, 4). A seat that forfeited (forfeit >= 0) is out at the end of
// the game, behind every seat still in; if that leaves one seat in, it
// wins. The elimination order comes from replaying g's actions from the
// start.
func Places(g *engine.Game, forfeit int) (places []int, winner int) {
	v := g.V
	n := v.Players
	out := make([]int, n) // the ply after which each seat was out; len(g.Actions)+1 for seats still in
	for s := range out {
		out[s] = len(g.Actions) + 1
	}
	p := v.Start()
	mark := func(ply int) {
		for s := 0; s < n; s++ {
			if p.Out>>s&1 != 0 && out[s] > len(g.Actions) {
				out[s] = ply
			}
		}
	}
	for i, a := range g.Actions {
		p = v.Apply(&p, a)
		mark(i + 1)
	}
	r, _ := g.Outcome()
	winner = -1
	if w, ok := r.Winner(); ok && forfeit < 0 {
		winner = w
		for s := range out {
			if s != w && out[s] > len(g.Actions) {
				out[s] = len(g.Actions) // the others end behind the winner
			}
		}
	}
	if forfeit >= 0 && forfeit < n {
		out[forfeit] = len(g.Actions)
		in := -1
		for s := range out {
			if out[s] > len(g.Actions) {
				if in >= 0 {
					in = -2
					break
				}
				in = s
			}
		}
		if in >= 0 {
			winner = in
		}
	}
	places = make([]int, n)
	for s := range places {
		places[s] = 1
		for o := range out {
			if out[o] > out[s] {
				places[s]++
			}
		}
	}
	return places, winner
}

// FormatPlaces is places as Record.Places holds them: space separated,
// seat 0's first.
func FormatPlaces(places []int) string {
	f := make([]string, len(places))
	for i, p := range places {
		f[i] = strconv.Itoa(p)
	}
	return strings.Join(f, " ")
}
