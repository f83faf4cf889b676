#!/usr/bin/python3
"""Writes the fuzzers' seed corpora into tests/fuzz/corpus/<target>/.

    /usr/bin/python3 tests/fuzz/make_seeds.py [--golden]

safetensors seeds are written byte by byte with the standard library; the .pt seeds
(zip and legacy format) need torch (Debian's python3-torch 1.13) and are skipped
without it. Legacy files name their storages by address, so they differ from run to
run; everything else is reproducible. The corpus stays small (a few KB a file).
The readers' corpora also get torch 1.13's golden files (tests/golden/checkpoints/torch:
every pickle protocol, top-level shapes, big-endian files, the hostile corpus), and the
writer's corpus hand-assembled programs (Prog). --golden writes only those two.
Inputs named regress-* (findings kept as regression seeds) are never removed.
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
TARGETS = ("safetensors", "zip", "unpickler", "checkpoint", "writer")
GOLDEN = os.path.join(HERE, "..", "golden", "checkpoints", "torch")
MAX_LEN = 16384  # scripts/fuzz.sh's -max_len: longer seeds would be cut


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


# ---- the writer fuzzer's programs (tests/fuzz/writer_fuzzer.cpp documents the opcodes) ----


class Prog:
    WDTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]
    DEVICES = ["cpu", "cuda", "cuda:0", "cuda:1", "meta", "cuda:12"]
    DTYPE_NAMES = WDTYPES + ["half"]

    def __init__(self):
        self.b = bytearray()

    def op(self, *bs):
        self.b += bytes(bs)
        return self

    def none(self):
        return self.op(0)

    def bool(self, v):
        return self.op(1, int(v))

    def int(self, v):
        self.b += bytes([2]) + struct.pack("<q", v)
        return self

    def big(self, v):
        import pickle

        enc = pickle.encode_long(v)
        assert len(enc) < 24
        self.b += bytes([4, len(enc)]) + enc
        return self

    def float(self, v):
        self.b += bytes([5]) + struct.pack("<d", v)
        return self

    def str(self, v, raw=None):
        e = raw if raw is not None else v.encode()
        assert len(e) < 32
        self.b += bytes([6, len(e)]) + e
        return self

    def bytes(self, v):
        self.b += bytes([7, len(v)]) + v
        return self

    def tuple(self, n):
        assert n < 64
        return self.op(8, n)

    def list(self, n):
        assert n < 64
        return self.op(9, n)

    def dict(self, n, ordered=False):
        return self.op(10, n, int(ordered))

    def set(self, n):
        return self.op(11, n)

    def tensor(self, dtype, shape, grad=False, raw=None):
        import math

        item = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "uint8": 1,
                "bool": 1}[dtype]
        assert len(shape) < 4 and all(s < 5 for s in shape)
        n = math.prod(shape) * item
        raw = raw if raw is not None else bytes((7 * i + 3) % 251 for i in range(n))
        self.b += bytes([12, self.WDTYPES.index(dtype), len(shape)] + list(shape) + [int(grad)]) + raw[:n]
        return self

    def view(self, k, sizes, strides, offset):
        dims = [x for pair in zip(sizes, strides) for x in pair]
        return self.op(13, k, len(sizes), *dims, offset)

    def device(self, name):
        return self.op(14, (self.DEVICES.index(name) << 2) | 1)

    def dtype(self, name):
        return self.op(14, self.DTYPE_NAMES.index(name) << 2)

    def named(self, kind, name):  # a device (kind 1) or dtype (kind 0) name taken from the input
        e = name.encode()
        self.b += bytes([14, 2 | kind, len(e)]) + e
        return self

    def again(self, k):
        self.b += bytes([15]) + struct.pack("<H", k)
        return self


def writer_seeds():
    seeds = {}
    # The tutorial checkpoint: {'epoch', 'model_state_dict' (OrderedDict), 'optimizer_state_dict', 'loss'}.
    p = Prog().str("epoch").int(5).str("model_state_dict")
    p.str("0.weight").tensor("float32", [3, 4]).str("0.bias").tensor("float32", [3]).dict(2, ordered=True)
    p.str("optimizer_state_dict").str("state").int(0).str("step").tensor("float32", []).str("exp_avg")
    p.tensor("float32", [3, 4]).dict(2).dict(1).str("param_groups").str("lr").float(0.001).str("betas")
    p.float(0.9).float(0.999).tuple(2).str("params").int(0).int(1).list(2).dict(3).list(1).dict(2)
    p.str("loss").float(0.375).dict(4)
    seeds["tutorial"] = p
    # Every leaf kind in a list.
    p = Prog().none().bool(True).int(-7).op(3, 0xF9).big(2**70).big(-(2**65)).float(0.1).float(float("inf"))
    p.float(float("nan")).str("snow\u2603").bytes(b"raw\x00\xff").op(3, 2).op(3, 3).tuple(2).dtype("float16")
    p.device("cuda:1").device("cpu").op(3, 1).op(3, 2).op(3, 3).set(3).op(3, 1).str("int key").op(3, 1).op(3, 2)
    p.tuple(2).str("tuple key").dict(2).list(17)
    seeds["leaves"] = p
    # A flat dict of str -> tensor, every dtype, views sharing the first storage (safetensors too).
    p = Prog()
    for i, dt in enumerate(Prog.WDTYPES):
        p.str(dt).tensor(dt, [2, 3], grad=dt.startswith("float") or dt == "bfloat16")
    p.str("view_t").view(0, [3, 2], [1, 3], 0).str("view_row").view(0, [3], [1], 3).str("empty").view(1, [0, 4], [1, 1], 2)
    p.dict(11, ordered=True)
    seeds["flat_dtypes"] = p
    seeds["bare_tensor"] = Prog().tensor("float64", [4])
    seeds["scalar_tensor_list"] = Prog().tensor("int64", []).tensor("bool", [4]).view(0, [], [], 0).list(3)
    # The same list reached twice, a dict and a tensor shared.
    p = Prog().op(3, 1).op(3, 2).list(2).tensor("float32", [2]).str("a").again(2).dict(1).again(2).again(3).list(5)
    seeds["shared"] = p
    seeds["nested_dict_of_lists"] = (Prog().str("runs").str("name").str("a").str("w").tensor("float32", [2, 2])
                                     .tensor("float32", [1]).list(2).dict(2).none().list(2).str("size").op(3, 4)
                                     .op(3, 0).tuple(2).dict(2))
    # What the writers refuse: a str that is not UTF-8, an unknown device or dtype, nesting past 1000.
    seeds["bad_utf8"] = Prog().str("", raw=b"\xff\xfe").list(1)
    seeds["bad_device"] = Prog().named(1, "tpu:x").list(1)
    seeds["bad_dtype"] = Prog().named(0, "float128").list(1)
    seeds["bad_empty_big_int"] = Prog().op(4, 0).list(1)
    seeds["bad_deep"] = Prog().none().op(*([8, 1] * 1100))
    return {name: bytes(p.b) for name, p in seeds.items()}


# ---- torch 1.13's golden files as seeds for the readers (protocols 0-5, top-level shapes,
# big-endian files, the hostile corpus) ----


def golden_seeds():
    """{target: {name: bytes}} from tests/golden/checkpoints/torch (written by gen_torch_files.py)."""
    out = {"checkpoint": {}, "zip": {}, "unpickler": {}}
    names = ["protocol0_zip.pt", "protocol0_legacy.pt", "protocol0_big_zip.pt", "protocol0_big_legacy.pt",
             "dtypes_big_legacy.pt"]
    for p in range(6):
        for shape in ("tutorial", "dict_of_lists", "leaves"):
            for layout in ("zip", "legacy"):
                names.append("shapes/p%d_%s_%s.pt" % (p, shape, layout) if p != 2 or shape == "dict_of_lists"
                             else "value_%s_%s.pt" % (shape, layout))
    for p in (2, 4):
        for shape in ("tutorial", "dtype_tensors"):
            for layout in ("zip", "legacy"):
                names.append("shapes/p%d_%s_%s_big.pt" % (p, shape, layout))
    hostile = sorted(f for f in os.listdir(os.path.join(GOLDEN, "hostile"))
                     if f.startswith(("storage_type_", "rebind_", "stack_global_memo_", "concatenated", "inserted_",
                                      "magic_", "text_pid_", "view_too_big_legacy", "short_storage_legacy",
                                      "whole_module_")))
    names += ["hostile/" + f for f in hostile]
    for name in names:
        with open(os.path.join(GOLDEN, name), "rb") as f:
            data = f.read()
        assert len(data) <= MAX_LEN, name
        seed = "golden_" + name.replace("/", "_")
        out["checkpoint"][seed] = data
        if data[:4] == b"PK\x03\x04":
            out["zip"][seed] = data
            z = zipfile.ZipFile(io.BytesIO(data))
            pkl = [n for n in z.namelist() if n.endswith("/data.pkl")]
            if pkl:
                out["unpickler"][seed[:-3] + ".pkl"] = z.read(pkl[0])
        elif not name.startswith("hostile/"):
            out["unpickler"][seed[:-3] + ".pkl"] = legacy_pickles(data)[3]
    return out


def reset(target):
    """Empties a corpus, except regression inputs (regress-*) that fuzzing found."""
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if not f.startswith("regress-"):
            os.remove(os.path.join(d, f))


def main():
    # --golden: only add the golden files and the writer's programs (no torch needed,
    # the other seeds stay as they are).
    if "--golden" in sys.argv:
        reset("writer")
        for name, data in writer_seeds().items():
            put("writer", name, data)
        for target, files in golden_seeds().items():
            for name, data in files.items():
                put(target, name, data)
        return
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
    reset("writer")
    for name, data in writer_seeds().items():
        put("writer", name, data)
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
    if made or "--golden" in sys.argv:
        for target, files in golden_seeds().items():
            for name, data in files.items():
                put(target, name, data)
    total = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(CORPUS) for f in fs)
    print("make_seeds: %d files, %d bytes" % (sum(len(fs) for _, _, fs in os.walk(CORPUS)), total))


if __name__ == "__main__":
    main()
