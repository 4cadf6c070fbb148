package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob:// runs
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob" // gs:// runs
	"gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob" // s3:// runs (AWS, MinIO, Ceph, ...)
	"gocloud.dev/gcerrors"

	"github.com/millzero/millzero/internal/atomicfile"
)

// Store is where a run lives: a local directory or a bucket (with an
// optional prefix) in an object store. Object names are slash-separated
// paths relative to the run, the same layout a local run directory has.
//
// Every object except the few mutable ones (PutReplace) is written once
// under a unique name (Put fails when the name exists), so a reader that
// has seen a name never needs to read it again. Transient store errors are
// retried with bounded exponential backoff; permanent ones are returned at
// once. A Store is safe for concurrent use.
type Store struct {
	loc    string       // what the user gave, for messages
	bucket *blob.Bucket // scoped to the run's prefix
	dir    string       // the run directory when local, else ""
	retry  retryPolicy

	patience time.Duration    // WithPatience's: 0 is retry's attempts, < 0 forever
	waiting  func(msg string) // told what a retried operation waits for

	waitFirst, waitEvery time.Duration // when waiting is told: WaitFirst, WaitEvery
	attemptTimeout       time.Duration // the bound of one attempt: DefaultAttemptTimeout
}

// ObjectInfo describes one object of a store.
type ObjectInfo struct {
	Name    string    // slash-separated, relative to the run
	Size    int64     // bytes
	ModTime time.Time // when the store last wrote it
}

// storeProbeTimeout bounds the probe Open makes, so an unreachable
// endpoint fails in seconds instead of hanging.
const storeProbeTimeout = 15 * time.Second

// storeSchemes is the list of accepted URL schemes, for messages.
const storeSchemes = "a local path, file://, s3://, gs://, azblob:// or mem://"

// Open opens the run store at loc and probes it, so that bad input
// fails here with an error naming loc and the cause, before any work:
//
//   - a local path (relative or absolute) or file:///abs/path: a directory,
//     created if missing;
//   - s3://bucket/prefix?endpoint=http://127.0.0.1:9000&use_path_style=true&region=us-east-1:
//     any S3 (AWS, MinIO, Ceph). The query takes gocloud.dev's s3blob and
//     AWS options (endpoint, region, use_path_style, disable_https,
//     profile, ...); credentials come from the usual AWS sources
//     (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, a role). With
//     an endpoint and no region anywhere, region defaults to us-east-1 (what
//     MinIO and Ceph accept);
//   - gs://bucket/prefix: Google Cloud Storage, credentials from
//     GOOGLE_APPLICATION_CREDENTIALS or the environment;
//   - azblob://container/prefix: Azure Blob Storage, account and
//     credentials from AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY, ...;
//   - mem://: an empty in-memory store (tests); every Open of mem://
//     is a new, separate store.
//
// The path after the bucket scopes the run: s3://b/runs/nine holds the run
// in the objects b/runs/nine/... The probe lists the run (one object): an
// unknown scheme, an unreachable endpoint (bounded by a timeout), wrong
// credentials and a missing bucket are reported as such. Whether loc holds
// a run is CheckRun's question.
func Open(ctx context.Context, loc string, opts ...Option) (*Store, error) {
	s, err := openStore(ctx, loc)
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(s)
	}
	if err := s.probe(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// IsURL reports whether loc names a store by URL (s3://, file://, ...)
// rather than a local run directory.
func IsURL(loc string) bool { return strings.Contains(loc, "://") }

// openStore opens loc without probing it.
func openStore(ctx context.Context, loc string) (*Store, error) {
	if strings.TrimSpace(loc) == "" {
		return nil, fmt.Errorf("open run store: empty location (want %s)", storeSchemes)
	}
	if !IsURL(loc) {
		return openLocalStore(loc, loc)
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("open run store %q: not a valid URL: %w", loc, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("open run store %q: a file URL names an absolute path, file:///path/to/run (host %q is not allowed)", loc, u.Host)
		}
		if u.RawQuery != "" {
			return nil, fmt.Errorf("open run store %q: a file URL takes no query (%q)", loc, u.RawQuery)
		}
		if u.Path == "" {
			return nil, fmt.Errorf("open run store %q: no path (want file:///path/to/run)", loc)
		}
		return openLocalStore(loc, u.Path)
	case "mem":
		return newStore(loc, memblob.OpenBucket(nil), "", strings.Trim(u.Host+u.Path, "/")), nil
	case "s3", "gs", "azblob":
		if u.Host == "" {
			return nil, fmt.Errorf("open run store %q: no bucket (want %s://BUCKET/PREFIX)", loc, u.Scheme)
		}
		prefix := strings.Trim(u.Path, "/")
		bu := *u
		bu.Scheme = strings.ToLower(u.Scheme)
		bu.Path, bu.RawPath = "", ""
		if bu.Scheme == "s3" {
			q := bu.Query()
			if q.Get("endpoint") != "" && q.Get("region") == "" && os.Getenv("AWS_REGION") == "" && os.Getenv("AWS_DEFAULT_REGION") == "" {
				q.Set("region", "us-east-1")
				bu.RawQuery = q.Encode()
			}
		}
		b, err := blob.OpenBucket(ctx, bu.String())
		if err != nil {
			return nil, fmt.Errorf("open run store %q: %w", loc, err)
		}
		return newStore(loc, b, "", prefix), nil
	default:
		return nil, fmt.Errorf("open run store %q: unknown scheme %q (want %s)", loc, u.Scheme, storeSchemes)
	}
}

// openLocalStore opens the directory dir (created if missing) as a store.
func openLocalStore(loc, dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open run store %q: %w", loc, err)
	}
	if err := os.MkdirAll(abs, 0o777); err != nil {
		return nil, fmt.Errorf("open run store %q: create the directory: %w", loc, err)
	}
	// The store writes its files itself (storeLocal), so fileblob only reads,
	// lists and deletes: no metadata sidecar files in the run directory.
	b, err := fileblob.OpenBucket(abs, &fileblob.Options{Metadata: fileblob.MetadataDontWrite, NoTempDir: true})
	if err != nil {
		return nil, fmt.Errorf("open run store %q: %w", loc, err)
	}
	return newStore(loc, b, abs, ""), nil
}

// newStore wraps b (scoped to prefix when it is not empty) as a Store.
func newStore(loc string, b *blob.Bucket, dir, prefix string) *Store {
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix+"/")
	}
	return &Store{loc: loc, bucket: b, dir: dir, retry: defaultRetry, waitFirst: WaitFirst, waitEvery: WaitEvery, attemptTimeout: DefaultAttemptTimeout}
}

// probe lists one object of the run, so that an unreachable endpoint, wrong
// credentials or a missing bucket fail at open with a clear cause. It makes
// one attempt (the AWS SDK retries a few times inside it) bounded by
// storeProbeTimeout: at open, waiting out a broken store helps nobody.
func (s *Store) probe(ctx context.Context) error {
	if s.dir != "" {
		// A directory that can be read (fileblob's listing would stat every
		// file, and fail on one a worker renames meanwhile).
		f, err := os.Open(s.dir)
		if err == nil {
			_, err = f.Readdirnames(1)
			f.Close()
			if errors.Is(err, io.EOF) {
				err = nil
			}
		}
		if err != nil {
			return fmt.Errorf("open run store %s: %w", s.loc, err)
		}
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, storeProbeTimeout)
	defer cancel()
	_, _, err := s.bucket.ListPage(pctx, blob.FirstPageToken, 1, nil)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("open run store %s: %w", s.loc, ctx.Err())
	}
	return fmt.Errorf("open run store %s: %s: %w", s.loc, s.describe(pctx, err), err)
}

// describe says in words what a failed probe means.
func (s *Store) describe(pctx context.Context, err error) string {
	code := storeErrorCode(err)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || pctx.Err() != nil:
		return fmt.Sprintf("no answer within %v (is the endpoint right and reachable?)", storeProbeTimeout)
	case IsUnreachable(err):
		return "cannot reach the endpoint (is the server running, the endpoint right?)"
	case code == gcerrors.NotFound:
		var ec interface{ ErrorCode() string }
		if errors.As(err, &ec) && ec.ErrorCode() != "NoSuchBucket" && strings.HasPrefix(s.loc, "s3:") {
			return "the endpoint answered Not Found without naming the bucket (is it an S3 server?)"
		}
		return "the bucket does not exist (create it first)"
	case code == gcerrors.PermissionDenied || IsCredentialError(err):
		return "access denied: wrong or missing credentials, or no permission on the bucket (" + s.credentialHint() + ")"
	}
	return "the store refused to list the run"
}

// credentialHint names where the store's scheme takes its credentials from.
func (s *Store) credentialHint() string {
	switch {
	case strings.HasPrefix(s.loc, "s3:"):
		return "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or an AWS profile"
	case strings.HasPrefix(s.loc, "gs:"):
		return "GOOGLE_APPLICATION_CREDENTIALS"
	case strings.HasPrefix(s.loc, "azblob:"):
		return "AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN"
	}
	return "check the directory's permissions"
}

// String returns the location the store was opened with.
func (s *Store) String() string { return s.loc }

// Where returns where the object name is, for messages a person acts on:
// the file's path in a local directory, the object's URL (without the
// query) in an object store.
func (s *Store) Where(name string) string {
	if s.dir != "" {
		return filepath.Join(s.dir, filepath.FromSlash(name))
	}
	u, err := url.Parse(s.loc)
	if err != nil {
		return s.loc + " " + name
	}
	u.RawQuery = ""
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + name
	return u.String()
}

// Local returns the run's directory and true when the store is a local
// directory (a path or file://), so the loop can work in it in place.
func (s *Store) Local() (dir string, ok bool) { return s.dir, s.dir != "" }

// Close releases the store's resources.
func (s *Store) Close() error { return s.bucket.Close() }

// CheckRun tells whether the store holds a run: (true, nil) when it has a
// run.yaml (ConfigObject); (false, nil) when it holds nothing but lease
// objects, a new run whose trainer is starting (or died before it wrote
// run.yaml), or nothing at all; and an error naming the location and some
// of what is there when it holds other objects but no run.yaml (a wrong
// path or prefix).
//
// A trainer writes its lease, then run.yaml, then everything else, so a
// listing taken after the first read may show a run.yaml the read missed:
// CheckRun then reads again instead of concluding from the two views.
func (s *Store) CheckRun(ctx context.Context) (bool, error) {
	ok, err := s.Exists(ctx, ConfigObject)
	if err != nil || ok {
		return ok, err
	}
	var found []string
	err = s.do(ctx, "list", "", func(ctx context.Context, _ int) error {
		found = found[:0]
		if s.dir != "" {
			objs, err := listLocal(s.dir, "")
			for _, o := range objs {
				if len(found) == 3 {
					break
				}
				if !isLeaseObject(o.Name) {
					found = append(found, o.Name)
				}
			}
			return err
		}
		it := s.bucket.List(nil)
		for len(found) < 3 {
			obj, err := it.Next(ctx)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if !atomicfile.IsTemp(obj.Key) && !isLeaseObject(obj.Key) {
				found = append(found, obj.Key)
			}
		}
		return nil
	})
	if err != nil || len(found) == 0 {
		return false, err
	}
	// Anything else is written after run.yaml: look again before taking
	// the store for something other than a run.
	if ok, err := s.Exists(ctx, ConfigObject); err != nil || ok {
		return ok, err
	}
	if slices.Contains(found, ConfigObject) {
		return false, fmt.Errorf("run store %s lists %s but cannot read it: try again", s.loc, ConfigObject)
	}
	return false, fmt.Errorf("run store %s holds something other than a run: no %s, but objects such as %s (wrong path or prefix?)",
		s.loc, ConfigObject, strings.Join(found, ", "))
}

// CheckWriteOnce checks that the store can be written and honours
// write-once: it writes a probe object twice (the second write must fail)
// and deletes it. A store that ignores conditional writes (an old S3
// clone) would let two trainers both take the lease and let a shard be
// overwritten, so the trainer and the workers call this before writing.
// Readers (status) need not.
func (s *Store) CheckWriteOnce(ctx context.Context) error {
	// Hidden from List, and named as a temporary file of this process, so
	// that a trainer resuming after this one was killed here sweeps it.
	name := filepath.Base(atomicfile.TempName("probe"))
	if err := s.Put(ctx, name, strings.NewReader("probe 1")); err != nil {
		return fmt.Errorf("run store %s cannot be written: %w", s.loc, err)
	}
	defer s.Delete(context.WithoutCancel(ctx), name)
	err := s.Put(ctx, name, strings.NewReader("probe 2"))
	if err == nil {
		return fmt.Errorf("run store %s ignores conditional writes (a second write of %s replaced it): "+
			"two trainers could both take the lease and shards could be overwritten; use a store that "+
			"supports If-None-Match (AWS S3, MinIO, GCS, Azure, a local directory)", s.loc, name)
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("run store %s: check write-once: %w", s.loc, err)
	}
	return nil
}

// Put writes the object name once: when name exists, Put fails with an
// error that matches fs.ErrExist and the object is left as it was. The
// object appears complete or not at all (see storeLocal for a local
// directory; the object stores commit a PUT atomically). Put reads r to
// the end; on an object store, when r is an io.ReadSeeker a retry rewinds
// it, otherwise Put first reads it into memory (a local directory streams).
//
// The check is the store's own conditional write (If-None-Match on S3 and
// Azure, a generation precondition on GCS, an in-memory check on mem://, a
// hard link on a local directory), not a check-then-write, so two writers
// of one name cannot both succeed. After a failed attempt whose outcome is
// unknown (a timeout after the store committed), a retry that finds the
// object compares its content and succeeds when it is the same.
func (s *Store) Put(ctx context.Context, name string, r io.Reader) error {
	if err := checkName(name); err != nil {
		return fmt.Errorf("put in %s: %w", s.loc, err)
	}
	if s.dir != "" { // no retries, so no copy of r
		if err := writeLocal(s.dir, name, r, true); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("put %s in %s: %w (objects are written once)", name, s.loc, fs.ErrExist)
			}
			return fmt.Errorf("put %s in %s: %w", name, s.loc, err)
		}
		return nil
	}
	src, err := replayable(r)
	if err != nil {
		return fmt.Errorf("put %s in %s: read the data: %w", name, s.loc, err)
	}
	return s.do(ctx, "put", name, func(ctx context.Context, attempt int) error {
		rd, err := src.rewind()
		if err != nil {
			return permanent(err)
		}
		err = s.write(ctx, name, rd, true)
		if storeErrorCode(err) != gcerrors.FailedPrecondition {
			return err
		}
		if attempt > 0 {
			// An earlier attempt may have committed before failing.
			same, cerr := s.sameContent(ctx, name, src)
			if cerr != nil {
				return cerr
			}
			if same {
				return nil
			}
		}
		return permanent(fmt.Errorf("%w (objects are written once)", fs.ErrExist))
	})
}

// PutReplace writes the object name, replacing it when it exists: for the
// few mutable objects (the best-model pointer, metrics, ratings, run.yaml)
// that only the lease holder writes, in its commits (Lease.Commit). Readers
// see the old or the new content, never a mix.
func (s *Store) PutReplace(ctx context.Context, name string, data []byte) error {
	if err := checkName(name); err != nil {
		return fmt.Errorf("replace in %s: %w", s.loc, err)
	}
	if s.dir != "" {
		if err := writeLocal(s.dir, name, bytes.NewReader(data), false); err != nil {
			return fmt.Errorf("replace %s in %s: %w", name, s.loc, err)
		}
		return nil
	}
	return s.do(ctx, "replace", name, func(ctx context.Context, _ int) error {
		return s.write(ctx, name, bytes.NewReader(data), false)
	})
}

// write makes one attempt at writing name from r on a bucket. A read error
// aborts the write (the object is not created).
func (s *Store) write(ctx context.Context, name string, r io.Reader, once bool) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(wctx, name, &blob.WriterOptions{
		ContentType: "application/octet-stream",
		IfNotExist:  once,
	})
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel() // abort: the object must not appear with part of the data
		w.Close()
		var se sourceError
		if errors.As(err, &se) {
			return permanent(err)
		}
		return err
	}
	return w.Close()
}

// sameContent tells whether the object name holds exactly src's bytes.
func (s *Store) sameContent(ctx context.Context, name string, src *source) (bool, error) {
	rd, err := src.rewind()
	if err != nil {
		return false, permanent(err)
	}
	want := sha256.New()
	if _, err := io.Copy(want, rd); err != nil {
		return false, permanent(err)
	}
	r, err := s.bucket.NewReader(ctx, name, nil)
	if err != nil {
		return false, err
	}
	defer r.Close()
	got := sha256.New()
	if _, err := io.Copy(got, r); err != nil {
		return false, err
	}
	return bytes.Equal(want.Sum(nil), got.Sum(nil)), nil
}

// Get reads the whole object name. A missing object is an error matching
// fs.ErrNotExist.
func (s *Store) Get(ctx context.Context, name string) ([]byte, error) {
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("get from %s: %w", s.loc, err)
	}
	var data []byte
	err := s.do(ctx, "get", name, func(ctx context.Context, _ int) error {
		var err error
		data, err = s.bucket.ReadAll(ctx, name)
		return err
	})
	return data, err
}

// Open opens the object name for reading; the caller closes it. Opening is
// retried; a read error later is returned by Read. A missing object is an
// error matching fs.ErrNotExist.
func (s *Store) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("open in %s: %w", s.loc, err)
	}
	var r *blob.Reader
	err := s.doUnbounded(ctx, "open", name, func(ctx context.Context, _ int) error {
		var err error
		r, err = s.bucket.NewReader(ctx, name, nil)
		return err
	})
	if err != nil {
		return nil, err // not a nil *blob.Reader in a non-nil interface
	}
	return r, nil
}

// ReadRange reads n bytes of the object name from the offset off (a
// shard's footer, without downloading the shard), retried as any
// operation.
func (s *Store) ReadRange(ctx context.Context, name string, off, n int64) ([]byte, error) {
	var data []byte
	err := s.do(ctx, "read", name, func(ctx context.Context, _ int) error {
		rd, err := s.bucket.NewRangeReader(ctx, name, off, n, nil)
		if err != nil {
			return err
		}
		defer rd.Close()
		data, err = io.ReadAll(rd)
		return err
	})
	return data, err
}

// Exists tells whether the object name exists.
func (s *Store) Exists(ctx context.Context, name string) (bool, error) {
	if err := checkName(name); err != nil {
		return false, fmt.Errorf("exists in %s: %w", s.loc, err)
	}
	var ok bool
	err := s.do(ctx, "exists", name, func(ctx context.Context, _ int) error {
		var err error
		ok, err = s.bucket.Exists(ctx, name)
		return err
	})
	return ok, err
}

// Stat returns the size and modification time of the object name. A missing
// object is an error matching fs.ErrNotExist.
func (s *Store) Stat(ctx context.Context, name string) (ObjectInfo, error) {
	if err := checkName(name); err != nil {
		return ObjectInfo{}, fmt.Errorf("stat in %s: %w", s.loc, err)
	}
	var info ObjectInfo
	err := s.do(ctx, "stat", name, func(ctx context.Context, _ int) error {
		a, err := s.bucket.Attributes(ctx, name)
		if err != nil {
			return err
		}
		info = ObjectInfo{Name: name, Size: a.Size, ModTime: a.ModTime}
		return nil
	})
	return info, err
}

// List returns the objects whose names start with prefix (every level below
// it, "" for the whole run), sorted by name. Writes in progress (names
// ending in atomicfile.TempSuffix) are not listed, and in a local directory
// a file renamed or removed by another process while the directory is read
// is left out rather than failing the listing: workers rename their shards
// into place while the trainer and status list them.
func (s *Store) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	var out []ObjectInfo
	err := s.do(ctx, "list", prefix+"*", func(ctx context.Context, _ int) error {
		out = out[:0]
		if s.dir != "" {
			var err error
			out, err = listLocal(s.dir, prefix)
			return err
		}
		it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
		for {
			obj, err := it.Next(ctx)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if obj.IsDir || atomicfile.IsTemp(obj.Key) {
				continue
			}
			out = append(out, ObjectInfo{Name: obj.Key, Size: obj.Size, ModTime: obj.ModTime})
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Delete removes the object name; a missing object is not an error (so a
// retried delete is safe).
func (s *Store) Delete(ctx context.Context, name string) error {
	if err := checkName(name); err != nil {
		return fmt.Errorf("delete in %s: %w", s.loc, err)
	}
	return s.do(ctx, "delete", name, func(ctx context.Context, _ int) error {
		err := s.bucket.Delete(ctx, name)
		if storeErrorCode(err) == gcerrors.NotFound {
			return nil
		}
		return err
	})
}

// Download copies the object name to the file localPath (its directory
// created if missing), through a temporary file renamed when complete: a
// reader of localPath never sees part of the object.
func (s *Store) Download(ctx context.Context, name, localPath string) error {
	if err := checkName(name); err != nil {
		return fmt.Errorf("download from %s: %w", s.loc, err)
	}
	if err := os.MkdirAll(filepath.Dir(localPath), 0o777); err != nil {
		return fmt.Errorf("download %s from %s: %w", name, s.loc, err)
	}
	return s.do(ctx, "download", name, func(ctx context.Context, _ int) error {
		r, err := s.bucket.NewReader(ctx, name, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		err = downloadTo(localPath, r)
		var le localError
		if errors.As(err, &le) {
			return permanent(err)
		}
		return err
	})
}

// Upload writes the local file localPath as the object name, once (as Put).
func (s *Store) Upload(ctx context.Context, localPath, name string) error {
	f, err := os.Open(localPath)
	if err != nil {
		return fmt.Errorf("upload %s to %s: %w", localPath, s.loc, err)
	}
	defer f.Close()
	return s.Put(ctx, name, f)
}

// checkName rejects object names that are not clean relative paths.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty object name")
	case strings.HasPrefix(name, "/") || strings.Contains(name, "\\"):
		return fmt.Errorf("object name %q is not a relative slash-separated path", name)
	case path.Clean(name) != name || name == "." || strings.HasPrefix(name, "../") || name == "..":
		return fmt.Errorf("object name %q is not a clean path inside the run", name)
	}
	return nil
}

// source is data that can be read again from the start.
type source struct {
	r     io.Reader
	seek  io.Seeker
	start int64
}

// replayable makes r readable again from its current position: a seeker is
// rewound, anything else is read into memory once.
func replayable(r io.Reader) (*source, error) {
	if rs, ok := r.(io.ReadSeeker); ok {
		start, err := rs.Seek(0, io.SeekCurrent)
		if err == nil {
			return &source{r: rs, seek: rs, start: start}, nil
		}
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	br := bytes.NewReader(data)
	return &source{r: br, seek: br}, nil
}

// rewind moves the source to its start and returns it as a reader whose
// errors are marked as the source's (not the store's).
func (s *source) rewind() (io.Reader, error) {
	if _, err := s.seek.Seek(s.start, io.SeekStart); err != nil {
		return nil, fmt.Errorf("rewind the data: %w", err)
	}
	return sourceReader{s.r}, nil
}

// sourceError marks an error of the data being written, which no retry fixes.
type sourceError struct{ err error }

func (e sourceError) Error() string { return "read the data: " + e.err.Error() }
func (e sourceError) Unwrap() error { return e.err }

// sourceReader marks its read errors as sourceError.
type sourceReader struct{ r io.Reader }

func (s sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		err = sourceError{err}
	}
	return n, err
}
