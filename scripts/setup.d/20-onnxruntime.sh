#!/usr/bin/env bash
# ONNX Runtime (onnxruntime-web from npm, wasm backend under Node) runs the
# networks `millzero export` writes in model/onnx's test, and the onnx
# package's checker (Debian's python3-onnx) validates them.
set -euo pipefail
dir=model/onnx/testdata/ort
[ -f "$dir/package.json" ] || exit 0
[ -d "$dir/node_modules/onnxruntime-web" ] || npm ci --prefix "$dir" --no-audit --no-fund

has_onnx() {
	for py in python3 /usr/bin/python3; do
		command -v "$py" >/dev/null && "$py" -c 'import onnx' 2>/dev/null && return 0
	done
	return 1
}
if ! has_onnx; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo -n"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get install -y --no-install-recommends python3-onnx ||
		{ $sudo apt-get update && $sudo apt-get install -y --no-install-recommends python3-onnx; }
fi
