// Package tune fits the classical engine's evaluation weights to the
// outcomes of games: a logistic regression of each position's result
// for its side to move on the evaluation's features (a Texel fit), by
// Newton's method, one weight vector per phase. Its positions come from
// self-play shards, arena records and the endgame tables' exact values;
// whole games are held out to measure the fit.
package tune
