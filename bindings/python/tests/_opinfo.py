"""Replays torch 1.13's OpInfo samples (tests/golden/opinfo, written by tests/golden/gen_opinfo.py) on glia.

Each in-scope OpInfo entry is called through glia's Python binding under torch's name (torch.sin ->
glia.sin, Tensor.sin -> glia.Tensor.sin, torch.nn.functional.relu -> glia.nn.functional.relu), every
recorded sample in float32 and float64, forward and, where torch recorded gradients, backward with the
generator's cotangent; a torch function with a Tensor method variant in OpInfo is called both ways
(codes method.float32, method.float64 for the method). Each (entry, sample, dtype) gets one status letter:

    .  passes (forward and gradients within torch's default tolerances)
    M  missing op: glia has no such name
    K  missing keyword or signature: glia's function refuses the call's arguments (TypeError)
    E  error: glia raises where torch computes
    R  wrong result: forward value, dtype or shape differs, or glia computes where torch raises
    G  wrong gradient: the gradient differs or backward fails
    S  skipped: the fixture holds no value to compare (complex, sparse, unencodable arguments)

Used by test_opinfo.py (regressions against tests/golden/opinfo/expected.txt) and scripts/coverage.py.
"""

import json
import math
import os

import numpy as np

import glia
from _repo import ROOT

FIXTURES = os.path.join(ROOT, "tests", "golden", "opinfo")
EXPECTED = os.path.join(FIXTURES, "expected.txt")
DTYPES = ("float32", "float64")
METHOD = "method."  # prefix of the method variant's keys (method.float32, method.float64)
CODES = {".": "pass", "M": "missing op", "K": "missing keyword or signature", "E": "error raised",
         "R": "wrong result", "G": "wrong gradient", "S": "skipped in the fixture"}
# torch.testing.assert_close's defaults (rtol, atol) per dtype.
TOL = {"float64": (1e-7, 1e-7), "float32": (1.3e-6, 1e-5), "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5)}


class Failure(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def fixture_keys():
    return sorted(f[:-len(".jsonl")] for f in os.listdir(FIXTURES) if f.endswith(".jsonl"))


def load(key):
    with open(os.path.join(FIXTURES, key + ".jsonl")) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return lines[0], lines[1:]


# ---------------------------------------------------------------------------
# calling glia


def resolve(call):
    """glia's callable for the header's call, or Failure('M')."""
    if "method" in call or "attr" in call:
        name = call.get("method") or call.get("attr")
        if not hasattr(glia.Tensor, name):
            raise Failure("M", "glia.Tensor has no %s" % name)
        return None
    parts = call["fn"].split(".")[1:]
    obj, path = glia, "glia"
    for p in parts:
        if not hasattr(obj, p):
            raise Failure("M", "%s has no %s" % (path, p))
        obj, path = getattr(obj, p), path + "." + p
    return obj


def glia_name(call):
    if "method" in call or "attr" in call:
        return "glia.Tensor." + (call.get("method") or call.get("attr"))
    return "glia." + call["fn"][len("torch."):]


def invoke(call, fn, inp, args, kwargs):
    if "method" in call:
        return getattr(inp, call["method"])(*args, **kwargs)
    if "attr" in call:
        return getattr(inp, call["attr"])
    if call.get("swap"):
        return fn(args[0], inp, *args[1:], **kwargs)
    if call.get("equation_first"):
        return fn(args[0], inp)
    return fn(inp, *args, **kwargs)


def _np_dtype(name):
    return {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
            "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}.get(name)


def _glia_dtype(name):
    d = getattr(glia, name, None)
    if not isinstance(d, glia.dtype):
        raise Failure("K", "glia has no dtype %s" % name)
    return d


def _num(x):
    return float(x["f"]) if isinstance(x, dict) else x


def decode(e, dtype, rg):
    """glia values for an encoding (tests/golden/gen_opinfo.py); float32 tensors become `dtype`."""
    if isinstance(e, list):
        return [decode(x, dtype, rg) for x in e]
    if not isinstance(e, dict):
        return e
    if "T" in e:
        name = dtype if e["T"] == "float32" else e["T"]
        npd = _np_dtype(e["T"])
        if npd is None:
            raise Failure("K", "no numpy dtype for %s" % e["T"])
        arr = np.array([_num(x) for x in e["d"]], dtype=npd).reshape(e["s"])
        if name == "bfloat16":
            t = glia.tensor(arr.astype(np.float32)).to(_glia_dtype("bfloat16"))
        else:
            t = glia.tensor(arr.astype(_np_dtype(name)) if _np_dtype(name) else arr)
        if e.get("rg"):
            t.requires_grad_(True)
            rg.append(t)
        return t
    if "f" in e:
        return float(e["f"])
    if "tuple" in e:
        return tuple(decode(x, dtype, rg) for x in e["tuple"])
    if "size" in e:
        return glia.Size(e["size"])
    if "dtype" in e:
        return _glia_dtype(e["dtype"])
    if "slice" in e:
        return slice(*[decode(x, dtype, rg) for x in e["slice"]])
    if "ellipsis" in e:
        return Ellipsis
    if "memory_format" in e:
        fmt = getattr(glia, e["memory_format"], None)
        if fmt is None:
            raise Failure("K", "glia has no memory format %s" % e["memory_format"])
        return fmt
    if "device" in e:
        return glia.device(e["device"])
    if "layout" in e:
        layout = getattr(glia, "strided", None)
        if layout is None:
            raise Failure("K", "glia has no layout strided")
        return layout
    raise ValueError("unknown encoding %r" % (e,))


# ---------------------------------------------------------------------------
# comparing


def _tensors(v):
    if isinstance(v, glia.Tensor):
        yield v
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from _tensors(x)


def compare(got, want, code, where="out", alt=None):
    """Raises Failure(code) where `got` (glia) differs from the encoded `want` (torch). `alt`, the same value
    computed by torch in float64, is a second reference for floating values: a float32 result may round
    differently from torch's (another summation order) and be as close to the exact value."""
    if isinstance(want, dict) and "T" in want:
        if not isinstance(got, glia.Tensor):
            raise Failure(code, "%s: expected a tensor, got %s" % (where, type(got).__name__))
        gd = str(got.dtype).replace("torch.", "")
        if gd != want["T"]:
            raise Failure(code, "%s: dtype %s, torch gives %s" % (where, gd, want["T"]))
        if list(got.shape) != list(want["s"]):
            raise Failure(code, "%s: shape %s, torch gives %s" % (where, list(got.shape), want["s"]))
        if want["d"] is None:  # nondeterministic op: dtype and shape only
            return
        g = got.detach()
        if want["T"] == "bfloat16":
            g = g.float()
        g = np.asarray(g.contiguous().tolist() if g.dim() == 0 else g.contiguous().tolist(),
                       dtype=np.float64 if want["T"] in TOL else None).reshape(-1)
        w = np.array([_num(x) for x in want["d"]], dtype=np.float64 if want["T"] in TOL else None)
        if want["T"] in TOL:
            rtol, atol = TOL[want["T"]]
            ok = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
            if not ok.all() and isinstance(alt, dict) and alt.get("d") is not None and len(alt["d"]) == w.size:
                a = np.array([_num(x) for x in alt["d"]], dtype=np.float64)
                ok |= np.isclose(g, a, rtol=rtol, atol=atol, equal_nan=True)
            if not ok.all():
                i = int(np.argmin(ok))
                raise Failure(code, "%s: %d of %d elements differ, e.g. [%d] %r vs torch %r (rtol %g, atol %g)"
                              % (where, int((~ok).sum()), ok.size, i, g[i], w[i], rtol, atol))
        elif not np.array_equal(g.astype(w.dtype) if w.size else g, w):
            raise Failure(code, "%s: values differ from torch's" % where)
        return
    if isinstance(want, dict) and "tuple" in want or isinstance(want, list):
        items = want["tuple"] if isinstance(want, dict) else want
        kind = list if isinstance(want, list) else tuple
        if isinstance(got, glia.Tensor) or not isinstance(got, kind):
            raise Failure(code, "%s: expected a %s of %d, got %s" % (where, kind.__name__, len(items),
                                                                   type(got).__name__))
        if len(got) != len(items):
            raise Failure(code, "%s: %d items, torch gives %d" % (where, len(got), len(items)))
        alts = (alt.get("tuple") if isinstance(alt, dict) else alt) if alt is not None else None
        if not isinstance(alts, list) or len(alts) != len(items):
            alts = [None] * len(items)
        for i, (g, w, a) in enumerate(zip(got, items, alts)):
            compare(g, w, code, "%s[%d]" % (where, i), a)
        return
    if isinstance(want, dict) and "size" in want:
        if not isinstance(got, tuple) or list(got) != want["size"]:
            raise Failure(code, "%s: %r, torch gives torch.Size(%r)" % (where, got, want["size"]))
        return
    if isinstance(want, dict) and "dtype" in want:
        if str(got).replace("torch.", "") != want["dtype"]:
            raise Failure(code, "%s: %r, torch gives torch.%s" % (where, got, want["dtype"]))
        return
    if isinstance(got, glia.Tensor):
        raise Failure(code, "%s: a tensor, torch gives the Python %s %r" % (where, type(want).__name__, want))
    w = _num(want) if isinstance(want, dict) else want
    if isinstance(w, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        if not (math.isclose(got, w, rel_tol=1.3e-6, abs_tol=1e-5) or (math.isnan(got) and math.isnan(w))):
            raise Failure(code, "%s: %r, torch gives %r" % (where, got, w))
        return
    if got != w or type(got) is not type(w):
        raise Failure(code, "%s: %r, torch gives %r" % (where, got, w))


def cotangent(o):
    n = o.numel()
    w = (np.remainder(7 * np.arange(n, dtype=np.float64), 11) - 5.5) / 4
    return glia.tensor(w.reshape(list(o.shape))).to(o.dtype)


# ---------------------------------------------------------------------------
# one sample


def run_sample(call, fn, rec, dtype):
    """Replays one sample in one dtype; returns (code, message)."""
    if "skip" in rec:
        return "S", rec["skip"]
    want = rec[dtype]
    try:
        rg = []
        inp = decode(rec["input"], dtype, rg)
        args = decode(rec["args"], dtype, rg)
        kwargs = {k: decode(v, dtype, rg) for k, v in rec["kwargs"].items()}
    except Failure as f:
        return f.code, str(f)
    try:
        out = invoke(call, fn, inp, args, kwargs)
    except TypeError as e:
        if "error" in want:
            return ".", ""
        return "K", "TypeError: %s" % e
    except Exception as e:  # noqa: B902  (glia's error, whatever its class)
        if "error" in want:
            return ".", ""
        return "E", "%s: %s" % (type(e).__name__, str(e).split("\n")[0])
    if "error" in want:
        return "R", "glia computes where torch raises: %s" % want["error"]
    alt = rec.get("float64") if dtype == "float32" else None
    try:
        compare(out, want["out"], "R", alt=alt.get("out") if alt else None)
    except Failure as f:
        return f.code, str(f)
    if "grads" not in want:
        return ".", ""
    try:
        outs = [o for o in _tensors(out) if o.is_floating_point() and o.requires_grad]
        if not outs:
            raise Failure("G", "no output requires grad; torch's does")
        loss = None
        for o in outs:
            term = (o * cotangent(o)).sum()
            loss = term if loss is None else loss + term
        grads = glia.autograd.grad([loss], rg, allow_unused=True)
        alt_grads = alt.get("grads") if alt else None
        if not isinstance(alt_grads, list) or len(alt_grads) != len(want["grads"]):
            alt_grads = [None] * len(want["grads"])
        for i, (g, w, a) in enumerate(zip(grads, want["grads"], alt_grads)):
            if w is None:
                continue  # torch's is None: glia may give zeros or None
            if g is None:
                raise Failure("G", "grad[%d]: None, torch gives a tensor" % i)
            compare(g, w, "G", "grad[%d]" % i, a)
    except Failure as f:
        return f.code, str(f)
    except Exception as e:  # noqa: B902
        return "G", "backward: %s: %s" % (type(e).__name__, str(e).split("\n")[0])
    return ".", ""


def variants(header):
    """(key prefix, call) for the function form and, where OpInfo has one, the Tensor method form."""
    out = [("", header["call"])]
    if header.get("method_variant"):
        out.append((METHOD, {"method": header["method_variant"]}))
    return out


def code_keys(header):
    return [p + d for p, _ in variants(header) for d in DTYPES]


def run_entry(key):
    """{"op", "glia", "namespace", "codes": {key: "..."}, "messages": [(sample, key, code, msg)]}: key is the
    dtype, or method.<dtype> for the method variant."""
    header, recs = load(key)
    res = {"op": key, "glia": glia_name(header["call"]), "namespace": header["namespace"],
           "codes": {}, "messages": []}
    if header.get("method_variant"):
        res["glia_method"] = "glia.Tensor." + header["method_variant"]
    for prefix, call in variants(header):
        fn, missing = None, None
        try:
            fn = resolve(call)
        except Failure as f:
            missing = f
        for dtype in DTYPES:
            codes = ""
            for rec in recs:
                if missing is not None and "skip" not in rec:
                    code, msg = "M", str(missing)
                else:
                    code, msg = run_sample(call, fn, rec, dtype)
                codes += code
                if code != ".":
                    res["messages"].append((rec["sample"], prefix + dtype, code, msg))
            res["codes"][prefix + dtype] = codes
    return res


def run_all(keys=None):
    return [run_entry(k) for k in (keys or fixture_keys())]


# ---------------------------------------------------------------------------
# the expectation file


def read_expected(path=EXPECTED):
    """{op: {key: codes}} from expected.txt (op, then key=codes fields: the dtypes, method.<dtype>)."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split()
            out[fields[0]] = dict(x.split("=", 1) for x in fields[1:])
    return out


def write_expected(results, path=EXPECTED):
    legend = "\n".join("#   %s  %s" % (c, w) for c, w in CODES.items())
    with open(path, "w") as f:
        f.write("# The OpInfo replay's status of every sample (bindings/python/tests/test_opinfo.py): one line per\n"
                "# OpInfo entry, then dtype=codes with one letter per sample of its fixture, in order, for the\n"
                "# function (float32=, float64=) and, where OpInfo has one, the Tensor method (method.float32=...).\n"
                "# A '.' here must stay a '.': test_opinfo fails when a listed pass stops passing.\n"
                "# Regenerate with `python3 scripts/coverage.py --update` when coverage grows.\n" + legend + "\n")
        for r in sorted(results, key=lambda r: r["op"]):
            f.write("%s %s\n" % (r["op"], " ".join("%s=%s" % kv for kv in r["codes"].items())))


def regressions(results, expected):
    """Samples expected to pass ('.') that do not pass now."""
    out = []
    for r in results:
        exp = expected.get(r["op"], {})
        msgs = {(s, d): (c, m) for s, d, c, m in r["messages"]}
        _, recs = load(r["op"])
        for d in r["codes"]:
            want, got = exp.get(d, ""), r["codes"][d]
            for i, w in enumerate(want):
                if w == "." and (i >= len(got) or got[i] != "."):
                    sample = recs[i]["sample"] if i < len(recs) else i
                    c, m = msgs.get((sample, d), ("?", "sample no longer in the fixture"))
                    out.append("%s sample %s %s: %s (%s)" % (r["op"], sample, d, CODES.get(c, c), m))
    return out


def write_results(results, path):
    with open(path, "w") as f:
        json.dump(results, f, indent=0)
        f.write("\n")
