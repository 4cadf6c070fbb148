#!/usr/bin/env bash
# head-to-head.sh: two arms' models played against each other, where the
# alpha-beta yardsticks no longer tell them apart (from a few minutes in, a
# default hour scores about 90% against depth 6 and 80% against depth 8 at
# every quarter, while its newest model beats its 15-minute one by 40-60
# Elo: docs/experiments.md, "The default run").
#
#   scripts/head-to-head.sh [-n 1] [-k 5] [-g G] [-p 100] [-t TABLES] [-s SEARCH] A1 B1 [A2 B2 ...]
#
# The runs come in pairs, arm A's then arm B's (one pair a seed, say). For
# every pair: A's newest model (or generation G's, for runs that go on
# training or that are compared where both have reached G) and the n-1
# before it, k generations apart,
# each meets B's model of the same rank in millzero arena (400 visits a
# move, p pairs of seeded random openings, each played with the seats
# swapped, the same openings for every match; the variant and the endgame
# tables of A's run.yaml, or those of TABLES: a directory, auto, "" none;
# both search as model players do, a Gumbel root since 2026-11-27, or with
# SEARCH's settings laid over that: -s root=puct, as before). The table gives A's score per match and pooled:
# wins/draws/losses, the score with its 95% interval from the pairs'
# scores (the two games of an opening are one sample), the Elo of that, and
# the share of the games drawn.
# The interval is the games' noise, not the runs': two seeds of one config
# met this way differ by up to about 15 Elo pooled over five models, 40 in
# one match (docs/experiments.md), so give both arms two seeds and -n 5.
# A run's arm is its name less a trailing -sSEED. Arena output is kept in
# A/bench/h2h-*.txt, so a second call only prints.
#
# Needs: python3.
set -euo pipefail
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 2; }

n=1 k=5 top= pairs=100 tables= tables_set=0 search=
while getopts "n:k:g:p:t:s:h" o; do
  case $o in
    n) n=$OPTARG ;; k) k=$OPTARG ;; g) top=$OPTARG ;; p) pairs=$OPTARG ;; t) tables=$OPTARG tables_set=1 ;; s) search=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
{ [ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ]; } || usage
for v in "$n" "$k" "$pairs" ${top:+"$top"}; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "head-to-head: -n, -k, -g and -p take a whole number from 1, not $v" >&2; exit 2; }
done
runs=()
for r in "$@"; do
  [ -f "$r/models/best" ] || { echo "head-to-head: run $r: no models/best (not a run, or no model yet)" >&2; exit 2; }
  runs+=("$(realpath "$r")")
done
cd "$(dirname "$0")/.."
go build -o bin/millzero ./cmd/millzero
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# gens RUN: the generations of RUN's n models, newest (or -g's) first.
gens() {
  local newest
  newest=$(ls "$1/models" | sed -n 's/^gen-0*\([0-9][0-9]*\)\.safetensors$/\1/p' | sort -n | tail -1)
  [ -n "$newest" ] || { echo "head-to-head: run $1: no gen-*.safetensors in models" >&2; exit 2; }
  if [ -n "$top" ]; then
    [ "$top" -le "$newest" ] || { echo "head-to-head: run $1: -g $top: its newest model is generation $newest's" >&2; exit 2; }
    newest=$top
  fi
  for i in $(seq 0 $((n - 1))); do
    local g=$((newest - i * k))
    [ $g -ge 1 ] || { echo "head-to-head: run $1: $n models $k generations apart go back before generation 1 (newest $newest)" >&2; exit 2; }
    echo $g
  done
}

# setting RUN KEY: a top-level value of RUN's run.yaml, unquoted.
setting() { sed -n "s/^$2: *//p" "$1/run.yaml" 2>/dev/null | head -1 | tr -d "\"'"; }

results=()
set -- "${runs[@]}"
while [ $# -gt 0 ]; do
  a=$1 b=$2; shift 2
  list=$(gens "$a"); mapfile -t ga <<< "$list"
  list=$(gens "$b"); mapfile -t gb <<< "$list"
  mkdir -p "$a/bench"
  # The variant and tables of A's run (a model of another variant is an error).
  variant=$(setting "$a" variant)
  [ $tables_set = 1 ] || tables=$(setting "$a" tablebase)
  for i in "${!ga[@]}"; do
    fa=$(printf '%s/models/gen-%06d.safetensors' "$a" "${ga[$i]}")
    fb=$(printf '%s/models/gen-%06d.safetensors' "$b" "${gb[$i]}")
    [ -f "$fa" ] || { echo "head-to-head: $fa: no such checkpoint" >&2; exit 2; }
    [ -f "$fb" ] || { echo "head-to-head: $fb: no such checkpoint" >&2; exit 2; }
    # The result names both runs, both generations and the settings (the
    # key of a match of the PUCT root before 2026-11-27, -s root=puct now,
    # left out the search).
    if [ "$search" = root=puct ]; then
      key=$(printf '%s %s %s' "$b" "$pairs" "$tables" | cksum | cut -d' ' -f1)
    else
      key=$(printf '%s %s %s search %s' "$b" "$pairs" "$tables" "${search:-gumbel}" | cksum | cut -d' ' -f1)
    fi
    out=$(printf '%s/bench/h2h-%06d-%06d-p%d-%s.txt' "$a" "${ga[$i]}" "${gb[$i]}" "$pairs" "$key")
    if [ ! -f "$out" ]; then
      # The arena names a model by its file: give the two arms' their own.
      ln -sf "$fa" "$tmp/a.safetensors"
      ln -sf "$fb" "$tmp/b.safetensors"
      echo "head-to-head: $(basename "$a") gen ${ga[$i]} against $(basename "$b") gen ${gb[$i]}, $pairs pairs" >&2
      bin/millzero arena "model:$tmp/a.safetensors@400${search:+,$search}" "model:$tmp/b.safetensors@400${search:+,$search}" \
        --variant "${variant:-nine}" --pairs "$pairs" --tablebase "$tables" > "$out.tmp"
      mv "$out.tmp" "$out"
    fi
    results+=("$(basename "$a")|${ga[$i]}|$(basename "$b")|${gb[$i]}|$out")
  done
done

printf '%s\n' "${results[@]}" | python3 -c '
import math, re, sys
from collections import defaultdict

game = re.compile(r"pair (\d+) game \d+: model:(a|b)@\S+ vs model:(a|b)@\S+\s+(1-0|0-1|1/2-1/2)\s")

def arm(run):
    return re.sub(r"-s\d+$", "", run)

def summary(scores):
    """Mean of the pair scores, its 95% interval, and the Elo of the three."""
    m = len(scores)
    mean = sum(scores) / m
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (m - 1)) if m > 1 else 0.0
    half = 1.96 * sd / math.sqrt(m)
    def elo(p):
        p = min(max(p, 0.5 / (2 * m)), 1 - 0.5 / (2 * m))
        return -400 * math.log10(1 / p - 1) + 0.0  # no "-0"
    return mean, mean - half, mean + half, elo(mean), elo(mean - half), elo(mean + half)

def line(label, wdl, scores):
    mean, lo, hi, e, elo_lo, elo_hi = summary(scores)
    return "%-44s %4d   +%d =%d -%d   %5.1f%% [%5.1f, %5.1f]   %+4.0f [%+4.0f, %+4.0f]   %3.0f%%" % (
        label, 2 * len(scores), wdl[0], wdl[1], wdl[2], 100 * mean, 100 * lo, 100 * hi, e, elo_lo, elo_hi,
        100 * wdl[1] / sum(wdl))

print("%-44s %4s   %-12s %-22s   %-19s   %s" % ("A against B (A'"'"'s score)", "games", "+ = -", "score [95%]", "Elo [95%]", "draws"))
pooled = defaultdict(lambda: ([0, 0, 0], []))
for row in sys.stdin.read().split("\n"):
    if not row:
        continue
    ra, ga, rb, gb, path = row.split("|")
    pairs = defaultdict(float)
    wdl = [0, 0, 0]
    for m in game.finditer(open(path).read()):
        p, first, result = m.group(1), m.group(2), m.group(4)
        a = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
        if first == "b":
            a = 1 - a
        pairs[p] += a / 2
        wdl[{1.0: 0, 0.5: 1, 0.0: 2}[a]] += 1
    if not pairs:
        sys.exit("head-to-head: %s: no games in the arena output" % path)
    scores = list(pairs.values())
    print(line("%s %d against %s %d" % (ra, int(ga), rb, int(gb)), wdl, scores))
    key = (arm(ra), arm(rb))
    for i in range(3):
        pooled[key][0][i] += wdl[i]
    pooled[key][1].extend(scores)
print()
for (a, b), (wdl, scores) in pooled.items():
    print(line("%s against %s, pooled" % (a, b), wdl, scores))
'
