#!/usr/bin/env bash
# DuckDB (npm) reads our Parquet shards back in dataset's interoperability test.
set -euo pipefail
dir=dataset/testdata/duckdb
[ -f "$dir/package.json" ] || exit 0
[ -d "$dir/node_modules" ] || npm ci --prefix "$dir" --no-audit --no-fund
