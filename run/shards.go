package run

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/selfplay"
)

// shardCheck is the verdict on one shard file of a given size: its games,
// or why it is skipped.
type shardCheck struct {
	size  int64
	games int
	err   error
}

// shardChecks remembers the verdict on each shard of the generation a
// loop counts last, so a shard is read once (and a bad one reported once)
// while its generation is played; counting another generation forgets
// them (a run lasts days).
type shardChecks map[string]shardCheck

// count is the number of games in the good shards of genDir, a
// generation's directory of a run of variant. A shard that cannot be read
// whole (truncated, corrupt, not a shard) or that holds a game of another
// variant is skipped and reported on log, once: it never stops the run,
// and its games are played again.
func (c shardChecks) count(genDir, variant string, log *slog.Logger) (int, error) {
	shards, err := dataset.ShardFiles(genDir)
	if err != nil {
		return 0, fmt.Errorf("count games: %w", err)
	}
	for path := range c {
		if filepath.Dir(path) != filepath.Clean(genDir) {
			delete(c, path)
		}
	}
	total := 0
	for _, sh := range shards {
		v, ok := c[sh.Path]
		if !ok || v.size != sh.Size {
			v = shardCheck{size: sh.Size}
			v.games, v.err = checkShard(sh.Path, variant)
			c[sh.Path] = v
			if v.err != nil {
				log.Warn("skipping shard: its games are played again", "path", sh.Path, "err", v.err)
			}
		}
		if v.err == nil {
			total += v.games
		}
	}
	return total, nil
}

// checkShard returns the games of the shard at path from its footer and
// first row: an error when it is not a complete shard (a truncated file
// has no footer) or holds games of another variant. The rows are checked
// as training reads them (dataset.Window skips a shard with a bad row).
func checkShard(path, variant string) (int, error) {
	n, err := selfplay.ShardGames(path)
	if err != nil {
		return 0, err
	}
	got, err := dataset.ShardVariant(path)
	if err != nil {
		return 0, err
	}
	if got != variant {
		return 0, fmt.Errorf("a game of %q in a run of %q", got, variant)
	}
	return n, nil
}
