#!/usr/bin/env bash
# helm lints and renders the chart in deploy/helm in deploy's tests. Built
# from source with the Go toolchain the repository already needs; does
# nothing when a helm v3 is on PATH or in Go's bin directory.
set -euo pipefail
version=v3.22.0
bin="$(go env GOBIN)"
[ -n "$bin" ] || bin="$(go env GOPATH)/bin"
for helm in "$(command -v helm || true)" "$bin/helm"; do
	if [ -n "$helm" ] && [ -x "$helm" ] && "$helm" version --short 2>/dev/null | grep -q '^v3\.'; then
		exit 0
	fi
done
echo "installing helm $version into $bin (a few minutes, once)"
# The module proxy can time out on a slow network: try again before failing.
for try in 1 2 3; do
	go install "helm.sh/helm/v3/cmd/helm@$version" && exit 0
	echo "setup: installing helm failed (try $try of 3)" >&2
	[ $try = 3 ] || sleep 15
done
exit 1
