#!/usr/bin/python3
"""Golden fixtures from torch 1.13's OpInfo database (issues 20 and 21: coverage).

    cd tests/golden && /usr/bin/python3 gen_opinfo.py            # everything
    cd tests/golden && /usr/bin/python3 gen_opinfo.py abs nn.functional.relu   # some ops only

Writes, under tests/golden/opinfo/:

  index.json    every OpInfo entry of torch 1.13's op_db: its key (name, or
                name.variant), namespace (torch, Tensor, nn.functional, or the
                out-of-scope ones: linalg, special, fft, masked, sparse) and
                whether it has a fixture file (in scope: torch, Tensor-method or
                nn.functional namespace, float32 among its CPU dtypes) or why not.
  <key>.jsonl   one fixture per in-scope entry: a header line, then one line per
                sample (one case per line).
  names.json    the public names of torch 1.13 per namespace (torch,
                torch.Tensor, torch.nn module classes, torch.nn.functional,
                torch.nn.init, torch.nn.utils, torch.optim, torch.optim.lr_scheduler), which
                scripts/coverage.py compares with glia's Python binding.

Header line: {"op": key, "name", "variant", "namespace", "call", "autograd",
"nondeterministic"?, "method_variant"?}. "method_variant" (torch namespace only)
names the Tensor method that OpInfo checks gives the function's values
(input.name(*args, **kwargs)), which the replay calls too. "call" says how the replay calls it: {"fn": "torch.abs"}
(fn(input, *args, **kwargs)), {"method": "abs"} (input.abs(*args, **kwargs)),
{"attr": "T"} (input.T), or {"fn": ..., "swap": true} (fn(args[0], input,
*args[1:], **kwargs): OpInfo's embedding wrapper) or {"fn": "torch.einsum",
"equation_first": true} (fn(args[0], input)).

Sample line: {"sample": i, "input", "args", "kwargs", "float32": R, "float64": R}
or {"sample": i, "skip": reason}. The sample is OpInfo's float32 CPU sample
(requires_grad where the op supports autograd); R is the result of running it
with its float32 tensors as they are ("float32") or converted to float64
("float64"): {"out": value, "grads": [...]} or {"error": torch's message}.
"grads" (absent when the op has no autograd or no float output carries a
gradient) holds, for each tensor of the sample flagged "rg" (in the order
input, args, kwargs, depth first), the gradient of
    sum over floating outputs o (depth first) of sum(o * w(o))
with w(o)[k] = ((7 k) mod 11 - 5.5) / 4 for the k-th element of o in row-major
order (a fixed cotangent the replay recomputes), or null where the output does
not depend on the tensor. For nondeterministic ops (random values, uninitialised
memory: detected by running the sample under two seeds) "out" holds only dtype
and shape (data null) and there are no grads.

Value encoding: a tensor is {"T": dtype, "s": shape, "d": row-major values,
"rg": true if it requires grad}; a float that is not finite {"f": "nan"|"inf"|
"-inf"}; a tuple {"tuple": [...]}; a list a JSON list; torch.Size {"size": [...]};
a dtype {"dtype": name}; a slice {"slice": [start, stop, step]}; Ellipsis
{"ellipsis": true}; a memory format {"memory_format": name}; a device
{"device": str}; strings, ints, bools and None as themselves. Tensor values are
JSON numbers (NaN, Infinity: Python's json reads them): float32 data with 9
significant digits (exact), float64 outputs with 13.

Determinism: each entry's samples are drawn after torch.manual_seed(crc32 of its
key), so adding entries does not change others. At most MAX_SAMPLES samples per
entry, the first ones whose tensors hold at most MAX_NUMEL elements each
and whose fixture line is at most LINE_CAP bytes (failing that, the shortest line
of the FALLBACK smallest samples, up to FALLBACK_LINE_CAP bytes, or
the shortest line of the small samples if that is shorter).
"""

import json
import math
import random
import os
import sys
import tempfile
import zlib

import numpy

# Some sample functions iterate over sets of strings (meshgrid's indexing modes): fix the string hash.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "opinfo")
MAX_SAMPLES = 6
MAX_CANDIDATES = 48
MAX_NUMEL = 125
LINE_CAP = 4000
FALLBACK = 3
FALLBACK_LINE_CAP = 48000

# OpInfo's test module imports expecttest (a pip package Debian's torch lacks); a stand-in suffices.
_stub = tempfile.mkdtemp(prefix="glia-expecttest-")
with open(os.path.join(_stub, "expecttest.py"), "w") as _f:
    _f.write("import unittest\nTestCase = unittest.TestCase\nACCEPT = False\n")
sys.path.insert(0, _stub)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

assert torch.__version__.startswith("1.13"), torch.__version__

OUT_OF_SCOPE_NS = {"linalg", "special", "fft", "masked", "sparse"}
UNINITIALISED = {"empty", "empty_like", "new_empty", "new_empty_strided"}
# OpInfo entries whose op is a wrapper lambda but which stand for a public name.
WRAPPED = {
    "nn.functional.embedding": {"fn": "torch.nn.functional.embedding", "swap": True},
    "einsum": {"fn": "torch.einsum", "equation_first": True},
    "T": {"attr": "T"},
    "H": {"attr": "H"},
    "mT": {"attr": "mT"},
    "mH": {"attr": "mH"},
}


class Skip(Exception):
    pass


def key_of(o):
    return o.name + ("." + o.variant_test_name if o.variant_test_name else "")


def namespace_of(o):
    if o.name.startswith("nn.functional."):
        return "nn.functional"
    head = o.name.split(".")[0]
    if "." in o.name and head in OUT_OF_SCOPE_NS:
        return head
    if o.op is getattr(torch, o.name, None):
        return "torch"
    if o.method_variant is not None or o.op is getattr(torch.Tensor, o.name, None):
        return "Tensor"
    if o.name in WRAPPED:
        return "nn.functional" if o.name.startswith("nn.") else ("Tensor" if "attr" in WRAPPED[o.name] else "torch")
    return "torch"


def call_of(o, ns):
    if o.name in WRAPPED:
        return WRAPPED[o.name]
    if ns == "nn.functional":
        fname = o.name[len("nn.functional."):]
        if o.op is getattr(F, fname, None):
            return {"fn": "torch.nn.functional." + fname}
        return None
    if ns == "torch":
        return {"fn": "torch." + o.name} if o.op is getattr(torch, o.name, None) else None
    if ns == "Tensor":
        return {"method": o.name}
    return None


# ---------------------------------------------------------------------------
# encoding


def fmt(v, digits):
    if math.isnan(v):
        return {"f": "nan"}
    if math.isinf(v):
        return {"f": "inf" if v > 0 else "-inf"}
    return float("%.*g" % (digits, v))


def enc_tensor(t, digits=None):
    if t.layout != torch.strided:
        raise Skip("tensor with layout %s (sparse: out of scope)" % t.layout)
    if t.is_complex():
        raise Skip("complex tensor (out of scope)")
    if t.dtype.is_quantized if hasattr(t.dtype, "is_quantized") else False:
        raise Skip("quantized tensor (out of scope)")
    dt = str(t.dtype)[len("torch."):]
    flat = t.detach().clone().reshape(-1).tolist()
    if t.is_floating_point():
        if digits is None:
            digits = 9 if t.dtype in (torch.float32, torch.float16, torch.bfloat16) else 17
        flat = [fmt(v, digits) for v in flat]
    d = {"T": dt, "s": list(t.shape), "d": flat}
    return d


def enc(v, digits=None, inputs=False):
    if isinstance(v, torch.Tensor):
        d = enc_tensor(v, None if inputs else digits)
        if inputs and v.requires_grad:
            d["rg"] = True
        return d
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return fmt(v, 17)
    if isinstance(v, complex):
        raise Skip("complex scalar (out of scope)")
    if isinstance(v, torch.Size):
        return {"size": list(v)}
    if isinstance(v, tuple):
        return {"tuple": [enc(x, digits, inputs) for x in v]}
    if isinstance(v, list):
        return [enc(x, digits, inputs) for x in v]
    if isinstance(v, torch.dtype):
        if v.is_complex:
            raise Skip("complex dtype (out of scope)")
        return {"dtype": str(v)[len("torch."):]}
    if isinstance(v, slice):
        return {"slice": [enc(v.start), enc(v.stop), enc(v.step)]}
    if v is Ellipsis:
        return {"ellipsis": True}
    if isinstance(v, torch.memory_format):
        return {"memory_format": str(v)[len("torch."):]}
    if isinstance(v, torch.device):
        return {"device": str(v)}
    if isinstance(v, torch.layout):
        if v != torch.strided:
            raise Skip("layout %s (sparse: out of scope)" % v)
        return {"layout": "strided"}
    if isinstance(v, dict):
        raise Skip("dict argument")
    raise Skip("cannot encode a %s" % type(v).__name__)


def dec(e, dtype, rg_list):
    """Builds torch values from an encoding; float32 tensors become `dtype`."""
    if isinstance(e, list):
        return [dec(x, dtype, rg_list) for x in e]
    if isinstance(e, dict):
        if "T" in e:
            vals = [float(x["f"]) if isinstance(x, dict) else x for x in e["d"]]
            t = torch.tensor(vals, dtype=getattr(torch, e["T"])).reshape(e["s"])
            if e["T"] == "float32":
                t = t.to(dtype)
            if e.get("rg"):
                t.requires_grad_(True)
                rg_list.append(t)
            return t
        if "f" in e:
            return float(e["f"])
        if "tuple" in e:
            return tuple(dec(x, dtype, rg_list) for x in e["tuple"])
        if "size" in e:
            return torch.Size(e["size"])
        if "dtype" in e:
            return getattr(torch, e["dtype"])
        if "slice" in e:
            return slice(*[dec(x, dtype, rg_list) for x in e["slice"]])
        if "ellipsis" in e:
            return Ellipsis
        if "memory_format" in e:
            return getattr(torch, e["memory_format"])
        if "device" in e:
            return torch.device(e["device"])
        if "layout" in e:
            return torch.strided
        raise ValueError(e)
    return e


def tensors_of(v):
    if isinstance(v, torch.Tensor):
        yield v
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from tensors_of(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from tensors_of(x)


def cotangent(o):
    n = o.numel()
    k = torch.arange(n, dtype=torch.float64)
    w = (torch.remainder(7 * k, 11) - 5.5) / 4
    return w.to(o.dtype).reshape(o.shape)


# ---------------------------------------------------------------------------
# running a sample


def resolve(name):
    obj = torch
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def invoke(call, inp, args, kwargs):
    if "method" in call:
        return getattr(inp, call["method"])(*args, **kwargs)
    if "attr" in call:
        return getattr(inp, call["attr"])
    fn = resolve(call["fn"])
    if call.get("swap"):
        return fn(args[0], inp, *args[1:], **kwargs)
    if call.get("equation_first"):
        return fn(args[0], inp)
    return fn(inp, *args, **kwargs)


def run(call, rec, dtype, autograd, nondet, digits):
    rg = []
    inp = dec(rec["input"], dtype, rg)
    args = dec(rec["args"], dtype, rg)
    kwargs = {k: dec(v, dtype, rg) for k, v in rec["kwargs"].items()}
    try:
        out = invoke(call, inp, args, kwargs)
    except Exception as e:  # torch refuses the sample in this dtype: glia must refuse it too
        return {"error": str(e).split("\n")[0][:300]}
    if nondet:
        return {"out": meta_only(out)}
    res = {"out": enc(out, digits)}
    if autograd and rg:
        outs = [o for o in tensors_of(out) if o.is_floating_point() and o.requires_grad]
        if outs:
            loss = sum((o * cotangent(o)).sum() for o in outs)
            try:
                grads = torch.autograd.grad(loss, rg, allow_unused=True)
                res["grads"] = [None if g is None else enc(g, digits) for g in grads]
            except Skip:
                raise
            except Exception as e:  # torch has no gradient here: the replay checks forward only
                res["grads_error"] = str(e).split("\n")[0][:300]
    return res


def meta_only(v):
    if isinstance(v, torch.Tensor):
        return {"T": str(v.dtype)[len("torch."):], "s": list(v.shape), "d": None}
    if isinstance(v, tuple):
        return {"tuple": [meta_only(x) for x in v]}
    if isinstance(v, list):
        return [meta_only(x) for x in v]
    return enc(v)


def meta_only_enc(e):
    """meta_only of an encoded value."""
    if isinstance(e, dict) and "T" in e:
        return {"T": e["T"], "s": e["s"], "d": None}
    if isinstance(e, dict) and "tuple" in e:
        return {"tuple": [meta_only_enc(x) for x in e["tuple"]]}
    if isinstance(e, list):
        return [meta_only_enc(x) for x in e]
    return e


def is_nondeterministic(o, call, sample):
    if o.name in UNINITIALISED:
        return True
    outs = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        try:
            with torch.no_grad():
                outs.append(json.dumps(enc(invoke(call, sample.input, sample.args, sample.kwargs))))
        except Exception:
            return False
    return outs[0] != outs[1]


def max_numel(sample):
    sizes = [t.numel() for t in tensors_of([sample.input, sample.args, sample.kwargs])]
    return max(sizes) if sizes else 0


def crop_unary(o, s):
    """A unary elementwise op's only sample is often 20x20: its first rows suffice."""
    from torch.testing._internal.opinfo.core import SampleInput, UnaryUfuncInfo
    t = s.input
    if (not isinstance(o, UnaryUfuncInfo) or not isinstance(t, torch.Tensor) or t.dim() < 1 or t.numel() <= MAX_NUMEL
            or any(True for _ in tensors_of([s.args, s.kwargs]))):
        return s
    rows = max(1, MAX_NUMEL // max(1, t[0].numel()))
    if t[:rows].numel() > MAX_NUMEL:
        return s
    x = t.detach()[:rows].clone().requires_grad_(t.requires_grad)
    return SampleInput(x, args=s.args, kwargs=s.kwargs)


def candidates(o):
    seed = zlib.crc32(key_of(o).encode())
    torch.manual_seed(seed)
    random.seed(seed)  # some sample functions draw keyword arguments from Python's and numpy's generators
    numpy.random.seed(seed)
    cands = []
    try:
        for s in o.sample_inputs("cpu", torch.float32, requires_grad=o.supports_autograd):
            cands.append(crop_unary(o, s))
            if len(cands) >= MAX_CANDIDATES:
                break
    except Exception as e:
        raise Skip("OpInfo's sample_inputs failed: %s" % e)
    return cands


def record(o, call, i, s, nondet):
    rec = {"sample": i}
    try:
        rec["input"] = enc(s.input, inputs=True)
        rec["args"] = enc(list(s.args), inputs=True)
        rec["kwargs"] = {k: enc(v, inputs=True) for k, v in s.kwargs.items()}
        for dtype, digits in ((torch.float32, 9), (torch.float64, 13)):
            res = run(call, rec, dtype, o.supports_autograd, nondet, digits)
            again = run(call, rec, dtype, o.supports_autograd, nondet, digits)
            if res != again:  # torch itself is not deterministic here (a backward leaving memory unset)
                if res.get("out") != again.get("out"):
                    res = {"out": meta_only_enc(res["out"])}
                else:
                    res.pop("grads", None)
                    res["grads_error"] = "torch's gradient differs between two runs (not deterministic)"
            rec[str(dtype)[len("torch."):]] = res
    except Skip as e:
        rec = {"sample": i, "skip": str(e)}
    except Exception as e:  # noqa: B902  (anything else torch raises while encoding)
        rec = {"sample": i, "skip": "generator: %s" % str(e).split("\n")[0][:200]}
    return rec


def gen_entry(o, ns, call):
    """The first MAX_SAMPLES samples whose tensors hold at most MAX_NUMEL elements and whose line is at most
    LINE_CAP bytes; failing that, the one of the smallest line among the FALLBACK candidates smallest samples."""
    header = {"op": key_of(o), "name": o.name, "variant": o.variant_test_name, "namespace": ns, "call": call,
              "autograd": bool(o.supports_autograd)}
    if ns == "torch" and o.method_variant is not None and "fn" in call and not call.get("swap") \
            and not call.get("equation_first"):
        header["method_variant"] = o.name  # OpInfo's variant test: input.name(*args, **kwargs), the same values
    cands = candidates(o)
    small = [(i, s) for i, s in enumerate(cands) if max_numel(s) <= MAX_NUMEL]
    nondet = any(is_nondeterministic(o, call, s) for _, s in (small or list(enumerate(cands)))[:2])
    if nondet:
        header["nondeterministic"] = True
    lines, tried = [], []
    for i, s in small:
        rec = record(o, call, i, s, nondet)
        n = len(dump_line(rec))
        tried.append((n, rec))
        if n <= LINE_CAP:
            lines.append(rec)
            if len(lines) == MAX_SAMPLES:
                break
    if not lines:
        rest = sorted((p for p in enumerate(cands) if max_numel(p[1]) > MAX_NUMEL), key=lambda p: max_numel(p[1]))
        for i, s in rest[:FALLBACK]:
            rec = record(o, call, i, s, nondet)
            tried.append((len(dump_line(rec)), rec))
        if tried:
            n, rec = min(tried, key=lambda p: p[0])
            if n > FALLBACK_LINE_CAP:
                rec = {"sample": rec["sample"],
                       "skip": "the smallest sample's line is %d bytes, over the fixture cap" % n}
            lines.append(rec)
    header["samples"] = len(lines)
    header["candidates"] = len(cands)
    return header, lines


def scope_of(o):
    ns = namespace_of(o)
    if ns in OUT_OF_SCOPE_NS:
        return ns, None, "namespace torch.%s (out of scope)" % ns
    if torch.float32 not in o.supported_dtypes("cpu"):
        return ns, None, "no float32 CPU samples"
    call = call_of(o, ns)
    if call is None:
        return ns, None, "OpInfo calls it through a wrapper, not a public name"
    return ns, call, None


# ---------------------------------------------------------------------------
# torch 1.13's public names


def public_names():
    import inspect
    import torch.nn as nn
    import torch.optim as optim
    import torch.optim.lr_scheduler as sched
    import torch.nn.utils.prune  # noqa: F401  (not imported by torch.nn.utils itself)

    def routines(mod, exclude=()):
        out = []
        for n in dir(mod):
            if n.startswith("_"):
                continue
            v = getattr(mod, n)
            if not (inspect.isroutine(v)):
                continue
            m = getattr(v, "__module__", None) or ""
            if m in exclude:
                continue
            out.append(n)
        return sorted(out)

    def defined_in(mod):  # the public functions and classes a module defines (or its __all__)
        if hasattr(mod, "__all__"):
            return list(mod.__all__)
        return [n for n in dir(mod) if not n.startswith("_") and (inspect.isroutine(getattr(mod, n))
                or inspect.isclass(getattr(mod, n))) and getattr(getattr(mod, n), "__module__", "") == mod.__name__]

    tensor = sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    return {
        "torch": routines(torch),
        "torch.Tensor": tensor,
        "torch.nn": sorted(n for n in dir(nn) if inspect.isclass(getattr(nn, n))
                           and issubclass(getattr(nn, n), nn.Module) and not n.startswith("_")),
        "torch.nn.functional": routines(F, exclude=("torch.overrides", "torch._jit_internal", "torch._C", "typing")),
        "torch.nn.init": [n for n in routines(nn.init) if getattr(nn.init, n).__module__ == "torch.nn.init"],
        "torch.optim": sorted(n for n in dir(optim) if inspect.isclass(getattr(optim, n))
                              and issubclass(getattr(optim, n), optim.Optimizer) and not n.startswith("_")),
        "torch.optim.lr_scheduler": sorted(
            n for n in dir(sched) if inspect.isclass(getattr(sched, n)) and not n.startswith("_")
            and getattr(getattr(sched, n), "__module__", "") == "torch.optim.lr_scheduler"),
        "torch.special": routines(torch.special),  # for the out-of-scope list
        # torch.nn.utils' functions and its submodules' public names ("prune.l1_unstructured")
        "torch.nn.utils": sorted(routines(nn.utils) + [
            sub + "." + n for sub in ("parametrize", "parametrizations", "prune", "stateless", "fusion")
            for n in defined_in(getattr(nn.utils, sub))]),
    }


def dump_line(obj):
    return json.dumps(obj, separators=(",", ":"), sort_keys=False)


def main(only):
    os.makedirs(OUT, exist_ok=True)
    torch.set_num_threads(1)
    index = []
    for o in op_db:
        key = key_of(o)
        ns, call, why = scope_of(o)
        entry = {"op": key, "namespace": ns}
        if why:
            entry["out"] = why
        index.append(entry)
        if why or (only and key not in only):
            continue
        try:
            header, lines = gen_entry(o, ns, call)
        except Skip as e:  # no sample at all: an empty fixture that says why
            header = {"op": key, "name": o.name, "variant": o.variant_test_name, "namespace": ns, "call": call,
                      "autograd": bool(o.supports_autograd), "samples": 1, "candidates": 0}
            lines = [{"sample": 0, "skip": str(e)}]
        with open(os.path.join(OUT, key + ".jsonl"), "w") as f:
            f.write(dump_line(header) + "\n")
            for rec in lines:
                f.write(dump_line(rec) + "\n")
        print("%-50s %d samples" % (key, len(lines)))
    with open(os.path.join(OUT, "index.json"), "w") as f:
        f.write("[\n" + ",\n".join(dump_line(e) for e in index) + "\n]\n")
    with open(os.path.join(OUT, "names.json"), "w") as f:
        json.dump(public_names(), f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(set(sys.argv[1:]))
