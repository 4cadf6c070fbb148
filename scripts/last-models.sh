#!/usr/bin/env bash
# last-models.sh: the strength of each run's last models, not only its
# newest, since one generation's score against alpha-beta moves by more
# than its interval from the next one's.
#
#   scripts/last-models.sh [-n 5] [-k 5] [-d 4,6] [-p 50] [-s SEARCH] RUN...
#
# For every run: its newest model and the n-1 before it, k generations
# apart, each met by millzero bench strength (400 visits a move, the same
# seeded openings for every model; -s passes --search SEARCH, as
# root=puct), two benchmarks at a time, each pinned to a core of its own.
# A benchmark's rows are kept in RUN/bench/gen-NNNNNN-dDEPTHS-pPAIRS-TAG.json
# (TAG: gumbel, the model player's root since 2026-11-27, or SEARCH with
# "=" and "," as "-" and "_"), so an interrupted call resumes and a second
# call only prints; a file without a tag is from before, with the PUCT
# root, and -s root=puct reads it. The table has each model's score per
# depth, then per run and per arm (the run's name less a trailing -sSEED)
# the mean over its models and their spread (standard deviation), in
# points of score, and per arm the mean's 95% interval from that spread.
#
# Needs: python3, taskset, and two cores.
set -euo pipefail
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 2; }

n=5 k=5 depths=4,6 pairs=50 search=
while getopts "n:k:d:p:s:h" o; do
  case $o in
    n) n=$OPTARG ;; k) k=$OPTARG ;; d) depths=$OPTARG ;; p) pairs=$OPTARG ;; s) search=$OPTARG ;;
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

# result MODEL: where the benchmark of MODEL is kept (see the top).
tag=gumbel
[ -z "$search" ] || { tag=${search//=/-}; tag=${tag//,/_}; }
result() {
  local r base
  r=$(dirname "$(dirname "$1")")
  base="$r/bench/$(basename "$1" .safetensors)-d${depths//,/_}-p$pairs"
  if [ "$search" = root=puct ] && [ -f "$base.json" ]; then echo "$base.json"; else echo "$base-$tag.json"; fi
}

i=0
for m in "${jobs[@]}"; do
  r=$(dirname "$(dirname "$m")")
  out=$(result "$m")
  [ -f "$out" ] && continue
  mkdir -p "$r/bench"
  echo "last-models: $m" >&2
  ( taskset -c $((i % 2)) bin/millzero bench strength --model "$m" --depths "$depths" --pairs "$pairs" --workers 1 ${search:+--search "$search"} --json > "$out.tmp" &&
    mv "$out.tmp" "$out" ) &
  i=$((i + 1))
  [ $((i % 2)) -eq 0 ] && wait
done
wait

results=()
for m in "${jobs[@]}"; do results+=("$m=$(result "$m")"); done
python3 - "$depths" "${results[@]}" <<'EOF'
import sys, json, os, re, statistics
depths, results = sys.argv[1].split(","), [a.split("=", 1) for a in sys.argv[2:]]
runs, arms = {}, {}
for m, path in results:
    r = os.path.dirname(os.path.dirname(m))
    gen = os.path.basename(m)[:-len(".safetensors")]
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
