package model

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzCheckpoint: any bytes as a checkpoint file are a network or an
// error, never a panic or an allocation the file's size does not justify.
func FuzzCheckpoint(f *testing.F) {
	v := mustVariant(f, "three")
	n := randomNetwork(f, NewArch(v, Config{Width: 8, Blocks: 1}), 7)
	n.Variant = v.Name
	path := filepath.Join(f.TempDir(), "gen1.safetensors")
	if err := (&Checkpoint{Net: n, Generation: 1, Meta: map[string]string{"optimizer": "adam"}}).Save(path); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseCheckpoint(data)
		if err == nil && (c.Net == nil || c.Net.Arch.Validate() != nil) {
			t.Fatalf("no error and no valid network: %+v", c)
		}
	})
}
