package config

import "math"

// LearningRate is the learning rate of the given step (counting from 0)
// under c's schedule.
func (c Config) LearningRate(step int64) float64 {
	if step < int64(c.WarmupSteps) {
		return c.LR * float64(step+1) / float64(c.WarmupSteps)
	}
	t := step - int64(c.WarmupSteps)
	switch c.Schedule {
	case "cosine":
		if t >= int64(c.DecaySteps) {
			return c.MinLR
		}
		f := 0.5 * (1 + math.Cos(math.Pi*float64(t)/float64(c.DecaySteps)))
		return c.MinLR + (c.LR-c.MinLR)*f
	case "step":
		return c.LR * math.Pow(c.Gamma, float64(t/int64(c.DecaySteps)))
	}
	return c.LR
}
