#!/usr/bin/python3
"""Golden fixtures of torch 1.13's lazy modules (modules/lazy.json): LazyLinear, LazyConv1d/2d/3d,
LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/2d/3d.

A case {module, args, dtype, input, before, forward, loaded, load_first}:
  args      torch's keyword arguments of the constructor (dtype given apart)
  input     {shape, values} (float64 values, exact in float32)
  before    the fresh module: {type, repr, entries: [[key, shape or null]]} (null: a placeholder,
            torch's UninitializedParameter/Buffer; entries in state-dict order)
  forward   after the first forward: {type, repr, entries}
  loaded    the state dict then loaded (deterministic values): {key: {shape, values}}, and "out":
            the output of a second forward (training mode) and "buffers" after it
  load_first  a fresh module that loads `loaded` before any forward: {type, repr} after the load,
            then {type_after, repr_after, out} after one forward (in_features stays 0, as in torch)
Errors {module, args, input_shape, type, message}: torch's exception (class name, str()) at the first
forward.

One case per line; each case draws from its own generator (seeded by its index), so appending
cases keeps the others' values.

    cd tests/golden && /usr/bin/python3 gen_lazy.py
"""

import json
import os
import warnings

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
warnings.simplefilter("ignore")  # "Lazy modules are a new feature under heavy development"

CASES = [
    ("LazyLinear", {"out_features": 3}, "float64", [4, 5]),
    ("LazyLinear", {"out_features": 2, "bias": False}, "float32", [2, 3, 4]),
    ("LazyConv1d", {"out_channels": 4, "kernel_size": 3}, "float64", [2, 3, 7]),
    ("LazyConv1d", {"out_channels": 4, "kernel_size": 2, "groups": 2, "bias": False}, "float64", [2, 6]),
    ("LazyConv2d", {"out_channels": 3, "kernel_size": 3, "padding": 1}, "float64", [2, 2, 5, 4]),
    ("LazyConv2d", {"out_channels": 2, "kernel_size": [2, 3], "stride": 2}, "float32", [3, 6, 5]),
    ("LazyConv3d", {"out_channels": 2, "kernel_size": 2}, "float64", [1, 3, 3, 4, 3]),
    ("LazyConvTranspose1d", {"out_channels": 3, "kernel_size": 3, "stride": 2}, "float64", [2, 2, 4]),
    ("LazyConvTranspose2d", {"out_channels": 4, "kernel_size": 2, "groups": 2}, "float64", [1, 4, 3, 3]),
    ("LazyConvTranspose3d", {"out_channels": 2, "kernel_size": 2}, "float32", [2, 2, 2, 3, 2]),
    ("LazyBatchNorm1d", {}, "float64", [4, 3]),
    ("LazyBatchNorm1d", {"affine": False, "momentum": None}, "float64", [3, 2, 5]),
    ("LazyBatchNorm2d", {"eps": 1e-3, "momentum": 0.3}, "float64", [2, 3, 2, 2]),
    ("LazyBatchNorm3d", {"track_running_stats": False}, "float32", [2, 2, 2, 2, 3]),
    ("LazyInstanceNorm1d", {}, "float64", [2, 3, 5]),
    ("LazyInstanceNorm2d", {"affine": False, "track_running_stats": False}, "float64", [2, 3, 3, 4]),
    ("LazyInstanceNorm3d", {"eps": 1e-3}, "float64", [1, 2, 2, 3, 2]),
]

ERRORS = [
    ("LazyConv2d", {"out_channels": 4, "kernel_size": 3}, [5, 5]),
    ("LazyConv1d", {"out_channels": 4, "kernel_size": 1, "groups": 2}, [1, 3, 5]),
    ("LazyConvTranspose3d", {"out_channels": 2, "kernel_size": 1}, [2, 2, 2]),
    ("LazyLinear", {"out_features": 2}, []),
    ("LazyBatchNorm2d", {}, [3]),
]


def ctor_args(args):
    a = dict(args)
    if "kernel_size" in a and isinstance(a["kernel_size"], list):
        a["kernel_size"] = tuple(a["kernel_size"])
    return a


def entries(m):
    out = []
    for k, v in m.state_dict().items():
        out.append([k, None if nn.parameter.is_lazy(v) else list(v.shape)])
    return out


def values(t):
    return t.detach().to(torch.float64).reshape(-1).tolist()


def describe(m):
    return {"type": type(m).__name__, "repr": repr(m), "entries": entries(m)}


def case(i, name, args, dtype, shape):
    g = torch.Generator().manual_seed(1000 + i)
    dt = getattr(torch, dtype)
    x = (torch.randint(-16, 16, shape, generator=g).to(torch.float64) / 8).to(dt)
    m = getattr(nn, name)(**ctor_args(args), dtype=dt)
    before = describe(m)
    m(x)
    forward = describe(m)
    loaded = {}
    for k, v in m.state_dict().items():
        if k.endswith("num_batches_tracked"):
            loaded[k] = torch.tensor(3)
        elif k.endswith("running_var"):
            loaded[k] = (torch.randint(1, 16, list(v.shape), generator=g).to(torch.float64) / 8).to(dt)
        else:
            loaded[k] = (torch.randint(-8, 8, list(v.shape), generator=g).to(torch.float64) / 8).to(dt)
    m.load_state_dict(loaded)
    out = m(x)
    bufs = {k: {"shape": list(b.shape), "values": values(b)} for k, b in m.named_buffers()}
    m2 = getattr(nn, name)(**ctor_args(args), dtype=dt)
    m2.load_state_dict(loaded)
    first = {"type": type(m2).__name__, "repr": repr(m2)}
    out2 = m2(x)
    first.update({"type_after": type(m2).__name__, "repr_after": repr(m2), "out": values(out2)})
    enc = {k: {"shape": list(v.shape), "dtype": str(v.dtype).replace("torch.", ""), "values": values(v)}
           for k, v in loaded.items()}
    return {"module": name, "args": args, "dtype": dtype, "input": {"shape": shape, "values": values(x)},
            "before": before, "forward": forward,
            "loaded": {"state": enc, "out_shape": list(out.shape), "out": values(out), "buffers": bufs},
            "load_first": first}


def error(name, args, shape):
    m = getattr(nn, name)(**ctor_args(args))
    try:
        m(torch.zeros(shape))
    except Exception as e:  # noqa: BLE001 - the message is the fixture
        return {"module": name, "args": args, "input_shape": shape, "type": type(e).__name__, "message": str(e)}
    raise AssertionError("no error for %s %s" % (name, shape))


def main():
    cases = [case(i, *c) for i, c in enumerate(CASES)]
    errors = [error(*e) for e in ERRORS]
    os.makedirs(os.path.join(HERE, "modules"), exist_ok=True)
    with open(os.path.join(HERE, "modules", "lazy.json"), "w") as f:
        f.write('{"cases": [\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write('\n], "errors": [\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in errors))
        f.write("\n]}\n")


if __name__ == "__main__":
    main()
