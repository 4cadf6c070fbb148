#!/usr/bin/env bash
# measure-hour.sh: the measurements of a `make train` hour that
# docs/experiments.md's "The default run" reports, in one call, on a run of
# nine that has stopped.
#
#   scripts/measure-hour.sh [-t TABLES] [-q] RUN
#
# 1. the best model at 400 visits a move against alphabeta:2/4/6, 50 pairs;
# 2. each model the loop measured at a quarter hour (the rows of
#    RUN/metrics/strength.csv) against depths 2/4/6 and 8, 50 pairs: the
#    hour's best is near 90% against depth 6 from the first quarter on, so
#    depth 8 is where the later quarters show what they add;
# 3. the best on 200 pairs from other openings (seed 2) against depths 4, 6;
# 4. the best against alphabeta:8, the yardstick of nine-long's night, on
#    50 pairs and on 200 from other openings (the last takes a few minutes);
# 5. the last five models against depths 4, 6 (scripts/last-models.sh);
# 6. the quarter-hour models against each other (millzero bench progress,
#    100 pairs a match): what the later quarters add, which the yardsticks
#    score alike.
# Every benchmark also counts thrown endgames with the tables of TABLES
# (default auto: the user cache's, built by the run's `tablebase: auto`). -q
# skips step 4's 200 pairs. Run it on quiet cores: it uses both.
#
# Needs: python3, taskset and two cores (for last-models.sh).
set -euo pipefail
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 2; }

tables= quick=0
while getopts "t:qh" o; do
  case $o in
    t) tables=$OPTARG ;; q) quick=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
run=$1
[ -f "$run/models/best" ] || { echo "measure-hour: run $run: no models/best (not a run, or no model yet)" >&2; exit 2; }
tables=${tables:-auto}
[ "$tables" = auto ] || [ -d "$tables" ] || { echo "measure-hour: tables $tables: no such directory" >&2; exit 2; }
run=$(realpath "$run")
cd "$(dirname "$0")/.."
go build -o bin/millzero ./cmd/millzero

bench() { echo; echo "== $1"; shift; bin/millzero bench strength --tablebase "$tables" "$@"; }
bench "the best, 50 pairs" --run "$run" --pairs 50
if [ -f "$run/metrics/strength.csv" ]; then
  for g in $(awk -F, 'NR > 1 && $4 == "alphabeta:6" { print $3 }' "$run/metrics/strength.csv"); do
    bench "$g, measured by the loop at a quarter hour, 50 pairs" --model "$run/models/$g.safetensors" --pairs 50 --depths 2,4,6,8
  done
fi
bench "the best, 200 pairs from other openings" --run "$run" --pairs 200 --depths 4,6 --seed 2
bench "the best against depth 8, 50 pairs" --run "$run" --pairs 50 --depths 8
[ $quick = 1 ] || bench "the best against depth 8, 200 pairs from other openings" --run "$run" --pairs 200 --depths 8 --seed 2
echo; echo "== the last five models"
scripts/last-models.sh "$run"
echo; echo "== the quarter-hour models against each other"
# Those step 2 measured (the loop's quarter-hour bests) and the best, or
# without them the models nearest each quarter.
gens=
if [ -f "$run/metrics/strength.csv" ]; then
  gens=$(awk -F, 'NR > 1 && $4 == "alphabeta:6" { sub(/^gen-0*/, "", $3); print $3 }' "$run/metrics/strength.csv" | paste -sd, -)
fi
best=$(cat "$run/models/best")
[ -z "$gens" ] || [ "${gens##*,}" = "$best" ] || gens="$gens,$best"
case $gens in
  *,*) bin/millzero bench progress --run "$run" --at-generations "$gens" ;;
  *) bin/millzero bench progress --run "$run" ;;
esac
