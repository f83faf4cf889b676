#!/usr/bin/env python3
"""W9, PyTorch's side (../shared/design/BENCHMARKS.md, issue 16): the GPU reference figures that
glia's CUDA backend is compared with, run by scripts/gpu-check.sh on the lent H100.

W9a  matmul 4096^3 (torch.mm into a preallocated output), float32 with TF32 off and bfloat16;
     TFLOP/s (2 n^3 flop per product). CUDA events around `inner` back-to-back products, median
     over `reps` repetitions, after warm-up.
W9b  the W4 LeNet train step: Conv2d(1,6,5,padding=2)-ReLU-MaxPool2d(2)-Conv2d(6,16,5)-ReLU-
     MaxPool2d(2)-Flatten-Linear(400,120)-ReLU-Linear(120,84)-ReLU-Linear(84,10), CrossEntropyLoss,
     SGD(lr 0.01, momentum 0.9), input Nx1x28x28, N = 64 and 1024; ms/step.
W9c  the W3 MLP train step: Linear(784,256)-ReLU-Linear(256,128)-ReLU-Linear(128,10), CE,
     SGD(lr 0.01, momentum 0.9), N = 64 and 1024; us/step.

A train step is forward, loss, zero_grad, backward, step (W4's order), on one fixed random batch
that lives on the device (no host-to-device copy, no .item()). Each step workload is timed two
ways, both with time.perf_counter() (wall clock, Python included: PyTorch eager as a user runs it):
  "pipelined":  `steps` steps back to back, then one torch.cuda.synchronize(); time / steps.
                The host queues kernels ahead of the GPU: the throughput of a training loop.
  "sync/step":  torch.cuda.synchronize() after every step; time / steps. The latency of one step.
The figure is the median over `reps` repetitions, after `warmup` steps (cuDNN's algorithm choice,
the caching allocator and the momentum buffers settle there).

Settings, recorded in the output: TF32 off for matmul and cuDNN (float32 means float32, as glia's
default); torch.backends.cudnn.benchmark False (PyTorch's default); SGD's implementation is
PyTorch's default (foreach on CUDA); zero_grad() with PyTorch's default set_to_none=True.

Prints readable lines and one JSON line per figure (prefix "JSON "; --out FILE appends them to FILE
as JSON lines without the prefix).

    python3 benchmarks/gpu/w9_torch.py [--out w9.jsonl] [--only W9a,W9b,W9c]
    python3 benchmarks/gpu/w9_torch.py --device cpu --quick     # checks the script without a GPU
"""
import argparse
import json
import statistics
import sys
import time

import torch
from torch import nn


def set_fp32_exact():
    """TF32 off for matmul and cuDNN, whichever API this PyTorch has (2.9 added fp32_precision and
    refuses a mix of the two)."""
    matmul = torch.backends.cuda.matmul
    # (hasattr on torch.backends.cuda.matmul raises AssertionError in old versions: ask torch.backends.)
    if hasattr(torch.backends, "fp32_precision"):
        matmul.fp32_precision = "ieee"
        torch.backends.cudnn.conv.fp32_precision = "ieee"
        return "fp32_precision=ieee (matmul, cudnn.conv)"
    matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return "allow_tf32=False (matmul, cudnn)"


class Clock:
    """Times a region: CUDA events on a GPU (device time), perf_counter on the CPU."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def events_ms(self, fn, inner):
        """Milliseconds per call of fn, `inner` calls between two events (or perf_counter)."""
        if self.cuda:
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(inner):
                fn()
            stop.record()
            stop.synchronize()
            return start.elapsed_time(stop) / inner
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        return (time.perf_counter() - t0) * 1e3 / inner


def emit(args, record):
    line = json.dumps(record)
    print("JSON " + line, flush=True)
    if args.out:
        with open(args.out, "a") as f:
            f.write(line + "\n")


def bench_matmul(args, device, clock, dtype, label):
    n = args.n
    gen = torch.Generator(device="cpu").manual_seed(0)
    a = torch.rand(n, n, generator=gen).mul_(2).sub_(1).to(device=device, dtype=dtype)
    b = torch.rand(n, n, generator=gen).mul_(2).sub_(1).to(device=device, dtype=dtype)
    c = torch.empty(n, n, device=device, dtype=dtype)

    def product():
        torch.mm(a, b, out=c)

    for _ in range(args.warmup_mm):
        product()
    clock.sync()
    ms = statistics.median(clock.events_ms(product, args.inner) for _ in range(args.reps_mm))
    # A light check that the product is right (and, for float32, not TF32): a few entries against
    # float64 on the host, relative to sqrt(sum_k (a_ik b_kj)^2) as w9_cublas.cu does.
    rows = torch.tensor([0, n - 1, 1, n // 3, n // 2, n - 5])
    cols = torch.tensor([0, n - 1, n // 2, 7, n - 2, n // 5])
    a64, b64 = a[rows].double().cpu(), b[:, cols].double().cpu()
    terms = a64.unsqueeze(2) * b64.unsqueeze(0)  # (6, n, 6): terms[s, k, t] = a[rows[s], k] b[k, cols[t]]
    idx = torch.arange(len(rows))
    ref = terms.sum(1)[idx, idx]
    norm = terms.pow(2).sum(1).sqrt()[idx, idx]
    got = c[rows, cols].double().cpu()
    err = ((got - ref).abs() / norm).max().item()
    tflops = 2.0 * n**3 / (ms * 1e-3) / 1e12
    workload = f"matmul {n}^3 {label}"
    print(f"W9a torch  {workload:<44} {tflops:8.1f} TFLOP/s  ({ms:.3f} ms per product, median of "
          f"{args.reps_mm} x {args.inner}; max rel err {err:.1e})", flush=True)
    emit(args, {"id": "W9a", "workload": workload, "impl": "torch", "value": round(tflops, 2),
                "unit": "TFLOP/s", "timing": f"{'CUDA events' if clock.cuda else 'perf_counter'}, {args.inner} "
                f"products per event pair, median of {args.reps_mm}", "ms": round(ms, 4), "call": "torch.mm(a, b, out=c)",
                "max_rel_err": err})
    tol = 5e-5 if dtype == torch.float32 else 2e-2
    if not err <= tol:
        raise SystemExit(f"w9_torch: {workload}: relative error {err:.3g} above {tol:g}: wrong result")


def lenet():
    return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                         nn.Linear(84, 10))


def mlp():
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


def bench_step(args, device, clock, wid, name, make, in_shape, batch, unit):
    torch.manual_seed(0)
    model = make().to(device)
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(batch, *in_shape, device=device)
    y = torch.randint(0, 10, (batch,), device=device)

    def step():
        out = model(x)
        loss = loss_fn(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    for _ in range(args.warmup_steps):
        loss = step()
    clock.sync()
    scale = {"ms": 1e3, "us": 1e6}[unit]
    for mode in ("pipelined", "sync/step"):
        per_step = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            for _ in range(args.steps):
                loss = step()
                if mode == "sync/step":
                    clock.sync()
            clock.sync()
            per_step.append((time.perf_counter() - t0) / args.steps)
        value = statistics.median(per_step) * scale
        final_loss = loss.item()
        workload = f"{name} train step, batch {batch}"
        print(f"{wid} torch  {workload:<36} {mode:<10} {value:10.1f} {unit}/step  (median of {args.reps} x "
              f"{args.steps} steps; min {min(per_step) * scale:.1f}; loss {final_loss:.4f})", flush=True)
        timing = (f"{args.steps} steps then one synchronize" if mode == "pipelined" else
                  f"synchronize after each of {args.steps} steps") + f", wall clock, median of {args.reps}"
        emit(args, {"id": wid, "workload": workload, "impl": "torch", "mode": mode, "value": round(value, 2),
                    "unit": f"{unit}/step", "timing": timing, "min": round(min(per_step) * scale, 2),
                    "batch": batch, "final_loss": final_loss})
        if final_loss != final_loss:  # NaN
            raise SystemExit(f"w9_torch: {workload}: the loss became NaN")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cuda", help="cuda (default) or cpu (with --quick: a check of this script)")
    p.add_argument("--quick", action="store_true", help="small sizes and few repetitions, to check the script")
    p.add_argument("--only", default="W9a,W9b,W9c", help="comma-separated subset of W9a,W9b,W9c")
    p.add_argument("--out", help="append JSON lines to this file")
    p.add_argument("--n", type=int, help="matrix size of W9a (default 4096; --quick 256)")
    p.add_argument("--batches", help="batch sizes of W9b and W9c (default 64,1024; --quick 8,32)")
    p.add_argument("--reps", type=int, help="repetitions per step figure (default 7; --quick 2)")
    p.add_argument("--steps", type=int, help="steps per repetition (default 100; --quick 3)")
    p.add_argument("--warmup-steps", type=int, help="warm-up steps (default 30; --quick 2)")
    p.add_argument("--inner", type=int, help="W9a products per timed region (default 10; --quick 2)")
    args = p.parse_args()
    quick = args.quick
    args.n = args.n or (256 if quick else 4096)
    args.batches = [int(b) for b in (args.batches or ("8,32" if quick else "64,1024")).split(",")]
    args.reps = args.reps or (2 if quick else 7)
    args.steps = args.steps or (3 if quick else 100)
    args.warmup_steps = args.warmup_steps or (2 if quick else 30)
    args.inner = args.inner or (2 if quick else 10)
    args.reps_mm = 3 if quick else 15
    args.warmup_mm = 1 if quick else 5
    only = set(args.only.split(","))
    unknown = only - {"W9a", "W9b", "W9c"}
    if unknown:
        p.error(f"unknown workload(s) in --only: {', '.join(sorted(unknown))}")

    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit("w9_torch: torch.cuda.is_available() is False (use --device cpu --quick to check the script)")
    precision = set_fp32_exact()
    torch.backends.cudnn.benchmark = False
    clock = Clock(device)
    meta = {"meta": "torch", "torch": torch.__version__, "torch_cuda": torch.version.cuda, "device": str(device),
            "precision": precision, "cudnn_benchmark": torch.backends.cudnn.benchmark, "quick": quick}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        meta.update(device=torch.cuda.get_device_name(device), sm=f"{props.major}.{props.minor}",
                    sms=props.multi_processor_count, cudnn=torch.backends.cudnn.version())
    else:
        meta.update(threads=torch.get_num_threads())
    print(f"w9_torch: torch {torch.__version__} (CUDA {torch.version.cuda}) on {meta['device']}; {precision}; "
          f"cudnn.benchmark {torch.backends.cudnn.benchmark}", flush=True)
    emit(args, meta)

    if "W9a" in only:
        bench_matmul(args, device, clock, torch.float32, "float32 (no TF32)")
        bench_matmul(args, device, clock, torch.bfloat16, "bfloat16 (fp32 accumulate)")
    for batch in args.batches:
        if "W9b" in only:
            bench_step(args, device, clock, "W9b", "LeNet", lenet, (1, 28, 28), batch, "ms")
    for batch in args.batches:
        if "W9c" in only:
            bench_step(args, device, clock, "W9c", "MLP", mlp, (784,), batch, "us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
