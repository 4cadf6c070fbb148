package run

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSeries_ReopensWithItsRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m", "loss.csv")
	s, err := openSeries(path, "step", "loss")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.add(1, 0.5); err != nil {
		t.Fatal(err)
	}
	if err := s.add(2, float32(0.25)); err != nil {
		t.Fatal(err)
	}
	again, err := openSeries(path, "step", "loss")
	if err != nil {
		t.Fatal(err)
	}
	if got := again.column("loss"); len(got) != 2 || got[1] != 0.25 {
		t.Fatalf("reopened column %v", got)
	}
	if _, err := openSeries(path, "step", "elo"); err == nil {
		t.Fatal("a table with another header opened")
	}
}

func TestPlotLines_WritesAPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "elo.png")
	err := plotLines(path, "Elo", "hours", "Elo", line{"best", []float64{0, 1, 2}, []float64{0, 50, 80}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 8 || string(data[1:4]) != "PNG" {
		t.Fatalf("not a PNG: %v", err)
	}
}
