// Package tablebase builds and probes endgame tablebases for the Mill
// games on the square boards: for every material of w against b pieces on
// the board, none in hand, the value of every position with perfect play
// (win, draw or loss for the side to move) and its distance to the next
// capture or the end of the game, exact under the variant's no-capture and
// 3 v 3 draw rules.
//
// Tables are built by retrograde analysis, each material from the
// materials its captures lead to. A position is indexed by the mover's
// set of points in its canonical form under the board's symmetries and
// the opponent's set ranked among the points left; one file per material
// holds 1 or 2 bytes per index. The distance stored is the number of quiet
// plies (those the no-capture counter counts) the win needs, with the
// positions whose win needs more than the rule allows after a capture
// stored as draws; a probe compares it with the plies the position's own
// counters leave, as Syzygy's tables do for chess's fifty-move rule.
package tablebase
