#!/usr/bin/python3
"""Writes the fuzzers' seed corpora into tests/fuzz/corpus/<target>/.

    /usr/bin/python3 tests/fuzz/make_seeds.py

safetensors seeds are written byte by byte with the standard library; the .pt seeds
(zip and legacy format) need torch (Debian's python3-torch 1.13) and are skipped
without it. Legacy files name their storages by address, so they differ from run to
run; everything else is reproducible. The corpus stays small (a few KB a file).
"""
import collections
import io
import json
import os
import shutil
import struct
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
TARGETS = ("safetensors", "zip", "unpickler", "checkpoint")


def put(target, name, data):
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data)


# ---- safetensors -------------------------------------------------------------------

DTYPES = {  # safetensors name -> (struct format, example values)
    "F64": ("d", [1.5, -2.0, float("inf")]),
    "F32": ("f", [0.5, -1.0, 3.25, float("nan")]),
    "F16": ("e", [1.0, -0.5, 65504.0]),
    "BF16": (None, [0x3F80, 0xC000]),  # raw bit patterns: 1.0, -2.0
    "I64": ("q", [-(2**63), 2**63 - 1, 0]),
    "I32": ("i", [-5, 7]),
    "U8": ("B", [0, 255, 17]),
    "BOOL": ("?", [True, False, True]),
}


def raw(dtype, values):
    fmt, _ = DTYPES[dtype]
    if fmt is None:
        return struct.pack("<%dH" % len(values), *values)
    return struct.pack("<%d%s" % (len(values), fmt), *values)


def safetensors(tensors, metadata=None, pad_to=8):
    """tensors: list of (name, dtype, shape, bytes); data laid out in order."""
    header, data = {}, b""
    for name, dtype, shape, b in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    if metadata is not None:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % pad_to)
    return struct.pack("<Q", len(h)) + h + data


def header_only(h, data=b""):
    return struct.pack("<Q", len(h)) + h + data


def safetensors_seeds():
    seeds = {}
    for dtype, (_, values) in DTYPES.items():
        seeds["dtype_%s.safetensors" % dtype.lower()] = safetensors([("t", dtype, [len(values)], raw(dtype, values))])
    seeds["state_dict.safetensors"] = safetensors(
        [
            ("conv.weight", "F32", [2, 1, 2, 2], raw("F32", [0.5] * 8)),
            ("conv.bias", "F32", [2], raw("F32", [1.0, -1.0])),
            ("bn.num_batches_tracked", "I64", [], raw("I64", [3])),
            ("fc.weight", "F16", [1, 3], raw("F16", [1.0, 2.0, 3.0])),
        ],
        metadata={"format": "pt", "framework": "glia"},
    )
    seeds["empty_tensor.safetensors"] = safetensors([("e", "F32", [0, 3], b""), ("s", "I32", [], raw("I32", [1]))])
    seeds["empty_dict.safetensors"] = header_only(b"{}")
    seeds["metadata_only.safetensors"] = header_only(b'{"__metadata__":{"a":"b"}}')
    # Invalid ones: each should be a Format error.
    good = safetensors([("a", "F32", [2], raw("F32", [1, 2])), ("b", "U8", [2], b"xy")])
    seeds["bad_truncated.safetensors"] = good[:-3]
    seeds["bad_header_past_end.safetensors"] = struct.pack("<Q", 1 << 40) + good[8:]
    seeds["bad_overlap.safetensors"] = header_only(
        b'{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}',
        b"abcd",
    )
    seeds["bad_hole.safetensors"] = header_only(b'{"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}', b"abcd")
    seeds["bad_numel_overflow.safetensors"] = header_only(
        b'{"a":{"dtype":"F64","shape":[4294967296,4294967296,16],"data_offsets":[0,8]}}', b"\0" * 8
    )
    seeds["bad_shape_bytes.safetensors"] = header_only(b'{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', b"\0" * 8)
    seeds["bad_dtype.safetensors"] = header_only(b'{"a":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}}', b"\0")
    seeds["bad_negative.safetensors"] = header_only(b'{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}}', b"\0")
    seeds["bad_json.safetensors"] = header_only(b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]', b"\0")
    seeds["bad_utf8.safetensors"] = header_only(b'{"\xff\xfe":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"\0")
    seeds["bad_nesting.safetensors"] = header_only(b'{"a":' + b"[" * 2000 + b"]" * 2000 + b"}")
    seeds["bad_duplicate_key.safetensors"] = header_only(
        b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}',
        b"\0\0",
    )
    seeds["bad_metadata_type.safetensors"] = header_only(b'{"__metadata__":{"a":1}}')
    return seeds


# ---- pickles -------------------------------------------------------------------------


def hostile_pickles():
    """Hand-written data.pkl-like pickles that the restricted unpickler must refuse."""
    p = {}
    p["bad_os_system.pkl"] = b"\x80\x02cos\nsystem\nX\x04\x00\x00\x00trueq\x00\x85R."
    p["bad_builtins_eval.pkl"] = b"\x80\x04\x8c\x08builtins\x8c\x04eval\x93\x8c\x011\x85R."
    p["bad_deep_nesting.pkl"] = b"\x80\x02" + b"]" * 5000 + b"." 
    p["bad_deep_tuple.pkl"] = b"\x80\x02" + b"(" * 3000 + b"t" * 3000 + b"."
    p["bad_memo_huge.pkl"] = b"\x80\x02}r\xff\xff\xff\x7fj\xff\xff\xff\x7f."
    p["bad_cycle.pkl"] = b"\x80\x02]q\x00h\x00a."  # a list that contains itself
    p["bad_truncated.pkl"] = b"\x80\x02ccollections\nOrderedDict\nq\x00)Rq\x01X\xff\x00\x00"
    p["bad_empty_stack.pkl"] = b"\x80\x02R."
    p["bad_frame.pkl"] = b"\x80\x05\x95\xff\xff\xff\xff\xff\xff\xff\x7f}."
    p["bad_long_binunicode.pkl"] = b"\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\x7f."
    p["empty_dict.pkl"] = b"\x80\x02}q\x00."
    return p


# ---- torch ---------------------------------------------------------------------------


def torch_seeds():
    try:
        import torch
    except ImportError:
        print("make_seeds: no torch, .pt seeds left as they are", file=sys.stderr)
        return None
    torch.manual_seed(0)
    objs = {}
    sd = collections.OrderedDict()
    sd["conv.weight"] = torch.randn(2, 1, 2, 2)
    sd["conv.bias"] = torch.zeros(2)
    sd["bn.running_mean"] = torch.zeros(2)
    sd["bn.num_batches_tracked"] = torch.tensor(5)
    sd["fc.weight"] = torch.randn(1, 3).half()
    objs["state_dict"] = sd
    dt = collections.OrderedDict()
    for name, dtype in [("f64", torch.float64), ("f32", torch.float32), ("f16", torch.float16), ("bf16", torch.bfloat16),
                        ("i64", torch.int64), ("i32", torch.int32), ("u8", torch.uint8), ("bool", torch.bool)]:
        dt[name] = (torch.arange(3) % 2).to(dtype)
    objs["dtypes"] = dt
    base = torch.arange(12.0)
    v = collections.OrderedDict()
    v["base"] = base
    v["t"] = base.view(3, 4).t()          # strides (1, 4)
    v["slice"] = base[5:9]               # offset 5
    v["strided"] = base.view(3, 4)[:, ::2]
    v["scalar"] = torch.tensor(2.5)
    v["empty"] = torch.zeros(0, 4)
    objs["views"] = v
    objs["plain_dict"] = {"a": torch.ones(2, dtype=torch.int32)}
    objs["parameter"] = collections.OrderedDict(w=torch.nn.Parameter(torch.ones(2)))

    zips, legacy = {}, {}
    for name, obj in objs.items():
        b = io.BytesIO()
        torch.save(obj, b)
        zips[name + ".pt"] = b.getvalue()
        if name in ("state_dict", "views", "dtypes"):
            b = io.BytesIO()
            torch.save(obj, b, _use_new_zipfile_serialization=False)
            legacy[name + "_legacy.pt"] = b.getvalue()
    b = io.BytesIO()
    torch.save(objs["views"], b, pickle_protocol=4)
    zips["views_protocol4.pt"] = b.getvalue()
    return zips, legacy


def zip_variants(pt):
    """The same entries deflated, as zip64, and broken in a few ways."""
    src = zipfile.ZipFile(io.BytesIO(pt))
    out = {}
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info.filename, src.read(info))
    out["deflated.pt"] = b.getvalue()
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            with z.open(info.filename, "w", force_zip64=True) as f:
                f.write(src.read(info))
    out["zip64.pt"] = b.getvalue()
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        pass
    out["empty.zip"] = b.getvalue()
    # A deflated run of zeros (ratio about 1000:1), a bad CRC, a truncated archive.
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("archive/data/0", b"\0" * 65536)
    out["bomb_small.zip"] = b.getvalue()
    bad = bytearray(pt)
    bad[14] ^= 0xFF  # local header CRC of the first entry
    i = bytes(bad).find(b"PK\x01\x02")
    bad[i + 16] ^= 0xFF  # and in the central directory
    out["bad_crc.pt"] = bytes(bad)
    out["bad_truncated.pt"] = pt[: len(pt) // 2]
    return out


def legacy_pickles(data):
    """The pickles at the start of a legacy file: magic, protocol, sys_info, the state dict, storage keys."""
    import pickletools

    f, out = io.BytesIO(data), []
    for _ in range(5):
        begin = f.tell()
        for _ in pickletools.genops(f):
            pass
        out.append(data[begin : f.tell()])
    return out


def reset(target):
    d = os.path.join(CORPUS, target)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)


def main():
    made = torch_seeds()
    # Without torch only the standard-library seeds are rewritten; the rest stays.
    for t in TARGETS if made else ("safetensors",):
        reset(t)
    for t in ("checkpoint", "unpickler"):
        os.makedirs(os.path.join(CORPUS, t), exist_ok=True)
    for name, data in safetensors_seeds().items():
        put("safetensors", name, data)
        put("checkpoint", name, data)
    for name, data in hostile_pickles().items():
        put("unpickler", name, data)
    if made:
        zips, legacy = made
        for name, data in zips.items():
            put("zip", name, data)
            put("checkpoint", name, data)
            put("unpickler", name[:-3] + ".pkl", zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl"))
        for name, data in zip_variants(zips["views.pt"]).items():
            put("zip", name, data)
            put("checkpoint", name, data)
        for name, data in legacy.items():
            put("checkpoint", name, data)
            # The legacy state dict pickle: persistent ids of the legacy form (6-tuples).
            put("unpickler", name[:-3] + ".pkl", legacy_pickles(data)[3])
    total = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(CORPUS) for f in fs)
    print("make_seeds: %d files, %d bytes" % (sum(len(fs) for _, _, fs in os.walk(CORPUS)), total))


if __name__ == "__main__":
    main()
