// Package arena plays matches between players (search over a checkpoint,
// reference players, the classical engine, external engines driven over
// the engine protocol), records every game as Parquet, rates the players
// of those records (FitElo, WriteRatings), gates a candidate against the
// best model (Gate) and measures a player against yardsticks (Strength).
//
// Two parts live in packages of their own: arena/rating, the statistics
// behind the ratings, the gate and the intervals, which knows nothing of
// records; and arena/uci, the engine protocol's server, which plays an
// arena player as an engine. Both arrows run one way: arena imports
// rating, uci imports arena.
package arena
