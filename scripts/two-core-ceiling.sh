#!/usr/bin/env bash
# two-core-ceiling.sh: what two cores of this machine give on work that
# shares nothing, beside what the trainer's two-core step gets.
#
#   bash scripts/two-core-ceiling.sh            # 3 rounds
#   ROUNDS=5 bash scripts/two-core-ceiling.sh
#
# For each workload (a training step of the run config's 128x2 network and
# of the 256x3 one at batch 256 and 1024; one 256x624x256 matrix product of
# the trainer's kernel; full-make perft of nine's moving phase) it runs the
# one-core benchmark alone, pinned to core 0, then two copies of it at once,
# pinned to cores 0 and 1: two processes that share no memory and never
# wait on each other. The pair's summed rate over the lone one is the most
# two cores can give that work here (2.00 if the cores do not slow each
# other). For the training steps it also runs the trainer on both cores
# (-cpu 2: a graph per core, the batch split between them), whose rate over
# the lone one is the two-core speed-up of docs/benchmarks.md; when it sits at the
# pair's ceiling, what the two-core step loses is the machine's, not the
# trainer's hand-offs. Rounds interleave the three runs; medians.
#
# Needs: taskset, python3, two idle cores (anything else running skews it).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for pkg in train model engine; do go test -c -o "$bin/$pkg.test" "./$pkg"; done
out=$bin/results
: >"$out"

# bench CORES KIND: the current workload's benchmark at -cpu $cpu,
# pinned to CORES, its lines appended to $out as "ROUND KIND UNIT line".
bench() {
  (cd "$pkg" && taskset -c "$1" "$bin/$pkg.test" -test.run '^$' -test.bench "$pat" -test.cpu "$cpu" \
    -test.benchtime "${BENCHTIME:-2s}") | grep '^Benchmark' | sed "s|^|$r $2 $unit |" >>"$out"
}

workloads=(
  "train|BenchmarkTrainStep\$/net=128x2\$/batch=256\$|samples/s"
  "train|BenchmarkTrainStep\$/net=128x2\$/batch=1024\$|samples/s"
  "train|BenchmarkTrainStep\$/net=256x3\$/batch=256\$|samples/s"
  "train|BenchmarkTrainStep\$/net=256x3\$/batch=1024\$|samples/s"
  "model|BenchmarkGemmAcc/256x624x256\$|GFLOP/s"
  "engine|BenchmarkPerft/nine-moving-d7\$|nodes/s"
)
for r in $(seq "$rounds"); do
  echo "round $r of $rounds: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  for w in "${workloads[@]}"; do
    IFS='|' read -r pkg pat unit <<<"$w"
    cpu=1
    bench 0 alone
    bench 0 pair0 & first=$!
    bench 1 pair1
    wait "$first"
    if [ "$pkg" = train ]; then
      cpu=2 bench 0,1 both
    fi
  done
done

python3 - "$out" <<'EOF'
import re, statistics, sys
from collections import defaultdict
rates = defaultdict(lambda: defaultdict(list))  # name -> kind -> per round
pair = defaultdict(lambda: defaultdict(float))  # name -> round -> summed pair
for line in open(sys.argv[1]):
    f = line.split()
    rnd, kind, unit, name = f[0], f[1], f[2], re.sub(r'-\d+$', '', f[3])
    m = re.search(r' (\d[0-9.e+]*) ' + re.escape(unit), ' '.join(f[4:]))
    if not m:
        continue
    v = float(m.group(1))
    if kind in ('pair0', 'pair1'):
        pair[name][rnd] += v
    else:
        rates[name][kind].append(v)
for name in pair:
    rates[name]['pair'] = list(pair[name].values())
print(f"{'workload':52} {'alone':>10} {'pair sum':>10} {'ceiling':>8} {'both':>10} {'both/alone':>10}")
for name, k in rates.items():
    alone = statistics.median(k['alone'])
    ps = statistics.median(k['pair']) if k['pair'] else float('nan')
    both = statistics.median(k['both']) if k.get('both') else None
    row = f"{name:52} {alone:10.4g} {ps:10.4g} {ps/alone:7.2f}x"
    if both:
        row += f" {both:10.4g} {both/alone:9.2f}x"
    print(row)
EOF
