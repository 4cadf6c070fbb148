#!/usr/bin/env bash
# The store's cost in self-play: games/s of one process writing to a local
# run directory, against one and two `selfplay --follow` processes writing to
# a run in MinIO on loopback, T seconds a case, ROUNDS rounds alternating.
# Needs minio (make setup), curl, python3, and bin/millzero (make build).
set -euo pipefail
cd "$(dirname "$0")/.."
B=$PWD/bin/millzero
T=${T:-40}
ROUNDS=${ROUNDS:-2}
PORT=${PORT:-9123}
MINIO=$(command -v minio || echo "$(go env GOPATH)/bin/minio")
work=$(mktemp -d)
trap 'kill $minio_pid 2>/dev/null || true; rm -rf "$work"' EXIT
export AWS_ACCESS_KEY_ID=millzero AWS_SECRET_ACCESS_KEY=millzero-bench-secret
MINIO_ROOT_USER=$AWS_ACCESS_KEY_ID MINIO_ROOT_PASSWORD=$AWS_SECRET_ACCESS_KEY \
  "$MINIO" server --address 127.0.0.1:$PORT "$work/minio" >"$work/minio.log" 2>&1 &
minio_pid=$!
for i in $(seq 50); do curl -fsS http://127.0.0.1:$PORT/minio/health/ready >/dev/null 2>&1 && break; sleep 0.2; done
curl -fsS -X PUT --aws-sigv4 aws:amz:us-east-1:s3 --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" http://127.0.0.1:$PORT/runs
RUN="s3://runs/nine?endpoint=http://127.0.0.1:$PORT&region=us-east-1&use_path_style=true"
echo "making both runs: one generation of the default config each"
"$B" train --run "$work/local" --generations 1 >"$work/train-local.log" 2>&1
"$B" train --run "$RUN" --generations 1 --cache "$work/cache-train" >"$work/train-s3.log" 2>&1
rate() { # the summary lines of the logs -> games/s, summed
  python3 - "$@" <<'PY'
import re, sys
tot = 0.0
for f in sys.argv[1:]:
    line = [x for x in open(f).read().splitlines() if re.match(r"selfplay: \d+ games", x)][-1]
    games = int(re.search(r"selfplay: (\d+) games", line).group(1))
    pos = int(re.search(r"(\d+) positions recorded", line).group(1))
    per_s = float(re.search(r"\((\d+)/s\)", line).group(1))
    tot += games / (pos / per_s)
print("%.1f" % tot)
PY
}
for r in $(seq "$ROUNDS"); do
  timeout -s INT "$T" "$B" selfplay --run "$work/local" --workers 2 >"$work/l.$r" 2>&1 || true
  echo "round $r: local directory, 1 process x 2 workers: $(rate "$work/l.$r") games/s"
  timeout -s INT "$T" "$B" selfplay --run "$RUN" --follow --workers 2 --cache "$work/c1" >"$work/s.$r" 2>&1 || true
  echo "round $r: MinIO, 1 --follow process x 2 workers: $(rate "$work/s.$r") games/s"
  timeout -s INT "$T" "$B" selfplay --run "$RUN" --follow --workers 1 --cache "$work/c2" >"$work/a.$r" 2>&1 &
  other=$!
  timeout -s INT "$T" "$B" selfplay --run "$RUN" --follow --workers 1 --cache "$work/c3" >"$work/b.$r" 2>&1 || true
  wait "$other" || true
  echo "round $r: MinIO, 2 --follow processes x 1 worker: $(rate "$work/a.$r" "$work/b.$r") games/s"
done
"$B" status --run "$RUN" --cache "$work/cache-status"
