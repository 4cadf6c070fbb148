package store

import (
	"errors"
	"fmt"
	"os"
	"sort"
)

// Checkpoints is the generations with a checkpoint in models/, oldest
// first; none (and no error) when the directory is not there.
func (r Dir) Checkpoints() ([]int, error) {
	entries, err := os.ReadDir(r.Models())
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var gens []int
	for _, e := range entries {
		if g, ok := checkpointGeneration(e.Name()); ok && e.Type().IsRegular() {
			gens = append(gens, g)
		}
	}
	sort.Ints(gens)
	return gens, nil
}

// ChooseCheckpoint is the checkpoint of the run to play or export, and why
// that one: generation gen if gen >= 0, else the best generation if it
// has a checkpoint, else the newest checkpoint. Errors do not name the
// run: the caller says which run it asked.
func (r Dir) ChooseCheckpoint(gen int) (path, why string, err error) {
	if st, err := os.Stat(string(r)); err != nil {
		return "", "", err
	} else if !st.IsDir() {
		return "", "", fmt.Errorf("%s: not a directory", r)
	}
	gens, err := r.Checkpoints()
	if err != nil {
		return "", "", err
	}
	have := "none"
	if len(gens) > 0 {
		have = fmt.Sprint(gens)
		if len(gens) > 8 {
			have = fmt.Sprintf("%d of them, generations %d..%d", len(gens), gens[0], gens[len(gens)-1])
		}
	}
	if gen >= 0 {
		path = r.Model(gen)
		if _, err := os.Stat(path); err != nil {
			return "", "", fmt.Errorf("no checkpoint %s (checkpoints: %s)", path, have)
		}
		return path, "the generation asked for", nil
	}
	best, err := r.Best()
	switch {
	case err == nil:
		if _, err := os.Stat(r.Model(best)); err == nil {
			return r.Model(best), "the run's best", nil
		}
	case !errors.Is(err, ErrNoModel):
		return "", "", err
	}
	if len(gens) == 0 {
		return "", "", fmt.Errorf("no checkpoint in %s (generation 0 plays without a model)", r.Models())
	}
	return r.Model(gens[len(gens)-1]), "the run's newest checkpoint; its best generation has none", nil
}
