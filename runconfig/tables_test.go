package runconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
)

// TestOpenTables_AutoBuildsOnceInTheCache: tablebase auto builds the
// tables in the user's cache the first time and reads them after; a board
// the tables do not cover runs without them (and says so), where a
// directory named for it is an error naming it.
func TestOpenTables_AutoBuildsOnceInTheCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	var first, second progressLog
	set, err := openTables(v, tablebase.Auto, true, 6, &first)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := set.Prove(&engine.Position{}); ok {
		t.Error("the empty position is in the tables")
	}
	files, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "millzero", "tables", "nine-"+v.Spec.Hash(), "*"))
	if len(files) != 1 || !strings.Contains(first.String(), "(1 new files)") {
		t.Errorf("files %v, progress %q: want the 3 v 3 table built", files, first.String())
	}
	if _, err := openTables(v, tablebase.Auto, true, 6, &second); err != nil {
		t.Fatal(err)
	}
	if second.String() != "" {
		t.Errorf("second open said %q: want the tables read, nothing built", second.String())
	}
	three, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	var none progressLog
	if set, err := openTables(three, tablebase.Auto, true, 6, &none); err != nil || set != nil || !strings.Contains(none.String(), "three") {
		t.Errorf("three: tables %v, error %v, said %q: want none, and a line naming three", set, err, none.String())
	}
	if _, err := openTables(three, t.TempDir(), true, 6, &none); err == nil || !strings.Contains(err.Error(), "three") {
		t.Errorf("three from a directory: error %v, want one naming three", err)
	}
}

// progressLog keeps the lasting lines a job reports.
type progressLog struct {
	mu    sync.Mutex
	lines []string
}

func (p *progressLog) Update(string, ...any) {}
func (p *progressLog) Done(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, fmt.Sprintf(format, args...))
}
func (p *progressLog) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}
