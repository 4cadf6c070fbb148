package dataset

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// duckDir holds the pinned DuckDB client; `npm install --prefix
// dataset/testdata/duckdb` installs it.
const duckDir = "testdata/duckdb"

// needExternal skips a test whose tool is missing, unless
// MILLZERO_EXTERNAL_TESTS=1 (make test) says the tools must be there.
func needExternal(t *testing.T, missing string) {
	t.Helper()
	if os.Getenv("MILLZERO_EXTERNAL_TESTS") == "1" {
		t.Fatalf("%s; MILLZERO_EXTERNAL_TESTS=1 requires it (install: npm install --prefix dataset/testdata/duckdb --no-audit --no-fund)", missing)
	}
	t.Skipf("%s; this test needs node and DuckDB's client: npm install --prefix dataset/testdata/duckdb --no-audit --no-fund (make setup)", missing)
}

func TestDuckDB_ReadsAShardWithTheValuesWritten(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		needExternal(t, "node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(duckDir, "node_modules", "@duckdb", "node-api")); err != nil {
		needExternal(t, "DuckDB's node client is not installed in "+duckDir)
	}
	// A 3-player ring-board game, so the policy holds rotations and the
	// third seat's bitboard is used.
	want := playGames(t, "moulin-rouge-3", 2, 11, 5, 60)
	path := writeShard(t, t.TempDir(), want)
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "read.mjs", abs)
	cmd.Dir = duckDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node read.mjs: %v\n%s", err, stderr.String())
	}
	var got struct {
		Rows []struct {
			Variant    string `json:"variant"`
			GameID     string `json:"game_id"`
			Ply        int    `json:"ply"`
			Generation int    `json:"generation"`
			Pieces0    uint32 `json:"pieces_0"`
			Pieces1    uint32 `json:"pieces_1"`
			Pieces2    uint32 `json:"pieces_2"`
			Hand0      uint8  `json:"hand_0"`
			Hand2      uint8  `json:"hand_2"`
			Side       uint8  `json:"side"`
			LastRot    int8   `json:"last_rotation"`
			Hash       string `json:"hash"`
			Policy     []struct {
				Action uint16  `json:"action"`
				Prob   float64 `json:"prob"`
			} `json:"policy"`
			RootValue float64 `json:"root_value"`
			Outcome   int     `json:"outcome"`
			Full      bool    `json:"full"`
		} `json:"rows"`
		Types    map[string]string `json:"types"`
		Metadata map[string]string `json:"metadata"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("DuckDB's output is not the JSON expected: %v\n%.500s", err, out)
	}
	if len(got.Rows) != len(want) {
		t.Fatalf("DuckDB read %d rows, wrote %d", len(got.Rows), len(want))
	}
	rotations := 0
	for i, g := range got.Rows {
		w := &want[i]
		p := &w.Position
		if g.Variant != w.Variant || g.GameID != w.GameID || g.Ply != w.Ply || g.Generation != w.Generation ||
			g.Outcome != w.Outcome || g.Full != w.Full || float32(g.RootValue) != w.RootValue {
			t.Fatalf("row %d: DuckDB read %+v, wrote %+v", i, g, *w)
		}
		if g.Pieces0 != p.Pieces[0] || g.Pieces1 != p.Pieces[1] || g.Pieces2 != p.Pieces[2] ||
			g.Hand0 != p.Hand[0] || g.Hand2 != p.Hand[2] || g.Side != p.Side || g.LastRot != p.LastRotation {
			t.Fatalf("row %d: DuckDB read the position %+v, wrote %+v", i, g, *p)
		}
		if h, err := strconv.ParseUint(g.Hash, 10, 64); err != nil || h != p.Hash {
			t.Fatalf("row %d: DuckDB read hash %q, wrote %d", i, g.Hash, p.Hash)
		}
		if len(g.Policy) != len(w.Policy) {
			t.Fatalf("row %d: DuckDB read %d policy entries, wrote %d", i, len(g.Policy), len(w.Policy))
		}
		for j, e := range g.Policy {
			if e.Action != w.Policy[j].Action || float32(e.Prob) != w.Policy[j].Prob {
				t.Fatalf("row %d policy %d: DuckDB read %+v, wrote %+v", i, j, e, w.Policy[j])
			}
			if int(e.Action) >= 24+24+24*24 {
				rotations++
			}
		}
	}
	if rotations == 0 {
		t.Error("no rotation in the policies: the test data does not cover the ring board")
	}
	for col, typ := range map[string]string{
		"variant": "VARCHAR", "pieces_0": "UINTEGER", "hash": "UBIGINT", "hand_0": "UTINYINT",
		"last_rotation": "TINYINT", "policy": "STRUCT(\"action\" USMALLINT, prob FLOAT)[]", "full": "BOOLEAN",
	} {
		if got.Types[col] != typ {
			t.Errorf("DuckDB types column %s as %q, want %q", col, got.Types[col], typ)
		}
	}
	if got.Metadata[FormatKey] != FormatVersion {
		t.Errorf("DuckDB reads metadata %s = %q, want %q", FormatKey, got.Metadata[FormatKey], FormatVersion)
	}
}
