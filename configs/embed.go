// Package configs holds the YAML files that configure millzero: the named
// variants (variants/*.yaml) and the run configs. They are embedded in the
// binary, so every command works with no file on disk.
package configs

import "embed"

// Variants holds variants/*.yaml, one named variant a file.
//
//go:embed variants/*.yaml
var Variants embed.FS

// Runs holds runs/*.yaml, the run configs of `millzero train`: runs/nine.yaml
// is the default.
//
//go:embed runs/*.yaml
var Runs embed.FS
