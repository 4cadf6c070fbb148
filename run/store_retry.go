package run

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
func (s *Store) do(ctx context.Context, opName, name string, op func(attempt int) error) error {
	delay := s.retry.first
	start := time.Now()
	for attempt := 0; ; attempt++ {
		err := op(attempt)
		if err == nil {
			return nil
		}
		var pe permanentError
		if errors.As(err, &pe) || ctx.Err() != nil || !isTransient(err) {
			return s.opError(opName, name, err)
		}
		if attempt+1 >= s.retry.attempts {
			return s.opError(opName, name, fmt.Errorf("gave up after %d attempts over %v: %w",
				attempt+1, time.Since(start).Round(time.Millisecond), err))
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

// isTransient tells whether err may go away when the operation is tried
// again: the store is unavailable, overloaded or timed out, the connection
// broke, or an HTTP 5xx/429 answer. gocloud's S3 driver reports most of these
// as Unknown, so the HTTP status and the S3 error code are read too.
func isTransient(err error) bool {
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
	if isCredentialError(err) {
		return false
	}
	var hs interface{ HTTPStatusCode() int }
	if errors.As(err, &hs) {
		c := hs.HTTPStatusCode()
		if c >= 500 || c == 429 || c == 408 {
			return true
		}
	}
	var ec interface{ ErrorCode() string }
	if errors.As(err, &ec) {
		switch ec.ErrorCode() {
		case "SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout", "Throttling",
			"ThrottlingException", "RequestTimeTooSkewed", "XMinioServerNotInitialized",
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

// isUnreachable tells whether err says the store's endpoint cannot be
// reached (refused, no route, no such host).
func isUnreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var dns *net.DNSError
	var op *net.OpError
	return errors.As(err, &dns) || errors.As(err, &op)
}

// isCredentialError tells whether err is an S3-style refusal of the
// credentials, which gocloud reports as Unknown.
func isCredentialError(err error) bool {
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
