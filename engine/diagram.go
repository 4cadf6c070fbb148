package engine

import (
	"fmt"
	"strings"
)

// Diagram draws p as text: the board's points and lines, the pieces (O @ X
// # for seats 0..3, + for an empty point), coordinates round the edge, and
// a line saying who is to act and what each seat holds.
func (v *Variant) Diagram(p *Position) string {
	b := v.Board
	w, h := 4*(b.Size-1)+1, 2*(b.Size-1)+1
	canvas := make([][]byte, h)
	for i := range canvas {
		canvas[i] = []byte(strings.Repeat(" ", w))
	}
	col := func(pt int) int { return 4 * b.X[pt] }
	row := func(pt int) int { return 2 * (b.Size - 1 - b.Y[pt]) }
	for pt := 0; pt < b.Points; pt++ {
		for q := pt + 1; q < b.Points; q++ {
			if b.Adjacent[pt]>>q&1 != 0 {
				drawEdge(canvas, col(pt), row(pt), col(q), row(q))
			}
		}
	}
	for pt := 0; pt < b.Points; pt++ {
		c := byte('+')
		if o := p.Owner(pt); o >= 0 {
			c = SeatChars[o]
		}
		canvas[row(pt)][col(pt)] = c
	}
	var sb strings.Builder
	for i, line := range canvas {
		label := "  "
		if i%2 == 0 && !b.Rotating {
			label = fmt.Sprintf("%d ", b.Size-i/2)
		}
		sb.WriteString(label + " " + strings.TrimRight(string(line), " ") + "\n")
	}
	if b.Rotating {
		sb.WriteString("   spokes a..h clockwise from the top-left; rings 1 (outer) to 3\n")
	} else {
		files := "   "
		for x := 0; x < b.Size; x++ {
			files += fmt.Sprintf("%-4c", 'a'+x)
		}
		sb.WriteString(strings.TrimRight(files, " ") + "\n")
	}
	sb.WriteString(v.statusLine(p))
	return sb.String()
}

// drawEdge draws the segment between two points of the canvas: - along a
// row, | along a column, / or \ along a diagonal.
func drawEdge(c [][]byte, x0, y0, x1, y1 int) {
	dx, dy := sign(x1-x0), sign(y1-y0)
	ch := byte('-')
	switch {
	case dx == 0:
		ch = '|'
	case dy != 0 && dx == dy:
		ch = '\\'
	case dy != 0:
		ch = '/'
	}
	if dx != 0 && dy != 0 {
		// One diagonal step of the grid: a single mark half way.
		c[(y0+y1)/2][(x0+x1)/2] = ch
		return
	}
	for x, y := x0+dx, y0+dy; x != x1 || y != y1; x, y = x+dx, y+dy {
		if c[y][x] == ' ' {
			c[y][x] = ch
		}
	}
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func (v *Variant) statusLine(p *Position) string {
	var sb strings.Builder
	for s := 0; s < v.Players; s++ {
		fmt.Fprintf(&sb, "%c: %d on board, %d in hand", SeatChars[s], p.PiecesLeft(s)-int(p.Hand[s]), p.Hand[s])
		if p.Out>>s&1 != 0 {
			sb.WriteString(" (out)")
		}
		sb.WriteString("; ")
	}
	if r, why := v.Outcome(p); r != Ongoing {
		fmt.Fprintf(&sb, "game over: %s (%s)\n", r, why)
		return sb.String()
	}
	act := "to move"
	if p.Removing() {
		act = "to remove a piece"
	}
	fmt.Fprintf(&sb, "%c %s\n", SeatChars[p.Side], act)
	return sb.String()
}
