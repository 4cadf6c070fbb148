package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"syscall"
	"time"

	"gocloud.dev/gcerrors"
)

// retryPolicy bounds the retries of one store operation: attempts tries at
// most, sleeping first, 2*first, 4*first, ... (capped at max, with +-25%
// jitter) in between.
type retryPolicy struct {
	attempts   int
	first, max time.Duration
}

// defaultRetry rides out a store restart or a short network outage: 8
// attempts over about 12 s (on S3 each attempt is itself up to 3 tries of
// the AWS SDK).
var defaultRetry = retryPolicy{attempts: 8, first: 100 * time.Millisecond, max: 5 * time.Second}

// WaitFirst is how long a process waits (for a store that does not
// answer, or for a run to appear) before it says what it waits for;
// WaitEvery how often it says so again.
const (
	WaitFirst = 10 * time.Second
	WaitEvery = 30 * time.Second
)

// Option sets how a store behaves; options are given to Open, and fixed
// from then on.
type Option func(*Store)

// WithPatience makes the store retry an operation that fails for a
// transient reason (the store unreachable, overloaded, timing out) for up
// to d, with capped exponential backoff, instead of a few times over about
// 12 s: a negative d retries until the operation's context ends. While an
// operation waits, waiting (when not nil) is told what it waits for, after
// WaitFirst and then every WaitEvery. Errors that no retry fixes (a
// missing object, refused credentials) are returned at once whatever d is.
func WithPatience(d time.Duration, waiting func(msg string)) Option {
	return func(s *Store) { s.patience, s.waiting = d, waiting }
}

// WithWaitReports makes a waiting operation tell what it waits for after
// first and then every every, instead of WaitFirst and WaitEvery.
func WithWaitReports(first, every time.Duration) Option {
	return func(s *Store) { s.waitFirst, s.waitEvery = first, every }
}

// WithAttemptTimeout bounds one attempt of a store operation at d instead
// of DefaultAttemptTimeout.
func WithAttemptTimeout(d time.Duration) Option {
	return func(s *Store) { s.attemptTimeout = d }
}

// permanentError marks an error that no retry fixes.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// permanent marks err as not worth retrying.
func permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// do runs op (given the attempt number, from 0) until it succeeds, fails
// permanently, the attempts run out or ctx ends, and wraps the error with
// the operation, the object name and the store. A missing object's error
// matches fs.ErrNotExist.
//
// With a patience (WithPatience) a transient error is retried until the
// patience is spent (forever when it is negative) instead of a fixed number
// of times, and the store's waiting function is told what the operation
// waits for after its waitFirst and then every waitEvery.
//
// Each attempt gets at most the store's attempt timeout
// (DefaultAttemptTimeout unless WithAttemptTimeout): a request the store accepted
// and never answers (a connection left open by a store that restarted)
// fails as a transient timeout and is tried again, instead of holding its
// caller for ever.
func (s *Store) do(ctx context.Context, opName, name string, op func(ctx context.Context, attempt int) error) error {
	return s.retried(ctx, opName, name, s.attemptTimeout, op)
}

// doUnbounded is do without the bound on an attempt: for an operation whose
// result outlives it (a reader the caller streams).
func (s *Store) doUnbounded(ctx context.Context, opName, name string, op func(ctx context.Context, attempt int) error) error {
	return s.retried(ctx, opName, name, 0, op)
}

// DefaultAttemptTimeout bounds one attempt of a store operation (do).
const DefaultAttemptTimeout = 2 * time.Minute

func (s *Store) retried(ctx context.Context, opName, name string, bound time.Duration, op func(ctx context.Context, attempt int) error) error {
	delay := s.retry.first
	start := time.Now()
	nextReport := start.Add(s.waitFirst)
	for attempt := 0; ; attempt++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if bound > 0 {
			actx, cancel = context.WithTimeout(ctx, bound)
		}
		err := op(actx, attempt)
		cancel()
		if err == nil {
			if attempt > 0 && s.waiting != nil && time.Since(start) >= s.waitFirst {
				s.waiting(fmt.Sprintf("run store %s answers again: %s %s went through after %v", s.loc, opName, name,
					time.Since(start).Round(time.Second)))
			}
			return nil
		}
		var pe permanentError
		if errors.As(err, &pe) || ctx.Err() != nil || !IsTransient(err) {
			return s.opError(opName, name, err)
		}
		waited := time.Since(start)
		if s.patience == 0 && attempt+1 >= s.retry.attempts || s.patience > 0 && waited >= s.patience {
			how := ""
			if s.patience > 0 {
				how = fmt.Sprintf(" (the store patience is %v)", s.patience)
			}
			return s.opError(opName, name, fmt.Errorf("gave up after %d attempts over %v%s: %w",
				attempt+1, waited.Round(time.Millisecond), how, err))
		}
		if s.waiting != nil && time.Now().After(nextReport) {
			until := "until it answers"
			if s.patience > 0 {
				until = fmt.Sprintf("for %v more", (s.patience - waited).Round(time.Second))
			}
			s.waiting(fmt.Sprintf("waiting for run store %s: %s %s has failed for %v (%v); retrying %s",
				s.loc, opName, name, waited.Round(time.Second), err, until))
			nextReport = time.Now().Add(s.waitEvery)
		}
		t := time.NewTimer(delay*3/4 + rand.N(delay/2+1)) // delay +-25%
		select {
		case <-ctx.Done():
			t.Stop()
			return s.opError(opName, name, fmt.Errorf("%w (while retrying after: %w)", ctx.Err(), err))
		case <-t.C:
		}
		if delay = 2 * delay; delay > s.retry.max {
			delay = s.retry.max
		}
	}
}

// opError wraps err with what was done to which object of which store.
func (s *Store) opError(opName, name string, err error) error {
	if storeErrorCode(err) == gcerrors.NotFound && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %s in %s: %w: %w", opName, name, s.loc, fs.ErrNotExist, err)
	}
	return fmt.Errorf("%s %s in %s: %w", opName, name, s.loc, err)
}

// storeErrorCode is gocloud's classification of err (gcerrors.OK for nil).
func storeErrorCode(err error) gcerrors.ErrorCode {
	return gcerrors.Code(err)
}

// IsTransient tells whether err may go away when the operation is tried
// again: the store is unavailable, overloaded or timed out, the connection
// broke, or an HTTP 5xx/429 answer. gocloud's S3 driver reports most of these
// as Unknown, so the HTTP status and the S3 error code are read too.
func IsTransient(err error) bool {
	switch storeErrorCode(err) {
	case gcerrors.ResourceExhausted, gcerrors.DeadlineExceeded, gcerrors.Internal:
		return true
	case gcerrors.NotFound, gcerrors.AlreadyExists, gcerrors.FailedPrecondition, gcerrors.PermissionDenied,
		gcerrors.InvalidArgument, gcerrors.Unimplemented, gcerrors.Canceled:
		return false
	}
	var se sourceError
	var le localError
	if errors.As(err, &se) || errors.As(err, &le) {
		return false
	}
	if IsCredentialError(err) {
		return false
	}
	var hs interface{ HTTPStatusCode() int }
	if errors.As(err, &hs) {
		c := hs.HTTPStatusCode()
		if c >= 500 || c == 429 || c == 408 || c == 499 { // 499: the server saw the connection close (MinIO's ClientDisconnected)
			return true
		}
	}
	var ec interface{ ErrorCode() string }
	if errors.As(err, &ec) {
		switch ec.ErrorCode() {
		case "SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout", "Throttling",
			"ThrottlingException", "RequestTimeTooSkewed", "XMinioServerNotInitialized",
			"ClientDisconnected",         // MinIO: the connection broke while it answered
			"ConditionalRequestConflict": // S3: a concurrent conditional write; retry
			return true
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// IsUnreachable tells whether err says the store's endpoint cannot be
// reached (refused, no route, no such host).
func IsUnreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var dns *net.DNSError
	var op *net.OpError
	return errors.As(err, &dns) || errors.As(err, &op)
}

// IsCredentialError tells whether err is an S3-style refusal of the
// credentials, which gocloud reports as Unknown.
func IsCredentialError(err error) bool {
	var ec interface{ ErrorCode() string }
	if errors.As(err, &ec) {
		switch ec.ErrorCode() {
		case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidToken", "ExpiredToken",
			"AuthorizationHeaderMalformed", "InvalidClientTokenId":
			return true
		}
	}
	var hs interface{ HTTPStatusCode() int }
	if errors.As(err, &hs) {
		return hs.HTTPStatusCode() == 401 || hs.HTTPStatusCode() == 403
	}
	return false
}
