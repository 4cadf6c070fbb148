package runconfig

import (
	"bytes"
	"strings"
	"testing"

	"github.com/millzero/millzero/configs"
)

// FuzzConfig: any text as a run config is a valid config or an error
// naming the file, never a panic; a config it accepts reads back the same.
func FuzzConfig(f *testing.F) {
	for _, name := range []string{"runs/nine.yaml", "runs/three-test.yaml", "runs/nine-long.yaml"} {
		if text, err := configs.Runs.ReadFile(name); err == nil {
			f.Add(text)
		}
	}
	f.Add([]byte("variant: {base: nine, diagonals: true}\nmodel: {width: 0}\n"))
	f.Add([]byte("loop: {grow: [{generation: 2, width: 8, blocks: 1}]}\ngate: {ladder: [alphabeta:99]}\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		_, out, err := loadConfig("fuzz.yaml", text)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		_, again, err := loadConfig("resolved.yaml", out)
		if err != nil {
			t.Fatalf("the resolved config of an accepted one is refused: %v\n%s", err, out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("the resolved config reads back as another:\n%s\nthen\n%s", out, again)
		}
	})
}
