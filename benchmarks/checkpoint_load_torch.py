#!/usr/bin/python3
"""torch's side of benchmarks/checkpoint_load.cpp.

checkpoint_load_torch.py SAFETENSORS_FILE [--reps N]

Reads the safetensors file that checkpoint_load wrote (a small parser of its own,
so that no `safetensors` package is needed), saves the same weights with
torch.save next to it, and times torch.load of that .pt (the first load and the
median of N more; the page cache is warm for all of them). If the `safetensors`
package is installed, it also times safetensors.torch.load_file of the original
file. Prints lines in checkpoint_load's format. Run it with /usr/bin/python3,
which has torch.
"""
import json
import os
import statistics
import struct
import sys
import time

import torch

DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
    "I64": torch.int64, "I32": torch.int32, "U8": torch.uint8, "BOOL": torch.bool,
}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    buffer = memoryview(data)[8 + n:]
    out = {}
    for name, e in header.items():  # header order: the order glia saved
        begin, end = e["data_offsets"]
        raw = bytearray(buffer[begin:end])
        t = torch.frombuffer(raw, dtype=DTYPES[e["dtype"]]) if raw else torch.empty(0, dtype=DTYPES[e["dtype"]])
        out[name] = t.reshape(e["shape"]).clone()
    return out


def timed(fn, reps):
    t0 = time.perf_counter()
    fn()
    first = (time.perf_counter() - t0) * 1e3
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return first, statistics.median(times)


def main():
    path = sys.argv[1]
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 20
    torch.set_num_threads(1)
    weights = read_safetensors(path)
    pt = os.path.splitext(path)[0] + ".pt"
    torch.save(weights, pt)
    nbytes = sum(t.numel() * t.element_size() for t in weights.values())

    first, med = timed(lambda: torch.load(pt), reps)
    print(f"torch_load_first ms={first:.3f}")
    print(f"torch_load median={med:.3f} unit=ms reps={reps} file={pt} tensors={len(weights)} bytes={nbytes}"
          f" torch={torch.__version__}")
    try:
        import safetensors.torch
    except ImportError:
        print("safetensors_torch_load_file skipped: the safetensors package is not installed")
    else:
        first, med = timed(lambda: safetensors.torch.load_file(path), reps)
        print(f"safetensors_torch_load_file_first ms={first:.3f}")
        print(f"safetensors_torch_load_file median={med:.3f} unit=ms reps={reps}")
    os.remove(pt)


if __name__ == "__main__":
    main()
