package model

// Transpose writes into dst, rows×cols row-major, the transpose of src
// (cols×rows, leading dimension ld), in tiles that stay in cache, eight
// rows by eight at a time with the AVX kernel where the CPU has it.
func Transpose(d, x []float32, rows, cols, ld int) {
	const tile = 32
	simd := haveKernels()
	for j0 := 0; j0 < cols; j0 += tile {
		j1 := min(j0+tile, cols)
		for i0 := 0; i0 < rows; i0 += tile {
			i1 := min(i0+tile, rows)
			if simd && j1-j0 == tile && i1-i0 == tile {
				_ = x[(j1-1)*ld+i1-1]
				_ = d[(i1-1)*cols+j1-1]
				for j := j0; j < j1; j += 8 {
					for i := i0; i < i1; i += 8 {
						transpose8x8(&x[j*ld+i], ld, &d[i*cols+j], cols)
					}
				}
				continue
			}
			for j := j0; j < j1; j++ {
				for i, v := range x[j*ld+i0 : j*ld+i1] {
					d[(i0+i)*cols+j] = v
				}
			}
		}
	}
}
