package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"
)

// openTestStores opens an empty store of each kind the unit tests cover:
// mem:// and a local directory (as a path and as a file:// URL).
func openTestStores(t *testing.T) map[string]*Store {
	t.Helper()
	ctx := context.Background()
	out := map[string]*Store{}
	for kind, loc := range map[string]string{
		"mem":  "mem://",
		"path": filepath.Join(t.TempDir(), "run"),
		"file": "file://" + filepath.Join(t.TempDir(), "run"),
	} {
		s, err := Open(ctx, loc)
		if err != nil {
			t.Fatalf("Open(%q): %v", loc, err)
		}
		t.Cleanup(func() { s.Close() })
		out[kind] = s
	}
	return out
}

func TestOpen_BadLocations_FailWithTheLocationAndTheCause(t *testing.T) {
	file := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		loc, want string
	}{
		{"", "empty location"},
		{"ftp://host/run", `unknown scheme "ftp"`},
		{"s3:///runs/nine", "no bucket"},
		{"file://otherhost/runs/nine", "absolute path"},
		{"file:///tmp/x?create_dir=1", "takes no query"},
		{"s3://bucket/run?no_such_option=1", "no_such_option"},
		{filepath.Join(file, "run"), "create the directory"},
	} {
		t.Run(tc.loc, func(t *testing.T) {
			s, err := Open(context.Background(), tc.loc)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q) succeeded", tc.loc)
			}
			if !strings.Contains(err.Error(), tc.want) || (tc.loc != "" && !strings.Contains(err.Error(), tc.loc)) {
				t.Errorf("Open(%q) = %v; want the location and %q", tc.loc, err, tc.want)
			}
		})
	}
}

func TestStore_Local_TellsALocalDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "run")
	for _, tc := range []struct {
		loc     string
		wantDir string
	}{
		{dir, dir},
		{"file://" + dir, dir},
		{"mem://", ""},
	} {
		s, err := Open(context.Background(), tc.loc)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := s.Local()
		if got != tc.wantDir || ok != (tc.wantDir != "") {
			t.Errorf("%s: Local() = %q, %v; want %q", tc.loc, got, ok, tc.wantDir)
		}
		if ok {
			if fi, err := os.Stat(got); err != nil || !fi.IsDir() {
				t.Errorf("%s: the directory was not created: %v", tc.loc, err)
			}
		}
		s.Close()
	}
}

func TestStore_Put_WritesOnce(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			name := "games/gen-000001/w1-0001.parquet"
			if err := s.Put(ctx, name, strings.NewReader("first")); err != nil {
				t.Fatal(err)
			}
			err := s.Put(ctx, name, strings.NewReader("second"))
			if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), name) {
				t.Fatalf("second Put = %v; want fs.ErrExist naming %s", err, name)
			}
			if got, err := s.Get(ctx, name); err != nil || string(got) != "first" {
				t.Fatalf("Get = %q, %v; want the first content", got, err)
			}
		})
	}
}

func TestStore_Put_SimultaneousWritersOfOneName_OneWins(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			const writers = 8
			var wg sync.WaitGroup
			errs := make([]error, writers)
			for i := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = s.Put(ctx, "models/best", strings.NewReader(fmt.Sprintf("writer %d", i)))
				}()
			}
			wg.Wait()
			won := 0
			for _, err := range errs {
				switch {
				case err == nil:
					won++
				case !errors.Is(err, fs.ErrExist):
					t.Errorf("a losing Put failed with %v; want fs.ErrExist", err)
				}
			}
			if won != 1 {
				t.Fatalf("%d writers succeeded; want exactly 1", won)
			}
		})
	}
}

func TestStore_PutReplace_Replaces(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			for _, v := range []string{"gen-000001", "gen-000002"} {
				if err := s.PutReplace(ctx, "models/best", []byte(v)); err != nil {
					t.Fatal(err)
				}
				if got, err := s.Get(ctx, "models/best"); err != nil || string(got) != v {
					t.Fatalf("Get = %q, %v; want %q", got, err, v)
				}
			}
		})
	}
}

// failingReader returns n bytes and then an error.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, errors.New("disk on fire")
	}
	k := min(len(p), r.n)
	clear(p[:k])
	r.n -= k
	return k, nil
}

func TestStore_Put_ReadErrorLeavesNoObject(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			err := s.Put(ctx, "games/x.parquet", &failingReader{n: 100_000})
			if err == nil || !strings.Contains(err.Error(), "disk on fire") {
				t.Fatalf("Put = %v; want the reader's error", err)
			}
			if ok, err := s.Exists(ctx, "games/x.parquet"); ok || err != nil {
				t.Fatalf("Exists = %v, %v after a failed Put; want false", ok, err)
			}
			if objs, err := s.List(ctx, ""); len(objs) != 0 || err != nil {
				t.Fatalf("List = %v, %v; want nothing", objs, err)
			}
		})
	}
}

func TestStore_List_RecursiveSortedWithSizes(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			for _, name := range []string{"games/gen-000002/b.parquet", "games/gen-000001/a.parquet", "run.yaml", "games/gen-000001/c.parquet"} {
				if err := s.Put(ctx, name, strings.NewReader(name)); err != nil {
					t.Fatal(err)
				}
			}
			if dir, ok := s.Local(); ok { // a write in progress is not an object
				if err := os.WriteFile(filepath.Join(dir, "games", "gen-000001", ".d.parquet.123.tmp"), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			objs, err := s.List(ctx, "games/gen-000001/")
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, o := range objs {
				names = append(names, o.Name)
				if o.Size != int64(len(o.Name)) || o.ModTime.IsZero() {
					t.Errorf("%s: size %d modtime %v; want %d and a time", o.Name, o.Size, o.ModTime, len(o.Name))
				}
			}
			if got, want := strings.Join(names, " "), "games/gen-000001/a.parquet games/gen-000001/c.parquet"; got != want {
				t.Fatalf("List = %s; want %s", got, want)
			}
			all, err := s.List(ctx, "")
			if err != nil || len(all) != 4 {
				t.Fatalf("List(\"\") = %d objects, %v; want 4", len(all), err)
			}
		})
	}
}

func TestStore_MissingObject_IsNotExist_DeleteIsIdempotent(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			if _, err := s.Get(ctx, "nope"); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "nope") {
				t.Errorf("Get missing = %v; want fs.ErrNotExist naming it", err)
			}
			if _, err := s.Open(ctx, "nope"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Open missing = %v; want fs.ErrNotExist", err)
			}
			if _, err := s.Stat(ctx, "nope"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Stat missing = %v; want fs.ErrNotExist", err)
			}
			if err := s.Download(ctx, "nope", filepath.Join(t.TempDir(), "x")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Download missing = %v; want fs.ErrNotExist", err)
			}
			if ok, err := s.Exists(ctx, "nope"); ok || err != nil {
				t.Errorf("Exists missing = %v, %v", ok, err)
			}
			if err := s.Put(ctx, "x", strings.NewReader("x")); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := s.Delete(ctx, "x"); err != nil {
					t.Errorf("Delete = %v", err)
				}
			}
			if ok, _ := s.Exists(ctx, "x"); ok {
				t.Error("x exists after Delete")
			}
		})
	}
}

func TestStore_BadObjectNames_AreRejected(t *testing.T) {
	s := openTestStores(t)["path"]
	for _, name := range []string{"", "/abs", "../up", "a/../../b", "a//b", "a\\b", "."} {
		if err := s.Put(context.Background(), name, strings.NewReader("x")); err == nil {
			t.Errorf("Put(%q) succeeded", name)
		}
	}
}

func TestStore_UploadDownload_RoundTrip(t *testing.T) {
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789"), 100_000)
	src := filepath.Join(t.TempDir(), "shard.parquet")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			if err := s.Upload(ctx, src, "games/gen-000001/s.parquet"); err != nil {
				t.Fatal(err)
			}
			if err := s.Upload(ctx, src, "games/gen-000001/s.parquet"); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("second Upload = %v; want fs.ErrExist", err)
			}
			dst := filepath.Join(t.TempDir(), "cache", "games", "s.parquet")
			if err := s.Download(ctx, "games/gen-000001/s.parquet", dst); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(dst)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("downloaded %d bytes, %v; want the %d uploaded", len(got), err, len(data))
			}
			if ents, _ := os.ReadDir(filepath.Dir(dst)); len(ents) != 1 {
				t.Fatalf("download left %d files; want 1 (no temporary file)", len(ents))
			}
			r, err := s.Open(ctx, "games/gen-000001/s.parquet")
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("Open read %d bytes, %v", len(got), err)
			}
		})
	}
}

func TestStore_Prefix_ScopesTheRun(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	a := newStore("mem://a", b, "", "runs/a")
	other := newStore("mem://b", b, "", "runs/ab")
	if err := a.Put(ctx, "run.yaml", strings.NewReader("a")); err != nil {
		t.Fatal(err)
	}
	if err := other.Put(ctx, "run.yaml", strings.NewReader("b")); err != nil {
		t.Fatalf("a prefix that extends another is a separate run: %v", err)
	}
	objs, err := a.List(ctx, "")
	if err != nil || len(objs) != 1 || objs[0].Name != "run.yaml" {
		t.Fatalf("List = %v, %v; want only run.yaml, relative to the prefix", objs, err)
	}
	parent := newStore("mem://", b, "", "runs")
	objs, err = parent.List(ctx, "")
	if err != nil || len(objs) != 2 || objs[0].Name != "a/run.yaml" || objs[1].Name != "ab/run.yaml" {
		t.Fatalf("the bucket holds %v, %v; want runs/a/run.yaml and runs/ab/run.yaml", objs, err)
	}
}

func TestStore_CheckRun_TellsRunEmptyAndSomethingElse(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			if ok, err := s.CheckRun(ctx); ok || err != nil {
				t.Fatalf("empty store: CheckRun = %v, %v; want false, nil", ok, err)
			}
			if err := s.Put(ctx, "photos/cat.jpg", strings.NewReader("meow")); err != nil {
				t.Fatal(err)
			}
			_, err := s.CheckRun(ctx)
			if err == nil || !strings.Contains(err.Error(), "photos/cat.jpg") || !strings.Contains(err.Error(), s.String()) {
				t.Fatalf("CheckRun = %v; want an error naming the store and what is there", err)
			}
			if err := s.Put(ctx, "run.yaml", strings.NewReader("variant: nine\n")); err != nil {
				t.Fatal(err)
			}
			if ok, err := s.CheckRun(ctx); !ok || err != nil {
				t.Fatalf("run: CheckRun = %v, %v; want true, nil", ok, err)
			}
		})
	}
}

// A trainer writes its lease and then run.yaml: a follower's CheckRun
// that reads before run.yaml is written and lists after must not take
// the run for something else.
func TestStore_CheckRun_RunYAMLWrittenBetweenTheReadAndTheListing_IsARun(t *testing.T) {
	ctx := context.Background()
	s, fb := newFaultStore(t)
	if err := s.Put(ctx, LeaseRecord(1), strings.NewReader("{}")); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.CheckRun(ctx); ok || err != nil {
		t.Fatalf("only a lease: CheckRun = %v, %v; want false, nil (a run being made)", ok, err)
	}
	fb.beforeList = func() {
		if err := fb.inner.WriteAll(ctx, ConfigObject, []byte("variant: nine\n"), nil); err != nil {
			t.Error(err)
		}
	}
	if ok, err := s.CheckRun(ctx); !ok || err != nil {
		t.Fatalf("run.yaml written between the read and the listing: CheckRun = %v, %v; want true, nil", ok, err)
	}
	if fb.beforeList != nil {
		t.Fatal("CheckRun never listed: the test did not make the race it is about")
	}
}

func TestStore_TransientErrors_AreRetried(t *testing.T) {
	ctx := context.Background()
	s, fb := newFaultStore(t)
	fb.inject("write", "a", 2, gcerrors.ResourceExhausted, false)
	if err := s.Put(ctx, "a", strings.NewReader("a")); err != nil {
		t.Fatalf("Put after 2 transient failures = %v; want success", err)
	}
	if n := fb.callCount("write"); n != 3 {
		t.Errorf("%d write attempts; want 3", n)
	}
	fb.inject("read", "a", 3, gcerrors.Internal, false)
	if got, err := s.Get(ctx, "a"); err != nil || string(got) != "a" {
		t.Errorf("Get after 3 transient failures = %q, %v", got, err)
	}
	fb.inject("list", "", 1, gcerrors.DeadlineExceeded, false)
	if objs, err := s.List(ctx, ""); err != nil || len(objs) != 1 {
		t.Errorf("List after a transient failure = %v, %v", objs, err)
	}
	fb.inject("delete", "a", 1, gcerrors.ResourceExhausted, false)
	if err := s.Delete(ctx, "a"); err != nil {
		t.Errorf("Delete after a transient failure = %v", err)
	}
}

func TestStore_PermanentErrors_AreNotRetried(t *testing.T) {
	s, fb := newFaultStore(t)
	fb.inject("write", "a", 1, gcerrors.PermissionDenied, false)
	err := s.Put(context.Background(), "a", strings.NewReader("a"))
	if err == nil || !strings.Contains(err.Error(), "PermissionDenied") || !strings.Contains(err.Error(), "fault://test") {
		t.Fatalf("Put = %v; want the PermissionDenied error naming the store", err)
	}
	if n := fb.callCount("write"); n != 1 {
		t.Errorf("%d write attempts; want 1", n)
	}
}

func TestStore_Retries_AreBounded(t *testing.T) {
	s, fb := newFaultStore(t)
	fb.inject("read", "a", 100, gcerrors.ResourceExhausted, false)
	_, err := s.Get(context.Background(), "a")
	if err == nil || !strings.Contains(err.Error(), "gave up after 4 attempts") {
		t.Fatalf("Get = %v; want a give-up after 4 attempts", err)
	}
	if n := fb.callCount("read"); n != 4 {
		t.Errorf("%d read attempts; want 4", n)
	}
}

func TestStore_Retries_StopWhenTheContextEnds(t *testing.T) {
	s, fb := newFaultStore(t)
	s.retry = retryPolicy{attempts: 100, first: time.Hour, max: time.Hour}
	fb.inject("read", "a", 100, gcerrors.ResourceExhausted, false)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Get(ctx, "a")
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
		t.Fatalf("Get = %v after %v; want the context's deadline, at once", err, time.Since(start))
	}
}

func TestStore_Put_CommittedButAnswerLost_RetrySucceeds(t *testing.T) {
	ctx := context.Background()
	s, fb := newFaultStore(t)
	fb.inject("write", "shard", 1, gcerrors.DeadlineExceeded, true)
	if err := s.Put(ctx, "shard", strings.NewReader("games")); err != nil {
		t.Fatalf("Put = %v; want success: the retry finds its own object", err)
	}
	// Another writer's object under the name is still a conflict.
	if err := s.Put(ctx, "other", strings.NewReader("theirs")); err != nil {
		t.Fatal(err)
	}
	fb.inject("write", "other", 1, gcerrors.ResourceExhausted, false)
	if err := s.Put(ctx, "other", strings.NewReader("mine")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Put over another's object = %v; want fs.ErrExist", err)
	}
	if got, _ := s.Get(ctx, "other"); string(got) != "theirs" {
		t.Fatalf("other = %q; want theirs", got)
	}
}

func TestStore_CheckWriteOnce_PassesOnEveryDriverAndLeavesNothing(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			if err := s.CheckWriteOnce(ctx); err != nil {
				t.Fatal(err)
			}
			if dir, ok := s.Local(); ok {
				if ents, _ := os.ReadDir(dir); len(ents) != 0 {
					t.Fatalf("the probe left %d files", len(ents))
				}
			} else if objs, _, _ := s.bucket.ListPage(ctx, blob.FirstPageToken, 10, nil); len(objs) != 0 {
				t.Fatalf("the probe left %d objects", len(objs))
			}
		})
	}
}

func TestStore_CheckWriteOnce_StoreIgnoringConditionalWrites_IsRefused(t *testing.T) {
	s, fb := newFaultStore(t)
	fb.ignoreIfNotExist = true
	err := s.CheckWriteOnce(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ignores conditional writes") || !strings.Contains(err.Error(), "fault://test") {
		t.Fatalf("CheckWriteOnce = %v; want a refusal naming the store", err)
	}
}

func TestStore_CheckWriteOnce_ReadOnlyStore_IsRefused(t *testing.T) {
	s, fb := newFaultStore(t)
	fb.inject("write", "", 1, gcerrors.PermissionDenied, false)
	err := s.CheckWriteOnce(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cannot be written") {
		t.Fatalf("CheckWriteOnce = %v; want cannot be written", err)
	}
}

// httpError is an error with an HTTP status and an S3 error code, as the
// AWS SDK's errors have.
type httpError struct {
	status int
	code   string
}

func (e httpError) Error() string       { return fmt.Sprintf("HTTP %d %s", e.status, e.code) }
func (e httpError) HTTPStatusCode() int { return e.status }
func (e httpError) ErrorCode() string   { return e.code }

func TestIsTransient_ClassifiesStoreErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"S3 503 SlowDown", fmt.Errorf("put: %w", httpError{503, "SlowDown"}), true},
		{"S3 500 InternalError", httpError{500, "InternalError"}, true},
		{"HTTP 429", httpError{429, ""}, true},
		{"MinIO 499 ClientDisconnected", httpError{499, "ClientDisconnected"}, true},
		{"S3 409 ConditionalRequestConflict", httpError{409, "ConditionalRequestConflict"}, true},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"unexpected EOF", fmt.Errorf("body: %w", io.ErrUnexpectedEOF), true},
		{"S3 403 InvalidAccessKeyId", httpError{403, "InvalidAccessKeyId"}, false},
		{"S3 403 SignatureDoesNotMatch", httpError{403, "SignatureDoesNotMatch"}, false},
		{"S3 404 NoSuchKey", httpError{404, "NoSuchKey"}, false},
		{"S3 400 bad request", httpError{400, "InvalidRequest"}, false},
		{"the data's own read error", sourceError{errors.New("disk")}, false},
		{"a local write error", localError{errors.New("no space")}, false},
		{"a plain error", errors.New("what"), false},
	} {
		if got := IsTransient(tc.err); got != tc.want {
			t.Errorf("%s: IsTransient = %v; want %v", tc.name, got, tc.want)
		}
	}
}

func TestStore_Where_NamesTheFileOrTheObjectURL(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ loc, want string }{
		{dir, filepath.Join(dir, "lease.json")},
		{"file://" + dir, filepath.Join(dir, "lease.json")},
		{"s3://runs/nine?endpoint=http://127.0.0.1:9000&use_path_style=true", "s3://runs/nine/lease.json"},
		{"s3://runs?endpoint=http://127.0.0.1:9000", "s3://runs/lease.json"},
	} {
		s, err := openStore(context.Background(), tc.loc)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Where("lease.json"); got != tc.want {
			t.Errorf("%s: Where = %q; want %q", tc.loc, got, tc.want)
		}
		s.Close()
	}
}
