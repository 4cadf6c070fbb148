package model

import (
	"math/rand/v2"
	"testing"
)

// TestTransposeIsTheTranspose: Transpose (with the AVX kernel on whole
// tiles where the CPU has it, element by element at the edges) writes
// exactly xᵀ, for shapes around the tile and the kernel's eight, from a
// source with a leading dimension wider than its rows, and writes nothing
// outside rows×cols.
func TestTransposeIsTheTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, rows := range []int{1, 7, 8, 31, 32, 33, 64, 100} {
		for _, cols := range []int{1, 8, 9, 32, 40, 96} {
			ld := rows + rng.IntN(3)
			x := make([]float32, cols*ld)
			for i := range x {
				x[i] = rng.Float32()
			}
			d := make([]float32, rows*cols+1)
			d[rows*cols] = -1
			Transpose(d, x, rows, cols, ld)
			for i := range rows {
				for j := range cols {
					if d[i*cols+j] != x[j*ld+i] {
						t.Fatalf("%dx%d (ld %d): d[%d,%d] = %v, want x[%d,%d] = %v", rows, cols, ld, i, j, d[i*cols+j], j, i, x[j*ld+i])
					}
				}
			}
			if d[rows*cols] != -1 {
				t.Fatalf("%dx%d: wrote past the end", rows, cols)
			}
		}
	}
}

// BenchmarkTranspose is the transpose of a 256×624 matrix (the policy
// head of the 256x3 network), in ns per element.
func BenchmarkTranspose(b *testing.B) {
	rows, cols := 256, 624
	x, d := make([]float32, rows*cols), make([]float32, rows*cols)
	for b.Loop() {
		Transpose(d, x, rows, cols, rows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows*cols), "ns/element")
}
