// Package arena plays matches between players (search over a checkpoint,
// reference players, external engines), records every game as Parquet, fits
// Elo ratings by maximum likelihood with error bars, and gates a candidate
// against the best model with a sequential probability ratio test.
package arena
