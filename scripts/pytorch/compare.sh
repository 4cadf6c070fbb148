#!/bin/sh
# Trains the same networks with millzero's Gorgonia trainer and with
# PyTorch, one right after the other for each case, and prints both
# samples/s: nine men's morris, the run config's network (residual MLP
# 94-128x2-624/3, configs/runs/nine.yaml) and the default one (94-256x3),
# batch 256 and 1024, Adam, masked policy cross-entropy + outcome
# cross-entropy + L2; Go on one and two cores (-cpu 1,2: the trainer runs
# one graph per core), PyTorch on one and two threads. ROUNDS (default 1)
# repeats the whole comparison; the load average is printed per round:
# other work on the machine slows both.
#
#   sh scripts/pytorch/compare.sh
#   ROUNDS=5 sh scripts/pytorch/compare.sh
#
# Needs Debian's python3-torch and libopenblas0-pthread, run by
# /usr/bin/python3 (apt-get install -y python3-torch libopenblas0-pthread).
set -e
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/train.test" ./train
for round in $(seq "${ROUNDS:-1}"); do
	echo "round $round: load $(cut -d' ' -f1-3 /proc/loadavg)"
	for net in "128 2" "256 3"; do
		set -- $net
		for batch in 256 1024; do
			steps=100
			[ "$batch" = 1024 ] && steps=30
			(cd train && "$bin/train.test" -test.run '^$' -test.bench "BenchmarkTrainStep\$/net=${1}x${2}\$/batch=${batch}\$" \
				-test.benchtime 2s -test.cpu 1,2 | grep '^Benchmark')
			for threads in 1 2; do
				/usr/bin/python3 scripts/pytorch/bench_train.py --threads "$threads" --width "$1" --blocks "$2" --batch "$batch" --steps "$steps"
			done
		done
	done
done
