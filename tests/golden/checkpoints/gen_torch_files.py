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
  values: {name: value | name}: a file's whole object as glia_value must hold
  it (torch.load's object; describe_value() below), or the name of another
  file whose object is the same. value: {kind, ...}: none; bool/int/float/str/
  device/dtype with "value" (a float as its repr); big_int/bytes with "hex"
  (a big int as pickle's little-endian two's complement); tuple/list/set with
  "items"; dict with "items" ([key, value] pairs) and "ordered" (an
  OrderedDict); tensor with the entry fields above, storage ids counted over
  the whole file.
"""

import collections
import io
import json
import math
import os
import pickle
import re
import struct
import sys
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
    # Not a dict at the top.
    case(hostile_zip("top_list.pt", pickle.dumps([1, 2], protocol=2)), "GLIA_ERR_FORMAT", "expected a dict")
    cases[-1]["dict_only"] = True  # glia_value_load reads it: a list
    hostile_wild(cases)
    return cases


# ---- hidden globals in well-formed containers (the wild-checkpoints issue) ----

# What every payload below would do if anything ran it: create this file in the
# working directory (tests/checkpoint/torch_read_test.cpp checks it never appears).
MARKER = "glia-hostile-ran"
SHELL = "touch " + MARKER
PY = "__import__('os').system(%r)" % SHELL

SYS_INFO = dict(protocol_version=1001, little_endian=True, type_sizes=dict(short=2, int=4, long=4))


def legacy_bytes(obj_pkl, storages, magic=None, between=b"", after=b""):
    """A legacy torch.save file around the object pickle `obj_pkl`: storages is
    [(key, raw bytes, numel)]. Returns the bytes and the object pickle's offset."""
    head = (magic if magic is not None else pickle.dumps(torch.serialization.MAGIC_NUMBER, protocol=2))
    head += pickle.dumps(1001, protocol=2) + pickle.dumps(SYS_INFO, protocol=2) + between
    out = head + obj_pkl + pickle.dumps([k for k, _, _ in storages], protocol=2)
    for _, raw, numel in storages:
        out += struct.pack("<q", numel) + raw
    return out + after, len(head)


def put_legacy(name, raw):
    with open(os.path.join(OUT, "hostile", name), "wb") as f:
        f.write(raw)
    return name


def tensor_pickle(storage_global=b"torch\nFloatStorage", numel=6, size=(2, 3), stride=(3, 1), key="0", legacy=False):
    """{'w': tensor} by hand (protocol 2), with any GLOBAL in the storage-type slot (legacy:
    the persistent id's sixth field, view_metadata None)."""
    out = io.BytesIO()
    w = out.write
    w(b"\x80\x02}q\x00X\x01\x00\x00\x00wq\x01")
    w(b"ctorch._utils\n_rebuild_tensor_v2\nq\x02(")
    w(b"(X\x07\x00\x00\x00storageq\x03c" + storage_global + b"\nq\x04")
    w(b"X" + struct.pack("<I", len(key)) + key.encode() + b"X\x03\x00\x00\x00cpuq\x05")
    w(b"\x8a\x08" + struct.pack("<q", numel) + (b"N" if legacy else b"") + b"tq\x06Q")
    w(b"K\x00(" + b"".join(b"\x8a\x08" + struct.pack("<q", v) for v in size) + b"t")
    w(b"(" + b"".join(b"\x8a\x08" + struct.pack("<q", v) for v in stride) + b"t")
    w(b"\x89ccollections\nOrderedDict\nq\x07)Rq\x08tq\x09Rq\x0as.")
    return out.getvalue()


def sbu(text):
    """SHORT_BINUNICODE, then MEMOIZE."""
    b = text.encode()
    return b"\x8c" + bytes([len(b)]) + b + b"\x94"


def stack_global_from_memo(module, name):
    """Protocol 4: {'a': module, 'b': name, 'w': <module.name>(PY)}, the global made by
    STACK_GLOBAL from the two strings fetched back from the memo (BINGET 2 and 4).
    Returns the pickle and the STACK_GLOBAL's offset."""
    body = b"}\x94(" + sbu("a") + sbu(module) + sbu("b") + sbu(name) + b"u" + sbu("w")
    sg = len(body)
    body += b"h\x02h\x04\x93\x94" + sbu(PY) + b"\x85\x94R\x94s."
    frame = b"\x80\x04\x95" + struct.pack("<Q", len(body))
    return frame + body, len(frame) + sg + 4


def text_pid_pickle(pid_text):
    """Protocol 0's {'w': tensor} with a PERSID line of our choosing."""
    return (b"(dp0\nVw\np1\nctorch._utils\n_rebuild_tensor_v2\np2\n(P" + pid_text + b"\nI0\n(I4\ntp3\n(I1\ntp4\n"
            b"I00\nccollections\nOrderedDict\np5\n(tRp6\ntp7\nRp8\ns.")


def hostile_wild(cases):
    def case(name, message, at, code="GLIA_ERR_FORMAT"):
        cases.append({"file": "hostile/" + name, "code": code, "message": message, "at": at})

    good = tensor_pickle()
    good_legacy = tensor_pickle(legacy=True)
    data = {"0": b"\0" * 24}
    storages = [("0", b"\0" * 24, 6)]
    assert torch.load(io.BytesIO(legacy_bytes(good_legacy, storages)[0]))["w"].shape == (2, 3)

    # 1. A disallowed global in the storage-type slot of the persistent id.
    for module, name in [("os", "system"), ("builtins", "eval"), ("torch", "load"), ("torch.serialization", "load")]:
        pkl = tensor_pickle(storage_global=(module + "\n" + name).encode())
        at = "GLOBAL at byte %d of " % pkl.index(b"c" + module.encode() + b"\n" + name.encode())
        full = '"%s.%s" is not allowed' % (module, name)
        tag = module.replace(".", "_") + "_" + name
        case(hostile_zip("storage_type_%s_zip.pt" % tag, pkl, data=data), "global " + full, at + "archive/data.pkl")
        pkl = tensor_pickle(storage_global=(module + "\n" + name).encode(), legacy=True)
        raw, base = legacy_bytes(pkl, storages)
        case(put_legacy("storage_type_%s_legacy.pt" % tag, raw), "global " + full,
             "GLOBAL at byte %d of " % (base + pkl.index(b"c" + module.encode() + b"\n")))

    # 2. Module rebinding: a module, an alias of builtins, or an attribute path, in place of
    #    _rebuild_tensor_v2 (the REDUCE after it never happens).
    for module, name in [("torch", "nn"), ("__builtin__", "eval"), ("__builtin__", "getattr"), ("builtins", "getattr"),
                         ("torch._utils", "_rebuild_tensor_v2.__globals__"), ("collections", "OrderedDict.fromkeys"),
                         ("copy_reg", "_reconstructor"), ("torch", "_utils"), ("torch.nn", "Module")]:
        pkl = good.replace(b"ctorch._utils\n_rebuild_tensor_v2\n", ("c%s\n%s\n" % (module, name)).encode())
        at = pkl.index(("c%s\n" % module).encode())
        tag = (module + "_" + name).replace(".", "_")
        case(hostile_zip("rebind_%s_zip.pt" % tag, pkl, data=data), 'global "%s.%s" is not allowed' % (module, name),
             "GLOBAL at byte %d of archive/data.pkl" % at)
        pkl = good_legacy.replace(b"ctorch._utils\n_rebuild_tensor_v2\n", ("c%s\n%s\n" % (module, name)).encode())
        raw, base = legacy_bytes(pkl, storages)
        case(put_legacy("rebind_%s_legacy.pt" % tag, raw), 'global "%s.%s" is not allowed' % (module, name),
             "GLOBAL at byte %d of " % (base + at))

    # 3. STACK_GLOBAL from memoized strings (protocol 4).
    for module, name in [("builtins", "eval"), ("os", "system"), ("torch", "load")]:
        pkl, at = stack_global_from_memo(module, name)
        case(hostile_zip("stack_global_memo_%s_%s_zip.pt" % (module, name), pkl),
             'global "%s.%s" is not allowed' % (module, name), "STACK_GLOBAL at byte %d of archive/data.pkl" % at)
        raw, base = legacy_bytes(pkl, [])
        case(put_legacy("stack_global_memo_%s_%s_legacy.pt" % (module, name), raw),
             'global "%s.%s" is not allowed' % (module, name), "STACK_GLOBAL at byte %d of " % (base + at))

    # 4. Concatenated pickles: a second pickle after data.pkl's STOP, after the legacy
    #    file's last storage, or in place of the legacy object; torch.load reads only the
    #    first and ignores the rest.
    evil = pickle.dumps(Evil(os.system, (SHELL,)), protocol=2)
    pkl = good + evil
    case(hostile_zip("concatenated_zip.pt", pkl, data=data), 'global "posix.system" is not allowed',
         "GLOBAL at byte %d of archive/data.pkl" % (len(good) + 2))
    case(hostile_zip("concatenated_benign_zip.pt", good + pickle.dumps([1], protocol=2), data=data),
         "a second pickle at byte %d after the pickle's STOP" % len(good), "archive/data.pkl")
    raw, base = legacy_bytes(good_legacy, storages, after=evil)
    case(put_legacy("concatenated_legacy.pt", raw), 'global "posix.system" is not allowed',
         "GLOBAL at byte %d of " % (len(raw) - len(evil) + 2))
    raw, base = legacy_bytes(good_legacy, storages, between=evil)
    case(put_legacy("inserted_pickle_legacy.pt", raw), 'global "posix.system" is not allowed',
         "GLOBAL at byte %d of " % (base - len(evil) + 2))

    # 5. A legacy magic number made by a call instead of a literal LONG: eval or int
    #    of a string, in protocols 1, 2 and 4 (torch.load without weights_only would run it).
    magic = "0x1950a86a20f9469cfc6c"
    for label, func, args, protocol, glob in [
            ("eval_p1", eval, (magic,), 1, "__builtin__.eval"),  # Python 2 names below protocol 3
            ("eval_p2", eval, (magic,), 2, "__builtin__.eval"),
            ("eval_p3", eval, (magic,), 3, "builtins.eval"),
            ("eval_p4", eval, (magic,), 4, "builtins.eval"),
            ("eval_payload_p2", eval, ("(%s, %s)[1]" % (PY, magic),), 2, "__builtin__.eval"),
            ("int_p2", int, (magic, 16), 2, "__builtin__.long"),
            ("int_p3", int, (magic, 16), 3, "builtins.int")]:
        m = pickle.dumps(Evil(func, args), protocol=protocol)
        assert label == "eval_payload_p2" or pickle.loads(m) == torch.serialization.MAGIC_NUMBER
        raw, _ = legacy_bytes(good_legacy, storages, magic=m)
        if protocol == 4:
            at = "STACK_GLOBAL at byte %d of " % m.index(b"\x93")
        else:
            at = "GLOBAL at byte %d of " % m.index(b"c")
        case(put_legacy("magic_%s_legacy.pt" % label, raw), 'global "%s" is not allowed' % glob, at)

    # 6. Protocol 0's text persistent ids: a disallowed class, or not a storage tuple at all.
    pkl = text_pid_pickle(b"('storage', <class 'os.system'>, '0', 'cpu', 4)")
    case(hostile_zip("text_pid_class_zip.pt", pkl, data={"0": b"\0" * 16}), 'global "os.system" is not allowed',
         "PERSID at byte %d of archive/data.pkl" % pkl.index(b"P"))
    pkl = text_pid_pickle(PY.encode())
    case(hostile_zip("text_pid_code_zip.pt", pkl, data={"0": b"\0" * 16}), "is not a storage tuple",
         "PERSID at byte %d of archive/data.pkl" % pkl.index(b"P"))
    raw, base = legacy_bytes(pkl, [])
    case(put_legacy("text_pid_code_legacy.pt", raw), "is not a storage tuple",
         "PERSID at byte %d of " % (base + pkl.index(b"P")))

    # 7. Whole pickled modules: torch.save(model) instead of model.state_dict().
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 2))
    for layout in ("zip", "legacy"):
        name = "whole_module_%s.pt" % layout
        torch.save(model, os.path.join(OUT, "hostile", name), _use_new_zipfile_serialization=layout == "zip")
        case(name, 'global "torch.nn.modules.container.Sequential" is not allowed', "save its state_dict() instead")

    # 8. Storages shorter than their tensors need (torch 1.13 reads past such a storage
    #    without a word), in the legacy layout too.
    raw, _ = legacy_bytes(tensor_pickle(size=(3, 3), legacy=True), storages)
    case(put_legacy("view_too_big_legacy.pt", raw), 'reaches element 8 of storage "0", which has 6 elements',
         "REDUCE at byte")
    raw, _ = legacy_bytes(good_legacy, [("0", b"\0" * 20, 6)])
    case(put_legacy("short_storage_legacy.pt", raw), 'storage "0" needs 24 bytes', "the file has 20 left")


# ---- whole objects of any top-level type (tests/checkpoint/value_test.cpp) ----


def describe_value(obj, storages):
    if obj is None:
        return {"kind": "none"}
    if isinstance(obj, bool):
        return {"kind": "bool", "value": obj}
    if isinstance(obj, int):
        if -(2**63) <= obj < 2**63:
            return {"kind": "int", "value": obj}
        return {"kind": "big_int", "hex": pickle.encode_long(obj).hex()}
    if isinstance(obj, float):
        return {"kind": "float", "value": repr(obj)}
    if isinstance(obj, str):
        return {"kind": "str", "value": obj}
    if isinstance(obj, bytes):
        return {"kind": "bytes", "hex": obj.hex()}
    if isinstance(obj, torch.dtype):
        return {"kind": "dtype", "value": str(obj)[len("torch."):]}
    if isinstance(obj, torch.device):
        return {"kind": "device", "value": str(obj)}
    if isinstance(obj, torch.Tensor):
        sid = storages.setdefault(obj.storage().data_ptr(), len(storages)) if obj.numel() else None
        return {"kind": "tensor", "dtype": DTYPES[obj.dtype], "shape": list(obj.shape), "strides": list(obj.stride()),
                "offset": obj.storage_offset(), "requires_grad": bool(obj.requires_grad), "hex": raw_bytes(obj).hex(),
                "storage": sid}
    if isinstance(obj, (set, frozenset)):
        return {"kind": "set", "items": [describe_value(v, storages) for v in obj]}
    if isinstance(obj, tuple):  # torch.Size too
        return {"kind": "tuple", "items": [describe_value(v, storages) for v in obj]}
    if isinstance(obj, list):
        return {"kind": "list", "items": [describe_value(v, storages) for v in obj]}
    if isinstance(obj, dict):
        return {"kind": "dict", "ordered": isinstance(obj, collections.OrderedDict),
                "items": [[describe_value(k, storages), describe_value(v, storages)] for k, v in obj.items()]}
    raise TypeError(type(obj))


def shape_tutorial():
    """PyTorch's tutorial checkpoint (Saving and loading a general checkpoint) after one Adam step."""
    torch.manual_seed(3)
    m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    loss = m(torch.randn(5, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"epoch": 5, "model_state_dict": m.state_dict(), "optimizer_state_dict": opt.state_dict(),
            "loss": loss.item()}


def shape_tensor_list():
    t = torch.arange(6.0).reshape(2, 3)
    return [t, t[1], torch.ones(2, dtype=torch.int64)]


def shape_leaves():
    return [None, True, False, -7, 2**70, -(2**65), 0.1, math.inf, "snow\u2603", b"raw", torch.Size([2, 3]),
            torch.float16, torch.device("cuda", 1), torch.device("cpu"), {1, 2, 3}, frozenset({"x"}),
            {1: "int key", (1, 2): "tuple key"}]


def shape_state_dict():
    """A module's state_dict(): an OrderedDict with _metadata (glia keeps the entries only)."""
    torch.manual_seed(4)
    m = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    m(torch.randn(4, 3))
    sd = m.state_dict()
    assert hasattr(sd, "_metadata")
    return sd


def shape_dict_of_lists():
    w = torch.linspace(-2, 2, 6).reshape(3, 2)
    return {
        "runs": [{"name": "a", "weights": [w, w[1:]], "score": 0.5, "tags": ["x", "y"]},
                 {"name": "b\n\\ \u00e9", "weights": [], "score": None, "tags": []}],
        "dtypes": list(DTYPES)[:8],  # glia 0.1's dtypes: the committed files predate int8/int16
        "devices": [torch.device("cpu"), torch.device("cuda", 0), torch.device("cuda", 1)],
        "size": torch.Size([4, 0, 2]),
    }


def shape_dtype_tensors():
    return list(dtypes_dict().values())


# The top-level objects of the wild-checkpoints issue. The first seven are also
# value_<name>_{zip,legacy}.pt at pickle protocol 2 (their first files).
SHAPES = collections.OrderedDict([
    ("bare_tensor", lambda: torch.linspace(-1, 1, 5, dtype=torch.float64)),
    ("parameter", lambda: torch.nn.Parameter(torch.ones(3))),
    ("tensor_list", shape_tensor_list),
    ("tensor_tuple", lambda: (torch.arange(6.0).reshape(2, 3).t(), torch.tensor(True))),
    ("nested", lambda: {"layers": [{"w": torch.arange(6.0).reshape(2, 3), "n": 1}, {"w": torch.zeros(1), "n": 2}],
                        "meta": ("a", b"\x00\xff", None)}),
    ("leaves", shape_leaves),
    ("tutorial", shape_tutorial),
    ("size", lambda: torch.Size([2, 3, 0])),
    ("dtype", lambda: torch.bfloat16),
    ("device", lambda: torch.device("cuda", 0)),
    ("state_dict", shape_state_dict),
    ("dict_of_lists", shape_dict_of_lists),
    ("dtype_tensors", shape_dtype_tensors),
])
FIRST_SHAPES = list(SHAPES)[:7]


class BigEndianSys:
    """sys as torch.serialization sees it on a big-endian machine (sys_info's little_endian)."""

    def __getattr__(self, name):
        return "big" if name == "byteorder" else getattr(sys, name)


def save_legacy_big(obj, path, protocol):
    """The legacy file a big-endian machine writes: sys_info says little_endian=False; the
    storages are little-endian all the same (THPStorage_writeFileRaw swaps to little)."""
    real = torch.serialization.sys
    torch.serialization.sys = BigEndianSys()
    try:
        torch.save(obj, path, _use_new_zipfile_serialization=False, pickle_protocol=protocol)
    finally:
        torch.serialization.sys = real
    assert b"little_endian" in open(path, "rb").read()


TEXT_PID = re.compile(r"\('storage', <class 'torch\.(\w+)'>, '(\w+)', ")


def zip_big_endian(src, dst):
    """The zip a big-endian machine writes (torch >= 2.0 records it): a <archive>/byteorder
    entry "big", and every storage's elements byte-swapped. Works for every protocol."""
    with zipfile.ZipFile(src) as z:
        pkl_name = [n for n in z.namelist() if n.endswith("/data.pkl")][0]
        pkl = z.read(pkl_name)
    sizes = {}

    class Reader(pickle.Unpickler):
        def find_class(self, module, name):
            return getattr(__import__(module, fromlist=[name]), name)

        def persistent_load(self, pid):
            if isinstance(pid, str):  # protocol 0: the str() of the tuple
                typename, key = TEXT_PID.match(pid).groups()
                cls = getattr(torch, typename)
            else:
                cls, key = pid[1], pid[2]
            sizes[key] = torch.tensor([], dtype=cls().dtype).element_size()
            return cls()

    try:
        Reader(io.BytesIO(pkl)).load()
    except Exception:  # noqa: BLE001 (empty storages may not rebuild; the sizes are known by then)
        pass
    src_dir = pkl_name.split("/")[0]
    dst_dir = os.path.splitext(os.path.basename(dst))[0]

    def change(name, data):
        if "/data/" in name:
            n = sizes[name.rsplit("/", 1)[1]]
            data = b"".join(data[i : i + n][::-1] for i in range(0, len(data), n))
        return dst_dir + name[len(src_dir):], data

    rewrite_zip(src, dst, change)
    with zipfile.ZipFile(dst, "a") as z:
        z.writestr(dst_dir + "/byteorder", b"big")


def value_files():
    """Every top-level shape with every pickle protocol in both layouts, and big-endian files.
    Returns the "values" section of expected.json."""
    values = {}
    folder = os.path.join(OUT, "shapes")
    os.makedirs(folder, exist_ok=True)

    def write(name, obj, legacy, protocol, big=False):
        path = os.path.join(OUT, name)
        if big and legacy:
            save_legacy_big(obj, path, protocol)
        elif big:
            tmp = path + ".little"
            torch.save(obj, tmp, pickle_protocol=protocol)
            zip_big_endian(tmp, path)
            os.remove(tmp)
        else:
            torch.save(obj, path, _use_new_zipfile_serialization=not legacy, pickle_protocol=protocol)

    firsts = {}  # shape -> the first file written with it: the others refer to its value
    for shape, make in SHAPES.items():
        for protocol in range(6):
            for layout in ("zip", "legacy"):
                if protocol == 2 and shape in FIRST_SHAPES:
                    name = "value_%s_%s.pt" % (shape, layout)
                else:
                    name = "shapes/p%d_%s_%s.pt" % (protocol, shape, layout)
                obj = make()
                write(name, obj, layout == "legacy", protocol)
                desc = describe_value(obj, {})
                if shape not in firsts:
                    firsts[shape] = name
                    values[name] = desc
                else:
                    assert desc == values[firsts[shape]], name
                    values[name] = firsts[shape]
    # Big-endian machines' files, protocols 2 and 4 (no FRAME and FRAMEs).
    for shape in ("bare_tensor", "tensor_list", "tutorial", "dtype_tensors"):
        for protocol in (2, 4):
            for layout in ("zip", "legacy"):
                name = "shapes/p%d_%s_%s_big.pt" % (protocol, shape, layout)
                write(name, SHAPES[shape](), layout == "legacy", protocol, big=True)
                values[name] = firsts[shape]
    return values


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

    # Protocol 0 (text persistent ids, which torch.load itself cannot read), protocol 2,
    # and big-endian files of every protocol in both layouts.
    for p in (0, 2):
        add("protocol%d_zip.pt" % p, protocol_dict(), protocol=p)
        add("protocol%d_legacy.pt" % p, protocol_dict(), legacy=True, protocol=p)
    for p in range(6):
        name = "protocol%d_big_zip.pt" % p
        zip_big_endian(os.path.join(OUT, "protocol%d_zip.pt" % p), os.path.join(OUT, name))
        files[name] = files["protocol%d_zip.pt" % p]
        name = "protocol%d_big_legacy.pt" % p
        save_legacy_big(protocol_dict(), os.path.join(OUT, name), p)
        files[name] = files["protocol%d_legacy.pt" % p]
    # A state dict written on a big-endian machine in the legacy layout.
    save_legacy_big(d, os.path.join(OUT, "dtypes_big_legacy.pt"), 2)
    files["dtypes_big_legacy.pt"] = files["dtypes_legacy.pt"]

    values = value_files()
    hostile = hostile_files()
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"files": files, "hostile": hostile, "values": values}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
