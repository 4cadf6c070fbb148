package train

import (
	"fmt"
	"math"
	"strconv"

	"github.com/millzero/millzero/model"
)

// optimizer updates weights in place from their gradients. Ours rather
// than Gorgonia's solvers, whose moments are unexported: these can be
// checkpointed and resumed, and take the schedule's learning rate each
// step.
type optimizer interface {
	// begin starts a step of learning rate lr; update then applies it to
	// parts of the tensors, each part once, in any order and concurrently.
	begin(lr float64)
	// update applies the step to elements lo..hi-1 of tensor i, weights
	// p and gradient g.
	update(i int, p, g []float32, lo, hi int)
	// state is the optimizer's tensors and metadata, for a checkpoint.
	state() ([]model.Param, map[string]string)
	// restore takes back what state returned.
	restore(extra []model.Param, meta map[string]string) error
}

// step applies one update of learning rate lr to every tensor.
func step(o optimizer, params []model.Param, grads [][]float32, lr float64) {
	o.begin(lr)
	for i, p := range params {
		o.update(i, p.Data, grads[i], 0, len(p.Data))
	}
}

// newOptimizer is c's optimizer of params; Adam's update runs on its AVX2
// kernel if simd.
func newOptimizer(c Config, params []model.Param, simd bool) optimizer {
	zeros := func() [][]float32 {
		z := make([][]float32, len(params))
		for i, p := range params {
			z[i] = make([]float32, len(p.Data))
		}
		return z
	}
	if c.Optimizer == "sgd" {
		return &sgd{mu: float32(c.Momentum), vel: zeros(), names: names(params)}
	}
	return &adam{b1: c.Beta1, b2: c.Beta2, eps: float32(c.Epsilon), m: zeros(), v: zeros(), names: names(params), simd: simd}
}

func names(params []model.Param) []string {
	n := make([]string, len(params))
	for i, p := range params {
		n[i] = p.Name
	}
	return n
}

// flush sets values too small to matter to zero. Weights of units that
// stopped learning, and their Adam moments, decay geometrically (weight
// decay, b1, b2) into float32's subnormal range, where the CPU's arithmetic
// is some twenty times slower: a trained network of nine men's morris ran
// at 4.8k positions/s against 90k for a fresh one before this. It tests
// the magnitude's bits: comparing the float with -Tiny and Tiny branched
// on its sign, mispredicted half the time, and made Adam's update some
// five times slower.
func flush(x float32) float32 {
	if math.Float32bits(x)&0x7fffffff < tinyBits {
		return 0
	}
	return x
}

// tinyBits is the bit pattern of float32(model.Tiny) (pinned by a test).
const tinyBits = 0x0DA24260

// sgd is stochastic gradient descent with (heavy-ball) momentum:
// vel = mu·vel + g; w -= lr·vel.
type sgd struct {
	mu    float32
	lr    float32
	vel   [][]float32
	names []string
}

func (o *sgd) begin(lr float64) { o.lr = float32(lr) }

func (o *sgd) update(i int, p, g []float32, lo, hi int) {
	a, v := o.lr, o.vel[i][lo:hi]
	p, g = p[lo:hi], g[lo:hi]
	for j := range p {
		v[j] = flush(o.mu*v[j] + g[j])
		p[j] = flush(p[j] - a*v[j])
	}
}

func (o *sgd) state() ([]model.Param, map[string]string) {
	var ps []model.Param
	for i, n := range o.names {
		ps = append(ps, model.Param{Name: "sgd.velocity." + n, Shape: []int{len(o.vel[i])}, Data: append([]float32(nil), o.vel[i]...)})
	}
	return ps, map[string]string{"optimizer": "sgd"}
}

func (o *sgd) restore(extra []model.Param, meta map[string]string) error {
	if meta["optimizer"] != "sgd" {
		return fmt.Errorf("optimizer state of %q, want sgd", meta["optimizer"])
	}
	return restoreTensors(extra, "sgd.velocity.", o.names, o.vel)
}

// adam is Adam (Kingma & Ba) with bias-corrected moments.
type adam struct {
	b1, b2 float64
	eps    float32
	t      int64
	m, v   [][]float32
	names  []string
	a, e   float32 // the step's coefficients, set by begin
	simd   bool    // update runs on adamKernel (AVX2)
}

func (o *adam) begin(lr float64) {
	o.t++
	c1 := 1 - math.Pow(o.b1, float64(o.t))
	c2 := 1 - math.Pow(o.b2, float64(o.t))
	// w -= lr·(m/c1)/(sqrt(v/c2)+eps) = a·m/(sqrt(v)+e) with a = lr·sqrt(c2)/c1, e = eps·sqrt(c2).
	o.a = float32(lr * math.Sqrt(c2) / c1)
	o.e = o.eps * float32(math.Sqrt(c2))
}

func (o *adam) update(i int, p, g []float32, lo, hi int) {
	m, v := o.m[i][lo:hi], o.v[i][lo:hi]
	p, g = p[lo:hi], g[lo:hi]
	if n := len(p) &^ 7; o.simd && n > 0 {
		b1, b2 := float32(o.b1), float32(o.b2)
		k := adamConsts{b1: b1, c1: 1 - b1, b2: b2, c2: 1 - b2, a: o.a, e: o.e, tiny: tinyBits, abs: 0x7fffffff}
		adamKernel(n, &p[0], &g[:n][0], &m[:n][0], &v[:n][0], &k)
		p, g, m, v = p[n:], g[n:], m[n:], v[n:]
	}
	o.updateGo(p, g, m, v)
}

// updateGo is the Adam update of p in Go, with the step's coefficients:
// the reference adamKernel matches bit for bit, and the tail it leaves.
func (o *adam) updateGo(p, g, m, v []float32) {
	a, e := o.a, o.e
	b1, b2 := float32(o.b1), float32(o.b2)
	m, v = m[:len(p)], v[:len(p)]
	for j, gj := range g[:len(p)] {
		m[j] = flush(b1*m[j] + (1-b1)*gj)
		v[j] = flush(b2*v[j] + (1-b2)*gj*gj)
		p[j] = flush(p[j] - a*m[j]/(float32(math.Sqrt(float64(v[j])))+e))
	}
}

func (o *adam) state() ([]model.Param, map[string]string) {
	var ps []model.Param
	for i, n := range o.names {
		ps = append(ps, model.Param{Name: "adam.m." + n, Shape: []int{len(o.m[i])}, Data: append([]float32(nil), o.m[i]...)},
			model.Param{Name: "adam.v." + n, Shape: []int{len(o.v[i])}, Data: append([]float32(nil), o.v[i]...)})
	}
	return ps, map[string]string{"optimizer": "adam", "adam_step": strconv.FormatInt(o.t, 10)}
}

func (o *adam) restore(extra []model.Param, meta map[string]string) error {
	if meta["optimizer"] != "adam" {
		return fmt.Errorf("optimizer state of %q, want adam", meta["optimizer"])
	}
	t, err := strconv.ParseInt(meta["adam_step"], 10, 64)
	if err != nil || t < 0 {
		return fmt.Errorf("adam_step %q: want a count", meta["adam_step"])
	}
	if err := restoreTensors(extra, "adam.m.", o.names, o.m); err != nil {
		return err
	}
	if err := restoreTensors(extra, "adam.v.", o.names, o.v); err != nil {
		return err
	}
	o.t = t
	return nil
}

// restoreTensors copies the tensors prefix+names[i] of extra into dst[i].
func restoreTensors(extra []model.Param, prefix string, names []string, dst [][]float32) error {
	byName := map[string][]float32{}
	for _, p := range extra {
		byName[p.Name] = p.Data
	}
	for i, n := range names {
		d, ok := byName[prefix+n]
		if !ok {
			return fmt.Errorf("no optimizer tensor %s%s", prefix, n)
		}
		if len(d) != len(dst[i]) {
			return fmt.Errorf("optimizer tensor %s%s has %d values, want %d", prefix, n, len(d), len(dst[i]))
		}
		copy(dst[i], d)
	}
	return nil
}
