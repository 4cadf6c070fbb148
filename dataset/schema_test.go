package dataset

import (
	"strings"
	"testing"
)

// The schema of format version 1. A change to row that alters it must bump
// FormatVersion (old shards are then skipped, not misread) and update this.
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

func TestSchema_ChangingItNeedsANewFormatVersion(t *testing.T) {
	if FormatVersion != "1" {
		t.Skip("pin the schema of the new format version here")
	}
	if got := strings.TrimSpace(rowSchema.String()); got != schemaV1 {
		t.Fatalf("the row schema changed without a new FormatVersion:\n%s", got)
	}
}

func TestValidate_AcceptsEveryPlayedPosition(t *testing.T) {
	for _, name := range []string{"nine", "twelve", "three-cross", "moulin-rouge-4"} {
		samples := playGames(t, name, 2, 31, 0, 200)
		w, err := NewShardWriter(t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(samples...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w.Abort()
	}
}
