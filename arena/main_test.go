package arena

import (
	"os"
	"testing"
)

// TestMain lets the test binary act as a fake external engine: when
// fakeEngineEnv is set, it runs the fake engine on its standard input and
// output instead of the tests (see fakeEngine).
func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEngineEnv); mode != "" {
		os.Exit(fakeEngine(mode, os.Getenv(fakeVariantEnv), os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}
