#!/usr/bin/env bash
# ONNX Runtime (onnxruntime-web from npm, wasm backend under Node) runs the
# networks `millzero export` writes in model/onnx's test.
set -euo pipefail
dir=model/onnx/testdata/ort
[ -f "$dir/package.json" ] || exit 0
[ -d "$dir/node_modules/onnxruntime-web" ] || npm ci --prefix "$dir" --no-audit --no-fund
