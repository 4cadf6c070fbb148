package progress

import (
	"testing"
	"time"
)

func TestBudget_Line(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		b     Budget
		base  int
		at    time.Duration
		label string
		frac  float64
		eta   time.Duration
		ok    bool
	}{
		{"generations: the rate since the start", Budget{Start: t0, Done: 4, Total: 10, Unit: "generations"}, 2, 20 * time.Minute,
			"4 of 10 generations", 0.4, time.Hour, true},
		{"generations: none finished yet gives no ETA", Budget{Start: t0, Done: 2, Total: 10, Unit: "generations"}, 2, 20 * time.Minute,
			"2 of 10 generations", 0.2, 0, false},
		{"a deadline", Budget{Start: t0, End: t0.Add(2 * time.Hour)}, 0, 30 * time.Minute,
			"30m00s of 2h00m", 0.25, 90 * time.Minute, true},
		{"both: the earlier end", Budget{Start: t0, End: t0.Add(2 * time.Hour), Done: 9, Total: 10, Unit: "generations"}, 0, 30 * time.Minute,
			"9 of 10 generations, 30m00s of 2h00m", 0.9, 30 * time.Minute / 9, true},
		{"uneven units give no count ETA", Budget{Start: t0, Done: 3, Total: 10, Unit: "materials", Uneven: true}, 0, time.Minute,
			"3 of 10 materials", 0.3, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			label, frac, eta, ok := c.b.Line(c.base, t0.Add(c.at))
			if label != c.label || frac != c.frac || ok != c.ok || ok && eta.Round(time.Second) != c.eta.Round(time.Second) {
				t.Fatalf("got %q %.3f %s %v, want %q %.3f %s %v", label, frac, eta, ok, c.label, c.frac, c.eta, c.ok)
			}
		})
	}
}

func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 45 * time.Second: "45s", 12*time.Minute + 5*time.Second: "12m05s", 3*time.Hour + 7*time.Minute + 40*time.Second: "3h07m",
	} {
		if got := Clock(d); got != want {
			t.Errorf("Clock(%s) = %q, want %q", d, got, want)
		}
	}
}
