#!/usr/bin/env bash
# MinIO, a real S3 server on loopback, runs the run store's s3:// tests (store/)
# and the end-to-end scale-out test. Built from source with the Go toolchain
# (a few minutes, once) into $(go env GOPATH)/bin, where the tests look for
# it when it is not on PATH. Does nothing when it is already there.
set -euo pipefail
gobin="$(go env GOBIN)"
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
if command -v minio >/dev/null || [ -x "$gobin/minio" ]; then
	exit 0
fi
echo "setup: building MinIO (go install github.com/minio/minio@latest, a few minutes)"
# The module proxy can time out on a slow network (a TLS handshake timeout
# was seen here): try again before failing the setup.
for try in 1 2 3; do
	nice -n 5 go install github.com/minio/minio@latest && exit 0
	echo "setup: building MinIO failed (try $try of 3)" >&2
	[ $try = 3 ] || sleep 15
done
exit 1
