package store_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/millzero/millzero/store"
)

// mem:// is a fresh, empty store in memory, as the tests use. Every object
// is written once: a second Put of a name fails with fs.ErrExist and leaves
// the object as it was.
func ExampleOpen() {
	ctx := context.Background()
	s, err := store.Open(ctx, "mem://")
	if err != nil {
		panic(err)
	}
	defer s.Close()
	if err := s.Put(ctx, "games/gen-000000/w1-0001.parquet", strings.NewReader("32 games")); err != nil {
		panic(err)
	}
	err = s.Put(ctx, "games/gen-000000/w1-0001.parquet", strings.NewReader("other games"))
	fmt.Println("written once:", errors.Is(err, fs.ErrExist))
	b, err := s.Get(ctx, "games/gen-000000/w1-0001.parquet")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	objs, err := s.List(ctx, "games/")
	if err != nil {
		panic(err)
	}
	for _, o := range objs {
		fmt.Println(o.Name, o.Size)
	}
	// Output:
	// written once: true
	// 32 games
	// games/gen-000000/w1-0001.parquet 8
}

// A local run is a directory, by its path or as a file:// URL (an
// absolute path); it is created if missing.
func ExampleOpen_localDirectory() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "millzero-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "runs", "nine")
	a, err := store.Open(ctx, dir)
	if err != nil {
		panic(err)
	}
	defer a.Close()
	if err := a.Put(ctx, "models/gen-000001.safetensors", strings.NewReader("weights")); err != nil {
		panic(err)
	}
	b, err := store.Open(ctx, "file://"+dir)
	if err != nil {
		panic(err)
	}
	defer b.Close()
	model, err := b.Get(ctx, "models/gen-000001.safetensors")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(model), store.IsURL(dir), store.IsURL("file://"+dir))
	// Output: weights false true
}

// Object stores are URLs: the bucket, then the run's prefix within it, and
// the backend's options as the query. Credentials come from the
// environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for S3,
// GOOGLE_APPLICATION_CREDENTIALS, AZURE_STORAGE_ACCOUNT and
// AZURE_STORAGE_KEY). Open probes the store, so an unreachable endpoint,
// wrong credentials or a missing bucket fail here, naming the cause.
// (Not run as a test: it needs the stores.)
func ExampleOpen_objectStore() {
	ctx := context.Background()
	for _, loc := range []string{
		"s3://runs/nine?endpoint=http://127.0.0.1:9000&region=us-east-1&use_path_style=true", // MinIO, Ceph
		"s3://my-bucket/runs/nine?region=eu-west-1",                                          // AWS
		"gs://my-bucket/runs/nine",
		"azblob://my-container/runs/nine",
	} {
		s, err := store.Open(ctx, loc)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println("opened", s)
		s.Close()
	}
}
