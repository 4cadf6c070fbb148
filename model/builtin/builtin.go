// Package builtin is the model that comes with millzero: a Nine Men's
// Morris network trained from nothing by the project's own default run
// (configs/runs/nine.yaml), embedded in the binary so that play, the
// engine and the arena meet a real opponent before any training. Where it
// comes from and how strong it is are in nine.yaml beside it; replacing
// nine.safetensors (millzero export --run DIR --out
// model/builtin/nine.safetensors) and nine.yaml, then building, puts
// another model in the box.
package builtin

import (
	_ "embed"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/millzero/millzero/model"
)

// Variant is the variant of the built-in model.
const Variant = "nine"

//go:embed nine.safetensors
var nine []byte

//go:embed nine.yaml
var nineProvenance []byte

// Provenance is where the built-in model comes from and its measured
// strength, as nine.yaml records them.
type Provenance struct {
	Variant    string   `yaml:"variant"`
	Generation int      `yaml:"generation"`
	Network    string   `yaml:"network"`
	Config     string   `yaml:"config"`
	Command    string   `yaml:"command"`
	Commit     string   `yaml:"commit"`
	Trained    string   `yaml:"trained"`
	Strength   []string `yaml:"strength"`
}

// Nine is the built-in model's checkpoint, a new copy each call.
func Nine() (*model.Checkpoint, error) {
	return model.ParseCheckpoint("built-in nine model", nine)
}

// About is the built-in model's provenance.
func About() (Provenance, error) {
	var p Provenance
	if err := yaml.Unmarshal(nineProvenance, &p); err != nil {
		return p, fmt.Errorf("built-in model provenance nine.yaml: %w", err)
	}
	return p, nil
}

// Describe names the built-in model for people: "built-in nine model
// (generation N of the default run)".
func Describe() string {
	p, err := About()
	if err != nil {
		return "built-in nine model"
	}
	return fmt.Sprintf("built-in nine model (generation %d of the default run, %s)", p.Generation, p.Network)
}
