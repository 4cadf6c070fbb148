package store

import (
	"context"
	"testing"
	"time"
)

// An attempt that the store never answers ends at the attempt's bound as a
// transient timeout and is tried again, instead of holding its caller.
func TestDo_AnAttemptThatNeverEndsIsTriedAgain(t *testing.T) {
	const bound = 50 * time.Millisecond
	s := &Store{loc: "test://hung", retry: retryPolicy{attempts: 3, first: time.Millisecond, max: time.Millisecond},
		waitFirst: WaitFirst, waitEvery: WaitEvery}
	WithAttemptTimeout(bound)(s)
	attempts := 0
	start := time.Now()
	err := s.do(context.Background(), "get", "x", func(ctx context.Context, attempt int) error {
		attempts++
		if attempt == 0 {
			<-ctx.Done() // a request left unanswered
			return ctx.Err()
		}
		return nil
	})
	if err != nil || attempts != 2 {
		t.Fatalf("do = %v after %d attempts: want the second attempt to go through", err, attempts)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	// A caller's own deadline is not retried.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	attempts = 0
	err = s.do(ctx, "get", "x", func(ctx context.Context, attempt int) error {
		attempts++
		<-ctx.Done()
		return ctx.Err()
	})
	if err == nil || attempts != 1 {
		t.Errorf("the caller's deadline: %v after %d attempts, want one attempt and its error", err, attempts)
	}
	// An open reader outlives its attempt.
	err = s.doUnbounded(context.Background(), "open", "x", func(ctx context.Context, _ int) error {
		time.Sleep(2 * bound)
		return ctx.Err()
	})
	if err != nil {
		t.Errorf("an unbounded operation was cut short: %v", err)
	}
}
