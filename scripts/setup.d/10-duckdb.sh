#!/usr/bin/env bash
# DuckDB (npm) reads our Parquet shards back in dataset's interoperability test.
set -euo pipefail
dir=dataset/testdata/duckdb
[ -f "$dir/package.json" ] || exit 0
# npm ci refuses this lock: it holds only the linux-x64 build of the optional
# native bindings, the one the registry here serves; install keeps its pins.
[ -d "$dir/node_modules" ] || npm install --prefix "$dir" --no-audit --no-fund
