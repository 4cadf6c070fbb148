// Package dataset stores self-play positions as Parquet shards and streams
// them back for training. A shard is one file of whole games, written to a
// temporary name and renamed when complete, under games/gen-NNNNNN/ of a run;
// any Parquet tool reads it (one row per position: raw state, sparse policy,
// value targets). OpenWindow streams the most recent samples with a shuffle
// buffer, random board symmetries and a train/validation split by game.
package dataset
