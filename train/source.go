package train

import (
	"fmt"

	"github.com/millzero/millzero/dataset"
)

// OpenSplits opens the two Sources of a games directory: the training
// split, shuffled, augmented by random board symmetries and repeating
// pass after pass, its samples kept in memory after the first pass
// (dataset.WindowOptions.Keep: a trainer reads its window several times a
// generation, and decoding Parquet was a third of a step), and the
// validation split: valFraction of the newest
// generation's games (dataset.InValidation on the game id), which no
// training has seen, read once in order without augmentation. Older
// generations' games are all training games (HoldoutNewest). opts
// sets the window (Samples, Generations, Shuffle, Seed, FullOnly, Logger,
// Variant, and Cache, which only the training split uses); its Split,
// Augment, Repeat, Keep, ValFraction and HoldoutNewest are set here.
func OpenSplits(gamesDir string, opts dataset.WindowOptions, valFraction float64) (trainSrc, valSrc *dataset.Window, err error) {
	if valFraction < 0 || valFraction >= 1 {
		return nil, nil, fmt.Errorf("open splits of %s: validation fraction %v: want 0 <= f < 1", gamesDir, valFraction)
	}
	opts.ValFraction, opts.HoldoutNewest = valFraction, true
	t := opts
	t.Split, t.Augment, t.Repeat, t.Keep = dataset.Train, true, true, true
	if trainSrc, err = dataset.OpenWindow(gamesDir, t); err != nil {
		return nil, nil, fmt.Errorf("open training split: %w", err)
	}
	v := opts
	v.Split, v.Augment, v.Repeat, v.Shuffle, v.Generations, v.Samples, v.Cache = dataset.Validation, false, false, 0, 1, 0, nil
	if valSrc, err = dataset.OpenWindow(gamesDir, v); err != nil {
		return nil, nil, fmt.Errorf("open validation split: %w", err)
	}
	return trainSrc, valSrc, nil
}
