package play

import (
	"fmt"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/uci"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/version"
	"github.com/millzero/millzero/runconfig"
)

// ClassicServer serves the classical engine over the engine protocol in
// the variant of pc (or the Variant option's), with pc's endgame tables
// when that variant is pc's.
func ClassicServer(pc *PlayerConfig) *uci.Server {
	load := func(o uci.EngineOptions) (uci.Engine, error) {
		v, err := Source{}.VariantFor(o.Variant)
		if err == nil {
			v, err = o.ApplyRules(v)
		}
		if err != nil {
			return uci.Engine{}, err
		}
		p := arena.Classic{MoveTime: time.Second}
		if pc.Tables != "" {
			set, err := runconfig.OpenTables(v, pc.Tables, false, nil)
			if err != nil {
				return uci.Engine{}, fmt.Errorf("tablebase %s: %w", pc.Tables, err)
			}
			p.Tables = set
		}
		if o.Model != "" || o.Run != "" {
			return uci.Engine{}, fmt.Errorf("the classical engine takes no Model or Run")
		}
		return uci.Engine{Variant: v, Player: p, Desc: "the classical engine"}, nil
	}
	return &uci.Server{Name: "millzero classic", Load: load, Options: uci.EngineOptions{
		Variant: pc.Variant, Visits: pc.Sims, Threads: 1, Seed: pc.Seed}}
}

// EngineServer serves the player of pc over the engine protocol, pc's
// settings the options' defaults; a setoption of the model, run or
// variant loads the player anew.
func EngineServer(pc *PlayerConfig) *uci.Server {
	var loaded struct { // the last model loaded, so that each setoption does not load it again
		model, run string
		src        *Source
	}
	load := func(o uci.EngineOptions) (uci.Engine, error) {
		c := *pc
		c.Variant, c.Model, c.Run, c.Sims, c.Seed = o.Variant, o.Model, o.Run, o.Visits, o.Seed
		if loaded.src == nil || loaded.model != c.Model || loaded.run != c.Run {
			src, err := LoadSource(c)
			if err != nil {
				return uci.Engine{}, err
			}
			loaded.model, loaded.run, loaded.src = c.Model, c.Run, &src
		}
		src := *loaded.src
		if named, err := engine.LoadNameOrFile(c.Variant); c.Variant != "" && err == nil {
			src = src.WithoutBuiltin(named)
		}
		v, err := src.VariantFor(c.Variant)
		if err == nil {
			v, err = o.ApplyRules(v)
		}
		if err == nil {
			src = src.WithoutBuiltin(v)
		}
		if err == nil && src.Checkpoint != nil {
			err = src.Checkpoint.CheckVariant(v)
		}
		if err != nil {
			return uci.Engine{}, err
		}
		if c.Sims < 1 {
			return uci.Engine{}, fmt.Errorf("sims %d: want 1 or more", c.Sims)
		}
		p, err := src.SearchPlayer(v, c.Sims, c.Views)
		if err != nil {
			return uci.Engine{}, err
		}
		set, err := runconfig.OpenTables(v, c.Tables, false, nil)
		if err != nil {
			return uci.Engine{}, fmt.Errorf("tablebase %s: %w", c.Tables, err)
		}
		p.Prover = runconfig.Prover(set)
		return uci.Engine{Variant: v, Player: p, Desc: "model: " + p.Name()}, nil
	}
	return &uci.Server{Name: "millzero " + version.Version(), Load: load, Options: uci.EngineOptions{
		Variant: pc.Variant, Model: pc.Model, Run: pc.Run, Visits: pc.Sims, Threads: 1, Seed: pc.Seed}}
}
