package train

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/millzero/millzero/model"
)

// WithAux is checkpoint c with its network's auxiliary heads set to h
// (model.Network.WithAux): a head added is drawn from seed, a head dropped
// is left out, every other weight is c's; and the training state with it,
// so Restore trains on from there: the trained weights beside a moving
// average get the same heads (both drawn from seed), the optimizer's
// moments of an added head start at zero and those of a dropped one go,
// and the step counts go on. c is not changed. It is how a run whose
// train.*_weight keys changed goes on from its checkpoints.
func WithAux(c *model.Checkpoint, h model.Aux, seed uint64) (*model.Checkpoint, error) {
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(seed, 0x61757868)) }
	net, err := c.Net.WithAux(h, rng())
	if err != nil {
		return nil, err
	}
	out := &model.Checkpoint{Net: net, Generation: c.Generation, Steps: c.Steps, Meta: c.Meta}
	byName := map[string]model.Param{}
	for _, p := range c.Extra {
		byName[p.Name] = p
	}
	old := map[string]bool{}
	for _, p := range c.Net.Params {
		old[p.Name] = true
	}
	done := map[string]bool{}
	if hasTensors(c.Extra, trainedPrefix) {
		tn := c.Net.Clone()
		for i, p := range tn.Params {
			t, ok := byName[trainedPrefix+p.Name]
			if !ok || len(t.Data) != len(p.Data) {
				return nil, fmt.Errorf("set heads of checkpoint: no trained tensor %s%s of %d values", trainedPrefix, p.Name, len(p.Data))
			}
			tn.Params[i].Data = t.Data
		}
		th, err := tn.WithAux(h, rng())
		if err != nil {
			return nil, err
		}
		for _, p := range th.Params {
			out.Extra = append(out.Extra, model.Param{Name: trainedPrefix + p.Name, Shape: p.Shape, Data: p.Data})
		}
		for _, p := range c.Net.Params {
			done[trainedPrefix+p.Name] = true
		}
	}
	for _, prefix := range momentPrefixes {
		if !hasTensors(c.Extra, prefix) {
			continue
		}
		for _, p := range net.Params {
			data := make([]float32, len(p.Data))
			if t, ok := byName[prefix+p.Name]; ok && old[p.Name] {
				if len(t.Data) != len(data) {
					return nil, fmt.Errorf("set heads of checkpoint: optimizer tensor %s%s has %d values, want %d", prefix, p.Name, len(t.Data), len(data))
				}
				copy(data, t.Data)
			}
			out.Extra = append(out.Extra, model.Param{Name: prefix + p.Name, Shape: []int{len(data)}, Data: data})
		}
		for _, p := range c.Net.Params {
			done[prefix+p.Name] = true
		}
	}
	// Every extra tensor is the training state of a network tensor, kept
	// or left out with it above; anything else is state this cannot carry.
	for _, p := range c.Extra {
		if !done[p.Name] {
			return nil, fmt.Errorf("set heads of checkpoint: extra tensor %s is not the training state of a network tensor", p.Name)
		}
	}
	return out, nil
}

// auxKeys names the train keys of the heads in h, for messages.
func auxKeys(h model.Aux) string {
	var keys []string
	for _, k := range []struct {
		h   model.Aux
		key string
	}{{model.AuxOwnership, "ownership_weight"}, {model.AuxScore, "score_weight"}, {model.AuxReply, "reply_weight"}} {
		if h&k.h != 0 {
			keys = append(keys, "train."+k.key)
		}
	}
	return strings.Join(keys, ", ")
}
