"""PyTorch checkpoints for tests/checkpoint/torch_read_test.cpp.

Run with /usr/bin/python3 (torch 1.13) from anywhere; writes
tests/golden/checkpoints/torch/*.pt and expected.json next to them. The output
is committed; CI needs no torch.

expected.json: {"files": {name: {"entries": {key: entry}}}, "hostile": [...]}
  entry: {dtype, shape, strides, offset, requires_grad, hex, storage}
    hex: the elements' bytes (little-endian, row-major over the view), as
    tensor.contiguous() holds them; storage: an id, equal for entries that
    share one storage (views, tied weights), null for empty tensors.
  Keys follow glia's flattening rules (Note [Flattening a checkpoint] in
  src/io/unpickler.cpp), mirrored by flatten() below.
  hostile: [{file, code, message}]: loading must fail with that glia error
  code and a message containing `message`.
"""

import collections
import io
import json
import os
import pickle
import struct
import zipfile
import zlib

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "torch")

DTYPES = {
    torch.float32: "float32",
    torch.float64: "float64",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.int64: "int64",
    torch.int32: "int32",
    torch.uint8: "uint8",
    torch.bool: "bool",
    torch.int8: "int8",
    torch.int16: "int16",
}


def flatten(obj, prefix=""):
    """glia's rules: dicts nest with '.', lists/tuples by index, numbers are 0-dim tensors."""
    out = collections.OrderedDict()
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if isinstance(k, bool):
                k = "True" if k else "False"
            elif isinstance(k, (int, str)):
                k = str(k)
            else:
                continue
            items.append((k, v))
    else:
        items = [(str(i), v) for i, v in enumerate(obj)]
    for k, v in items:
        key = prefix + "." + k if prefix else k
        if isinstance(v, torch.Tensor):
            out[key] = v
        elif isinstance(v, (dict, list, tuple)):
            out.update(flatten(v, key))
        elif isinstance(v, bool):
            out[key] = torch.tensor(v)
        elif isinstance(v, int) and -(2**63) <= v < 2**63:
            out[key] = torch.tensor(v, dtype=torch.int64)
        elif isinstance(v, float):
            out[key] = torch.tensor(v, dtype=torch.float64)
    return out


def raw_bytes(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def describe(obj):
    entries = {}
    storages = {}
    for key, t in flatten(obj).items():
        # Empty tensors have no bytes to share (their storages may all be at address 0).
        sid = storages.setdefault(t.storage().data_ptr(), len(storages)) if t.numel() else None
        entries[key] = {
            "dtype": DTYPES[t.dtype],
            "shape": list(t.shape),
            "strides": list(t.stride()),
            "offset": t.storage_offset(),
            "requires_grad": bool(t.requires_grad),
            "hex": raw_bytes(t).hex(),
            "storage": sid,
        }
    return {"entries": entries}


def save(name, obj, legacy=False, protocol=2):
    path = os.path.join(OUT, name)
    torch.save(obj, path, _use_new_zipfile_serialization=not legacy, pickle_protocol=protocol)
    return path


def dtypes_dict():
    special = [0.0, -0.0, 1.5, -2.25, float("nan"), float("inf"), float("-inf"), 1e-7, 65504.0, 3.0e38]
    d = collections.OrderedDict()
    # The 8 dtypes of glia 0.1: int8 and int16 have files of their own (int_dtypes_*.pt).
    for dt, name in list(DTYPES.items())[:8]:
        if dt.is_floating_point:
            d[name] = torch.tensor(special, dtype=torch.float64).to(dt)
        elif dt == torch.bool:
            d[name] = torch.tensor([True, False, True, True])
        elif dt == torch.uint8:
            d[name] = torch.tensor([0, 1, 127, 128, 255], dtype=dt)
        else:
            info = torch.iinfo(dt)
            d[name] = torch.tensor([info.min, -1, 0, 1, info.max], dtype=dt)
    d["float32_2d"] = torch.arange(12, dtype=torch.float32).reshape(3, 4) * 0.5 - 1
    return d


def int_dtypes_dict():
    """int8 (torch.CharStorage) and int16 (torch.ShortStorage): extremes, a 2-D view, a shared storage."""
    d = collections.OrderedDict()
    for dt, name in ((torch.int8, "int8"), (torch.int16, "int16")):
        info = torch.iinfo(dt)
        d[name] = torch.tensor([info.min, -1, 0, 1, info.max], dtype=dt)
        base = (torch.arange(24) * 37 % 255 - 127).to(dt).reshape(4, 6)
        d[name + "_base"] = base
        d[name + "_view"] = base[1:, ::2]
        d[name + "_t"] = base.t()
    d["int16_scalar"] = torch.tensor(-300, dtype=torch.int16)
    d["int8_empty"] = torch.zeros(0, 3, dtype=torch.int8)
    return d


def module_state():
    torch.manual_seed(0)
    m = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, padding=1),
        torch.nn.BatchNorm2d(4),
        torch.nn.ReLU(),
        torch.nn.Flatten(),
        torch.nn.Linear(4 * 5 * 5, 3),
    )
    m.train()
    m(torch.randn(2, 3, 5, 5))  # running stats and num_batches_tracked move
    return m


def views_dict():
    t = torch.arange(24).reshape(4, 6)
    return {"a": t, "b": t[1:, ::2], "c": t.t()}


def zero_dim_dict():
    return {"scalar": torch.tensor(3.5), "empty": torch.zeros(0, 3), "empty_rows": torch.zeros(2, 0, dtype=torch.int64)}


def protocol_dict():
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 8
    return {
        "dtypes": dtypes_dict(),
        "view": t[1:, ::2],
        "base": t,
        "epoch": 7,
        "lr": 0.125,
        "flags": [True, None, "text", 2**40, -3],
        "nested": {"w": torch.ones(2, dtype=torch.float64), "empty": torch.zeros(0, 2)},
    }


def checkpoint_dict(m):
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    loss = m(torch.randn(2, 3, 5, 5)).sum()
    loss.backward()
    opt.step()
    return {
        "model": m.state_dict(),
        "optimizer": opt.state_dict(),
        "epoch": 3,
        "best_acc": 0.875,
        "done": False,
        "name": "run-1",
        "nothing": None,
        "history": [1.5, 2],
        "nested": {"x": {"y": torch.ones(2)}},
        (1, 2): torch.zeros(1),  # a key glia cannot name: skipped
    }


def rewrite_zip(src, dst, change):
    """Copies a zip entry by entry; change(name, data) -> (name, data) or None to drop."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            r = change(info.filename, zin.read(info.filename))
            if r is not None:
                zout.writestr(r[0], r[1])


def big_endian(src, dst, src_prefix="dtypes_zip", dst_prefix="dtypes_big"):
    """The file a big-endian machine would write: byteorder 'big', every element swapped."""
    obj = torch.load(src)
    with zipfile.ZipFile(src) as z:
        pkl = z.read(src_prefix + "/data.pkl")
    sizes = {}

    class Reader(pickle.Unpickler):
        def find_class(self, module, name):
            return getattr(__import__(module, fromlist=[name]), name)

        def persistent_load(self, pid):
            sizes[pid[2]] = torch.tensor([], dtype=pid[1]().dtype).element_size()
            return pid[1]()

    Reader(io.BytesIO(pkl)).load()
    del obj

    def change(name, data):
        if name.endswith("/byteorder"):  # torch 1.13 writes none; added below
            return None
        if "/data/" in name:
            n = sizes[name.rsplit("/", 1)[1]]
            data = b"".join(data[i : i + n][::-1] for i in range(0, len(data), n))
        return name.replace(src_prefix, dst_prefix), data

    rewrite_zip(src, dst, change)
    with zipfile.ZipFile(dst, "a") as z:
        z.writestr(dst_prefix + "/byteorder", b"big")


def hostile_zip(name, pkl, data=None, extra=None, compress=None):
    """A torch.save-like archive holding `pkl` as archive/data.pkl."""
    path = os.path.join(OUT, "hostile", name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pkl)
        for key, raw in (data or {}).items():
            z.writestr(zipfile.ZipInfo("archive/data/" + key), raw, compress_type=compress or zipfile.ZIP_STORED)
        for n, raw in (extra or {}).items():
            z.writestr(n, raw)
        z.writestr("archive/version", b"3\n")
    return name


class Evil:
    def __init__(self, func, args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


def storage_pid_pickle(numel, size, stride, offset=0, dtype_global=b"FloatStorage", key="0"):
    """data.pkl of {'w': tensor} by hand (protocol 2), with free geometry."""
    out = io.BytesIO()
    w = out.write
    w(b"\x80\x02}q\x00X\x01\x00\x00\x00wq\x01")
    w(b"ctorch._utils\n_rebuild_tensor_v2\nq\x02(")
    w(b"(X\x07\x00\x00\x00storageq\x03ctorch\n" + dtype_global + b"\nq\x04")
    w(b"X" + struct.pack("<I", len(key)) + key.encode() + b"X\x03\x00\x00\x00cpuq\x05")
    w(b"\x8a\x08" + struct.pack("<q", numel) + b"tq\x06Q")
    w(b"\x8a\x08" + struct.pack("<q", offset))
    w(b"(" + b"".join(b"\x8a\x08" + struct.pack("<q", s) for s in size) + b"t")
    w(b"(" + b"".join(b"\x8a\x08" + struct.pack("<q", s) for s in stride) + b"t")
    w(b"\x89ccollections\nOrderedDict\nq\x07)Rq\x08tq\x09Rq\x0as.")
    return out.getvalue()


def set_declared_size(path, entry, new_size):
    """Patches the uncompressed size of `entry` in its local header and central directory."""
    raw = bytearray(open(path, "rb").read())
    name = entry.encode()
    i = 0
    while True:
        i = raw.find(name, i)
        if i < 0:
            break
        if raw[i - 30 : i - 26] == b"PK\x03\x04":
            struct.pack_into("<I", raw, i - 30 + 22, new_size)
        elif raw[i - 46 : i - 42] == b"PK\x01\x02":
            struct.pack_into("<I", raw, i - 46 + 24, new_size)
        i += 1
    open(path, "wb").write(raw)


def hostile_files():
    cases = []

    def case(name, code, message):
        cases.append({"file": "hostile/" + name, "code": code, "message": message})

    os.makedirs(os.path.join(OUT, "hostile"), exist_ok=True)
    case(
        hostile_zip("os_system.pt", pickle.dumps({"w": Evil(os.system, ("echo pwned",))}, protocol=2)),
        "GLIA_ERR_FORMAT",
        'global "posix.system" is not allowed',
    )
    case(
        hostile_zip("eval_stack_global.pt", pickle.dumps({"w": Evil(eval, ("1+1",))}, protocol=4)),
        "GLIA_ERR_FORMAT",
        'STACK_GLOBAL at byte',
    )
    good = storage_pid_pickle(6, [2, 3], [3, 1])
    path = os.path.join(OUT, "hostile", "no_data_pkl.pt")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/version", b"3\n")
        z.writestr("archive/data/0", b"\0" * 24)
    case("no_data_pkl.pt", "GLIA_ERR_FORMAT", "without <archive>/data.pkl")
    case(
        hostile_zip("two_data_pkl.pt", good, data={"0": b"\0" * 24}, extra={"other/data.pkl": good}),
        "GLIA_ERR_FORMAT",
        "holds two pickles",
    )
    case(hostile_zip("missing_storage.pt", good), "GLIA_ERR_FORMAT", "has no entry archive/data/0")
    case(hostile_zip("short_storage.pt", good, data={"0": b"\0" * 20}), "GLIA_ERR_FORMAT", "holds 20 bytes, expected 24")
    case(
        hostile_zip("view_too_big.pt", storage_pid_pickle(6, [3, 3], [3, 1]), data={"0": b"\0" * 24}),
        "GLIA_ERR_FORMAT",
        "reaches element 8 of storage \"0\", which has 6 elements",
    )
    case(
        hostile_zip("numel_overflow.pt", storage_pid_pickle(6, [2**32, 2**32], [1, 1]), data={"0": b"\0" * 24}),
        "GLIA_ERR_FORMAT",
        "overflows",
    )
    case(
        hostile_zip("negative_stride.pt", storage_pid_pickle(6, [2, 3], [3, -1], offset=2), data={"0": b"\0" * 24}),
        "GLIA_ERR_FORMAT",
        "negative stride",
    )
    case(
        hostile_zip("unsupported_dtype.pt",
                    storage_pid_pickle(6, [6], [1], dtype_global=b"ComplexFloatStorage"), data={"0": b"\0" * 48}),
        "GLIA_ERR_UNSUPPORTED",
        "torch.ComplexFloatStorage (complex64) is not supported",
    )
    case(
        hostile_zip("unknown_storage.pt", storage_pid_pickle(6, [6], [1], dtype_global=b"EvilStorage"),
                    data={"0": b"\0" * 6}),
        "GLIA_ERR_FORMAT",
        'global "torch.EvilStorage" is not allowed',
    )
    # 10 MB of zeros deflate ~1000:1 (legitimate, below kMaxRatio = 1100): loads.
    n = 10 * 2**20
    zeros = storage_pid_pickle(n // 4, [n // 4], [1])
    hostile_zip("deflated_zeros.pt", zeros, data={"0": b"\0" * n}, compress=zipfile.ZIP_DEFLATED)
    # The same entry declaring 2 GiB: beyond 1100:1, refused before anything is allocated.
    bomb = storage_pid_pickle(2**29, [2**29], [1])
    hostile_zip("zip_bomb.pt", bomb, data={"0": b"\0" * n}, compress=zipfile.ZIP_DEFLATED)
    set_declared_size(os.path.join(OUT, "hostile", "zip_bomb.pt"), "archive/data/0", 2**31)
    case("zip_bomb.pt", "GLIA_ERR_FORMAT", "a zip bomb")
    # Bytes that do not match the CRC.
    path = os.path.join(OUT, "hostile", "bad_crc.pt")
    hostile_zip("bad_crc.pt", good, data={"0": bytes(range(24))})
    raw = bytearray(open(path, "rb").read())
    i = raw.find(bytes(range(24)))
    raw[i + 5] ^= 0xFF
    open(path, "wb").write(raw)
    case("bad_crc.pt", "GLIA_ERR_FORMAT", "is corrupt")
    # Pickle protocol 0 writes persistent ids as text (str of the tuple), which
    # torch.load cannot read back either.
    d = {"w": torch.arange(4.0)}
    torch.save(d, os.path.join(OUT, "hostile", "protocol0_zip.pt"), pickle_protocol=0)
    case("protocol0_zip.pt", "GLIA_ERR_FORMAT", "text persistent ids are not allowed")
    torch.save(d, os.path.join(OUT, "hostile", "protocol0_legacy.pt"), pickle_protocol=0,
               _use_new_zipfile_serialization=False)
    case("protocol0_legacy.pt", "GLIA_ERR_FORMAT", "text persistent ids are not allowed")
    # Not a dict at the top.
    case(hostile_zip("top_list.pt", pickle.dumps([1, 2], protocol=2)), "GLIA_ERR_FORMAT", "expected a dict")
    return cases


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {}

    def add(name, obj, legacy=False, protocol=2):
        save(name, obj, legacy, protocol)
        files[name] = describe(obj)

    d = dtypes_dict()
    add("dtypes_zip.pt", d)
    add("dtypes_legacy.pt", d, legacy=True)
    big_endian(os.path.join(OUT, "dtypes_zip.pt"), os.path.join(OUT, "dtypes_big.pt"))
    files["dtypes_big.pt"] = files["dtypes_zip.pt"]

    # int8 and int16 (glia 0.2), in both layouts, protocol 4, and big-endian.
    ints = int_dtypes_dict()
    add("int_dtypes_zip.pt", ints)
    add("int_dtypes_legacy.pt", ints, legacy=True)
    add("int_dtypes_protocol4_zip.pt", ints, protocol=4)
    big_endian(os.path.join(OUT, "int_dtypes_zip.pt"), os.path.join(OUT, "int_dtypes_big.pt"), "int_dtypes_zip",
               "int_dtypes_big")
    files["int_dtypes_big.pt"] = files["int_dtypes_zip.pt"]

    m = module_state()
    add("module_zip.pt", m.state_dict())
    add("module_legacy.pt", m.state_dict(), legacy=True)
    add("views_zip.pt", views_dict())
    add("views_legacy.pt", views_dict(), legacy=True)
    add("zero_dim_zip.pt", zero_dim_dict())
    add("zero_dim_legacy.pt", zero_dim_dict(), legacy=True)
    add("checkpoint_zip.pt", checkpoint_dict(m))
    torch.manual_seed(1)
    params = collections.OrderedDict(w=torch.nn.Parameter(torch.randn(2, 2)), b=torch.randn(2))
    add("params_zip.pt", params)

    # Saved from "cuda:0" (the location only: this machine has no GPU).
    real = torch.serialization.location_tag
    torch.serialization.location_tag = lambda storage: "cuda:0"
    try:
        add("cuda_location_zip.pt", {"w": torch.arange(4.0)})
        add("cuda_location_legacy.pt", {"w": torch.arange(4.0)}, legacy=True)
    finally:
        torch.serialization.location_tag = real

    # Every pickle protocol torch.load reads back, in both layouts: 1 (binary, no
    # PROTO; text LONG magic), 3, and 4/5 (FRAMEs, SHORT_BINUNICODE, MEMOIZE).
    for p in (1, 3, 4, 5):
        add("protocol%d_zip.pt" % p, protocol_dict(), protocol=p)
        add("protocol%d_legacy.pt" % p, protocol_dict(), legacy=True, protocol=p)

    hostile = hostile_files()
    expected = {"files": files, "hostile": hostile}
    # Sections this script does not write (commit 1251ec9's "values" of the value-tree files, whose generator
    # was not committed) are carried over unchanged.
    path = os.path.join(OUT, "expected.json")
    if os.path.exists(path):
        with open(path) as f:
            for k, v in json.load(f).items():
                expected.setdefault(k, v)
    with open(path, "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
