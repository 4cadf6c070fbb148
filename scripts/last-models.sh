#!/usr/bin/env bash
# last-models.sh: the strength of each run's last models, not only its
# newest, since one generation's score against alpha-beta moves by more
# than its interval from the next one's.
#
#   scripts/last-models.sh [-n 5] [-k 5] [-d 4,6] [-p 50] RUN...
#
# For every run: its newest model and the n-1 before it, k generations
# apart, each met by millzero bench strength (400 visits a move, the same
# seeded openings for every model), two benchmarks at a time, each pinned
# to a core of its own. A benchmark's rows are kept in
# RUN/bench/gen-NNNNNN-dDEPTHS-pPAIRS.json, so an interrupted call resumes
# and a second call only prints. The table has each model's score per
# depth, then per run and per arm (the run's name less a trailing -sSEED)
# the mean over its models and their spread (standard deviation), in
# points of score, and per arm the mean's 95% interval from that spread.
#
# Needs: python3, taskset, and two cores.
set -euo pipefail
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 2; }

n=5 k=5 depths=4,6 pairs=50
while getopts "n:k:d:p:h" o; do
  case $o in
    n) n=$OPTARG ;; k) k=$OPTARG ;; d) depths=$OPTARG ;; p) pairs=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
runs=()
for r in "$@"; do
  [ -f "$r/models/best" ] || { echo "last-models: run $r: no models/best (not a run, or no model yet)" >&2; exit 2; }
  runs+=("$(realpath "$r")")
done
set -- "${runs[@]}"
cd "$(dirname "$0")/.."
go build -o bin/millzero ./cmd/millzero

# The models: the newest generation's checkpoint and every k-th before it.
jobs=()
for r in "$@"; do
  newest=$(ls "$r/models" | sed -n 's/^gen-\([0-9]*\)\.safetensors$/\1/p' | sort -n | tail -1)
  [ -n "$newest" ] || { echo "last-models: run $r: no checkpoint in $r/models" >&2; exit 2; }
  for ((i = 0; i < n; i++)); do
    g=$((10#$newest - i * k))
    [ $g -ge 1 ] || break
    m=$(printf "%s/models/gen-%06d.safetensors" "$r" $g)
    [ -f "$m" ] || { echo "last-models: $m is missing" >&2; exit 2; }
    jobs+=("$m")
  done
done

i=0
for m in "${jobs[@]}"; do
  r=$(dirname "$(dirname "$m")")
  out="$r/bench/$(basename "$m" .safetensors)-d${depths//,/_}-p$pairs.json"
  [ -f "$out" ] && continue
  mkdir -p "$r/bench"
  echo "last-models: $m" >&2
  ( taskset -c $((i % 2)) bin/millzero bench strength --model "$m" --depths "$depths" --pairs "$pairs" --workers 1 --json > "$out.tmp" &&
    mv "$out.tmp" "$out" ) &
  i=$((i + 1))
  [ $((i % 2)) -eq 0 ] && wait
done
wait

python3 - "$depths" "$pairs" "${jobs[@]}" <<'EOF'
import sys, json, os, re, statistics
depths, pairs, models = sys.argv[1].split(","), sys.argv[2], sys.argv[3:]
runs, arms = {}, {}
for m in models:
    r = os.path.dirname(os.path.dirname(m))
    gen = os.path.basename(m)[:-len(".safetensors")]
    path = os.path.join(r, "bench", "%s-d%s-p%s.json" % (gen, "_".join(depths), pairs))
    rows = {x["opponent"]: x for x in json.load(open(path))}
    scores = [100 * rows["alphabeta:" + d]["score"] for d in depths]
    runs.setdefault(r, []).append((gen, scores))
    arms.setdefault(re.sub(r"-s\d+$", "", os.path.basename(r)), []).append(scores)
head = "  ".join("%8s" % ("ab" + d) for d in depths)
def summary(rows):
    cols = list(zip(*rows))
    return "  ".join("%5.1f±%-4.1f" % (statistics.mean(c), statistics.pstdev(c)) for c in cols)
for r, rows in runs.items():
    print("%s (score %%, depth by depth)" % r)
    for gen, s in rows:
        print("  %-12s %s" % (gen, "  ".join("%8.1f" % x for x in s)))
    print("  %-12s %s" % ("mean±spread", summary([s for _, s in rows])))
def interval(rows):
    # The mean over the models with a 95% interval from their spread
    # (sample standard deviation / sqrt(models)): the spread holds both
    # the sampling noise of each score and the moves between generations.
    out = []
    for c in zip(*rows):
        h = 1.96 * statistics.stdev(c) / len(c) ** 0.5 if len(c) > 1 else float("nan")
        out.append("%5.1f [%5.1f, %5.1f]" % (statistics.mean(c), statistics.mean(c) - h, statistics.mean(c) + h))
    return "  ".join(out)
print("\nper arm, every model of its runs, depths %s: mean±spread; mean [95%% interval]" % ", ".join(depths))
for a, rows in arms.items():
    print("  %-24s %s  %s  (%d models)" % (a, summary(rows), interval(rows), len(rows)))
EOF
