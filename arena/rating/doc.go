// Package rating holds the statistics that judge players by their
// results: Elo ratings fitted by maximum likelihood with error bars
// (FitElo, over games given as players and finishing places), the
// sequential probability ratio test that gates a candidate (SPRT, over
// pentanomial pair counts or rounds of 3-4 seats), the Elo interval of a
// paired match (PentaElo), and the ladder table a run keeps (CSV). It
// knows nothing of how games are played or stored: package arena turns
// its game records into these inputs.
package rating
