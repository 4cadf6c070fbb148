package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/millzero/millzero/store/miniotest"
)

// openMinIOStore starts MinIO with a bucket "runs" and opens the run
// "runs/<prefix>" on it.
func openMinIOStore(t *testing.T, prefix string) (*miniotest.Server, *Store) {
	t.Helper()
	srv := miniotest.Start(t)
	srv.CreateBucket(t, "runs")
	s, err := Open(context.Background(), srv.URL("runs", prefix))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return srv, s
}

func TestMinIO_Store_WriteOnceReplaceListAndTransfer(t *testing.T) {
	ctx := context.Background()
	srv, s := openMinIOStore(t, "nine")
	if ok, err := s.CheckRun(ctx); ok || err != nil {
		t.Fatalf("new run: CheckRun = %v, %v", ok, err)
	}
	if err := s.CheckWriteOnce(ctx); err != nil {
		t.Fatalf("MinIO honours If-None-Match: %v", err)
	}
	// With an endpoint and no region anywhere, the region defaults.
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	noRegion := "s3://runs/nine?endpoint=" + srv.Endpoint + "&use_path_style=true"
	if s2, err := Open(ctx, noRegion); err != nil {
		t.Fatalf("Open(%s) = %v; want the default region", noRegion, err)
	} else {
		s2.Close()
	}
	for _, name := range []string{"run.yaml", "games/gen-000001/w1.parquet", "games/gen-000001/w2.parquet", "games/gen-000002/w1.parquet"} {
		if err := s.Put(ctx, name, strings.NewReader(name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Put(ctx, "run.yaml", strings.NewReader("again")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Put = %v; want fs.ErrExist", err)
	}
	if got, err := s.Get(ctx, "run.yaml"); err != nil || string(got) != "run.yaml" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	objs, err := s.List(ctx, "games/gen-000001/")
	if err != nil || len(objs) != 2 || objs[0].Name != "games/gen-000001/w1.parquet" || objs[0].Size != int64(len(objs[0].Name)) {
		t.Fatalf("List = %+v, %v", objs, err)
	}
	for _, v := range []string{"gen-000001", "gen-000002"} {
		if err := s.PutReplace(ctx, "models/best", []byte(v)); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Get(ctx, "models/best"); string(got) != v {
			t.Fatalf("models/best = %q; want %q", got, v)
		}
	}
	if ok, err := s.CheckRun(ctx); !ok || err != nil {
		t.Fatalf("CheckRun = %v, %v", ok, err)
	}
	// The prefix scopes the run: the bucket's root is not a run.
	root, err := Open(ctx, srv.URL("runs", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := root.CheckRun(ctx); err == nil || !strings.Contains(err.Error(), "nine/") {
		t.Fatalf("bucket root: CheckRun = %v; want an error naming nine/...", err)
	}

	// A shard large enough for a multipart upload is written once too.
	size := 20 << 20
	if testing.Short() {
		size = 1 << 20
	}
	data := make([]byte, size)
	rand.Read(data)
	src := filepath.Join(t.TempDir(), "big.parquet")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Upload(ctx, src, "games/gen-000003/big.parquet"); err != nil {
		t.Fatal(err)
	}
	if err := s.Upload(ctx, src, "games/gen-000003/big.parquet"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Upload of %d bytes = %v; want fs.ErrExist", size, err)
	}
	dst := filepath.Join(t.TempDir(), "cache", "big.parquet")
	if err := s.Download(ctx, "games/gen-000003/big.parquet", dst); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(dst); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded %d bytes, %v; want the %d uploaded", len(got), err, len(data))
	}
}

func TestMinIO_Put_SimultaneousWriters_OneWins(t *testing.T) {
	ctx := context.Background()
	_, s := openMinIOStore(t, "race")
	for round := range 5 {
		const writers = 6
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Put(ctx, fmt.Sprintf("obj-%d", round), strings.NewReader(fmt.Sprintf("writer %d", i)))
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
			} else if !errors.Is(err, fs.ErrExist) {
				t.Errorf("a losing Put = %v; want fs.ErrExist", err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d writers succeeded; want 1", round, won)
		}
	}
}

func TestMinIO_Lease_Contention(t *testing.T) {
	ctx := context.Background()
	srv, s := openMinIOStore(t, "lease")
	other, err := Open(ctx, srv.URL("runs", "lease"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	l, err := AcquireLease(ctx, s, "train", ttl(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AcquireLease(ctx, other, "train", ttl(3*time.Second)); !errors.Is(err, ErrLeaseHeld) || !strings.Contains(err.Error(), "s3://runs/lease") {
		t.Fatalf("second trainer = %v; want ErrLeaseHeld naming the run", err)
	}
	time.Sleep(4 * time.Second) // renewed past its first expiry
	if err := l.Context().Err(); err != nil {
		t.Fatalf("lease lost: %v", context.Cause(l.Context()))
	}
	if _, err := AcquireLease(ctx, other, "train", ttl(3*time.Second)); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("second trainer after renewals = %v; want ErrLeaseHeld", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// Simultaneous starts, then a simultaneous takeover of an expired lease.
	for _, expired := range []bool{false, true} {
		if expired {
			old := time.Now().Add(-time.Hour)
			putLease(t, s, LeaseInfo{Holder: "train", Host: "elsewhere", PID: 1, Acquired: old, Renewed: old,
				Expires: old.Add(time.Minute), Token: "stale"})
		}
		winner, _ := raceForLease(t, []*Store{s, other}, 4)
		winner.Release(ctx)
	}
}

func TestMinIO_Open_WrongCredentialsAndMissingBucket(t *testing.T) {
	srv, _ := openMinIOStore(t, "x")
	ctx := context.Background()

	loc := srv.URL("nosuchbucket", "run")
	_, err := Open(ctx, loc)
	if err == nil || !strings.Contains(err.Error(), loc) || !strings.Contains(err.Error(), "bucket does not exist") {
		t.Errorf("missing bucket: Open = %v; want the URL and that the bucket does not exist", err)
	}

	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-secret")
	loc = srv.URL("runs", "x")
	start := time.Now()
	_, err = Open(ctx, loc)
	if err == nil || !strings.Contains(err.Error(), loc) || !strings.Contains(err.Error(), "access denied") ||
		!strings.Contains(err.Error(), "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("wrong credentials: Open = %v; want the URL, access denied and where credentials come from", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("wrong credentials took %v to report", d)
	}
}

func TestOpen_UnreachableEndpoint_FailsFastNamingIt(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + l.Addr().String()
	l.Close() // nothing listens there now
	t.Setenv("AWS_ACCESS_KEY_ID", "x")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "y")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	loc := miniotest.URL(endpoint, "runs", "nine")
	start := time.Now()
	_, err = Open(context.Background(), loc)
	if err == nil || !strings.Contains(err.Error(), loc) || !strings.Contains(err.Error(), "cannot reach the endpoint") {
		t.Fatalf("Open = %v; want the URL and that the endpoint cannot be reached", err)
	}
	if d := time.Since(start); d > storeProbeTimeout+5*time.Second {
		t.Fatalf("took %v; want under the probe's bound %v", d, storeProbeTimeout)
	}
	t.Logf("unreachable endpoint reported in %v", time.Since(start).Round(time.Millisecond))
}

// BenchmarkMinIO_PutGet measures a write-once Put and a Get of one object on
// MinIO over loopback: the store's cost per shard (compare
// BenchmarkLocal_PutGet).
func BenchmarkMinIO_PutGet(b *testing.B) {
	srv := miniotest.Start(b)
	srv.CreateBucket(b, "runs")
	s, err := Open(context.Background(), srv.URL("runs", "bench"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchPutGet(b, s)
}

// BenchmarkLocal_PutGet measures a write-once Put and a Get of one object in
// a local run directory.
func BenchmarkLocal_PutGet(b *testing.B) {
	s, err := Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchPutGet(b, s)
}

// benchPutGet runs the Put and Get benchmarks on s for a small object (a
// pointer, a metrics row) and a 1 MiB one (a shard).
func benchPutGet(b *testing.B, s *Store) {
	ctx := context.Background()
	for _, size := range []int{1 << 10, 1 << 20} {
		data := make([]byte, size)
		rand.Read(data)
		b.Run(fmt.Sprintf("Put/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			dir := fmt.Sprintf("put-%d-%d/", size, time.Now().UnixNano()) // fresh names on every run
			for i := 0; b.Loop(); i++ {
				if err := s.Put(ctx, fmt.Sprintf("%s%d", dir, i), bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
		name := fmt.Sprintf("get-%d", size)
		if err := s.Put(ctx, name, bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("Get/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := s.Get(ctx, name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestMinIO_StoreOutage_OperationsAreRetriedUntilItIsBack(t *testing.T) {
	ctx := context.Background()
	srv, s := openMinIOStore(t, "outage")
	if err := s.Put(ctx, "run.yaml", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	back := make(chan error, 1)
	go func() {
		time.Sleep(time.Second)
		back <- srv.Restart()
	}()
	start := time.Now()
	if err := s.Put(ctx, "games/gen-000001/w1.parquet", strings.NewReader("games")); err != nil {
		t.Fatalf("Put across a restart of the store = %v", err)
	}
	t.Logf("Put went through %v after the store stopped", time.Since(start).Round(time.Millisecond))
	if err := <-back; err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, "games/gen-000001/w1.parquet"); err != nil || string(got) != "games" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	// The retry found nothing of its own: the store holds exactly one copy.
	objs, err := s.List(ctx, "games/")
	if err != nil || len(objs) != 1 {
		t.Fatalf("List = %v, %v; want the one shard", objs, err)
	}
}

func TestOpen_EndpointThatIsNotS3_IsNamed(t *testing.T) {
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "x")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "y")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	loc := miniotest.URL(web.URL, "runs", "nine")
	_, err := Open(context.Background(), loc)
	if err == nil || !strings.Contains(err.Error(), loc) || !strings.Contains(err.Error(), "is it an S3 server?") {
		t.Fatalf("Open = %v; want the URL and a doubt that it is S3", err)
	}
}

func TestMinIO_Lease_RenewalAgainstBreakLease_OneHolderAndNoGenerationTwice(t *testing.T) {
	srv := miniotest.Start(t)
	srv.CreateBucket(t, "runs")
	rounds := 200
	if testing.Short() {
		rounds = 20
	}
	raceRounds(t, rounds, func(i int) *Store {
		s, err := Open(context.Background(), srv.URL("runs", fmt.Sprintf("race-%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
