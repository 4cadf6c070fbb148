package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"
)

// faultBucket is a gocloud blob driver over an in-memory bucket that fails
// chosen operations with chosen error codes, to test the store's retries.
type faultBucket struct {
	inner *blob.Bucket

	mu     sync.Mutex
	faults []*fault
	// ignoreIfNotExist makes writes replace existing objects, as an S3
	// clone without conditional writes does.
	ignoreIfNotExist bool
	calls            map[string]int // op -> number of calls
	// beforeList, when set, runs once before the next listing: another
	// process's write landing between a read and a listing.
	beforeList func()
}

// fault fails the next n calls of op on key ("" any key, "PREFIX*" any
// key that starts with PREFIX) with code; with
// afterCommit a write fails after the object was written (a lost answer).
type fault struct {
	op, key     string
	n           int
	code        gcerrors.ErrorCode
	afterCommit bool
}

// faultError is an injected failure.
type faultError struct {
	code    gcerrors.ErrorCode
	op, key string
}

func (e *faultError) Error() string { return fmt.Sprintf("injected %v on %s %s", e.code, e.op, e.key) }

// newFaultStore returns a store over a faultBucket with fast retries.
func newFaultStore(t *testing.T) (*Store, *faultBucket) {
	t.Helper()
	fb := &faultBucket{inner: memblob.OpenBucket(nil), calls: map[string]int{}}
	s := newStore("fault://test", blob.NewBucket(fb), "", "")
	s.retry = retryPolicy{attempts: 4, first: time.Millisecond, max: 4 * time.Millisecond}
	t.Cleanup(func() { s.Close() })
	return s, fb
}

// inject adds a fault.
func (f *faultBucket) inject(op, key string, n int, code gcerrors.ErrorCode, afterCommit bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, &fault{op: op, key: key, n: n, code: code, afterCommit: afterCommit})
}

// clear removes all faults.
func (f *faultBucket) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = nil
}

// callCount returns how many times op was called.
func (f *faultBucket) callCount(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[op]
}

// check counts a call and returns the injected error for it, if any.
func (f *faultBucket) check(op, key string, afterCommit bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !afterCommit {
		f.calls[op]++
	}
	for _, ft := range f.faults {
		pre, wild := strings.CutSuffix(ft.key, "*")
		if ft.n > 0 && ft.op == op && (ft.key == "" || ft.key == key || wild && strings.HasPrefix(key, pre)) && ft.afterCommit == afterCommit {
			ft.n--
			return &faultError{code: ft.code, op: op, key: key}
		}
	}
	return nil
}

func (f *faultBucket) ErrorCode(err error) gcerrors.ErrorCode {
	var fe *faultError
	if errors.As(err, &fe) {
		return fe.code
	}
	return gcerrors.Code(err)
}

func (f *faultBucket) As(any) bool             { return false }
func (f *faultBucket) ErrorAs(error, any) bool { return false }
func (f *faultBucket) Close() error            { return f.inner.Close() }
func (f *faultBucket) Copy(context.Context, string, string, *driver.CopyOptions) error {
	return errors.New("faultBucket: no Copy")
}
func (f *faultBucket) SignedURL(context.Context, string, *driver.SignedURLOptions) (string, error) {
	return "", errors.New("faultBucket: no SignedURL")
}

func (f *faultBucket) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	if err := f.check("attributes", key, false); err != nil {
		return nil, err
	}
	a, err := f.inner.Attributes(ctx, key)
	if err != nil {
		return nil, err
	}
	return &driver.Attributes{ContentType: a.ContentType, ModTime: a.ModTime, Size: a.Size, MD5: a.MD5, ETag: a.ETag}, nil
}

func (f *faultBucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	if err := f.check("list", opts.Prefix, false); err != nil {
		return nil, err
	}
	f.mu.Lock()
	hook := f.beforeList
	f.beforeList = nil
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	size := opts.PageSize
	if size <= 0 {
		size = 1000
	}
	token := opts.PageToken
	if len(token) == 0 {
		token = blob.FirstPageToken
	}
	objs, next, err := f.inner.ListPage(ctx, token, size, &blob.ListOptions{Prefix: opts.Prefix, Delimiter: opts.Delimiter})
	if err != nil {
		return nil, err
	}
	page := &driver.ListPage{NextPageToken: next}
	for _, o := range objs {
		page.Objects = append(page.Objects, &driver.ListObject{Key: o.Key, ModTime: o.ModTime, Size: o.Size, MD5: o.MD5, IsDir: o.IsDir})
	}
	return page, nil
}

func (f *faultBucket) NewRangeReader(ctx context.Context, key string, offset, length int64, _ *driver.ReaderOptions) (driver.Reader, error) {
	if err := f.check("read", key, false); err != nil {
		return nil, err
	}
	r, err := f.inner.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, err
	}
	return faultReader{r}, nil
}

func (f *faultBucket) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (driver.Writer, error) {
	if err := f.check("write", key, false); err != nil {
		return nil, err
	}
	f.mu.Lock()
	ifNotExist := opts.IfNotExist && !f.ignoreIfNotExist
	f.mu.Unlock()
	w, err := f.inner.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType, IfNotExist: ifNotExist})
	if err != nil {
		return nil, err
	}
	return &faultWriter{w: w, f: f, key: key}, nil
}

func (f *faultBucket) Delete(ctx context.Context, key string, _ *driver.DeleteOptions) error {
	if err := f.check("delete", key, false); err != nil {
		return err
	}
	return f.inner.Delete(ctx, key)
}

// faultReader adapts a blob.Reader to the driver.
type faultReader struct{ r *blob.Reader }

func (r faultReader) Read(p []byte) (int, error) { return r.r.Read(p) }
func (r faultReader) Close() error               { return r.r.Close() }
func (r faultReader) As(any) bool                { return false }
func (r faultReader) Attributes() *driver.ReaderAttributes {
	return &driver.ReaderAttributes{ContentType: r.r.ContentType(), ModTime: r.r.ModTime(), Size: r.r.Size()}
}

// faultWriter adapts a blob.Writer to the driver and injects failures after
// the commit.
type faultWriter struct {
	w   *blob.Writer
	f   *faultBucket
	key string
}

func (w *faultWriter) Write(p []byte) (int, error) { return w.w.Write(p) }
func (w *faultWriter) Close() error {
	if err := w.w.Close(); err != nil {
		return err
	}
	return w.f.check("write", w.key, true)
}
