package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// Writes from several goroutines all land, whole, while String reads.
func TestBuffer_KeepsEveryWriteOfConcurrentWriters(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				b.Write([]byte("ab\n"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if got := strings.Count(b.String(), "ab\n"); got != 400 || len(b.String()) != 1200 {
		t.Errorf("%d whole writes in %d bytes, want 400 in 1200", got, len(b.String()))
	}
	b.Reset()
	if b.String() != "" {
		t.Errorf("after Reset: %q, want empty", b.String())
	}
}
