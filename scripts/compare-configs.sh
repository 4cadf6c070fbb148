#!/usr/bin/env bash
# compare-configs.sh: train run configs for the same wall time, with the
# same seeds, and measure them with the strength benchmark, side by side.
#
#   scripts/compare-configs.sh [-m MINUTES] [-s "1 2"] [-P] [-p PAIRS] [-d DEPTHS] [-o OUT] [-f "RUN1 RUN2"] A.yaml B.yaml [C.yaml ...]
#
# A, B, ... are run configs laid over the embedded default (as `millzero
# train --config` reads them; "default" is the default itself). For every
# seed the two runs train at the same time, each pinned to a core of its own
# (taskset), so whatever else the machine does slows both alike; then each
# run's best model meets alpha-beta at the given depths only (millzero bench
# strength, 400 visits a move, the same openings for every run), and every
# config's last five models meet the first config's, seed by seed, on 100
# pairs (scripts/head-to-head.sh -n 5: where the yardsticks score both
# alike; two minutes a config on two cores). Runs that
# finished are not trained again, so an interrupted comparison resumes; the
# table is printed from OUT/*/strength.json. -P trains every run at once,
# pinned to the cores in turn (seed by seed, config by config, each seed
# starting on the other core): with two configs and two seeds each core
# holds one run of each, half the wall time of two seeds, each run on half
# a core; with three configs each core again holds one run of every config,
# a third of a core a run (give it 1.5 times the minutes for the same
# core-minutes). More than two configs need -P.
# -f compares what comes after a run: every config's run of the i-th seed
# starts as a copy of the i-th RUN (its games, models and metrics) and goes
# on from there for the minutes (loop.hours counts one invocation); the
# copy is `millzero fork` of the RUN (its games and models hard links).
# Each config is then laid over the copy's run.yaml, not over the embedded
# default: "default" there goes on with the start's settings, so after a
# change of the default give today's as a file (configs/experiments/*.yaml).
#
# Needs: python3 with PyYAML (to lay the seed and the time over a config),
# taskset, and two cores.
set -euo pipefail
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 2; }

minutes=30 seeds="1 2" pairs=50 depths=2,4,6 out=runs/compare parallel=0 from=""
while getopts "m:s:p:d:o:f:Ph" o; do
  case $o in
    m) minutes=$OPTARG ;; s) seeds=$OPTARG ;; p) pairs=$OPTARG ;; d) depths=$OPTARG ;; o) out=$OPTARG ;; P) parallel=1 ;;
    f) from=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || usage
starts=()
if [ -n "$from" ]; then
  read -ra starts <<< "$from"
  read -ra ss <<< "$seeds"
  [ ${#starts[@]} -eq ${#ss[@]} ] || { echo "compare-configs: -f names ${#starts[@]} runs for ${#ss[@]} seeds: want one run per seed" >&2; exit 2; }
  for f in "${starts[@]}"; do
    [ -f "$f/models/best" ] || { echo "compare-configs: -f run $f: no models/best (not a run, or no model yet)" >&2; exit 2; }
  done
fi
[ $# -eq 2 ] || [ $parallel = 1 ] || { echo "compare-configs: $# configs need -P (two cores, one run of each config on each)" >&2; exit 2; }
cd "$(dirname "$0")/.."
for c in "$@"; do
  [ "$c" = default ] || [ -f "$c" ] || { echo "compare-configs: config $c: no such file" >&2; exit 2; }
done
python3 -c 'import yaml' 2>/dev/null || { echo "compare-configs: python3 with PyYAML is needed (apt install python3-yaml)" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "compare-configs: two cores are needed (one per run)" >&2; exit 2; }
go build -o bin/millzero ./cmd/millzero
mkdir -p "$out"

# overlay CONFIG SEED HOURS > FILE: the config with loop.seed and loop.hours set.
overlay() {
  python3 - "$1" "$2" "$3" <<'EOF'
import sys, yaml
path, seed, hours = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
c = {} if path == "default" else (yaml.safe_load(open(path)) or {})
c.setdefault("loop", {}).update(seed=seed, hours=hours, generations=0)
print(yaml.safe_dump(c, sort_keys=False))
EOF
}

name() { [ "$1" = default ] && echo default || basename "$1" .yaml; }
hours=$(python3 -c "print($minutes/60)")

# The i-th config of the s-th seed (from 0) trains on core (s + i) % 2, so
# with an even number of configs each config's seeds run on both cores, not
# all on one (a core that takes the machine's interrupts is slower).
pids=() si=0
for s in $seeds; do
  ci=0
  for c in "$@"; do
    r="$out/$(name "$c")-s$s" core=$(((si + ci) % 2)) ci=$((ci + 1))
    if [ -f "$r/.trained" ]; then continue; fi
    if [ ${#starts[@]} -gt 0 ] && [ ! -f "$r/.copied" ]; then
      echo "compare: $r starts as a copy of ${starts[$si]}"
      rm -rf "$r" && bin/millzero fork --run "${starts[$si]}" --to "$r" > /dev/null && touch "$r/.copied"
    fi
    mkdir -p "$r"
    overlay "$c" "$s" "$hours" > "$r.yaml"
    echo "compare: training $r on core $core for $minutes minutes"
    ( taskset -c $core bin/millzero train --config "$r.yaml" --run "$r" > "$r.log" 2>&1 && touch "$r/.trained" ) &
    pids+=($!)
  done
  si=$((si + 1))
  [ $parallel = 1 ] && continue
  for p in "${pids[@]}"; do wait "$p" || { echo "compare: a run failed, see $out/*-s$s.log" >&2; exit 1; }; done
  pids=()
done
for p in "${pids[@]}"; do wait "$p" || { echo "compare: a run failed, see $out/*.log" >&2; exit 1; }; done

# Strength: two runs at a time, one per core.
runs=()
for s in $seeds; do for c in "$@"; do runs+=("$out/$(name "$c")-s$s"); done; done
i=0
for r in "${runs[@]}"; do
  if [ ! -f "$r/strength.json" ]; then
    echo "compare: strength of $r"
    ( taskset -c $((i % 2)) bin/millzero bench strength --run "$r" --pairs "$pairs" --depths "$depths" --classic none --workers 1 --json > "$r/strength.json.tmp" &&
      mv "$r/strength.json.tmp" "$r/strength.json" ) &
    i=$((i + 1))
    [ $((i % 2)) -eq 0 ] && wait
  fi
done
wait

# The table: one row per run, one column per depth.
python3 - "${runs[@]}" <<'EOF'
import sys, json, csv, os
print("%-24s %5s %10s  %s" % ("run", "gens", "best", "per depth: score, Elo [95% interval]"))
for r in sys.argv[1:]:
    path = os.path.join(r, "strength.json")
    if not os.path.exists(path):
        print("%-24s  not measured: no %s (a run with no model yet? see %s.log)" % (os.path.basename(r), path, r))
        continue
    rows = json.load(open(path))
    rows = rows.get("rows", rows) if isinstance(rows, dict) else rows
    g = os.path.join(r, "metrics", "generations.csv")
    gens = sum(1 for _ in open(g)) - 1 if os.path.exists(g) else 0
    b = os.path.join(r, "models", "best")
    best = open(b).read().strip() if os.path.exists(b) else "-"
    cells = ["%s %.0f%% %+.0f [%+.0f, %+.0f]" % (x["opponent"], 100 * x["score"], x["elo"], x["elo_low"], x["elo_high"]) for x in rows]
    print("%-24s %5d %10s  %s" % (os.path.basename(r), gens, best, "   ".join(cells)))
EOF

# Head to head: each config's last five models against the first config's.
for c in "${@:2}"; do
  pairs_of_runs=()
  for s in $seeds; do pairs_of_runs+=("$out/$(name "$c")-s$s" "$out/$(name "$1")-s$s"); done
  echo
  scripts/head-to-head.sh -n 5 "${pairs_of_runs[@]}" || echo "compare: no head-to-head of $(name "$c") against $(name "$1") (above)" >&2
done
