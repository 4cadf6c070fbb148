package store

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/gcerrors"
)

func TestStorePatience_RetriesPastTheAttemptsAndSaysWhatItWaitsFor(t *testing.T) {
	ctx := context.Background()
	s, fb := newFaultStore(t)
	if err := s.PutReplace(ctx, "models/best", []byte("3\n")); err != nil {
		t.Fatal(err)
	}
	// Without a patience: the few attempts of the retry policy.
	fb.inject("read", "models/best", 100, gcerrors.Internal, false)
	if _, err := s.Get(ctx, "models/best"); err == nil || !strings.Contains(err.Error(), "gave up after 4 attempts") {
		t.Fatalf("Get without patience = %v; want it to give up after the policy's 4 attempts", err)
	}
	fb.clear()
	// With one: as long as it allows, telling what it waits for.
	var mu sync.Mutex
	var said []string
	WithPatience(time.Minute, func(msg string) { mu.Lock(); said = append(said, msg); mu.Unlock() })(s)
	WithWaitReports(5*time.Millisecond, 5*time.Millisecond)(s)
	fb.inject("read", "models/best", 40, gcerrors.Internal, false)
	data, err := s.Get(ctx, "models/best")
	if err != nil || string(data) != "3\n" {
		t.Fatalf("Get with patience = %q, %v; want the object after 40 failures", data, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(said) < 2 || !strings.Contains(said[0], "waiting for run store") || !strings.Contains(said[0], "models/best") ||
		!strings.Contains(said[len(said)-1], "answers again") {
		t.Fatalf("what the store said while it waited: %q", said)
	}
	// A patience that is spent is an error saying so.
	WithPatience(20*time.Millisecond, nil)(s)
	fb.inject("read", "models/best", 1000, gcerrors.Internal, false)
	if _, err := s.Get(ctx, "models/best"); err == nil || !strings.Contains(err.Error(), "store patience") {
		t.Fatalf("Get past its patience = %v; want an error naming the patience", err)
	}
}
