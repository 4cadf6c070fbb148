// Package store is where a run lives: a local directory or a bucket in an
// object store (S3, GCS, Azure, mem://), named by a path or a URL, with the
// trainer's lease that keeps a second trainer out and the local working
// copy a process reads and writes through. The run's layout, every object
// name and its local path, is written once here (layout.go).
package store
