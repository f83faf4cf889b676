"""glia.save / glia.load: both formats, files torch wrote, errors."""

import collections
import json
import os

import numpy as np
import pytest

import glia

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
TORCH_CKPT = os.path.join(REPO, "tests", "golden", "checkpoints", "torch")
_NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
       "int32": np.int32, "uint8": np.uint8, "bool": np.bool_}


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
                                  "module_legacy.pt"])
def test_load_repository_torch_checkpoints(name):
    with open(os.path.join(TORCH_CKPT, "expected.json")) as f:
        expected = json.load(f)["files"][name]["entries"]
    sd = glia.load(os.path.join(TORCH_CKPT, name))
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
