// Package uci is the engine protocol's server: it plays an arena player
// (a model's search, the classical engine, any other) as an engine over
// the UCI-style text protocol of Sanmill on a reader and a writer, for
// `millzero engine`, match runners and GUIs (docs/engine-protocol.md). It
// holds the server's options (EngineOptions), the time manager, the info
// and wdl lines, and the parsing of position commands.
//
// The client side, the player that drives an engine in another process
// over the same protocol, is arena.External: the arena's player specs
// build it (engine:PATH), so it lives with the other players, as does the
// table of rule options both sides send (arena.RuleValues).
package uci
