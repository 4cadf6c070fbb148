package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/millzero/millzero/model"
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
	ck, err := model.LoadCheckpoint(path)
	if err != nil {
		return err
	}
	v, err := ck.Variant() // from the spec the checkpoint carries
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if strings.EqualFold(filepath.Ext(*outPath), ".safetensors") {
		if err := ck.PlayOnly().Save(*outPath); err != nil {
			return err
		}
		st, err := os.Stat(*outPath)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "wrote %s (%.2f MB): %s, %v, generation %d from %s (%s), the network only (no optimizer state)\n",
			*outPath, float64(st.Size())/1e6, v.Name, ck.Net.Arch, ck.Generation, filepath.Clean(path), why)
		return nil
	}
	info := onnx.Info{Generation: ck.Generation, Steps: ck.Steps, Producer: buildVersion()}
	if err := onnx.WriteFile(*outPath, v, ck.Net, info); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	st, err := os.Stat(*outPath)
	if err != nil {
		return err
	}
	a := ck.Net.Arch
	fmt.Fprintf(out, "wrote %s (%.1f MB): %s, %v, generation %d from %s (%s)\n", *outPath, float64(st.Size())/1e6,
		v.Name, a, ck.Generation, filepath.Clean(path), why)
	fmt.Fprintf(out, "input  %s [batch, %d]: model.Encode features, encoder version %d\n", onnx.InputFeatures, a.Inputs, a.Encoder)
	fmt.Fprintf(out, "output %s [batch, %d]: raw logits; mask to the legal actions, then softmax\n", onnx.OutputPolicy, a.Actions)
	fmt.Fprintf(out, "output %s [batch, %d]: win of the seat to move, of each next seat in turn, draw (softmax)\n", onnx.OutputOutcome, a.Outcomes)
	return nil
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

// buildVersion is the build's module version and VCS revision, for the
// file's producer_version.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
