#!/usr/bin/env bash
# three-perfect.sh: train each Three Men's Morris board (three,
# three-nodiagonal, three-cross) from nothing with the three-test config,
# one generation at a time, until the newest model (16 visits a move)
# reaches the game-theoretic result against the exact solver in every game
# (millzero oracle: the start and every one-ply opening, both seats), and
# print the generations and the wall seconds of training it took.
#
#   scripts/three-perfect.sh [-g MAX_GENERATIONS] [-o OUT]
#
# MILLZERO=PATH uses that binary instead of building bin/millzero.
set -euo pipefail
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 2; }

maxgen=12 out=runs/three-perfect
while getopts "g:o:h" o; do
  case $o in
    g) maxgen=$OPTARG ;; o) out=$OPTARG ;;
    *) usage ;;
  esac
done
cd "$(dirname "$0")/.."
mz=${MILLZERO:-bin/millzero}
[ -n "${MILLZERO:-}" ] || go build -o bin/millzero ./cmd/millzero
mkdir -p "$out"
for v in three three-nodiagonal three-cross; do
  rm -rf "${out:?}/$v"
  sed "s/^variant: three\$/variant: $v/" configs/runs/three-test.yaml > "$out/$v.yaml"
  trained=0 result="not reached in $maxgen generations"
  for g in $(seq 1 "$maxgen"); do
    start=$(date +%s.%N)
    "$mz" train --config "$out/$v.yaml" --run "$out/$v" --generations "$g" > "$out/$v.log" 2>&1 ||
      { echo "three-perfect: training $v failed, see $out/$v.log" >&2; exit 1; }
    trained=$(python3 -c "print($trained + $(date +%s.%N) - $start)")
    line=$("$mz" oracle --run "$out/$v" --generation "$g" --sims 16 | tail -1)
    echo "$v generation $g ($(printf %.1f "$trained") s of training): $line"
    read -r right total < <(echo "$line" | sed -n 's/.* in \([0-9]*\) of \([0-9]*\) games.*/\1 \2/p')
    if [ -n "${right:-}" ] && [ "$right" = "$total" ]; then
      result="perfect after $g generations, $(printf %.1f "$trained") s of training"
      break
    fi
  done
  echo "$v: $result"
done
