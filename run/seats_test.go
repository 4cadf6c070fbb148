package run

import (
	"github.com/millzero/millzero/runconfig"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadConfig_GateNeedsAGamePerSeat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(path, []byte("variant: moulin-rouge-4\ngate: {max_games: 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runconfig.LoadConfig(path); err == nil || !strings.Contains(err.Error(), "max_games 3") || !strings.Contains(err.Error(), "moulin-rouge-4") {
		t.Errorf("max_games 3 for four seats: error %v, want one naming max_games and the variant", err)
	}
}
