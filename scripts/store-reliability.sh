#!/usr/bin/env bash
# The run store under load, outages and a second trainer in another PID
# namespace, as docs/reliability.md reports it:
#   load    RUNS runs of a trainer (--local-selfplay=false) with FOLLOWERS
#           `selfplay --follow` workers started 1.5 s after it, on a run
#           directory and on MinIO (KINDS: dir, minio or both), GENS generations
#           each: every trainer must
#           finish and every worker must still be running at the end;
#   status  STATUS_N `status` calls while 4 workers write shards: none may fail;
#   outage  a trainer and two workers on MinIO, the store stopped for OUTAGE
#           seconds after generation 1: the trainer finishes, the workers live,
#           and metrics/generations.csv and losses.csv in the store have every
#           generation once and the same cells as the trainer's own copy;
#   lease   `unshare -p -f --mount-proc millzero train` beside a running
#           trainer on the same run must be refused.
# Needs minio (make setup), curl, python3, unshare (for the lease case) and
# bin/millzero (make build). It is long: run it with nice. CONFIG is the run
# config (default: three-test slowed as the reproduction had it, with gate
# openings of 3 plies: three has 72 distinct openings of 2, fewer than the
# 200 pairs of a 400-game gate).
set -uo pipefail
cd "$(dirname "$0")/.."
B=$PWD/bin/millzero
RUNS=${RUNS:-5}
GENS=${GENS:-6}
FOLLOWERS=${FOLLOWERS:-8}
STATUS_N=${STATUS_N:-40}
OUTAGE=${OUTAGE:-90}
PORT=${PORT:-9124}
CASES=${CASES:-"load status outage lease"}
KINDS=${KINDS:-"dir minio"}
MINIO=$(command -v minio || echo "$(go env GOPATH)/bin/minio")
work=$(mktemp -d)
minio_pid=
pids=()
failed=0
cleanup() {
  # A worker killed while its subshell has not yet started millzero runs
  # this trap too: only the script itself cleans up.
  [ "$BASHPID" = "$$" ] || return
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  [ -n "$minio_pid" ] && kill "$minio_pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${CONFIG:-}" ]; then
  CONFIG=$work/slow.yaml
  sed -e 's/^loop: {generations: 8, hours: 0, games: 256, steps: 200,/loop: {generations: 8, hours: 0, games: 1024, steps: 800,/' \
      -e 's/^gate: {simulations: 16, max_games: 40, opening_plies: 2, \(.*\)elo1: 80,/gate: {simulations: 64, max_games: 400, opening_plies: 3, \1elo1: 20,/' \
      configs/runs/three-test.yaml >"$CONFIG"
  grep -q 'games: 1024' "$CONFIG" && grep -q 'max_games: 400' "$CONFIG" || { echo "could not make slow.yaml from three-test.yaml" >&2; exit 1; }
fi
export AWS_ACCESS_KEY_ID=millzero AWS_SECRET_ACCESS_KEY=millzero-reliability-secret
start_minio() {
  MINIO_ROOT_USER=$AWS_ACCESS_KEY_ID MINIO_ROOT_PASSWORD=$AWS_SECRET_ACCESS_KEY \
    "$MINIO" server --address 127.0.0.1:$PORT "$work/minio" >>"$work/minio.log" 2>&1 &
  minio_pid=$!
  for _ in $(seq 100); do curl -fsS http://127.0.0.1:$PORT/minio/health/ready >/dev/null 2>&1 && return; sleep 0.2; done
  echo "minio did not start" >&2; exit 1
}
s3get() { # OBJECT -> stdout
  curl -fsS --aws-sigv4 aws:amz:us-east-1:s3 --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" "http://127.0.0.1:$PORT/runs/$1"
}
s3url() { echo "s3://runs/$1?endpoint=http://127.0.0.1:$PORT&region=us-east-1&use_path_style=true"; }
follow() { # RUN LOG: start a worker, its pid in $!
  "$B" selfplay --run "$1" --follow --workers 1 --cache "$work/cache-$RANDOM$RANDOM" >"$2" 2>&1 &
}
check_gens() { # FILE N: generations 0..N-1, once each
  python3 - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
gens = [r["generation"] for r in rows]
want = [str(g) for g in range(int(sys.argv[2]))]
sys.exit(0 if gens == want else "generations %s, want %s" % (gens, want))
PY
}
if [ -n "$(echo "$CASES" | grep -w load)" ] || [ -n "$(echo "$CASES" | grep -w outage)" ]; then
  start_minio
  curl -fsS -X PUT --aws-sigv4 aws:amz:us-east-1:s3 --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" http://127.0.0.1:$PORT/runs
fi

# load: RUNS x {directory, MinIO}
if echo "$CASES" | grep -qw load; then
  for kind in $KINDS; do
    ok=0
    for r in $(seq "$RUNS"); do
      if [ $kind = dir ]; then R=$work/load-$r; else R=$(s3url "load-$r"); fi
      t0=$(date +%s)
      "$B" train --config "$CONFIG" --run "$R" --generations "$GENS" --local-selfplay=false --cache "$work/cache-train-$kind-$r" >"$work/train-$kind-$r.log" 2>&1 &
      trainer=$!
      sleep 1.5
      ws=()
      for i in $(seq "$FOLLOWERS"); do follow "$R" "$work/w-$kind-$r-$i.log"; ws+=($!); pids+=($!); done
      wait "$trainer"; rc=$?
      alive=0
      for w in "${ws[@]}"; do kill -0 "$w" 2>/dev/null && alive=$((alive + 1)); done
      for w in "${ws[@]}"; do kill -INT "$w" 2>/dev/null; done
      for w in "${ws[@]}"; do wait "$w" 2>/dev/null; done
      if [ $kind = dir ]; then gf=$R/metrics/generations.csv; else gf=$work/gens-$r.csv; s3get "load-$r/metrics/generations.csv" >"$gf"; fi
      why=$(check_gens "$gf" "$GENS" 2>&1)
      if [ $rc = 0 ] && [ $alive = "$FOLLOWERS" ] && [ -z "$why" ]; then ok=$((ok + 1)); verdict=ok; else failed=1; verdict="FAILED (trainer rc $rc, $alive/$FOLLOWERS workers alive, $why)"; tail -3 "$work/train-$kind-$r.log"; fi
      echo "load $kind run $r: $GENS generations, $FOLLOWERS workers, $(( $(date +%s) - t0 )) s: $verdict"
    done
    echo "load $kind: $ok of $RUNS runs completed $GENS generations with $FOLLOWERS workers alive"
  done
fi

# status: STATUS_N calls under 4 workers
if echo "$CASES" | grep -qw status; then
  R=$work/status-run
  "$B" train --config "$CONFIG" --run "$R" --generations 100 --local-selfplay=false >"$work/train-status.log" 2>&1 &
  trainer=$!; pids+=($trainer)
  sleep 1.5
  ws=()
  for i in 1 2 3 4; do follow "$R" "$work/w-status-$i.log"; ws+=($!); pids+=($!); done
  sleep 10
  fails=0
  for i in $(seq "$STATUS_N"); do
    "$B" status --run "$R" >"$work/status-$i.log" 2>&1 || { fails=$((fails + 1)); tail -1 "$work/status-$i.log"; }
  done
  echo "status: $fails of $STATUS_N calls failed under 4 workers"
  [ $fails = 0 ] || failed=1
  for p in "${ws[@]}" "$trainer"; do kill -INT "$p" 2>/dev/null; done
  for p in "${ws[@]}" "$trainer"; do wait "$p" 2>/dev/null; done
fi

# outage: the store away for OUTAGE seconds after generation 1
if echo "$CASES" | grep -qw outage; then
  R=$(s3url outage)
  OG=${OUTAGE_GENS:-4}
  "$B" train --config "$CONFIG" --run "$R" --generations "$OG" --local-selfplay=false --cache "$work/cache-outage" >"$work/train-outage.log" 2>&1 &
  trainer=$!; pids+=($trainer)
  sleep 1.5
  ws=()
  for i in 1 2; do follow "$R" "$work/w-outage-$i.log"; ws+=($!); pids+=($!); done
  until s3get outage/metrics/generations.csv 2>/dev/null | grep -q '^1,'; do
    kill -0 "$trainer" 2>/dev/null || break
    sleep 2
  done
  echo "outage: generation 1 done; stopping MinIO for $OUTAGE s"
  kill "$minio_pid"; wait "$minio_pid" 2>/dev/null
  sleep "$OUTAGE"
  start_minio
  echo "outage: MinIO is back"
  wait "$trainer"; rc=$?
  alive=0
  for w in "${ws[@]}"; do kill -0 "$w" 2>/dev/null && alive=$((alive + 1)); done
  for w in "${ws[@]}"; do kill -INT "$w" 2>/dev/null; done
  for w in "${ws[@]}"; do wait "$w" 2>/dev/null; done
  s3get outage/metrics/generations.csv >"$work/og.csv"; s3get outage/metrics/losses.csv >"$work/ol.csv"
  why=$(check_gens "$work/og.csv" "$OG" 2>&1)
  same=yes
  cmp -s "$work/og.csv" "$work/cache-outage/metrics/generations.csv" || same="no (generations.csv)"
  cmp -s "$work/ol.csv" "$work/cache-outage/metrics/losses.csv" || same="no (losses.csv)"
  lossgens=$(python3 -c "import csv,sys; print(sorted({int(r['generation']) for r in csv.DictReader(open(sys.argv[1]))}))" "$work/ol.csv")
  [ $rc = 0 ] && [ $alive = 2 ] && [ -z "$why" ] && [ $same = yes ] || failed=1
  echo "outage: trainer rc $rc; $alive of 2 workers alive; generations.csv ${why:-has 0..$((OG - 1)) once}; losses of generations $lossgens; store copies equal the trainer's: $same"
  grep -c "waiting for run store\|answers again\|lease" "$work/train-outage.log" | sed 's/^/outage: trainer lines about the wait or the lease: /'
fi

# lease: a second trainer in another PID namespace
if echo "$CASES" | grep -qw lease; then
  R=$work/lease-run
  "$B" train --config "$CONFIG" --run "$R" --generations 100 >"$work/train-lease.log" 2>&1 &
  trainer=$!; pids+=($trainer)
  sleep 3
  if unshare -p -f --mount-proc true 2>/dev/null; then
    if unshare -p -f --mount-proc "$B" train --run "$R" --generations 100 >"$work/second.log" 2>&1; then
      echo "lease: FAILED: the trainer in another PID namespace started"; failed=1
    else
      echo "lease: the trainer in another PID namespace was refused: $(grep -o 'held by [^;]*' "$work/second.log" | head -1)"
    fi
  else
    echo "lease: unshare -p is not permitted here; skipped"
  fi
  kill -INT "$trainer"; wait "$trainer" 2>/dev/null
fi
exit $failed
