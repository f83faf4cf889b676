#!/usr/bin/python3
"""Writes the golden fixtures of tests/core: print.json, convert.json and promotion.json.

Run with a Python that has torch 1.13 (on the dev machine /usr/bin/python3):
    /usr/bin/python3 tests/golden/gen_core.py
The output is committed; CI has no torch.

print.json: a list of {dtype, shape, strides, offset, storage, suffix, repr}.
The tensor is storage.as_strided(shape, strides, offset); storage holds its
values in order (floats as JSON numbers with the exact double value of the
element, non-finite ones as "nan", "inf", "-inf"). suffix is what glia's
to_string receives for a tensor with requires_grad / grad_fn set, and repr is
Python's repr of the torch tensor.

convert.json: a list of {from, to, inputs, outputs}, outputs[i] being
torch.tensor(inputs).to(to)[i]. Floating values are raw bit patterns as
unsigned integers (float64 64-bit, float32 32-bit, float16/bfloat16 16-bit) so
that comparisons are exact; a NaN output is the string "nan" because torch's
own NaN bits depend on the kernel path (the generator prints where they do).
Integers are JSON integers and bools JSON booleans. Float inputs outside the target integer
range, and NaN/inf into integers, are left out: torch leaves them undefined.

promotion.json: rows {a, b, promote, zero_dim} for every pair of dtypes
(torch.promote_types(a, b); torch.result_type of a 1-D `a` tensor and a 0-dim
`b` tensor) and rows {a, scalar, result[, zero_dim_a]} (torch.result_type of
an `a` tensor, 1-D or 0-dim, and a Python bool, int 3 or float 1.5).
"""

import json
import math
import os

import torch

from golden import DTYPES, encode

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "core")

FLOATING = {"float32", "float64", "float16", "bfloat16"}
NAN, INF = float("nan"), float("inf")


# ---------------------------------------------------------------- print.json

def print_case(values, dtype, shape=None, *, view=None, requires_grad=False, grad_fn=False):
    """values: flat storage (list or 1-D tensor); view: None (contiguous of
    `shape`), "transpose" (swap the last two dims of the contiguous `shape`
    tensor), or (shape, strides, offset) over the storage."""
    dt = DTYPES[dtype]
    storage = torch.as_tensor(values, dtype=torch.float64 if dtype in FLOATING else None).to(dt).reshape(-1)
    if view is None or view == "transpose":
        shape = list(shape if shape is not None else [storage.numel()])
        t = storage.reshape(shape)
        if view == "transpose":
            t = t.transpose(-1, -2)
    else:
        vshape, vstrides, voffset = view
        t = storage.as_strided(vshape, vstrides, voffset)
    suffix = ""
    if grad_fn:
        t = t.detach().requires_grad_() * 1
        storage = t.detach().reshape(-1)
        suffix = ", grad_fn=<MulBackward0>"
    elif requires_grad:
        t = t.detach().requires_grad_()
        suffix = ", requires_grad=True"
    return {
        "dtype": dtype,
        "shape": list(t.shape),
        "strides": list(t.stride()),
        "offset": t.storage_offset(),
        "storage": [encode(v) for v in storage.tolist()],
        "suffix": suffix,
        "repr": repr(t),
    }


def print_cases():
    c = []
    # 0-dim scalars of every dtype.
    for v in [3.5, 2.0, 0.0, -0.0, NAN, INF, -INF, 1e-5, 1e10, 0.1, -123.456, 1e8, 123456789.0]:
        c.append(print_case([v], "float32", []))
    for v in [2.0, 1.0 / 3, -1e-300, 1e300]:
        c.append(print_case([v], "float64", []))
    for dt in ["float16", "bfloat16"]:
        for v in [0.1, 2.0, -65504.0, 6e-8, NAN]:
            c.append(print_case([v], dt, []))
    c.append(print_case([-7], "int64", []))
    c.append(print_case([-2**63], "int64", []))
    c.append(print_case([2**31 - 1], "int32", []))
    c.append(print_case([255], "uint8", []))
    c.append(print_case([True], "bool", []))
    c.append(print_case([False], "bool", []))
    # 0-dim view into the middle of a storage.
    c.append(print_case([1.25, 2.5, 3.75], "float32", view=([], [], 2)))

    # 1-D vectors: fixed, int mode, scientific notation, special values.
    vectors = [
        [1.5, -2.25, 3.0],
        [1.0, 2.0, 3.0],
        [0.0, 1.5],
        [0.0, 0.0],
        [-0.0, 0.0],
        [-0.0, 1.0],
        [NAN, INF, -INF, 1.0],
        [NAN, 1.5],
        [NAN, NAN],
        [INF, -INF],
        [1.0, NAN, INF, -2.0],
        [1.0, 1e9],
        [1.0, 1e8],
        [1.0, 1000.0],
        [1.0, 1001.0],
        [100.0, 5000.0],
        [123456789.0],
        [1e-5, 1.0],
        [1e-5, 1e8],
        [-1e-5, 1e3],
        [1e-5, NAN, 1.0],
        [0.0, 1e-5, 1.0],
        [0.001, 1.0],
        [0.001, 1.0001],
        [1e-4, 0.5],
        [0.00049, 1.0, -0.00049],
        [0.00005, 0.5],
        [0.12345, 1.00005, -2.50005],
        [12345.678, 100.5],
        [123456.789, 0.5],
        [1e8, 0.5],
        [99999999.5, 2.25],
        [0.1, 0.2, 0.3],
        [-1.0, -2.5, -0.125],
    ]
    for v in vectors:
        c.append(print_case(v, "float32"))
    for v in [[1.0 / 3, 2.0 / 3], [1e-300, 1.0], [1e300, 1.0, -1e-300], [2.0**60, 1.0], [0.1, 0.7, 1e-9]]:
        c.append(print_case(v, "float64"))
    for dt in ["float16", "bfloat16"]:
        c.append(print_case([0.1, 65504.0 if dt == "float16" else 3.0e38, -2.5], dt))
        c.append(print_case([6e-8, 1.0], dt))
        c.append(print_case([1.0, 2.0, NAN, -INF], dt))
        c.append(print_case([0.333, 0.667, 1.001], dt))
    c.append(print_case([0, -5, 123456, 7], "int64"))
    c.append(print_case([-2**63, 2**63 - 1], "int64"))
    c.append(print_case([0, -5, 2**31 - 1], "int32"))
    c.append(print_case([0, 7, 255], "uint8"))
    c.append(print_case([True, False, True], "bool"))
    c.append(print_case([False], "bool"))

    # Rows that wrap at 80 columns.
    c.append(print_case([i * 1.5 - 20 for i in range(30)], "float32"))
    c.append(print_case(list(range(100)), "int64"))
    c.append(print_case([(i * 37 % 101) - 50.125 for i in range(25)], "float64"))
    c.append(print_case([i % 2 == 0 for i in range(30)], "bool"))
    c.append(print_case([i * 1e-6 for i in range(1, 20)], "float32"))
    c.append(print_case([(i * 7919) % 1000 * 0.01 for i in range(90)], "float32", [3, 30]))
    c.append(print_case([(i * 7919) % 1000 for i in range(60)], "int32", [2, 3, 10]))

    # 2-D, 3-D, 4-D.
    c.append(print_case([i * 0.5 - 2 for i in range(12)], "float32", [3, 4]))
    c.append(print_case(list(range(6)), "int64", [2, 3]))
    c.append(print_case([i * 0.25 for i in range(24)], "float64", [2, 3, 4]))
    c.append(print_case(list(range(16)), "uint8", [2, 2, 2, 2]))
    c.append(print_case([1.0], "float32", [1, 1, 1]))
    c.append(print_case([i % 3 == 0 for i in range(12)], "bool", [3, 4]))
    c.append(print_case([i - 5.5 for i in range(12)], "float16", [4, 3]))
    c.append(print_case([i * 1e5 + 0.5 for i in range(6)], "bfloat16", [2, 3]))
    torch.manual_seed(0)
    c.append(print_case(torch.randn(35, dtype=torch.float64).float().double(), "float32", [5, 7]))

    # Non-contiguous: transposed, sliced with a step and an offset, broadcast (stride 0).
    c.append(print_case([i * 0.5 - 2 for i in range(12)], "float32", [3, 4], view="transpose"))
    c.append(print_case(list(range(24)), "int32", [2, 3, 4], view="transpose"))
    c.append(print_case([i * 1.25 for i in range(20)], "float64", view=([3, 3], [6, 2], 1)))
    c.append(print_case([1.5, -2.0, 7.25], "float32", view=([4, 3], [0, 1], 0)))
    c.append(print_case(list(range(10)), "int64", view=([5], [2], 1)))
    c.append(print_case([i * 0.1 for i in range(6)], "bfloat16", [2, 3], view="transpose"))

    # Empty tensors.
    for dt in DTYPES:
        c.append(print_case([], dt, [0]))
    c.append(print_case([], "float32", [0, 3]))
    c.append(print_case([], "int64", [0, 3]))
    c.append(print_case([], "float64", [2, 0, 4]))
    c.append(print_case([], "bool", [3, 0]))

    # Summarisation (numel > 1000): the formatter sees only the edge items.
    c.append(print_case(list(range(2000)), "int64"))
    c.append(print_case([i * 0.5 for i in range(2000)], "float32"))
    c.append(print_case([1e-7 if i == 1000 else i * 0.5 + 1 for i in range(2000)], "float32"))
    c.append(print_case(list(range(1001)), "int32"))
    c.append(print_case([i % 251 for i in range(1000)], "int64"))
    c.append(print_case([i * 0.25 - 200 for i in range(1600)], "float32", [40, 40]))
    c.append(print_case([i % 10 for i in range(8000)], "int32", [20, 20, 20]))
    # Overlapping rows keep the storage small.
    c.append(print_case([(i % 97) / 8 - 3 for i in range(1237)], "float32", view=([20, 20, 20], [60, 3, 1], 0)))
    c.append(print_case([i * 1.0 for i in range(1200)], "float64", [2, 600]))
    c.append(print_case([i * 1.0 for i in range(1200)], "float16", [1200, 1]))
    c.append(print_case([i % 2 == 1 for i in range(1080)], "bool", [3, 3, 120]))
    c.append(print_case(list(range(1600)), "int64", [40, 40], view="transpose"))
    c.append(print_case([(i % 64) * 0.125 for i in range(2000)], "bfloat16", [1, 2000]))

    # requires_grad / grad_fn suffixes, including ones that wrap onto a new line.
    c.append(print_case([1.5, -2.25, 3.0], "float32", requires_grad=True))
    c.append(print_case([1.5, -2.25, 3.0], "float64", requires_grad=True))
    c.append(print_case([2.0], "float32", [], requires_grad=True))
    c.append(print_case([], "float32", [0], requires_grad=True))
    c.append(print_case([], "float16", [2, 0], requires_grad=True))
    c.append(print_case([i * 0.5 for i in range(8)], "float32", requires_grad=True))
    c.append(print_case([i * 0.5 for i in range(9)], "float32", requires_grad=True))
    c.append(print_case([i * 0.5 for i in range(9)], "float64", requires_grad=True))
    c.append(print_case([i * 1.5 for i in range(12)], "float32", [3, 4], requires_grad=True))
    c.append(print_case([i * 1.5 for i in range(30)], "float16", requires_grad=True))
    c.append(print_case([1.5, -2.25, 3.0], "float32", grad_fn=True))
    c.append(print_case([i * 0.25 for i in range(10)], "float64", grad_fn=True))

    # int8 and int16 (@since 0.2): 0-dim, vectors with the extremes, wrapping rows, views, summarised.
    c.append(print_case([-128], "int8", []))
    c.append(print_case([32767], "int16", []))
    c.append(print_case([0, -5, 127, -128], "int8"))
    c.append(print_case([0, -5, 32767, -32768], "int16"))
    c.append(print_case([i - 64 for i in range(128)], "int8"))
    c.append(print_case([(i * 7919) % 60000 - 30000 for i in range(60)], "int16", [2, 3, 10]))
    c.append(print_case(list(range(24)), "int8", [2, 3, 4], view="transpose"))
    c.append(print_case(list(range(-10, 10)), "int16", view=([5], [3], 2)))
    c.append(print_case([i % 256 - 128 for i in range(2000)], "int8"))
    c.append(print_case([i * 33 - 32768 for i in range(1600)], "int16", [40, 40]))
    return c


# -------------------------------------------------------------- convert.json

def bits(t, name):
    """Raw bit patterns of a floating tensor as unsigned ints."""
    if name == "float64":
        return [v & (2**64 - 1) for v in t.view(torch.int64).tolist()]
    if name == "float32":
        return [v & (2**32 - 1) for v in t.view(torch.int32).tolist()]
    return [v & 0xFFFF for v in t.view(torch.int16).tolist()]


def conversion_inputs():
    """Per source dtype: a tensor of interesting values."""
    f32 = [
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.7, -1.7, 2.5, -2.5, 0.1, 3.14159, -3.999,
        NAN, -NAN, INF, -INF,
        255.0, 255.9, 256.0, 300.0, -300.5, 1e10, -1e10,
        65504.0, 65519.0, 65519.99, 65520.0, 65536.0, 1e5, -65520.0,
        2.0**-24, 2.0**-25, 1.5 * 2.0**-24, 2.5 * 2.0**-24, 2.0**-26, 3 * 2.0**-26, 2.0**-14, 2.0**-14 - 2.0**-24,
        6e-8, 1e-8, 1e-45, -1e-45, 1e-40, 1.1754942e-38,
        1 + 2.0**-11, 1 + 3 * 2.0**-11, 1 + 2.0**-11 + 2.0**-20, 2049.0, 2051.0,
        1 + 2.0**-8, 1 + 3 * 2.0**-8, 1 + 2.0**-8 + 2.0**-20, 3.3895314e38, 3.3961776e38, 3.4028235e38,
        2147483520.0, -2147483648.0, 2147483648.0, 9.2233715e18, -9.223372e18, 16777217.0,
    ]
    f64 = f32 + [
        1 + 2.0**-11 + 2.0**-40, 1 + 2.0**-8 + 2.0**-40, 1 + 2.0**-24, 1 + 3 * 2.0**-24, 1 + 2.0**-24 + 2.0**-50,
        3.4028235677973366e38, 3.4028235677973362e38, 1e300, -1e300, 7e-46, 7.1e-46, 2.0**-149, 2.0**-150,
        2147483647.9, -2147483648.9, 2147483648.0, 4294967296.0 + 5, 9.2233720368547748e18, -9.223372036854775808e18,
        1.0 / 3, 0.1, 2.0**53 + 2,
    ]
    i64 = [0, 1, -1, 2, 127, 128, 255, 256, 257, -255, -256, 2049, 2051, 65504, 65519, 65520, 65535, 100000,
           16777217, 2**24 + 3, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32 + 5, 2**53 + 1, 2**62 + 2**38 + 1,
           2**63 - 1, -2**63, 3 * 2**60 + 2**36]
    i32 = [0, 1, -1, 127, 128, 255, 256, -256, 2049, 2051, 65504, 65520, 100000, 16777217, 2**31 - 1, -2**31,
           2**30 + 65, -12345678]
    u8 = list(range(0, 256, 17)) + [1, 2, 127, 128, 254, 255]
    i16 = [0, 1, -1, 127, 128, -128, -129, 255, 256, 2049, 2051, 32767, -32768, -12345, 20000]
    i8 = [0, 1, -1, 2, -2, 100, 127, -127, -128, 64, -65]
    return {
        "float32": torch.tensor(f32, dtype=torch.float32),
        "float64": torch.tensor(f64, dtype=torch.float64),
        "float16": torch.tensor(f32, dtype=torch.float32).to(torch.float16),
        "bfloat16": torch.tensor(f32, dtype=torch.float32).to(torch.bfloat16),
        "int64": torch.tensor(i64, dtype=torch.int64),
        "int32": torch.tensor(i32, dtype=torch.int32),
        "uint8": torch.tensor(u8, dtype=torch.uint8),
        "bool": torch.tensor([False, True], dtype=torch.bool),
        "int8": torch.tensor(i8, dtype=torch.int8),
        "int16": torch.tensor(i16, dtype=torch.int16),
    }


# Floats reach uint8 through int64 (c10::static_cast_with_inter_type), so int64's range is what matters;
# int8 and int16 through int32 (the cvtt* instruction of a plain static_cast), then their low bits.
INT_RANGE = {"int64": (-2**63, 2**63), "int32": (-2**31, 2**31), "uint8": (-2**63, 2**63),
             "int8": (-2**31, 2**31), "int16": (-2**31, 2**31)}


def defined(v, src, dst):
    """Whether torch defines src -> dst for the value v (a Python number)."""
    if src in FLOATING and dst in INT_RANGE:
        if math.isnan(v) or math.isinf(v):
            return False
        lo, hi = INT_RANGE[dst]
        return lo - 1 < v < hi  # truncation lands in [lo, hi)
    return True


def convert_through_paths(x, dst):
    """x.to(dst) by the vectorised contiguous kernel, element by element, and
    through a strided view; returns the three results."""
    dt = DTYPES[dst]
    n = x.numel()
    whole = x.repeat(9).to(dt)[:n]  # long enough for the vectorised body
    single = torch.cat([x[i:i + 1].to(dt) for i in range(n)]) if n else x.to(dt)
    strided = torch.stack([x, x], 1).reshape(-1)[::2].to(dt)
    return whole, single, strided


def encode_out(t, name):
    if name in FLOATING:
        nan = torch.isnan(t.float()).tolist()
        return ["nan" if m else b for m, b in zip(nan, bits(t, name))]
    return t.tolist()


def encode_in(t, name):
    return bits(t, name) if name in FLOATING else t.tolist()


nan_note = []


def convert_cases():
    inputs = conversion_inputs()
    cases = []
    for src, xs in inputs.items():
        for dst in DTYPES:
            keep = [i for i, v in enumerate(xs.tolist()) if defined(v, src, dst)]
            x = xs[keep]
            whole, single, strided = convert_through_paths(x, dst)
            ow, os_, ot = encode_out(whole, dst), encode_out(single, dst), encode_out(strided, dst)
            if dst in FLOATING:
                wb, sb = bits(whole, dst), bits(single, dst)
                for i in range(len(ow)):
                    if ow[i] == "nan" and wb[i] != sb[i]:
                        nan_note.append(f"{src}->{dst}: NaN bits {wb[i]:#x} (vectorised) vs {sb[i]:#x} (scalar)")
            assert ow == os_ == ot, (src, dst, ow, os_, ot)
            cases.append({"from": src, "to": dst, "inputs": encode_in(x, src), "outputs": ow})
    return cases


# ------------------------------------------------------------ promotion.json

def promotion_cases():
    """torch's type promotion: for every pair of dtypes, torch.promote_types and torch.result_type of a 1-D
    tensor with a 0-dim tensor; for every dtype, result_type with a Python bool, int and float."""
    names = {v: k for k, v in DTYPES.items()}
    rows = []
    for a, da in DTYPES.items():
        for b, db in DTYPES.items():
            rows.append({"a": a, "b": b, "promote": names[torch.promote_types(da, db)],
                         "zero_dim": names[torch.result_type(torch.ones(2, dtype=da), torch.ones((), dtype=db))]})
    for a, da in DTYPES.items():
        for kind, s in (("bool", True), ("int", 3), ("float", 1.5)):
            rows.append({"a": a, "scalar": kind, "result": names[torch.result_type(torch.ones(2, dtype=da), s)]})
            rows.append({"a": a, "scalar": kind, "zero_dim_a": True,
                         "result": names[torch.result_type(torch.ones((), dtype=da), s)]})
    return rows


def write(name, data):
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, name)
    with open(path, "w") as f:  # one case a line keeps diffs readable
        f.write("[\n" + ",\n".join(json.dumps(c, separators=(",", ":")) for c in data) + "\n]\n")
    print(f"{path}: {len(data)} cases, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    assert torch.__version__.startswith("1.13"), torch.__version__
    write("print.json", print_cases())
    write("convert.json", convert_cases())
    write("promotion.json", promotion_cases())
    for line in sorted(set(nan_note)):
        print("note:", line)
