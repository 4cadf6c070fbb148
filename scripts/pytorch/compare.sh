#!/bin/sh
# Trains the same network (the default one for nine men's morris: residual
# MLP 94-256x3-624/3, batch 256, Adam, masked policy cross-entropy +
# outcome cross-entropy + L2) with millzero's Gorgonia trainer and with
# PyTorch, one after the other, on one and two cores, and prints both
# samples/s. The load average is printed first: other work on the machine
# slows both.
#
#   sh scripts/pytorch/compare.sh
set -e
cd "$(dirname "$0")/../.."
uptime
go test ./train -run '^$' -bench 'TrainStep$' -benchtime 5s -cpu 1,2
/usr/bin/python3 scripts/pytorch/bench_train.py --threads 1 --mlp
/usr/bin/python3 scripts/pytorch/bench_train.py --threads 2 --mlp
uptime
