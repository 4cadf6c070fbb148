// Package arena plays matches between players (search over a checkpoint,
// reference players, external engines), records every game as Parquet,
// rates the players of those records (FitElo, WriteRatings), gates a
// candidate against the best model (Gate) and measures a player against
// yardsticks (Strength). The statistics behind the ratings, the gate and
// the intervals live in arena/rating, which knows nothing of records.
package arena
