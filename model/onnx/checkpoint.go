package onnx

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/millzero/millzero/internal/version"
	"github.com/millzero/millzero/model"
)

// ExportCheckpoint writes the checkpoint at path (chosen as why says) to
// outPath, replaced atomically: an ONNX model, or with a .safetensors
// extension a checkpoint with only what play needs (no optimizer state).
// It says on out what it wrote.
func ExportCheckpoint(out io.Writer, path, why, outPath string) error {
	ck, err := model.LoadCheckpoint(path)
	if err != nil {
		return err
	}
	v, err := ck.Variant() // from the spec the checkpoint carries
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if strings.EqualFold(filepath.Ext(outPath), ".safetensors") {
		if err := ck.PlayOnly().Save(outPath); err != nil {
			return err
		}
		st, err := os.Stat(outPath)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "wrote %s (%.2f MB): %s, %v, generation %d from %s (%s), the network only (no optimizer state)\n",
			outPath, float64(st.Size())/1e6, v.Name, ck.Net.Arch, ck.Generation, filepath.Clean(path), why)
		return nil
	}
	info := Info{Generation: ck.Generation, Steps: ck.Steps, Producer: version.Producer()}
	if err := WriteFile(outPath, v, ck.Net, info); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	st, err := os.Stat(outPath)
	if err != nil {
		return err
	}
	a := ck.Net.Arch
	fmt.Fprintf(out, "wrote %s (%.1f MB): %s, %v, generation %d from %s (%s)\n", outPath, float64(st.Size())/1e6,
		v.Name, a, ck.Generation, filepath.Clean(path), why)
	fmt.Fprintf(out, "input  %s [batch, %d]: model.Encode features, encoder version %d\n", InputFeatures, a.Inputs, a.Encoder)
	fmt.Fprintf(out, "output %s [batch, %d]: raw logits; mask to the legal actions, then softmax\n", OutputPolicy, a.Actions)
	fmt.Fprintf(out, "output %s [batch, %d]: win of the seat to move, of each next seat in turn, draw (softmax)\n", OutputOutcome, a.Outcomes)
	return nil
}
