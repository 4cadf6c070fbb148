// Package train fits a model.Network to self-play samples: cross-entropy
// of the policy head against the search's visit distribution,
// cross-entropy of the outcome head against the game's result, and L2 on
// the weights. Gorgonia builds the training graph (graph.go, loss.go) and
// differentiates it symbolically; after the first step our own kernels
// run every op of it (exec.go, kernel.go), each op mapped to its kernel
// by one table keyed by Gorgonia's public API (ops.go), on a BLAS of the
// trainer's own (blas.go, engine.go). The optimizer and the schedule are
// ours too. Only this package links Gorgonia: inference (package model)
// does not.
package train

import "github.com/millzero/millzero/train/config"

// Config is how the trainer optimises (config.Config, apart so that a
// run's config reads it without linking the trainer).
type Config = config.Config

// DefaultConfig is the training of configs/runs/nine.yaml (config.Default).
func DefaultConfig() Config { return config.Default() }
