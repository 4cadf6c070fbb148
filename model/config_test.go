package model

import (
	"bytes"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestConfigReadsFromYAML(t *testing.T) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader([]byte("width: 128\nblocks: 2\n")))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil || c != (Config{Width: 128, Blocks: 2}) {
		t.Fatalf("decoded %+v, %v", c, err)
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Config{{Width: 0, Blocks: 1}, {Width: 16, Blocks: -1}, {Width: 9000, Blocks: 1}} {
		if bad.Validate() == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
