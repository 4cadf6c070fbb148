package train

import (
	"fmt"
	"math/rand/v2"

	"github.com/millzero/millzero/model"
)

// momentPrefixes name the optimizers' per-weight state in a checkpoint's
// extra tensors (adam.state, sgd.state): flat, one value per weight.
var momentPrefixes = []string{"adam.m.", "adam.v.", "sgd.velocity."}

// GrowCheckpoint is c with its network grown to trunk m (model.Grow,
// the same function), and the training state with it, so Restore trains on
// from there: the trained weights beside a moving average grow with the
// same added weights as the average (both from seed), the optimizer's
// moments of the added weights start at zero, and the step counts go on.
// c is not changed. An MLP grows its units and a graph network its
// channels a point (model.Grow).
func GrowCheckpoint(c *model.Checkpoint, m model.Config, seed uint64) (*model.Checkpoint, error) {
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(seed, 0x67726f77)) }
	net, err := model.Grow(c.Net, m, rng())
	if err != nil {
		return nil, err
	}
	a, b := c.Net.Arch, net.Arch
	byName := map[string]model.Param{}
	for _, p := range c.Extra {
		byName[p.Name] = p
	}
	// tensors gathers prefix+name of every network tensor from the extras;
	// nil when there are none of prefix.
	tensors := func(prefix string) ([][]float32, error) {
		out := make([][]float32, len(c.Net.Params))
		found := 0
		for i, p := range c.Net.Params {
			if t, ok := byName[prefix+p.Name]; ok {
				out[i] = t.Data
				found++
			}
		}
		switch found {
		case 0:
			return nil, nil
		case len(out):
			return out, nil
		}
		return nil, fmt.Errorf("grow checkpoint: %d of %d tensors %s*", found, len(out), prefix)
	}
	g := &model.Checkpoint{Net: net, Generation: c.Generation, Steps: c.Steps, Meta: c.Meta}
	grown := map[string]bool{}
	trained, err := tensors(trainedPrefix)
	if err != nil {
		return nil, err
	}
	if trained != nil {
		tn := c.Net.Clone()
		for i := range tn.Params {
			tn.Params[i].Data = trained[i]
		}
		tg, err := model.Grow(tn, m, rng())
		if err != nil {
			return nil, err
		}
		for _, p := range tg.Params {
			g.Extra = append(g.Extra, model.Param{Name: trainedPrefix + p.Name, Shape: p.Shape, Data: p.Data})
			grown[trainedPrefix+p.Name] = true
		}
	}
	for _, prefix := range momentPrefixes {
		src, err := tensors(prefix)
		if err != nil {
			return nil, err
		}
		if src == nil {
			continue
		}
		dst, err := model.EmbedParams(a, b, src)
		if err != nil {
			return nil, err
		}
		for i, p := range net.Params {
			g.Extra = append(g.Extra, model.Param{Name: prefix + p.Name, Shape: []int{len(dst[i])}, Data: dst[i]})
			grown[prefix+p.Name] = true
		}
	}
	// Every old tensor's name is a grown one's (the blocks and heads keep
	// their names); anything else is state this cannot grow.
	for _, p := range c.Extra {
		if !grown[p.Name] {
			return nil, fmt.Errorf("grow checkpoint: extra tensor %s: not the training state of a network tensor, so it cannot grow", p.Name)
		}
	}
	return g, nil
}
