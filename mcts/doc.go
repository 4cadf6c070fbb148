// Package mcts turns an evaluator (a network, or random rollouts) into a
// player: a batched PUCT tree search over engine positions that backs up a
// value per seat, so it is right when one seat acts twice in a row (a mill,
// then its removal) and with three or four seats. Many searches (games) run
// in one Pool, which gathers their leaves into one Evaluate call. The root
// is PUCT's, or Gumbel MuZero's sequential halving with the improved-policy
// target (Settings.Root, gumbel.go); a PUCT root may force playouts and
// prune them from the policy target, as KataGo (forced.go).
package mcts
