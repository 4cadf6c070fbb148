// Package classic is the classical engine: an iterative-deepening
// principal-variation search over the engine's actions under a time, node
// or depth budget, with a fixed-size transposition table keyed on the
// engine's Zobrist hash, move ordering (hash move, mills and blocks,
// killers, history), late-move reductions, a quiet search of pending
// removals, the repetition and draw rules in the tree, the endgame tables
// probed where they are loaded, and an evaluation that weighs features of
// a position (material, mills, threats, mobility, blocked pieces, ...)
// with one weight vector per phase of the game (Weights): the hand-written
// set the engine began with, or a set fitted to games (package tune). It
// plays the two-player variants; it allocates nothing per node once made.
package classic
