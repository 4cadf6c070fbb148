#!/usr/bin/python3
"""Reference training speed in PyTorch for millzero's trainer.

Trains the same network as model.DefaultConfig on nine men's morris
(train.BenchmarkTrainStep): a residual MLP of --width units and --blocks
blocks, a policy head over --actions logits masked to ~20 legal actions,
an outcome head over --outcomes classes, cross-entropy on both, L2 on the
weight matrices in the loss, Adam, batch --batch. Prints samples/s and
GFLOP/s (3 x 2 x multiply-adds per sample: forward and backward), and
samples per second of CPU time on all threads (what the work costs,
whatever else runs on the machine).

--mlp also times the plain 128-256-256-1 MLP with an MSE loss, a common
reference figure for PyTorch.

Needs Debian's python3-torch (apt-get install -y python3-torch), run by
Debian's /usr/bin/python3 (a pyenv python3 on PATH does not see it).

    /usr/bin/python3 scripts/pytorch/bench_train.py --threads 1
    /usr/bin/python3 scripts/pytorch/bench_train.py --threads 2 --mlp
"""
import argparse
import os
import sys
import time

# Threads are fixed before torch loads its OpenMP and BLAS pools.
_threads = "1"
for i, arg in enumerate(sys.argv):
    if arg == "--threads" and i + 1 < len(sys.argv):
        _threads = sys.argv[i + 1]
    elif arg.startswith("--threads="):
        _threads = arg.split("=", 1)[1]
os.environ.setdefault("OMP_NUM_THREADS", _threads)
os.environ.setdefault("OPENBLAS_NUM_THREADS", _threads)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


class Net(nn.Module):
    def __init__(self, inputs, width, blocks, actions, outcomes):
        super().__init__()
        self.inp = nn.Linear(inputs, width)
        self.blocks = nn.ModuleList(
            nn.ModuleList([nn.Linear(width, width), nn.Linear(width, width)]) for _ in range(blocks))
        self.policy = nn.Linear(width, actions)
        self.value = nn.Linear(width, outcomes)

    def forward(self, x):
        h = F.relu(self.inp(x))
        for fc1, fc2 in self.blocks:
            h = F.relu(h + fc2(F.relu(fc1(h))))
        return self.policy(h), self.value(h)


def macs(inputs, width, blocks, actions, outcomes):
    return inputs * width + 2 * blocks * width * width + width * actions + width * outcomes


def timed(step, steps):
    """Wall and CPU (all threads) seconds of steps calls of step."""
    for _ in range(5):  # warm up
        step()
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        step()
    return time.perf_counter() - start, time.process_time() - cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--inputs", type=int, default=94)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--blocks", type=int, default=3)
    ap.add_argument("--actions", type=int, default=624)
    ap.add_argument("--outcomes", type=int, default=3)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--weight-decay", type=float, default=1e-4)
    ap.add_argument("--mlp", action="store_true", help="also time the 128-256-256-1 MLP")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)

    net = Net(a.inputs, a.width, a.blocks, a.actions, a.outcomes)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    weights = [p for n, p in net.named_parameters() if n.endswith("weight")]
    x = (torch.rand(a.batch, a.inputs) < 0.3).float()
    legal = torch.rand(a.batch, a.actions) < 20 / a.actions
    legal[:, 0] = True
    mask = torch.where(legal, 0.0, -1e9)
    pi = torch.rand(a.batch, a.actions) * legal
    pi = pi / pi.sum(1, keepdim=True)
    z = torch.randint(0, a.outcomes, (a.batch,))

    def step():
        opt.zero_grad(set_to_none=True)
        p, v = net(x)
        lp = F.log_softmax(p + mask, dim=1)
        loss = -(pi * lp).sum(1).mean() + F.cross_entropy(v, z)
        loss = loss + a.weight_decay * sum((w * w).sum() for w in weights)
        loss.backward()
        opt.step()

    el, cpu = timed(step, a.steps)
    sps = a.steps * a.batch / el
    m = macs(a.inputs, a.width, a.blocks, a.actions, a.outcomes)
    print(f"pytorch {torch.__version__}, {a.threads} thread(s): residual MLP "
          f"{a.inputs}-{a.width}x{a.blocks}-{a.actions}/{a.outcomes}, batch {a.batch}, Adam: "
          f"{sps:.0f} samples/s, {sps * 6 * m / 1e9:.1f} GFLOP/s, "
          f"{a.steps * a.batch / cpu:.0f} samples/cpu-s")

    if a.mlp:
        mlp = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))
        opt2 = torch.optim.Adam(mlp.parameters(), lr=1e-3)
        x2 = torch.randn(a.batch, 128)
        y2 = torch.randn(a.batch, 1)

        def step2():
            opt2.zero_grad(set_to_none=True)
            F.mse_loss(mlp(x2), y2).backward()
            opt2.step()

        el, _ = timed(step2, a.steps * 4)
        sps = a.steps * 4 * a.batch / el
        m = 128 * 256 + 256 * 256 + 256
        print(f"pytorch {torch.__version__}, {a.threads} thread(s): MLP 128-256-256-1, batch {a.batch}, Adam: "
              f"{sps:.0f} samples/s, {sps * 6 * m / 1e9:.1f} GFLOP/s")


if __name__ == "__main__":
    main()
