package dataset

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/parquet-go/parquet-go"
)

// plainThree is a variant that exists only as a file: three renamed, its
// diagonals off.
func plainThree(t testing.TB, diagonals bool) *engine.Variant {
	t.Helper()
	three, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	spec := three.Spec
	spec.Name, spec.Board.Diagonals = "three-plain", diagonals
	v, err := engine.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// writeShardOf writes samples of variants vs as one shard into dir.
func writeShardOf(t testing.TB, dir string, samples []Sample, vs ...*engine.Variant) string {
	t.Helper()
	w, err := NewShardWriter(dir, nil, vs...)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(samples...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Path()
}

// writeOldShard writes samples as a shard was written before shards
// recorded their variants' specs.
func writeOldShard(t testing.TB, dir string, samples []Sample) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "00000000000000000001-old.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]row, len(samples))
	for i := range samples {
		rows[i].fromSample(&samples[i])
	}
	pw := parquet.NewGenericWriter[row](f, parquet.KeyValueMetadata(FormatKey, FormatVersion))
	if _, err := pw.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func TestShardSpec_AVariantThatExistsOnlyAsAFileIsWrittenAndReadBack(t *testing.T) {
	v := plainThree(t, false)
	samples := playGamesOf(t, v, 3, 1, 0, 40)
	dir := generationDir(t.TempDir(), 0)
	w, err := NewShardWriter(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(samples...); !errors.Is(err, engine.ErrUnknownVariant) {
		t.Errorf("writing samples of an unnamed variant not given: %v, want ErrUnknownVariant", err)
	}
	path := writeShardOf(t, dir, samples, v)
	info, err := Inspect(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Metadata[VariantSpecKey+"three-plain"]; got != v.Spec.Canonical() {
		t.Errorf("metadata %s = %q, want the canonical spec", VariantSpecKey+"three-plain", got)
	}
	back, err := ReadShard(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(samples) {
		t.Errorf("read %d samples, wrote %d", len(back), len(samples))
	}
	win, err := OpenWindow(filepath.Dir(dir), WindowOptions{Variant: v, Augment: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer win.Close()
	n := 0
	var s Sample
	for win.Next(&s) == nil {
		n++
	}
	if n != len(samples) {
		t.Errorf("the window of the run's variant returned %d samples, want %d", n, len(samples))
	}
}

func TestShardSpec_AShardWhoseSpecDiffersFromTheRunsIsRefusedNamingTheDifference(t *testing.T) {
	games := t.TempDir()
	diag := plainThree(t, true)
	writeShardOf(t, generationDir(games, 0), playGamesOf(t, diag, 2, 1, 0, 40), diag)
	run := plainThree(t, false)

	log, buf := captureLog()
	win, err := OpenWindow(games, WindowOptions{Variant: run, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	var s Sample
	if err := win.Next(&s); err != io.EOF {
		t.Errorf("Next = %v, want io.EOF: the only shard is of another spec", err)
	}
	if !strings.Contains(buf.String(), "board.diagonals=true, this run has false") {
		t.Errorf("warning %q does not name the difference", buf.String())
	}
	if kept := win.Shards(); len(kept) != 0 {
		t.Errorf("window kept %v", kept)
	}
	shards, _ := filepath.Glob(filepath.Join(generationDir(games, 0), "*"+ShardExt))
	if _, err := ReadShardFor(shards[0], run); !errors.Is(err, engine.ErrVariantMismatch) {
		t.Errorf("ReadShardFor another spec: %v", err)
	}
}

func TestShardSpec_AShardOfAnotherVariantIsRefused(t *testing.T) {
	games := t.TempDir()
	writeShard(t, generationDir(games, 0), playGames(t, "three", 2, 1, 0, 40))
	writeOldShard(t, generationDir(games, 1), playGames(t, "three", 1, 2, 1, 40))
	for _, path := range []string{"gen-000000", "gen-000001"} {
		shards, _ := filepath.Glob(filepath.Join(games, path, "*"+ShardExt))
		_, err := ReadShardFor(shards[0], plainThree(t, true))
		if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), `variant "three", this run's is "three-plain"`) {
			t.Errorf("%s: %v", path, err)
		}
	}
}

func TestShardSpec_OldShardsWithoutASpecAreReadByName(t *testing.T) {
	games := t.TempDir()
	samples := playGames(t, "three", 2, 5, 0, 40)
	path := writeOldShard(t, generationDir(games, 0), samples)
	if info, err := Inspect(path); err != nil || info.Metadata[VariantSpecKey+"three"] != "" {
		t.Fatalf("the old shard: %v, metadata %v", err, info.Metadata)
	}
	back, err := ReadShard(path)
	if err != nil || len(back) != len(samples) {
		t.Fatalf("ReadShard of an old shard: %d samples, %v", len(back), err)
	}
	three, _ := engine.Load("three")
	win, err := OpenWindow(games, WindowOptions{Variant: three})
	if err != nil {
		t.Fatal(err)
	}
	defer win.Close()
	n := 0
	var s Sample
	for win.Next(&s) == nil {
		n++
	}
	if n != len(samples) {
		t.Errorf("window over an old shard: %d samples, want %d", n, len(samples))
	}
}

func TestShardSpec_AMalformedSpecMakesTheShardForeign(t *testing.T) {
	games := t.TempDir()
	dir := generationDir(games, 0)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	samples := playGames(t, "three", 1, 5, 0, 40)
	rows := make([]row, len(samples))
	for i := range samples {
		rows[i].fromSample(&samples[i])
	}
	for name, spec := range map[string]string{
		"malformed.parquet": "name: three\npieces: [",
		"renamed.parquet":   strings.Replace(plainThree(t, true).Spec.Canonical(), "three-plain", "three-other", 1),
	} {
		f, _ := os.Create(filepath.Join(dir, name))
		pw := parquet.NewGenericWriter[row](f, parquet.KeyValueMetadata(FormatKey, FormatVersion),
			parquet.KeyValueMetadata(VariantSpecKey+"three", spec))
		pw.Write(rows)
		pw.Close()
		f.Close()
		if _, err := ReadShard(filepath.Join(dir, name)); err == nil || !strings.Contains(err.Error(), VariantSpecKey+"three") {
			t.Errorf("%s: %v, want an error naming the metadata key", name, err)
		}
	}
}

func TestShardSpec_AWriterRefusesTwoSpecsOfOneName(t *testing.T) {
	_, err := NewShardWriter(t.TempDir(), nil, plainThree(t, false), plainThree(t, true))
	if !errors.Is(err, engine.ErrVariantMismatch) || !strings.Contains(err.Error(), "two variants named three-plain") {
		t.Errorf("NewShardWriter of two three-plain specs: %v", err)
	}
	if _, err := NewShardWriter(t.TempDir(), nil, plainThree(t, false), plainThree(t, false)); err != nil {
		t.Errorf("two equal specs: %v", err)
	}
}
