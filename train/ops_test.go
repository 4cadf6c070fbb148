package train

import (
	"maps"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/millzero/millzero/model"
)

// The op table names every op of the training graph: each op node of the
// trainer's graphs (the step's, forward, loss and gradients, and the
// validation pass's) is in exactly one row, and after the first step runs
// as one of that row's kernels, which gave the op's value bit for bit. The
// test names any node of no row, of two rows, or whose kernels all differ
// from its op (a node left to Gorgonia's op, which allocates). One graph
// of the 64x2 network, and one of a graph network of 16 channels and two
// blocks on a rotating board, has the ops its want table counts; the
// graphs run on one core's share of the products split over two, on two
// graphs, and with gonum's BLAS for Gorgonia's ops and the kernels alike
// (the products follow the trainer's BLAS, not Gorgonia's process-wide
// one). (The trainer's own step of a graph network is graphStep's, which
// is checked against this graph.)
func TestOpTable_NamesEveryOpOfTheTrainingGraph(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	// Per layer (7: the input layer, two per block, two heads) two products
	// forward (x·W, ones·b) and two for the gradients of W and b; one for
	// the gradient of each layer's input but the features'; a comparison
	// per ReLU; an inner product per cross-entropy and per weight matrix
	// (L2), each between two reshapes.
	mlp := map[string]int{"A·B": 14, "Aᵀ·B": 14, "A·Bᵀ": 6, "a·b": 9, "+": 35, "⊙": 27, "≥ as 1 or 0": 5,
		"reshape": 20, "log-softmax of rows": 2, "log-softmax of rows, derivative": 2}
	// The graph network's besides: a concatenation per gather (two a
	// block), of the policy's origin rows and of the rotation logits; a
	// slice for the derivative of each of their parts that has one (four
	// a gather, the origins', the placing, moving and removing logits'
	// and the rotation logits'); a transpose of the origin and of the
	// destination rows and one of each's derivative; the batched product
	// of origins by destinations and its two derivatives.
	graph := map[string]int{"A·B": 39, "Aᵀ·B": 35, "A·Bᵀ": 13, "a·b": 12, "+": 66, "⊙": 32, "≥ as 1 or 0": 6,
		"reshape": 106, "log-softmax of rows": 2, "log-softmax of rows, derivative": 2,
		"concatenate": 6, "slice": 19, "transpose": 4, "batched A·B": 1, "batched Aᵀ·B": 1, "batched A·Bᵀ": 1}
	for _, r := range opTable {
		if mlp[r.name] == 0 && graph[r.name] == 0 {
			t.Errorf("row %s of the op table: no op of the training graph", r.name)
		}
	}
	gonumBLAS := backend{blas: gonum.Implementation{}, simd: haveAVX2()}
	for _, tc := range []struct {
		name    string
		variant string
		net     model.Config
		want    map[string]int
		threads int
		b       backend
	}{
		{"one graph, products split over two cores", "nine", model.Config{Width: 64, Blocks: 2}, mlp, 1, defaultBackend()},
		{"two graphs", "nine", model.Config{Width: 64, Blocks: 2}, mlp, 2, defaultBackend()},
		{"one graph, gonum's BLAS", "nine", model.Config{Width: 64, Blocks: 2}, mlp, 1, gonumBLAS},
		{"graph network, one graph, products split over two cores", "moulin-rouge", graphConfig(16, 2, 3), graph, 1, gorgoniaBackend()},
		{"graph network, two graphs", "moulin-rouge", graphConfig(16, 2, 3), graph, 2, gorgoniaBackend()},
		{"graph network, one graph, gonum's BLAS", "moulin-rouge", graphConfig(16, 2, 3), graph, 1, gonumBLAS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := mustVariant(t, tc.variant)
			samples := randomSamples(t, v, 48, 6)
			c := plainConfig()
			c.BatchSize = 48
			c.Threads = tc.threads
			tr := newTrainerWith(t, v, newNet(t, v, tc.net, 3), c, tc.b)
			if _, err := tr.Step(samples); err != nil {
				t.Fatal(err)
			}
			if _, err := tr.Loss(samples); err != nil {
				t.Fatal(err)
			}
			for w, wk := range tr.workers {
				for _, m := range []*machine{wk.m, wk.mLoss} {
					count := map[string]int{}
					for i, op := range m.op {
						if op == nil {
							continue
						}
						in := m.children(i)
						rows := identify(op, in, m.nodes[i].Shape())
						var names []string
						for _, r := range rows {
							names = append(names, r.name)
						}
						switch {
						case len(rows) != 1:
							t.Errorf("worker %d: node %s, op %v of %v: in rows [%s] of the op table, want one", w, m.nodes[i].Name(), op, in, strings.Join(names, "; "))
						case m.row[i] != rows[0]:
							t.Errorf("worker %d: node %s, op %v: the machine took it for row %v", w, m.nodes[i].Name(), op, m.row[i])
						case m.kern[i] == nil:
							t.Errorf("worker %d: node %s, op %v of %v: no kernel of row %s gave the op's value bit for bit", w, m.nodes[i].Name(), op, in, names[0])
						default:
							count[names[0]]++
						}
					}
					if tc.threads == 1 && m == wk.m && !maps.Equal(count, tc.want) {
						t.Errorf("the step's ops %v, want %v", count, tc.want)
					}
				}
			}
		})
	}
}

// The op table tells apart what the ops' hashes leave out, and knows no
// op it has no kernel for: SoftMax is not LogSoftMax, a comparison giving
// booleans is not one giving 1 or 0, a difference is no row's; a product
// of matrices, an inner product of vectors and a product of scalars (all
// G.Mul) are each their own row.
func TestOpTable_TellsApartWhatTheHashLeavesOut(t *testing.T) {
	// Each op in a graph of its own: a graph merges nodes of equal hash
	// and inputs, and SoftMax(x) hashes as LogSoftMax(x).
	type inputs struct{ x, y, w, u, s *G.Node }
	for _, c := range []struct {
		what  string
		build func(in inputs) (*G.Node, error)
		want  string // "": no row
	}{
		{"LogSoftMax", func(in inputs) (*G.Node, error) { return G.LogSoftMax(in.x, 1) }, "log-softmax of rows"},
		{"SoftMax", func(in inputs) (*G.Node, error) { return G.SoftMax(in.x, 1) }, ""},
		{"LogSoftMax along the columns", func(in inputs) (*G.Node, error) { return G.LogSoftMax(in.x, 0) }, ""},
		{"x >= s as 1 or 0", func(in inputs) (*G.Node, error) { return G.Gte(in.x, in.s, true) }, "≥ as 1 or 0"},
		{"x >= s as booleans", func(in inputs) (*G.Node, error) { return G.Gte(in.x, in.s, false) }, ""},
		{"x - y", func(in inputs) (*G.Node, error) { return G.Sub(in.x, in.y) }, ""},
		{"x + y", func(in inputs) (*G.Node, error) { return G.Add(in.x, in.y) }, "+"},
		{"x ⊙ y", func(in inputs) (*G.Node, error) { return G.HadamardProd(in.x, in.y) }, "⊙"},
		{"x·w", func(in inputs) (*G.Node, error) { return G.Mul(in.x, in.w) }, "A·B"},
		{"u·u", func(in inputs) (*G.Node, error) { return G.Mul(in.u, in.u) }, "a·b"},
		{"s·s", func(in inputs) (*G.Node, error) { return G.Mul(in.s, in.s) }, "⊙"},
		{"reshape", func(in inputs) (*G.Node, error) { return G.Reshape(in.x, tensor.Shape{20}) }, "reshape"},
	} {
		g := G.NewGraph()
		n, err := c.build(inputs{
			x: G.NewMatrix(g, tensor.Float32, G.WithShape(4, 5), G.WithName("x")),
			y: G.NewMatrix(g, tensor.Float32, G.WithShape(4, 5), G.WithName("y")),
			w: G.NewMatrix(g, tensor.Float32, G.WithShape(5, 3), G.WithName("w")),
			u: G.NewVector(g, tensor.Float32, G.WithShape(6), G.WithName("u")),
			s: G.NewScalar(g, tensor.Float32, G.WithName("s")),
		})
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		var in G.Nodes
		it := g.From(n.ID())
		for it.Next() {
			in = append(in, it.Node().(*G.Node))
		}
		var got []string
		for _, r := range identify(n.Op(), in, n.Shape()) {
			got = append(got, r.name)
		}
		if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || got[0] != c.want) {
			t.Errorf("%s: rows %q, want %q", c.what, got, c.want)
		}
	}
}
