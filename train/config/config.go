// Package config is how the trainer optimises: the train section of a
// run's config, its defaults and its checks. It is apart from package
// train so that what reads a run's config does not link the trainer (and
// Gorgonia with it).
package config

import (
	"fmt"
	"runtime"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// Config is how the trainer optimises.
type Config struct {
	// BatchSize is the number of samples per optimizer step; the Gorgonia
	// graph is built for exactly this many.
	BatchSize int `yaml:"batch_size"`
	// Optimizer is "adam" or "sgd" (with momentum).
	Optimizer string `yaml:"optimizer"`
	// LR is the peak learning rate.
	LR float64 `yaml:"lr"`
	// Schedule shapes the learning rate after warm-up: "constant",
	// "cosine" (from LR down to MinLR over DecaySteps) or "step" (times
	// Gamma every DecaySteps).
	Schedule string `yaml:"schedule"`
	// WarmupSteps ramps the learning rate linearly from 0 to LR.
	WarmupSteps int `yaml:"warmup_steps"`
	// DecaySteps is the length of the cosine decay, or the interval of the
	// step decay, counted after warm-up.
	DecaySteps int `yaml:"decay_steps"`
	// MinLR is the learning rate at the end of the cosine decay (and after).
	MinLR float64 `yaml:"min_lr"`
	// Gamma multiplies the learning rate every DecaySteps steps ("step").
	Gamma float64 `yaml:"gamma"`
	// Momentum is SGD's momentum.
	Momentum float64 `yaml:"momentum"`
	// Beta1 and Beta2 are Adam's moment decay rates.
	Beta1 float64 `yaml:"beta1"`
	Beta2 float64 `yaml:"beta2"`
	// Epsilon is Adam's denominator floor.
	Epsilon float64 `yaml:"epsilon"`
	// WeightDecay is the L2 coefficient: the loss includes WeightDecay
	// times the sum of the squares of every weight matrix (not biases).
	WeightDecay float64 `yaml:"weight_decay"`
	// ValueWeight scales the outcome head's cross-entropy in the loss.
	ValueWeight float64 `yaml:"value_weight"`
	// OwnershipWeight scales the ownership head's loss (model.AuxOwnership):
	// the cross-entropy of each point's owner at the game's end (the side
	// to move, another seat, no one), the mean over the points. 0 is off:
	// the network has no such head.
	OwnershipWeight float64 `yaml:"ownership_weight"`
	// ScoreWeight scales the score head's loss (model.AuxScore): the
	// cross-entropy of the material difference at the game's end (the side
	// to move's pieces on the board and in hand minus the most any other
	// seat has), over the differences -pieces..pieces. 0 is off.
	ScoreWeight float64 `yaml:"score_weight"`
	// ReplyWeight scales the reply head's loss (model.AuxReply): the
	// cross-entropy of the action played after the position's, over the
	// whole action space. 0 is off.
	ReplyWeight float64 `yaml:"reply_weight"`
	// ValueMix is the share of the outcome target taken from the search's
	// root value instead of the game's result (two players only): the
	// target is (1-ValueMix)·result + ValueMix·root, the root's expected
	// score s as the outcome distribution of that score with the least
	// decisive mass (a win of 2s-1 and a draw of 2-2s above one half, a
	// loss of 1-2s and a draw of 2s below). 0, the game's result alone, is
	// AlphaZero's target.
	ValueMix float64 `yaml:"value_mix"`
	// WeightEMA is the decay, per step, of an exponential moving average
	// of the weights (Polyak averaging): ema = WeightEMA·ema +
	// (1-WeightEMA)·weights after every step. With it the checkpoint's
	// network, the model that plays, is the average, and the trained
	// weights travel beside it for training to go on from; 0 is off (the
	// trained weights play).
	WeightEMA float64 `yaml:"weight_ema"`
	// Threads is the number of goroutines a step runs on: the batch is
	// split into this many graphs, run at once, and their gradients
	// averaged (the update is the same up to float32 rounding). 0 means
	// one per core (GOMAXPROCS); never more than BatchSize.
	Threads int `yaml:"threads"`
}

// Workers is the number of graphs a trainer of c splits a batch over:
// Threads, or GOMAXPROCS if Threads is 0, at most BatchSize.
func (c Config) Workers() int {
	n := c.Threads
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return max(1, min(n, c.BatchSize))
}

// Default is the training of configs/runs/nine.yaml (a test keeps the
// two equal).
func Default() Config {
	return Config{BatchSize: 256, Optimizer: "adam", LR: 1e-3, Schedule: "constant",
		WarmupSteps: 100, DecaySteps: 20000, MinLR: 1e-5, Gamma: 0.1, Momentum: 0.9,
		Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8, WeightDecay: 1e-4, ValueWeight: 1,
		ValueMix: 0.5, WeightEMA: 0.999}
}

// Validate reports what is wrong with the configuration.
func (c Config) Validate() error {
	switch {
	case c.BatchSize < 1:
		return fmt.Errorf("train config: batch_size %d: want 1 or more", c.BatchSize)
	case c.Optimizer != "adam" && c.Optimizer != "sgd":
		return fmt.Errorf("train config: optimizer %q: want adam or sgd", c.Optimizer)
	case !(c.LR > 0):
		return fmt.Errorf("train config: lr %v: want more than 0", c.LR)
	case c.Schedule != "constant" && c.Schedule != "cosine" && c.Schedule != "step":
		return fmt.Errorf("train config: schedule %q: want constant, cosine or step", c.Schedule)
	case c.WarmupSteps < 0:
		return fmt.Errorf("train config: warmup_steps %d: want 0 or more", c.WarmupSteps)
	case c.Schedule != "constant" && c.DecaySteps < 1:
		return fmt.Errorf("train config: decay_steps %d: want 1 or more with schedule %s", c.DecaySteps, c.Schedule)
	case c.MinLR < 0 || c.MinLR > c.LR:
		return fmt.Errorf("train config: min_lr %v: want 0..lr", c.MinLR)
	case c.Schedule == "step" && !(c.Gamma > 0 && c.Gamma <= 1):
		return fmt.Errorf("train config: gamma %v: want in (0, 1]", c.Gamma)
	case c.Momentum < 0 || c.Momentum >= 1:
		return fmt.Errorf("train config: momentum %v: want 0..1", c.Momentum)
	case c.Beta1 < 0 || c.Beta1 >= 1 || c.Beta2 < 0 || c.Beta2 >= 1:
		return fmt.Errorf("train config: beta1 %v, beta2 %v: want 0..1", c.Beta1, c.Beta2)
	case c.Optimizer == "adam" && !(c.Epsilon > 0):
		return fmt.Errorf("train config: epsilon %v: want more than 0", c.Epsilon)
	case c.WeightDecay < 0:
		return fmt.Errorf("train config: weight_decay %v: want 0 or more", c.WeightDecay)
	case c.ValueWeight < 0:
		return fmt.Errorf("train config: value_weight %v: want 0 or more", c.ValueWeight)
	case !(c.OwnershipWeight >= 0 && c.ScoreWeight >= 0 && c.ReplyWeight >= 0):
		return fmt.Errorf("train config: ownership_weight %v, score_weight %v, reply_weight %v: want 0 (off) or more", c.OwnershipWeight, c.ScoreWeight, c.ReplyWeight)
	case !(c.ValueMix >= 0 && c.ValueMix <= 1):
		return fmt.Errorf("train config: value_mix %v: want 0..1", c.ValueMix)
	case !(c.WeightEMA >= 0 && c.WeightEMA < 1):
		return fmt.Errorf("train config: weight_ema %v: want 0 (off) or a decay below 1", c.WeightEMA)
	case c.Threads < 0:
		return fmt.Errorf("train config: threads %d: want 0 (one per core) or more", c.Threads)
	}
	return nil
}

// Aux is the auxiliary heads c trains: those of a weight above 0.
func (c Config) Aux() model.Aux {
	var h model.Aux
	if c.OwnershipWeight > 0 {
		h |= model.AuxOwnership
	}
	if c.ScoreWeight > 0 {
		h |= model.AuxScore
	}
	if c.ReplyWeight > 0 {
		h |= model.AuxReply
	}
	return h
}

// CheckKind reports whether a network of kind (model.Config.Kind) can
// train as c says: the auxiliary heads are a graph network's.
func (c Config) CheckKind(kind string) error {
	if h := c.Aux(); h != 0 && kind != model.KindGraph {
		return fmt.Errorf("train config: auxiliary heads (%v: ownership_weight %v, score_weight %v, reply_weight %v) are a graph network's; set model.kind: %s or the weights to 0",
			h, c.OwnershipWeight, c.ScoreWeight, c.ReplyWeight, model.KindGraph)
	}
	return nil
}

// CheckVariant reports what in c does not fit variant v: value_mix is for
// two players only. The trainer checks it, and a run when it opens.
func (c Config) CheckVariant(v *engine.Variant) error {
	if c.ValueMix > 0 && v.Players != 2 {
		return fmt.Errorf("value_mix %v: for two players only, %s has %d (set train.value_mix: 0)", c.ValueMix, v.Name, v.Players)
	}
	return nil
}
