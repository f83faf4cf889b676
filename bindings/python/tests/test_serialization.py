"""glia.save / glia.load: both formats, files torch wrote, errors."""

import collections
import json
import os

import numpy as np
import pytest

import glia

from _repo import ROOT

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = ROOT
TORCH_CKPT = os.path.join(REPO, "tests", "golden", "checkpoints", "torch")
_NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
       "int32": np.int32, "uint8": np.uint8, "bool": np.bool_, "int8": np.int8, "int16": np.int16}


def small_state():
    return collections.OrderedDict([
        ("weight", glia.arange(6, dtype=glia.float32).reshape(2, 3) / 4),
        ("bias", glia.tensor([1, -2])),
        ("mask", glia.tensor([True, False, True])),
        ("half", glia.tensor([0.5, -1.25], dtype=glia.float16)),
    ])


def assert_same(a, b):
    assert list(a) == list(b)
    for k in a:
        assert a[k].dtype is b[k].dtype and a[k].shape == b[k].shape, k
        assert a[k].tolist() == b[k].tolist(), k


@pytest.mark.parametrize("fmt", ["safetensors", "torch"])
def test_round_trip(tmp_path, fmt):
    sd = small_state()
    sd["bf"] = glia.tensor([1.5, -2.0], dtype=glia.bfloat16)
    sd["i8"] = glia.tensor([-128, 127, -1], dtype=glia.int8)
    sd["i16"] = glia.tensor([[-32768, 32767], [300, -2]], dtype=glia.int16)
    sd["view"] = glia.arange(12.0).reshape(3, 4).t()[1:]  # strided: saved by value
    p = tmp_path / ("m." + ("safetensors" if fmt == "safetensors" else "pt"))
    glia.save(sd, p, format=fmt)
    out = glia.load(p)
    assert isinstance(out, collections.OrderedDict)
    assert_same(sd, out)


def test_plain_dict_and_metadata(tmp_path):
    p = str(tmp_path / "m.safetensors")
    glia.save({"a": glia.ones(2)}, p, metadata={"format": "pt", "note": "hi"})
    assert glia.load(p)["a"].tolist() == [1.0, 1.0]
    assert glia.load_metadata(p) == {"format": "pt", "note": "hi"}
    with pytest.raises(ValueError, match="metadata"):
        glia.save({"a": glia.ones(2)}, str(tmp_path / "m.pt"), format="torch", metadata={"a": "b"})


def test_torch_format_is_byte_identical_to_torch_save(tmp_path):
    # golden/small_state.pt was written by torch.save (golden/gen_serialization_golden.py); the zip's
    # folder is named after the file, so glia writes under the same name.
    p = tmp_path / "small_state.pt"
    glia.save(small_state(), p, format="torch")
    with open(p, "rb") as f, open(os.path.join(HERE, "golden", "small_state.pt"), "rb") as g:
        assert f.read() == g.read()


def test_load_file_torch_wrote():
    assert_same(glia.load(os.path.join(HERE, "golden", "small_state.pt")), small_state())


@pytest.mark.parametrize("name", ["checkpoint_zip.pt", "dtypes_zip.pt", "dtypes_legacy.pt", "module_zip.pt",
                                  "module_legacy.pt", "int_dtypes_zip.pt", "int_dtypes_legacy.pt",
                                  "int_dtypes_big.pt"])
def test_load_repository_torch_checkpoints(name):
    with open(os.path.join(TORCH_CKPT, "expected.json")) as f:
        expected = json.load(f)["files"][name]["entries"]
    sd = glia.load(os.path.join(TORCH_CKPT, name), flatten=True)  # the flattened view of any checkpoint
    assert sorted(sd) == sorted(expected)
    for key, e in expected.items():
        t = sd[key]
        assert str(t.dtype) == "torch." + e["dtype"], key
        assert list(t.shape) == e["shape"], key
        assert t.requires_grad == e["requires_grad"], key
        if e["dtype"] == "bfloat16":
            raw = t.contiguous().view(-1).to(glia.float32)  # compare through float32
            want = np.frombuffer(bytes.fromhex(e["hex"]), dtype=np.uint16).astype(np.uint32) << 16
            want = want.view(np.float32)
            if t.numel():
                np.testing.assert_array_equal(raw.numpy().reshape(-1), want.reshape(-1)[: t.numel()])
            continue
        if e["dtype"] not in _NP:
            continue
        want = np.frombuffer(bytes.fromhex(e["hex"]), dtype=_NP[e["dtype"]])
        got = t.detach().contiguous().numpy().reshape(-1)
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8)[: got.nbytes], err_msg=key)


def test_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        glia.load(str(tmp_path / "missing.safetensors"))
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"this is not a checkpoint at all")
    with pytest.raises(RuntimeError, match="neither a safetensors file nor a PyTorch checkpoint"):
        glia.load(bad)
    trunc = tmp_path / "trunc.safetensors"
    glia.save({"a": glia.ones(100)}, trunc)
    trunc.write_bytes(trunc.read_bytes()[:-50])
    with pytest.raises(RuntimeError):
        glia.load(trunc)
    with pytest.raises(TypeError, match="the value of key 'epoch' is int, not a Tensor"):
        glia.save({"w": glia.ones(1), "epoch": 3}, str(tmp_path / "x.safetensors"))
    with pytest.raises(TypeError, match="keys must be str"):
        glia.save({1: glia.ones(1)}, str(tmp_path / "x.safetensors"))
    with pytest.raises(TypeError, match="state dict"):
        glia.save([glia.ones(1)], str(tmp_path / "x.safetensors"))
    with pytest.raises(ValueError, match="format"):
        glia.save({"a": glia.ones(1)}, str(tmp_path / "x"), format="pickle")
    with pytest.raises(OSError):
        glia.save({"a": glia.ones(1)}, str(tmp_path / "no" / "dir" / "x.safetensors"))


def test_loaded_tensors_are_writable_and_independent(tmp_path):
    p = tmp_path / "m.safetensors"
    glia.save({"a": glia.zeros(3)}, p)
    a = glia.load(p)["a"]
    a[0] = 5.0  # a private mapping: the file does not change
    assert glia.load(p)["a"].tolist() == [0.0, 0.0, 0.0]


# ---- objects of any shape: glia.load gives what torch.load(weights_only=True) gives ----

WRITTEN = os.path.join(REPO, "tests", "golden", "checkpoints", "glia_written")


def _check_like_json(got, want, where):
    """`got` (glia.load's object) against the generator's JSON form of torch.load's object."""
    k = want["kind"]
    if k == "none":
        assert got is None, where
    elif k == "bool":
        assert got is want["value"], where
    elif k == "int":
        assert type(got) is int and got == want["value"], where
    elif k == "big_int":
        assert type(got) is int and got == int.from_bytes(bytes.fromhex(want["hex"]), "little", signed=True), where
    elif k == "float":
        assert type(got) is float and (got == float(want["value"]) or (got != got and want["value"] == "nan")), where
    elif k == "str":
        assert got == want["value"] and type(got) is str, where
    elif k == "bytes":
        assert got == bytes.fromhex(want["hex"]) and type(got) is bytes, where
    elif k == "dtype":
        assert str(got) == "torch." + want["value"], where
    elif k == "device":
        assert str(got) == want["value"], where
    elif k == "tensor":
        assert isinstance(got, glia.Tensor), where
        assert str(got.dtype) == "torch." + want["dtype"] and list(got.shape) == want["shape"], where
        assert got.requires_grad == want["requires_grad"], where
        raw = got.detach().contiguous().numpy().reshape(-1).view(np.uint8).tobytes() if want["dtype"] != "bfloat16" \
            else None
        if raw is not None:
            assert raw.hex() == want["hex"], where
    elif k == "set":
        assert type(got) is set and len(got) == len(want["items"]), where
    elif k in ("list", "tuple"):
        assert type(got) is (list if k == "list" else tuple), (where, type(got))
        assert len(got) == len(want["items"]), where
        for i, (g, w) in enumerate(zip(got, want["items"])):
            _check_like_json(g, w, "%s[%d]" % (where, i))
    elif k == "dict":
        assert isinstance(got, dict), where
        if "ordered" in want:  # a state dict's OrderedDict stays one (its _metadata is not kept)
            assert (type(got) is collections.OrderedDict) == want["ordered"], (where, type(got))
        assert len(got) == len(want["items"]), where
        for i, ((gk, gv), (wk, wv)) in enumerate(zip(got.items(), want["items"])):
            _check_like_json(gk, wk, "%s key %d" % (where, i))
            _check_like_json(gv, wv, "%s[%r]" % (where, gk))
    else:
        raise AssertionError((where, k))


def _value_files():
    with open(os.path.join(TORCH_CKPT, "expected.json")) as f:
        return json.load(f)["values"]


@pytest.mark.parametrize("name", sorted(_value_files()))
def test_load_gives_torchs_object(name):
    want = _value_files()[name]
    if isinstance(want, str):  # the same object as another file (another protocol, layout or byte order)
        want = _value_files()[want]
    _check_like_json(glia.load(os.path.join(TORCH_CKPT, name)), want, name)
    with open(os.path.join(TORCH_CKPT, name), "rb") as f:  # a file object
        _check_like_json(glia.load(f), want, name)


def _hostile_cases():
    with open(os.path.join(TORCH_CKPT, "expected.json")) as f:
        return [c for c in json.load(f)["hostile"] if not c.get("dict_only")]


@pytest.mark.parametrize("case", _hostile_cases(), ids=lambda c: c["file"])
def test_hostile_files_are_refused_and_nothing_runs(tmp_path, monkeypatch, case):
    # The payloads would create this file in the working directory (gen_torch_files.py's MARKER).
    monkeypatch.chdir(tmp_path)
    path = os.path.join(TORCH_CKPT, case["file"])
    with open(path, "rb") as f:
        for src in (path, f):  # a path, and a binary file object
            with pytest.raises(RuntimeError) as e:
                glia.load(src)
            assert case["message"] in str(e.value)
            assert case.get("at", "") in str(e.value)
    assert not (tmp_path / "glia-hostile-ran").exists()


def test_nested_checkpoint_comes_back_nested():
    ckpt = glia.load(os.path.join(TORCH_CKPT, "value_tutorial_zip.pt"))
    assert type(ckpt) is dict and list(ckpt) == ["epoch", "model_state_dict", "optimizer_state_dict", "loss"]
    assert type(ckpt["model_state_dict"]) is collections.OrderedDict  # state_dict() is an OrderedDict
    flat = glia.load(os.path.join(TORCH_CKPT, "value_tutorial_zip.pt"), flatten=True)
    assert "model_state_dict.0.weight" in flat or any(k.startswith("model_state_dict.") for k in flat)
    assert flat["epoch"].item() == ckpt["epoch"]


def _f32_formula(shape, k):
    n = int(np.prod(shape))
    return glia.tensor([((i * 7 + k * 3) % 23 - 11) / 16.0 for i in range(n)], dtype=glia.float32).reshape(*shape)


def _tutorial():
    return {
        "epoch": 5,
        "model_state_dict": collections.OrderedDict([("fc.weight", _f32_formula((2, 3), 2)),
                                                     ("fc.bias", _f32_formula((2,), 3))]),
        "optimizer_state_dict": {
            "state": {0: {"step": glia.tensor(3.0), "exp_avg": _f32_formula((2, 3), 4),
                          "exp_avg_sq": _f32_formula((2, 3), 5)}},
            "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0, "amsgrad": False,
                              "maximize": False, "foreach": None, "capturable": False, "params": [0, 1]}],
        },
        "loss": 0.3,
    }


def _value_list():
    a = _f32_formula((4,), 1)
    return [a, glia.tensor([5, -1]), a[2:], a]


@pytest.mark.parametrize("name,make", [("value_tensor", lambda: _f32_formula((2, 3), 0)),
                                       ("value_list", _value_list), ("value_tutorial", _tutorial)])
def test_save_any_object_is_torchs_file(tmp_path, name, make):
    # glia_written/<name>.pt: written by glia, loaded by torch 1.13, re-saved by torch.save to the same bytes
    # (tests/golden/checkpoints/verify_glia_written.py). glia.save of the same Python object writes them too.
    p = tmp_path / (name + ".pt")
    glia.save(make(), p)
    with open(p, "rb") as f, open(os.path.join(WRITTEN, name + ".pt"), "rb") as g:
        assert f.read() == g.read()
    # To a file object, torch.save names the zip's folder "archive" (a path gives its stem): the bytes are
    # those of a path named archive.pt, and they load back as the same object.
    import io

    buf = io.BytesIO()
    glia.save(make(), buf)
    glia.save(make(), tmp_path / "archive.pt")
    assert buf.getvalue() == (tmp_path / "archive.pt").read_bytes()
    buf.seek(0)
    _same(make(), glia.load(buf))


def _same(a, b):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, glia.Tensor):
        assert a.dtype is b.dtype and a.shape == b.shape and a.tolist() == b.tolist()
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert a == b


def test_round_trip_any_object_through_a_file_object():
    import io

    leaves = [None, True, 7, -2**63, 2**40, 0.25, "h\u00e9", b"\x00\xff", (), (1, "a"), [], {}, glia.float64,
              glia.int64, glia.device("cpu"), {3: "int key", (1, 2): "tuple key"}, glia.ones(2, 2)]
    flat = collections.OrderedDict(a=glia.ones(2), b=glia.arange(3))  # safetensors, through the _buffer functions
    for obj in [glia.arange(5), [glia.ones(1), glia.zeros(2)], (glia.ones(1),), _tutorial(), leaves, flat]:
        buf = io.BytesIO()
        glia.save(obj, buf)
        buf.seek(0)
        _same(obj, glia.load(buf))


def test_shared_objects_stay_shared(tmp_path):
    t = glia.ones(3)
    s = "shared"
    inner = [1, 2]
    back = glia.load(_saved(tmp_path, [t, t, inner, inner, s, s]))
    assert back[0] is back[1] and back[2] is back[3] and back[4] is back[5]
    back[0][0] = 5.0
    assert back[1][0].item() == 5.0


def _saved(tmp_path, obj, name="x.pt", **kw):
    p = tmp_path / name
    glia.save(obj, p, **kw)
    return p


def test_save_formats_and_errors(tmp_path):
    # A flat dict of tensors: safetensors by default (as before); anything else: torch's format.
    assert _saved(tmp_path, {"a": glia.ones(1)}).read_bytes()[8:9] == b"{"
    assert _saved(tmp_path, {"a": glia.ones(1), "n": 1}).read_bytes()[:2] == b"PK"
    assert _saved(tmp_path, {"a": glia.ones(1)}, format="torch").read_bytes()[:2] == b"PK"
    with pytest.raises(TypeError, match="the value of key 'n' is int, not a Tensor"):
        glia.save({"a": glia.ones(1), "n": 1}, tmp_path / "x.pt", format="safetensors")
    with pytest.raises(TypeError, match="cannot save an object of type object"):
        glia.save({"a": object()}, tmp_path / "x.pt")
    cyc = []
    cyc.append(cyc)
    with pytest.raises(ValueError, match="contains itself"):
        glia.save(cyc, tmp_path / "x.pt")
    with pytest.raises(OverflowError, match="64 bits"):
        glia.save([2**70], tmp_path / "x.pt")
    with pytest.raises(TypeError, match="binary file object"):
        glia.save([1], 3)


def test_the_tutorial_checkpoint_restores_model_and_optimizer(tmp_path):
    # PyTorch's "saving and loading a general checkpoint" recipe, to a path.
    glia.manual_seed(0)
    m = glia.nn.Linear(3, 2)
    opt = glia.optim.Adam(m.parameters(), lr=0.01)
    m(glia.ones(1, 3)).sum().backward()
    opt.step()
    path = tmp_path / "ckpt.pt"
    glia.save({"epoch": 5, "model_state_dict": m.state_dict(), "optimizer_state_dict": opt.state_dict(),
               "loss": 0.3}, path)
    assert path.read_bytes()[:2] == b"PK"  # torch's zip format
    ckpt = glia.load(path)
    m2 = glia.nn.Linear(3, 2)
    opt2 = glia.optim.Adam(m2.parameters(), lr=0.5)
    m2.load_state_dict(ckpt["model_state_dict"])
    opt2.load_state_dict(ckpt["optimizer_state_dict"])
    assert ckpt["epoch"] == 5 and ckpt["loss"] == 0.3
    assert opt2.param_groups[0]["lr"] == 0.01
    assert m2.weight.tolist() == m.weight.tolist()
    s1, s2 = opt.state_dict()["state"][0], opt2.state_dict()["state"][0]
    assert s1["exp_avg"].tolist() == s2["exp_avg"].tolist() and s1["step"].tolist() == s2["step"].tolist()
