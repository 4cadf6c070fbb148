// Package bench holds millzero's benchmark harnesses: the speed of the
// engine, the search, the network and self-play; a model's strength
// against fixed yardsticks, its agreement with exact play (the oracle),
// and a run's progress over its hours. The bench and oracle commands wire
// them to flags and print what they measure.
//
// The diagnosis of where a player's moves lose value (Diagnose, in
// diagnose.go) and the policy targets' judged run share one judge, the
// classical engine searching each action (judge.go).
package bench
