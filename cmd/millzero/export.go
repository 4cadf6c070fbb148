package main

import (
	"context"
	"fmt"
	"io"

	"github.com/millzero/millzero/model/onnx"
	"github.com/millzero/millzero/store"
)

func runExport(args []string, out io.Writer) error {
	fs := newFlags("export", "(--run DIR [--generation N] | --model FILE.safetensors) --out FILE.onnx|FILE.safetensors",
		[]string{
			"millzero export --run runs/nine --out nine.onnx",
			"millzero export --run runs/nine --out nine.safetensors   # play-only checkpoint (no optimizer state)",
			"millzero export --run runs/nine --generation 12 --out nine-12.onnx",
			"millzero export --model runs/nine/models/gen-000012.safetensors --out nine-12.onnx",
		}, out)
	runPath := fs.String("run", "", "run directory: export its best generation (models/best), else its newest checkpoint")
	gen := fs.Int("generation", -1, "with --run: export generation N's checkpoint (-1: the best, else the newest)")
	modelPath := fs.String("model", "", "checkpoint file to export (instead of --run)")
	outPath := fs.String("out", "", "the file to write (replaced atomically): FILE.onnx for other runtimes, or FILE.safetensors, a checkpoint with only what play needs (what millzero play --model and the built-in model take)")
	fs.Usage = wrapExportUsage(fs.Usage, out)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) != 0:
		return fmt.Errorf("unexpected argument %q: every input is a flag", rest[0])
	case *outPath == "":
		return fmt.Errorf("--out FILE.onnx or --out FILE.safetensors is required")
	case *runPath != "" && *modelPath != "":
		return fmt.Errorf("give --run or --model, not both")
	case *runPath == "" && *modelPath == "":
		return fmt.Errorf("give --run DIR or --model FILE.safetensors: the checkpoint to export")
	case *modelPath != "" && *gen >= 0:
		return fmt.Errorf("--generation picks a checkpoint of --run; --model names the file itself")
	case *gen < -1:
		return fmt.Errorf("--generation %d: want 0 or more", *gen)
	}
	path, why := *modelPath, "--model"
	if *runPath != "" {
		dir, err := store.Fetch(context.Background(), *runPath, "")
		if err != nil {
			return err
		}
		if path, why, err = dir.ChooseCheckpoint(*gen); err != nil {
			if *gen >= 0 {
				return fmt.Errorf("--run %s --generation %d: %w", *runPath, *gen, err)
			}
			return fmt.Errorf("--run %s: %w", *runPath, err)
		}
	}
	return onnx.ExportCheckpoint(out, path, why, *outPath)
}

// wrapExportUsage adds what the exported file holds to the usage.
func wrapExportUsage(usage func(), out io.Writer) func() {
	return func() {
		usage()
		fmt.Fprintf(out, "\nThe file is a standard ONNX model (opset %d): input %q [batch, features],\n"+
			"outputs %q [batch, actions] and %q [batch, players+1].\n"+
			"Its metadata holds the variant, the feature-encoder version and what every\n"+
			"index of the input and the outputs means.\n",
			onnx.Opset, onnx.InputFeatures, onnx.OutputPolicy, onnx.OutputOutcome)
	}
}
