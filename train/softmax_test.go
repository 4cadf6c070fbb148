package train

import (
	"math"
	"testing"

	"gorgonia.org/tensor"
)

// logSoftmax64 is the reference: x - max - log Σ exp(x - max), per row,
// in float64.
func logSoftmax64(x []float32, cols int) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < len(x)/cols; r++ {
		row := x[r*cols : (r+1)*cols]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, float64(v))
		}
		s := 0.0
		for _, v := range row {
			s += math.Exp(float64(v) - mx)
		}
		for j, v := range row {
			out[r*cols+j] = float64(v) - mx - math.Log(s)
		}
	}
	return out
}

// The engine's log-softmax is the row-wise definition, also where a row
// lies far below the first row (the standard engine measured every row
// from the matrix's first element) and where most logits are masked; its
// derivative is g - softmax·Σg per row. Each way of passing the output
// (a new tensor, a reused one, the input overwritten) gives the same.
func TestLogSoftMaxIsTheRowWiseDefinition(t *testing.T) {
	const m = maskedLogit
	cases := []struct {
		name string
		cols int
		x    []float32
	}{
		{"row below the first", 3, []float32{200, 0, 1, 0, 1, 2}},
		{"masked logits", 4, []float32{m, 1.5, m, -2, 3, m, m, m}},
		{"one column", 1, []float32{5, -7}},
	}
	e := fastEngine{}
	for _, c := range cases {
		for _, mode := range []string{"new", "reuse", "unsafe"} {
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				rows := len(c.x) / c.cols
				x := tensor.New(tensor.WithShape(rows, c.cols), tensor.WithBacking(append([]float32(nil), c.x...)))
				var opts []tensor.FuncOpt
				switch mode {
				case "reuse":
					opts = append(opts, tensor.WithReuse(tensor.New(tensor.WithShape(rows, c.cols), tensor.Of(tensor.Float32))))
				case "unsafe":
					opts = append(opts, tensor.UseUnsafe())
				}
				out, err := e.LogSoftMax(x, 1, opts...)
				if err != nil {
					t.Fatal(err)
				}
				got := out.Data().([]float32)
				want := logSoftmax64(c.x, c.cols)
				for i := range want {
					if math.Abs(float64(got[i])-want[i]) > 1e-5*(1+math.Abs(want[i])) {
						t.Fatalf("log-softmax %v, want %v", got, want)
					}
				}
				grad := make([]float32, len(c.x))
				for i := range grad {
					grad[i] = float32(i%3) - 0.5
				}
				y := tensor.New(tensor.WithShape(rows, c.cols), tensor.WithBacking(append([]float32(nil), got...)))
				g := tensor.New(tensor.WithShape(rows, c.cols), tensor.WithBacking(append([]float32(nil), grad...)))
				dx, err := e.LogSoftMaxB(y, g, 1, opts...)
				if err != nil {
					t.Fatal(err)
				}
				gotB := dx.Data().([]float32)
				for r := 0; r < rows; r++ {
					s := 0.0
					for j := 0; j < c.cols; j++ {
						s += float64(grad[r*c.cols+j])
					}
					for j := 0; j < c.cols; j++ {
						i := r*c.cols + j
						w := float64(grad[i]) - math.Exp(want[i])*s
						if math.Abs(float64(gotB[i])-w) > 1e-5*(1+math.Abs(w)) {
							t.Fatalf("derivative %v at %d, want %v", gotB[i], i, w)
						}
					}
				}
			})
		}
	}
}

// What the engine does not handle itself goes to Gorgonia's standard
// engine: along the columns, say.
func TestLogSoftMaxOtherwiseIsTheStandardEngines(t *testing.T) {
	x := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{0, 1, 2, 3}))
	out, err := fastEngine{}.LogSoftMax(x, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := out.Data().([]float32)
	want := -float32(math.Log1p(math.Exp(2))) // log(e^0 / (e^0 + e^2))
	if math.Abs(float64(got[0]-want)) > 1e-5 {
		t.Errorf("column log-softmax %v, want %v first", got, want)
	}
}
