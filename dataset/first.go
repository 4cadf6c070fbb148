package dataset

import (
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// ShardVariant is the variant of the first game of the shard at path,
// read from its footer and first row only: a cheap check that a shard
// belongs to a run (a shard with no row is an error).
func ShardVariant(path string) (string, error) {
	sr, err := openShard(path)
	if err != nil {
		return "", fmt.Errorf("shard %s: %w", path, err)
	}
	defer sr.close()
	batch := make([]parquet.Row, 1)
	n, err := sr.read(batch)
	if err == nil && n == 0 {
		err = io.EOF
	}
	if err == io.EOF {
		return "", fmt.Errorf("shard %s: no rows", path)
	}
	if err != nil {
		return "", fmt.Errorf("shard %s: %w", path, err)
	}
	var dec decoder
	var s Sample
	if err := dec.decode(batch[0], &s); err != nil {
		return "", fmt.Errorf("shard %s row 0: %w", path, err)
	}
	return s.Variant, nil
}
