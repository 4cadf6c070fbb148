// Package miniotest starts a MinIO server (a real S3) on loopback for tests:
// a free port, a temporary data directory, a bucket, stopped when the test
// ends. A test that needs it skips with a clear message when MinIO is not
// installed, unless MILLZERO_EXTERNAL_TESTS=1 (make test) says the tools
// must be there; then it fails. scripts/setup.d/40-minio.sh installs MinIO.
package miniotest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Install is the command that installs MinIO.
const Install = "go install github.com/minio/minio@latest (or make setup)"

// The test server's credentials (MinIO's root user).
const (
	AccessKey = "millzero-test"
	SecretKey = "millzero-test-secret"
)

// Region is the region the test server's URLs name (MinIO accepts any).
const Region = "us-east-1"

// readyTimeout bounds the wait for a starting server.
const readyTimeout = 60 * time.Second

// Server is a running MinIO.
type Server struct {
	Endpoint string // http://127.0.0.1:PORT
	Dir      string // its data directory
	Log      string // its output file

	bin, addr, certs string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd exited
	err  error         // of the exited process
}

// Find returns the minio binary: on PATH, or in $(go env GOBIN) or
// $(go env GOPATH)/bin where go install puts it.
func Find() (string, error) {
	if p, err := exec.LookPath("minio"); err == nil {
		return p, nil
	}
	var dirs []string
	for _, v := range []string{"GOBIN", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			continue
		}
		for _, d := range filepath.SplitList(strings.TrimSpace(string(out))) {
			if d == "" {
				continue
			}
			if v == "GOPATH" {
				d = filepath.Join(d, "bin")
			}
			dirs = append(dirs, d)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "minio")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("minio is not on PATH nor in %s", strings.Join(dirs, ", "))
}

// Need skips t when MinIO is missing (fails it under
// MILLZERO_EXTERNAL_TESTS=1) and returns the binary.
func Need(t testing.TB) string {
	t.Helper()
	bin, err := Find()
	if err != nil {
		if os.Getenv("MILLZERO_EXTERNAL_TESTS") == "1" {
			t.Fatalf("%v; MILLZERO_EXTERNAL_TESTS=1 requires it (install: %s)", err, Install)
		}
		t.Skipf("SKIP: %v; to run this test: %s", err, Install)
	}
	return bin
}

// Start starts MinIO on a free loopback port with a temporary data
// directory, waits (bounded) until it is ready, and stops it when t ends. It
// sets the AWS credential variables of this process to the server's (so
// store.Open finds them), with t.Setenv.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Need(t)
	t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	var lastErr error
	for try := 0; try < 3; try++ { // a port taken between probe and bind: try another
		s, err := start(bin, t.TempDir())
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		lastErr = err
	}
	t.Fatalf("start minio: %v", lastErr)
	return nil
}

// start starts one server in dir.
func start(bin, dir string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{
		Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port),
		Dir:      filepath.Join(dir, "data"),
		Log:      filepath.Join(dir, "minio.log"),
		bin:      bin,
		addr:     fmt.Sprintf("127.0.0.1:%d", port),
		certs:    filepath.Join(dir, "certs"),
	}
	if err := s.launch(); err != nil {
		return nil, err
	}
	return s, nil
}

// launch starts the server process and waits until it is ready.
func (s *Server) launch() error {
	logf, err := os.OpenFile(s.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.bin, "server", "--quiet", "--address", s.addr, "--certs-dir", s.certs, s.Dir)
	cmd.Env = append(os.Environ(),
		"MINIO_ROOT_USER="+AccessKey, "MINIO_ROOT_PASSWORD="+SecretKey,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_CI_CD=1")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.done, s.err = cmd, done, nil
	s.mu.Unlock()
	go func() {
		err := cmd.Wait()
		logf.Close()
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		close(done)
	}()
	if err := s.waitReady(done); err != nil {
		s.Stop()
		out, _ := os.ReadFile(s.Log)
		return fmt.Errorf("%w; its output:\n%s", err, out)
	}
	return nil
}

// Restart stops the server and starts it again on the same address with
// the same data: what a store outage looks like to its clients.
func (s *Server) Restart() error {
	s.Stop()
	return s.launch()
}

// Outage stops the server for d and starts it again on the same address
// with the same data: a store outage of d.
func (s *Server) Outage(d time.Duration) error {
	s.Stop()
	time.Sleep(d)
	return s.launch()
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls MinIO's readiness endpoint until it answers 200, the
// process exits or readyTimeout passes.
func (s *Server) waitReady(done chan struct{}) error {
	deadline := time.Now().Add(readyTimeout)
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(s.Endpoint + "/minio/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-done:
			return fmt.Errorf("minio exited while starting: %v", s.exitErr())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("minio at %s not ready within %v", s.Endpoint, readyTimeout)
		}
	}
}

// exitErr returns how the process ended.
func (s *Server) exitErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stop stops the server (SIGTERM, then SIGKILL after 10 s). It may be called
// more than once.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	select {
	case <-done:
		return
	default:
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// Client returns an S3 client for the server with its root credentials.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	})
}

// CreateBucket creates the bucket name.
func (s *Server) CreateBucket(t testing.TB, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("create bucket %s on %s: %v", name, s.Endpoint, err)
	}
}

// URL returns the s3:// URL of prefix in bucket on this server, as --run
// takes it.
func (s *Server) URL(bucket, prefix string) string {
	return URL(s.Endpoint, bucket, prefix)
}

// URL returns the s3:// URL of prefix in bucket on the S3 server at
// endpoint, with path-style requests (what MinIO wants).
func URL(endpoint, bucket, prefix string) string {
	q := url.Values{}
	q.Set("endpoint", endpoint)
	q.Set("region", Region)
	q.Set("use_path_style", "true")
	u := url.URL{Scheme: "s3", Host: bucket, Path: "/" + strings.Trim(prefix, "/"), RawQuery: q.Encode()}
	if prefix == "" {
		u.Path = ""
	}
	return u.String()
}

// Env returns the environment variables a child process (millzero train,
// selfplay) needs to reach the server: the credentials.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey, "AWS_EC2_METADATA_DISABLED=true"}
}
