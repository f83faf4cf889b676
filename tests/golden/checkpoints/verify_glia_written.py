#!/usr/bin/python3
"""Checks the PyTorch checkpoints glia writes with torch itself, and records the result.

Run from the repository root with Debian's python3-torch (1.13), after building io_tests:

    /usr/bin/python3 tests/golden/checkpoints/verify_glia_written.py [--build build]

1. Runs `<build>/tests/io_tests --gtest_filter=TorchWriteFixtures.*` with
   GLIA_WRITE_TORCH_FIXTURES=<tmp>: glia writes each fixture dict to <tmp>/<name>.pt
   and a manifest of what it wrote (keys, dtypes, shapes, strides, offsets, which
   tensors share a storage, the bytes of each tensor and of each whole storage).
2. Loads each file with torch.load(weights_only=True) and checks, for every tensor:
   key order, dtype, shape, stride, storage offset, storage size, storage sharing
   (storage()._cdata), requires_grad False, and the bytes of the tensor and of its
   whole storage, bit for bit (NaN payloads, -0.0, infinities included); then checks
   a few values again from their definition here, not from the manifest.
3. torch.save's the loaded dict under the same file name and requires the very same
   bytes as glia's file (torch 1.13 writes what glia writes).
4. Copies the files to tests/golden/checkpoints/glia_written/ and writes
   tests/golden/checkpoints/glia_written.json (sha256 of each file, "verified by
   torch <version>"); tests/io/torch_write_test.cpp then requires that writing the
   same dicts gives those bytes.

With --torch-references it also (re)makes two references from torch's own files
(slow: one is 4 GiB on disk for a moment): the sha256 of torch.save of 65540
one-element tensors, and the zip structure of a file with a storage of 4 GiB + 5
bytes (the file with that storage's data cut out: glia_written/torch_zip64_skeleton.bin).
Without it, the references already recorded are kept.
"""
import argparse
import collections
import hashlib
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from golden import DTYPES  # noqa: E402  (glia dtype name -> torch dtype, shared with the golden generators)

OUT_DIR = os.path.join(HERE, "glia_written")
RECORD = os.path.join(HERE, "glia_written.json")



def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def raw(t):
    """The bytes of t's elements, row-major."""
    return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def storage_bytes(t):
    n = t.storage().size()
    return raw(t.as_strided((n,), (1,), 0))


def check_fixture(name, path, manifest):
    sd = torch.load(path, weights_only=True)
    assert type(sd) is collections.OrderedDict, type(sd)
    assert list(sd.keys()) == [m["key"] for m in manifest], (list(sd.keys()), [m["key"] for m in manifest])
    groups = {}
    for m in manifest:
        key = m["key"]
        t = sd[key]
        where = "%s[%r]" % (name, key)
        assert isinstance(t, torch.Tensor) and type(t) is torch.Tensor, where
        assert t.dtype == DTYPES[m["dtype"]], (where, t.dtype, m["dtype"])
        assert list(t.shape) == m["shape"], (where, t.shape, m["shape"])
        assert list(t.stride()) == m["stride"], (where, t.stride(), m["stride"])
        assert t.storage_offset() == m["offset"], (where, t.storage_offset(), m["offset"])
        assert t.storage().size() == m["storage_numel"], (where, t.storage().size(), m["storage_numel"])
        assert not t.requires_grad, where
        assert t.device.type == "cpu", where
        assert raw(t).hex() == m["hex"], (where, raw(t).hex(), m["hex"])
        assert storage_bytes(t).hex() == m["storage_hex"], where
        groups.setdefault(m["storage"], set()).add(t.storage()._cdata)
    for g, cdatas in groups.items():
        assert len(cdatas) == 1, (name, "storage group", g, "is not one storage in torch")
    all_cdatas = [next(iter(c)) for c in groups.values()]
    assert len(set(all_cdatas)) == len(all_cdatas), (name, "distinct glia storages became one in torch")
    return sd


def check_values_from_definition(name, sd):
    """The values again, from their definition (independent of the manifest)."""
    if name == "dtypes":
        f32 = sd["f32"].reshape(-1).tolist()
        assert f32[0] == 0.0 and math.copysign(1, f32[0]) == 1 and math.copysign(1, f32[1]) == -1 and f32[1] == 0
        assert f32[2] == 1.5 and f32[3] == -2.25 and math.isnan(f32[4]) and f32[5] == -math.inf and f32[6] == math.inf
        assert f32[7] == 2.0**-149 and f32[8] == 3.4028234663852886e38 and math.isnan(f32[9])
        assert sd["f32"].view(torch.int32).reshape(-1)[9].item() == 0x7FA00001  # NaN payload kept
        f64 = sd["f64"].tolist()
        assert f64[:3] == [0.0, -0.0, 1.5] and math.copysign(1, f64[1]) == -1 and math.isnan(f64[3])
        assert f64[4] == -math.inf and f64[5] == 5e-324 and math.isnan(f64[6])
        assert sd["f16"].reshape(-1).tolist()[:5] == [0.0, -0.0, 1.0, math.inf, -math.inf]
        assert sd["f16"].reshape(-1)[7].item() == 65504.0
        assert sd["bf16"].reshape(-1).tolist()[2:4] == [1.5, math.inf]
        assert sd["i64"].tolist() == [0, -1, -(2**63), 2**63 - 1, 123456789012]
        assert sd["i32"].tolist() == [0, -1, -(2**31), 2**31 - 1, 7]
        assert sd["u8"].tolist() == [0, 1, 127, 128, 255]
        assert sd["bool"].tolist() == [True, False, True]
        assert sd["scalar"].dim() == 0 and sd["scalar"].item() == 3.25
        assert sd["empty"].shape == (0, 3) and sd["empty_i64"].shape == (0,)
    elif name == "views":
        base = torch.arange(24, dtype=torch.float32) * 0.5 - 3.0
        assert torch.equal(sd["base"], base.view(4, 6))
        assert torch.equal(sd["t"], base.view(4, 6).t()) and not sd["t"].is_contiguous()
        assert torch.equal(sd["slice"], base[5:11:2])
        assert torch.equal(sd["block"], base.view(4, 6)[1:3, 1::2])
        assert torch.equal(sd["expand"], base[8:12].expand(3, 4))
        assert sd["scalar_view"].item() == base[23].item()
        idx = torch.tensor([1000 - 37 * i for i in range(10)])
        assert torch.equal(sd["idx"], idx) and torch.equal(sd["idx_tail"], idx[6:])
        assert sd["part"].tolist() == [203, 204] and sd["part"].storage().size() == 8
        sd["base"][0, 0] = 42  # one storage in torch too: the views see it
        assert sd["t"][0, 0].item() == 42
    elif name == "model":
        k = 0
        for key in ["conv1.weight", "conv1.bias", "bn1.weight", "bn1.bias", "bn1.running_mean"]:
            t = sd[key]
            want = torch.tensor([((i * 7 + k * 3) % 23 - 11) / 16.0 for i in range(t.numel())]).view(t.shape)
            assert torch.equal(t, want), key
            k += 1
        assert sd["bn1.running_var"].tolist() == [0.25, 0.5, 0.75, 1.0]
        assert sd["bn1.num_batches_tracked"].dtype == torch.int64 and sd["bn1.num_batches_tracked"].item() == 7
        for key, shape in [("fc.weight", (10, 16)), ("fc.bias", (10,))]:
            want = torch.tensor([((i * 7 + k * 3) % 23 - 11) / 16.0 for i in range(math.prod(shape))]).view(shape)
            assert torch.equal(sd[key], want), key
            k += 1
        # The state dict loads into the torch modules it names.
        net = torch.nn.Module()
        net.conv1 = torch.nn.Conv2d(3, 4, 3)
        net.bn1 = torch.nn.BatchNorm2d(4)
        net.fc = torch.nn.Linear(16, 10)
        net.load_state_dict(sd, strict=True)
    elif name == "many":
        assert sd["tied"] is sd["w0"]
        order = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.uint8,
                 torch.bool]
        for i in range(12):  # element bits = i + 1 (1 for bool)
            t = sd["w%d" % i]
            assert t.dtype == order[i % 8] and t.shape == (1,)
            want = 1 if t.dtype == torch.bool else i + 1
            assert raw(t) == want.to_bytes(t.element_size(), "little"), ("w%d" % i, raw(t))
    elif name == "single":
        assert sd["x"].tolist() == [1.0]
    elif name == "int_dtypes":
        assert sd["i8"].dtype == torch.int8 and sd["i8"].tolist() == [-128, -1, 0, 1, 127]
        assert sd["i16"].dtype == torch.int16 and sd["i16"].tolist() == [-32768, -1, 0, 1, 32767]
        base = torch.tensor([1000 * i - 2500 for i in range(6)], dtype=torch.int16).view(2, 3)
        assert torch.equal(sd["i16_base"], base) and torch.equal(sd["i16_t"], base.t())
        sd["i16_base"][0, 1] = 7  # one storage in torch too
        assert sd["i16_t"][1, 0].item() == 7
        assert sd["i8_scalar"].dim() == 0 and sd["i8_scalar"].item() == -100
    elif name == "empty_dict":
        assert len(sd) == 0


# ---- value fixtures: glia writes any top-level object (TorchWriteFixtures.ValueBytesMatchWhatTorchVerified) ----

def f32_formula(shape, k):
    n = math.prod(shape)
    return torch.tensor([((i * 7 + k * 3) % 23 - 11) / 16.0 for i in range(n)], dtype=torch.float32).view(shape)


def value_fixtures():
    """The Python objects glia's value fixtures stand for (tests/io/torch_write_test.cpp)."""
    a = f32_formula((4,), 1)
    lst = [a, torch.tensor([5, -1], dtype=torch.int64), a[2:], a]
    step = torch.tensor(3.0)
    tutorial = {
        "epoch": 5,
        "model_state_dict": collections.OrderedDict([("fc.weight", f32_formula((2, 3), 2)),
                                                     ("fc.bias", f32_formula((2,), 3))]),
        "optimizer_state_dict": {
            "state": {0: {"step": step, "exp_avg": f32_formula((2, 3), 4), "exp_avg_sq": f32_formula((2, 3), 5)}},
            "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0, "amsgrad": False,
                              "maximize": False, "foreach": None, "capturable": False, "params": [0, 1]}],
        },
        "loss": 0.3,
    }
    shared = "shared str"
    grad = f32_formula((3,), 6).requires_grad_(True)
    leaves = (None, True, False,
              [0, 255, 256, 65535, 65536, -1, 2**31 - 1, -2**31, 2**31, -2**31 - 1, 2**63 - 1, -2**63],
              2**70, int.from_bytes(b"\xff\xff\xff\xff\xff\xff\xff\x7f\xff", "little", signed=True),
              0.3, -0.0, math.inf, -1.5e300, "h\u00e9llo \u2713", b"", b"\x00\xff abc\x80",
              (), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), [], [shared], shared,
              collections.OrderedDict(), {}, {"one": 1}, {3: "int key", (1, "a"): "tuple key", None: "None key"},
              torch.float32, torch.int64, grad, torch.device("cuda", 1), torch.device("cpu"), {5})
    batches = [list(range(1001)), {"k%d" % i: i for i in range(1000)},
               collections.OrderedDict(("k%d" % i, i) for i in range(1001))]
    return {"value_tensor": f32_formula((2, 3), 0), "value_list": lst, "value_tutorial": tutorial,
            "value_leaves": leaves, "value_batches": batches}


def same(a, b, where="root"):
    """a and b are the same object tree: types, values (floats bit for bit), tensors bit for bit."""
    assert type(a) is type(b), (where, type(a), type(b))
    if isinstance(a, torch.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride(), where
        assert a.storage_offset() == b.storage_offset() and a.requires_grad == b.requires_grad, where
        assert raw(a.detach()) == raw(b.detach()), where
    elif isinstance(a, dict):
        assert list(a.keys()) == list(b.keys()), (where, list(a.keys())[:5], list(b.keys())[:5])
        for k in a:
            same(a[k], b[k], "%s[%r]" % (where, k))
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, "%s[%d]" % (where, i))
    elif isinstance(a, set):
        assert a == b, where
    elif isinstance(a, float):
        assert struct.pack("<d", a) == struct.pack("<d", b), (where, a, b)
    else:
        assert a == b, (where, a, b)


def check_value_fixture(name, path):
    """torch.load of glia's file is the fixture's object; torch.save of it writes glia's bytes."""
    want = value_fixtures()[name]
    # torch 1.13's weights_only unpickler lacks some opcodes torch.save itself writes
    # (BINFLOAT for floats; bytes, sets and devices go through globals it does not
    # allow): where it refuses glia's file, it refuses torch.save's file of the
    # same object in the same way, and the plain unpickler checks the values.
    try:
        got = torch.load(path, weights_only=True)
        weights_only = True
    except Exception as e:  # noqa: BLE001
        buf = __import__("io").BytesIO()
        torch.save(want, buf)
        buf.seek(0)
        try:
            torch.load(buf, weights_only=True)
            raise AssertionError("%s: weights_only refuses glia's file (%s) but reads torch's" % (name, e))
        except AssertionError:
            raise
        except Exception as e2:  # noqa: BLE001
            assert str(e2) == str(e), (name, str(e2), str(e))
        got = torch.load(path)
        weights_only = False
    same(want, got, name)
    if name == "value_list":  # sharing: one tensor twice, a view of its storage
        assert got[0] is got[3] and got[2].storage()._cdata == got[0].storage()._cdata
    if name == "value_leaves":
        assert got[20] is got[19][0]  # the same str object twice
    return got, weights_only


def torch_references(tmp):
    refs = {}
    # 65540 one-element int32 tensors: more than 65535 zip entries, memo past 255, SETITEMS batches.
    sd = collections.OrderedDict(("t%d" % i, torch.tensor([i], dtype=torch.int32)) for i in range(65540))
    path = os.path.join(tmp, "many.pt")
    torch.save(sd, path)
    refs["many_entries"] = {"made_by": "torch.save of OrderedDict(t<i>=tensor([i], int32) for i < 65540) to many.pt",
                            "sha256": sha256(path), "bytes": os.path.getsize(path)}
    os.remove(path)
    # One storage of 4 GiB + 5 bytes (zeros, then 7 as the last byte), then a small one.
    n = (1 << 32) + 5
    sd = collections.OrderedDict()
    sd["big"] = torch.zeros(n, dtype=torch.uint8)
    sd["big"][-1] = 7
    sd["small"] = torch.arange(3, dtype=torch.int32)
    path = os.path.join(tmp, "big.pt")
    torch.save(sd, path)
    del sd
    info = zipfile.ZipFile(path).getinfo("big/data/0")
    with open(path, "rb") as f:
        f.seek(info.header_offset)
        head = f.read(30)
        name_len, extra_len = struct.unpack_from("<HH", head, 26)
        data_offset = info.header_offset + 30 + name_len + extra_len
        assert info.file_size == n
        f.seek(0)
        skeleton = f.read(data_offset)
        f.seek(data_offset + n)
        skeleton += f.read()
    os.remove(path)
    out = os.path.join(OUT_DIR, "torch_zip64_skeleton.bin")
    with open(out, "wb") as f:
        f.write(skeleton)
    refs["zip64_storage"] = {
        "made_by": "torch.save of OrderedDict(big=uint8 zeros of 4 GiB + 5 with 7 last, small=arange(3, int32)) to "
                   "big.pt, with big's data cut out",
        "skeleton": "glia_written/torch_zip64_skeleton.bin", "skeleton_sha256": sha256(out),
        "data_offset": data_offset, "data_bytes": n}
    return refs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="the CMake build folder with tests/io_tests")
    ap.add_argument("--torch-references", action="store_true", help="remake the references from torch's own files")
    args = ap.parse_args()
    exe = os.path.join(args.build, "tests", "io_tests")
    with tempfile.TemporaryDirectory() as tmp:
        written = os.path.join(tmp, "glia")
        os.mkdir(written)
        env = dict(os.environ, GLIA_WRITE_TORCH_FIXTURES=written)
        subprocess.run([exe, "--gtest_filter=TorchWriteFixtures.*"], env=env, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(written, "manifest.json")) as f:
            manifest = json.load(f)
        files = {}
        for name, tensors in manifest.items():
            path = os.path.join(written, name + ".pt")
            sd = check_fixture(name, path, tensors)
            check_values_from_definition(name, check_fixture(name, path, tensors))
            # torch.save of what torch read writes glia's bytes again.
            again = os.path.join(tmp, "again")
            os.makedirs(again, exist_ok=True)
            torch.save(sd, os.path.join(again, name + ".pt"))
            with open(path, "rb") as a, open(os.path.join(again, name + ".pt"), "rb") as b:
                identical = a.read() == b.read()
            assert identical, "%s: torch.save of the loaded dict writes other bytes than glia" % name
            files[name + ".pt"] = {"sha256": sha256(path), "bytes": os.path.getsize(path),
                                   "tensors": len(tensors), "byte_identical_to_torch_save": identical}
            print("%-12s %6d bytes, %2d tensors: loaded by torch %s, equal bit for bit, same bytes as torch.save"
                  % (name, os.path.getsize(path), len(tensors), torch.__version__))
        value_files = {}
        for name in value_fixtures():
            path = os.path.join(written, name + ".pt")
            got, weights_only = check_value_fixture(name, path)
            again = os.path.join(tmp, "again", name + ".pt")
            torch.save(got, again)
            with open(path, "rb") as a, open(again, "rb") as b:
                identical = a.read() == b.read()
            assert identical, "%s: torch.save of the loaded object writes other bytes than glia" % name
            value_files[name + ".pt"] = {"sha256": sha256(path), "bytes": os.path.getsize(path),
                                         "equal_to_definition": True, "byte_identical_to_torch_save": identical,
                                         "torch_load_weights_only": weights_only}
            print("%-14s %6d bytes: torch.load%s gives the object, same bytes as torch.save"
                  % (name, os.path.getsize(path), "(weights_only=True)" if weights_only else " (weights_only refuses "
                     "torch.save's own file too)"))
        if os.path.isdir(OUT_DIR):
            for f in os.listdir(OUT_DIR):
                if f.endswith(".pt"):
                    os.remove(os.path.join(OUT_DIR, f))
        os.makedirs(OUT_DIR, exist_ok=True)
        for name in list(manifest) + list(value_fixtures()):
            shutil.copy(os.path.join(written, name + ".pt"), os.path.join(OUT_DIR, name + ".pt"))
        old = {}
        if os.path.exists(RECORD):
            with open(RECORD) as f:
                old = json.load(f)
        refs = torch_references(tmp) if args.torch_references else old.get("torch_references")
        if refs is None:
            sys.exit("no torch references recorded yet: run with --torch-references")
    record = {
        "verified": "verified by torch %s (torch.load(weights_only=True), values bit for bit, "
                    "byte-identical to torch.save of the loaded dict)" % torch.__version__,
        "script": "tests/golden/checkpoints/verify_glia_written.py",
        "files": files,
        "value_files": value_files,
        "torch_references": refs,
    }
    with open(RECORD, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    print("recorded", os.path.relpath(RECORD))


if __name__ == "__main__":
    main()
