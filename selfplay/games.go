package selfplay

import (
	"fmt"
	"strconv"

	"github.com/millzero/millzero/dataset"
)

// GamesKey is the shard metadata key that holds the number of games in
// the shard, so a resumed run counts what it has without reading rows.
const GamesKey = "games"

// ModelKey is the shard metadata key that holds the generation of the
// model that played the shard's games (0: rollouts, no model).
const ModelKey = "model_generation"

// CountGames is the number of games in the complete shards of a
// generation directory. Unreadable shards are an error naming the file:
// the caller decides whether to go on.
func CountGames(genDir string) (int, error) {
	shards, err := dataset.ShardFiles(genDir)
	if err != nil {
		return 0, fmt.Errorf("count games: %w", err)
	}
	total := 0
	for _, sh := range shards {
		n, err := ShardGames(sh.Path)
		if err != nil {
			return 0, fmt.Errorf("count games: shard %s: %w", sh.Path, err)
		}
		total += n
	}
	return total, nil
}

// ShardGames is the number of games in the shard at path, from its
// metadata.
func ShardGames(path string) (int, error) {
	info, err := dataset.Inspect(path)
	if err != nil {
		return 0, err
	}
	return GamesIn(info)
}

// GamesIn is the number of games of a shard whose footer says info
// (dataset.Inspect, dataset.InspectAt).
func GamesIn(info dataset.ShardInfo) (int, error) {
	s, ok := info.Metadata[GamesKey]
	if !ok {
		return 0, fmt.Errorf("no %q key in its metadata", GamesKey)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("metadata %s=%q is not a count", GamesKey, s)
	}
	return n, nil
}
