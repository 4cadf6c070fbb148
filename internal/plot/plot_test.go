package plot

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestLines_WritesAPNG_WithErrorBarsWhenGiven(t *testing.T) {
	path := filepath.Join(t.TempDir(), "elo.png")
	ln := Line{Name: "best", X: []float64{0, 1, 2}, Y: []float64{0, 50, 80}}
	if err := Lines(path, "Elo", "hours", "Elo", ln); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 8 || string(data[1:4]) != "PNG" {
		t.Fatalf("not a PNG: %v", err)
	}
	ln.Low, ln.High = []float64{0, 20, 40}, []float64{0, 80, 120}
	barsPath := filepath.Join(t.TempDir(), "bars.png")
	if err := Lines(barsPath, "Elo", "hours", "Elo", ln); err != nil {
		t.Fatal(err)
	}
	bars, err := os.ReadFile(barsPath)
	if err != nil || len(bars) < 8 || string(bars[1:4]) != "PNG" {
		t.Fatalf("with error bars, not a PNG: %v", err)
	}
	if bytes.Equal(bars, data) {
		t.Error("the plot with error bars is the plot without them")
	}
}

// TestInMinutes_RunHoursUnderTwoReadAsMinutes: an hours axis under two
// hours becomes minutes (no "0.00035" ticks); a longer one stays hours.
func TestInMinutes_RunHoursUnderTwoReadAsMinutes(t *testing.T) {
	short := []Line{{Name: "best", X: []float64{0.0001, 0.5, 1.5}, Y: []float64{1, 2, 3}}}
	got, label := inMinutes("run hours", short)
	if label != "run minutes" || got[0].X[1] != 30 || short[0].X[1] != 0.5 {
		t.Errorf("under two hours: label %q, x %v (input %v): want run minutes, 30, the input untouched", label, got[0].X, short[0].X)
	}
	long := []Line{{Name: "best", X: []float64{0.5, 8}, Y: []float64{1, 2}}}
	if _, label := inMinutes("hours", long); label != "hours" {
		t.Errorf("eight hours: label %q, want hours", label)
	}
	if _, label := inMinutes("optimizer steps", short); label != "optimizer steps" {
		t.Errorf("steps: label %q, want it kept", label)
	}
}

// TestDoublingTicks_EveryDoublingInRange: the log axis of run hours is
// labelled at each doubling within its range.
func TestDoublingTicks_EveryDoublingInRange(t *testing.T) {
	var got []string
	for _, tk := range (doublingTicks{}).Ticks(0.2, 1.9) {
		got = append(got, tk.Label)
	}
	if want := []string{"0.25", "0.5", "1"}; !slices.Equal(got, want) {
		t.Errorf("ticks %v, want %v", got, want)
	}
}
