// Package configs holds the YAML files that configure millzero: the named
// variants (variants/*.yaml) and the run configs. They are embedded in the
// binary, so every command works with no file on disk.
package configs

import (
	"embed"
	"strings"
)

// Variants holds variants/*.yaml, one named variant a file.
//
//go:embed variants/*.yaml
var Variants embed.FS

// Runs holds runs/*.yaml, the run configs of `millzero train`: runs/nine.yaml
// is the default.
//
//go:embed runs/*.yaml
var Runs embed.FS

// RunNames is the names of the embedded run configs (runs/NAME.yaml),
// sorted: what `millzero train --config NAME` accepts besides a file.
func RunNames() []string {
	entries, err := Runs.ReadDir("runs")
	if err != nil {
		panic(err) // the directory is embedded: it is there
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, name)
		}
	}
	return names
}
