#!/usr/bin/env bash
# DuckDB (npm) reads our Parquet shards back in dataset's interoperability test.
set -euo pipefail
dir=dataset/testdata/duckdb
[ -f "$dir/package.json" ] || exit 0
# npm ci installs exactly the lock and never rewrites it (npm install did,
# adding the other platforms' native bindings to a lock that held only
# linux-x64's, which left every fresh checkout changed after make setup);
# the lock now lists every platform's, and npm fetches only this one's.
[ -d "$dir/node_modules" ] || npm ci --prefix "$dir" --no-audit --no-fund
