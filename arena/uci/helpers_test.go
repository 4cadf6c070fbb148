package uci

import (
	"testing"

	"github.com/millzero/millzero/engine"
)

func loadVariant(t testing.TB, name string) *engine.Variant {
	t.Helper()
	v, err := engine.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
