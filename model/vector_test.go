package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRelu_ZeroesTheNegativesAndNothingElse: every length around the
// kernel's steps of 8 and 32, from an offset that is not 32-byte aligned,
// and a NaN kept.
func TestRelu_ZeroesTheNegativesAndNothingElse(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for n := range 80 {
		buf := randomSlice(rng, n+2)
		if n > 5 {
			buf[5] = float32(math.NaN())
		}
		want := append([]float32(nil), buf...)
		for i := 1; i <= n; i++ {
			want[i] = max(want[i], 0)
		}
		ReLU(buf[1 : n+1])
		for i := range buf {
			if buf[i] != want[i] && !(math.IsNaN(float64(buf[i])) && math.IsNaN(float64(want[i]))) {
				t.Fatalf("length %d: value %d is %v, want %v", n, i, buf[i], want[i])
			}
		}
	}
}

// TestReLUBack_KeepsTheGradientWhereTheOutputIsPositive: every length
// around the kernel's steps of 8 and 32, from an offset that is not
// 32-byte aligned; zero, negative zero and NaN outputs stop the gradient.
func TestReLUBack_KeepsTheGradientWhereTheOutputIsPositive(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := range 80 {
		d, y := randomSlice(rng, n+2), randomSlice(rng, n+2)
		for i := 3; i < len(y); i += 7 {
			y[i] = [...]float32{0, float32(math.Copysign(0, -1)), float32(math.NaN())}[i%3]
		}
		want := append([]float32(nil), d...)
		for i := 1; i <= n; i++ {
			if !(y[i] > 0) {
				want[i] = 0
			}
		}
		ReLUBack(d[1:n+1], y[1:n+1])
		for i := range d {
			if d[i] != want[i] {
				t.Fatalf("length %d: value %d is %v, want %v", n, i, d[i], want[i])
			}
		}
	}
}

// TestMeanRows_IsTheMeanOfTheRows: lengths around the kernel's blocks of
// 32 and 8, one row to four, rows in any order and with a stride wider
// than a row; nothing written past dst.
func TestMeanRows_IsTheMeanOfTheRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for n := range 75 {
		for _, from := range [][]int{nil, {2}, {0, 3}, {4, 1, 2}, {3, 0, 4, 1}} {
			ld := n + rng.IntN(3)
			src := randomSlice(rng, 5*ld+n)
			dst := make([]float32, n+1)
			dst[n] = 7
			MeanRows(dst[:n], src, from, ld)
			for j := range n {
				want := 0.0
				for _, q := range from {
					want += float64(src[q*ld+j]) / float64(len(from))
				}
				if math.Abs(float64(dst[j])-want) > 1e-5*(1+math.Abs(want)) {
					t.Fatalf("length %d, rows %v: value %d is %v, want %v", n, from, j, dst[j], want)
				}
			}
			if dst[n] != 7 {
				t.Fatalf("length %d, rows %v: wrote past the end", n, from)
			}
		}
	}
}

// TestAddWeightedRows_AddsTheWeightedSumOfTheRows: lengths around the
// kernel's blocks of 32 and 8, no row to four, rows in any order and with
// a stride wider than a row, onto what dst held; nothing written past
// dst.
func TestAddWeightedRows_AddsTheWeightedSumOfTheRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for n := range 75 {
		for _, from := range [][]int{nil, {2}, {0, 3}, {4, 1, 2}, {3, 0, 4, 1}} {
			ld := n + rng.IntN(3)
			src := randomSlice(rng, 5*ld+n)
			w := randomSlice(rng, len(from))
			dst := randomSlice(rng, n+1)
			dst[n] = 7
			before := append([]float32(nil), dst...)
			AddWeightedRows(dst[:n], src, from, w, ld)
			for j := range n {
				want := float64(before[j])
				for i, q := range from {
					want += float64(w[i]) * float64(src[q*ld+j])
				}
				if math.Abs(float64(dst[j])-want) > 1e-5*(1+math.Abs(want)) {
					t.Fatalf("length %d, rows %v: value %d is %v, want %v", n, from, j, dst[j], want)
				}
			}
			if dst[n] != 7 {
				t.Fatalf("length %d, rows %v: wrote past the end", n, from)
			}
		}
	}
}

// TestSetWeightedRows_WritesTheWeightedSumOfTheRows: as AddWeightedRows'
// test, onto a dst of NaNs, which SetWeightedRows writes and never reads
// (no rows: zeros).
func TestSetWeightedRows_WritesTheWeightedSumOfTheRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for n := range 75 {
		for _, from := range [][]int{nil, {2}, {0, 3}, {4, 1, 2}, {3, 0, 4, 1}} {
			ld := n + rng.IntN(3)
			src := randomSlice(rng, 5*ld+n)
			w := randomSlice(rng, len(from))
			dst := make([]float32, n+1)
			for j := range n {
				dst[j] = float32(math.NaN())
			}
			dst[n] = 7
			SetWeightedRows(dst[:n], src, from, w, ld)
			for j := range n {
				var want float64
				for i, q := range from {
					want += float64(w[i]) * float64(src[q*ld+j])
				}
				if d := math.Abs(float64(dst[j]) - want); !(d <= 1e-5*(1+math.Abs(want))) {
					t.Fatalf("length %d, rows %v: value %d is %v, want %v", n, from, j, dst[j], want)
				}
			}
			if dst[n] != 7 {
				t.Fatalf("length %d, rows %v: wrote past the end", n, from)
			}
		}
	}
}
