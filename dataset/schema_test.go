package dataset

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// The schema of format version 1, which readers still read (rowV1).
const schemaV1 = `message row {
	required binary variant (STRING);
	required binary game_id (STRING);
	required int32 ply (INT(32,true));
	required int32 generation (INT(32,true));
	required int32 pieces_0 (INT(32,false));
	required int32 pieces_1 (INT(32,false));
	required int32 pieces_2 (INT(32,false));
	required int32 pieces_3 (INT(32,false));
	required int32 hand_0 (INT(8,false));
	required int32 hand_1 (INT(8,false));
	required int32 hand_2 (INT(8,false));
	required int32 hand_3 (INT(8,false));
	required int32 pending_0 (INT(8,false));
	required int32 pending_1 (INT(8,false));
	required int32 pending_2 (INT(8,false));
	required int32 pending_3 (INT(8,false));
	required int32 side (INT(8,false));
	required int32 out (INT(8,false));
	required int32 last_rotation (INT(8,true));
	required int32 result (INT(8,false));
	required int32 reason (INT(8,false));
	required int32 no_capture (INT(16,false));
	required int32 endgame (INT(16,false));
	required int32 quiet (INT(16,false));
	required int32 position_ply (INT(16,false));
	required int64 hash (INT(64,false));
	required int32 repetitions (INT(32,true));
	required group policy (LIST) {
		repeated group list {
			required group element {
				required int32 action (INT(16,false));
				required float prob;
			}
		}
	}
	required float root_value;
	required int32 outcome (INT(8,true));
	required int32 simulations (INT(32,true));
	required boolean full;
}`

// The schema of format version 2: version 1's and the game's end. A change
// to row that alters it must bump FormatVersion (old shards are then
// skipped or read by their own layout, not misread) and update this.
var schemaV2 = strings.TrimSuffix(schemaV1, "}") + `	required int32 reply (INT(32,true));
	required int32 end_pieces_0 (INT(32,false));
	required int32 end_pieces_1 (INT(32,false));
	required int32 end_pieces_2 (INT(32,false));
	required int32 end_pieces_3 (INT(32,false));
	required int32 end_hand_0 (INT(8,false));
	required int32 end_hand_1 (INT(8,false));
	required int32 end_hand_2 (INT(8,false));
	required int32 end_hand_3 (INT(8,false));
	required int32 end_ply (INT(32,true));
}`

func TestSchema_ChangingItNeedsANewFormatVersion(t *testing.T) {
	if got := strings.TrimSpace(rowSchemaV1.String()); got != schemaV1 {
		t.Fatalf("the schema of format 1 changed: shards written by older builds would be skipped:\n%s", got)
	}
	if FormatVersion != "2" {
		t.Skip("pin the schema of the new format version here")
	}
	if got := strings.TrimSpace(rowSchema.String()); got != schemaV2 {
		t.Fatalf("the row schema changed without a new FormatVersion:\n%s", got)
	}
}

// A shard of format 1, written before the game's end was recorded, is
// still read, with its samples' end unknown.
func TestReadShard_FormatOneShardIsReadWithoutTheEnd(t *testing.T) {
	samples := playGames(t, "nine", 3, 5, 2, 60)
	path := filepath.Join(t.TempDir(), "v1.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[rowV1](f, parquet.KeyValueMetadata(FormatKey, formatV1))
	var r row
	for i := range samples {
		r.fromSample(&samples[i])
		old := r.rowV1
		if _, err := w.Write([]rowV1{old}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadShard(path)
	if err != nil {
		t.Fatalf("read a format 1 shard: %v", err)
	}
	if len(got) != len(samples) {
		t.Fatalf("read %d samples, wrote %d", len(got), len(samples))
	}
	for i := range got {
		want := samples[i]
		want.Reply, want.End = 0, EndInfo{}
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("sample %d: read %+v, want %+v", i, got[i], want)
		}
		if got[i].End.Known() {
			t.Fatalf("sample %d of a format 1 shard: its game's end is known", i)
		}
	}
}
