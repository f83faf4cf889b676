"""Tensor basics: construction, metadata, conversion, lifetimes and factories' options."""

import copy
import gc
import pickle

import numpy as np
import pytest

import glia
from glia import _ffi


def _live_tensors():
    stats = _ffi.glia_memory_stats()
    stats.struct_size = _ffi.ctypes.sizeof(stats)
    _ffi.check(_ffi.C.glia_memory_stats_get(_ffi.ctypes.byref(stats)))
    return stats.bytes_in_use


def test_tensor_released_when_dropped():
    gc.collect()
    before = _live_tensors()
    t = glia.zeros(1 << 20)  # 4 MiB
    assert _live_tensors() >= before + (4 << 20)
    del t
    gc.collect()
    assert _live_tensors() <= before


def test_wrap_steals_one_reference():
    t = glia.ones(2)
    _ffi.check(_ffi.C.glia_tensor_retain(t._h))
    u = glia.Tensor._wrap(t._h)  # takes over the extra reference
    del t
    assert u.tolist() == [1.0, 1.0]


def test_dtype_inference_like_torch():
    assert glia.tensor([1, 2]).dtype is glia.int64
    assert glia.tensor([1, 2.0]).dtype is glia.float32
    assert glia.tensor([True, False]).dtype is glia.bool
    assert glia.tensor([True, 2]).dtype is glia.int64
    assert glia.tensor(3).dtype is glia.int64 and glia.tensor(3).shape == ()
    assert glia.tensor([]).dtype is glia.float32
    assert glia.tensor([[1, 2]], dtype=glia.float64).dtype is glia.float64
    assert glia.tensor([1.5], dtype=glia.bfloat16).dtype is glia.bfloat16
    assert glia.tensor([glia.tensor(1.0), glia.tensor(2.0)]).tolist() == [1.0, 2.0]
    x = glia.tensor([1.0], requires_grad=True)
    c = glia.tensor(x)
    assert not c.requires_grad and c.data_ptr() != x.data_ptr()


def test_factories_options():
    z = glia.zeros((2, 3), dtype=glia.float64, requires_grad=True)
    assert z.dtype is glia.float64 and z.requires_grad and z.is_leaf
    assert glia.empty(2, 3).shape == (2, 3)
    assert glia.full((2,), 3).dtype is glia.int64 and glia.full((2,), 3.0).dtype is glia.float32
    assert glia.ones_like(z).dtype is glia.float64 and not glia.ones_like(z).requires_grad
    assert glia.full_like(z, 2).tolist() == [[2.0] * 3] * 2
    assert glia.arange(3).dtype is glia.int64 and glia.arange(3.0).dtype is glia.float32
    assert glia.zeros(2, device="cpu").device == glia.device("cpu")
    with pytest.raises(RuntimeError):
        glia.zeros(-1)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        glia.zeros(2.5)


def test_metadata():
    t = glia.zeros(2, 3, 4)
    assert t.ndim == t.dim() == 3 and t.numel() == 24
    assert t.size() == (2, 3, 4) and t.size(-1) == 4 and t.stride() == (12, 4, 1) and t.stride(0) == 12
    assert t.is_contiguous() and not t.transpose(0, 2).is_contiguous()
    assert t[1].storage_offset() == 12
    assert t.element_size() == 4 and t.is_floating_point() and t.device.type == "cpu"


def test_conversions():
    t = glia.tensor([1.7, -2.7])
    assert t.long().tolist() == [1, -2] and t.int().dtype is glia.int32
    assert t.bool().tolist() == [True, True] and t.double().dtype is glia.float64
    assert t.half().float().tolist() == pytest.approx([1.7, -2.7], rel=1e-3)
    assert t.to(glia.float32) is not None and t.to("cpu").dtype is glia.float32
    assert t.to(glia.zeros(1, dtype=glia.int64)).dtype is glia.int64
    assert t.to(dtype=glia.float64, copy=True).dtype is glia.float64
    c = t.clone()
    c[0] = 0
    assert t[0].item() == pytest.approx(1.7)
    d = t.detach()
    d[0] = 5
    assert t[0].item() == 5.0
    assert t.type() == "torch.FloatTensor"


def test_detach_and_data():
    x = glia.ones(2, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    x.data.fill_(3)
    assert x.tolist() == [3.0, 3.0] and x.requires_grad


def test_pickle_and_deepcopy():
    t = glia.tensor([[1.0, 2.0]], requires_grad=True)
    u = pickle.loads(pickle.dumps(t))
    assert u.tolist() == t.tolist() and u.requires_grad
    v = copy.deepcopy(t)
    assert v.tolist() == t.tolist() and v.data_ptr() != t.data_ptr()
    assert pickle.loads(pickle.dumps(glia.float16)) is glia.float16


def test_tensor_constructor():
    assert glia.Tensor(2, 3).shape == (2, 3)
    assert glia.Tensor([1, 2]).dtype is glia.float32
    assert isinstance(glia.ones(1), glia.Tensor)


def test_tolist_and_item_types():
    assert glia.tensor([1, 2]).tolist() == [1, 2] and isinstance(glia.tensor([1]).tolist()[0], int)
    assert glia.tensor(True).item() is True
    assert glia.tensor([1.5], dtype=glia.bfloat16).tolist() == [1.5]
    assert isinstance(glia.tensor(2.0).item(), float)
    assert np.isnan(glia.tensor(float("nan")).item())


def test_int8_int16_as_torch():
    # Values, reprs and promotions from torch 1.13.
    a = glia.tensor([-128, 127, 5], dtype=glia.int8)
    b = glia.tensor([1, 2, 3], dtype=glia.uint8)
    assert glia.short is glia.int16 and repr(glia.int8) == "torch.int8"
    assert a.type() == "torch.CharTensor" and a.short().type() == "torch.ShortTensor"
    assert repr(a) == "tensor([-128,  127,    5], dtype=torch.int8)"
    assert repr(a.short() * 300) == "tensor([ 27136, -27436,   1500], dtype=torch.int16)"  # -38400 wraps
    assert (a + b).dtype is glia.int16 and (a + b).tolist() == [-127, 129, 8]
    assert (a + 1).dtype is glia.int8 and (a + 1).tolist() == [-127, -128, 6]
    assert (a * 1.5).dtype is glia.float32
    assert (a + glia.tensor(True)).dtype is glia.int8
    assert a.sum().dtype is glia.int64 and a.sum().item() == 4
    assert isinstance(a[0].item(), int) and a[0].item() == -128
    assert glia.tensor([300.7, -1.5]).to(glia.int8).tolist() == [44, -1]
    assert glia.tensor([1, 2], dtype=glia.int16).numpy().dtype == np.int16
    assert glia.tensor(np.array([-3, 4], dtype=np.int8)).dtype is glia.int8
    with pytest.raises(IndexError, match="tensors used as indices must be long"):
        a[glia.tensor([0], dtype=glia.int8)]


@pytest.mark.parametrize("values,dt,want", [
    ([-128.0, 127], glia.int8, [-128, 127]), ([True, 2], glia.int8, [1, 2]), ([1.5, -2.5], glia.int32, [1, -2]),
    ([-1], glia.uint8, [255]), ([-255], glia.uint8, [1]), (3, glia.int16, 3),
    ([300.5], glia.int8, None), ([127.9], glia.int8, None), ([float("nan")], glia.int8, None),
    ([2**40], glia.int32, None), ([-256], glia.uint8, None), ([-0.5], glia.uint8, None),
    ([[1, 2], [3, 40000]], glia.int16, None), (300, glia.int8, None)])
def test_tensor_from_python_numbers_checks_integer_range_as_torch(values, dt, want):
    # torch 1.13's torch.tensor(values, dtype=dt): a number out of the dtype's range is an error, not a wrap.
    if want is None:
        with pytest.raises(RuntimeError, match="^value cannot be converted to type %s without overflow$" % dt._name):
            glia.tensor(values, dtype=dt)
    else:
        assert glia.tensor(values, dtype=dt).tolist() == want


def test_conversion_methods_take_memory_format_and_to_takes_positional_flags():
    x = glia.tensor([[1.5, -2.0], [3.0, 4.0]])
    for name, dt in [("float", glia.float32), ("double", glia.float64), ("half", glia.float16),
                     ("bfloat16", glia.bfloat16), ("int", glia.int32), ("long", glia.int64),
                     ("byte", glia.uint8), ("bool", glia.bool), ("char", glia.int8), ("short", glia.int16)]:
        for fmt in (glia.preserve_format, glia.contiguous_format):
            assert getattr(x, name)(memory_format=fmt).dtype == dt
    with pytest.raises(RuntimeError, match="^required rank 4 tensor to use channels_last format$"):
        x.double(memory_format=glia.channels_last)
    with pytest.raises(TypeError, match="memory_format"):
        x.double(memory_format=3)
    # torch: to(dtype, non_blocking, copy), to(device, dtype, non_blocking, copy), to(other, non_blocking, copy)
    y = x.to(glia.float64, False, True)
    assert y.dtype == glia.float64
    z = x.to("cpu", glia.float32, False, True)
    assert z.dtype == glia.float32 and z is not x
    z[0, 0] = 7.0
    assert x[0, 0].item() == 1.5  # copy=True copied
    assert x.to(x, False).dtype == glia.float32
    assert x.to(glia.float64, memory_format=glia.preserve_format).dtype == glia.float64
    with pytest.raises(TypeError):
        x.to(glia.float64, False, True, True)
    # Nothing to change: torch returns the tensor itself, unless copy=True.
    assert x.to(glia.float32) is x and x.to("cpu", glia.float32, False) is x and x.to(x) is x
    assert x.to(glia.float32, True) is x and x.to(glia.float32, False, True) is not x
    with pytest.raises(TypeError):
        x.to(glia.float64, True, True, glia.channels_last)  # memory_format is keyword-only


def _channels_last_strides(n, c, h, w):
    # torch's channels_last layout of an (N, C, H, W) tensor: C innermost, then W, H, N.
    return (h * w * c, 1, w * c, c)


@pytest.mark.parametrize("name,dt", [("float", glia.float32), ("double", glia.float64), ("half", glia.float16),
                                     ("bfloat16", glia.bfloat16), ("int", glia.int32), ("long", glia.int64),
                                     ("byte", glia.uint8), ("bool", glia.bool), ("char", glia.int8),
                                     ("short", glia.int16)])
def test_conversion_methods_lay_out_channels_last_as_torch(name, dt):
    x = glia.arange(36.0).reshape(2, 3, 2, 3)
    y = getattr(x, name)(memory_format=glia.channels_last)
    assert y.dtype == dt and y.shape == x.shape
    assert y.stride() == _channels_last_strides(2, 3, 2, 3)
    assert y.is_contiguous(memory_format=glia.channels_last) and not y.is_contiguous()
    np.testing.assert_array_equal(y.float().numpy(), x.to(dt).float().numpy())
    # preserve_format (the default) keeps the layout of a dense input; contiguous_format is row-major.
    assert getattr(y, name)().stride() == y.stride()
    assert getattr(y, name)() is y
    assert getattr(y, name)(memory_format=glia.contiguous_format).stride() == (18, 6, 3, 1)
    assert y.double().stride() == y.stride()


def test_memory_formats_of_to_contiguous_clone_as_torch():
    x = glia.arange(36.0, requires_grad=True)
    v = x.reshape(2, 3, 2, 3)
    y = v.to(glia.float64, memory_format=glia.channels_last)
    assert y.stride() == _channels_last_strides(2, 3, 2, 3)
    (y * glia.arange(36.0, dtype=glia.float64).reshape(2, 3, 2, 3)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(36.0))  # differentiable
    v = v.detach()
    assert v.contiguous(memory_format=glia.channels_last).stride() == _channels_last_strides(2, 3, 2, 3)
    assert v.clone(memory_format=glia.channels_last).stride() == _channels_last_strides(2, 3, 2, 3)
    c = v.contiguous(memory_format=glia.channels_last)
    assert c.contiguous(memory_format=glia.channels_last) is c
    assert c.clone().stride() == c.stride() and c.clone() is not c
    assert v.to(memory_format=glia.channels_last).is_contiguous(memory_format=glia.channels_last)
    # size-1 dims: torch's strides formula, not a permutation of row-major strides.
    assert glia.zeros(2, 3, 1, 1).float(memory_format=glia.channels_last).stride() == (3, 1, 3, 3)
    assert glia.zeros(2, 1, 3, 1).float(memory_format=glia.channels_last).stride() == (3, 1, 1, 1)
    # channels_last_3d: (N, C, D, H, W) = (1, 2, 3, 2, 3) -> (D*H*W*C, 1, H*W*C, W*C, C)
    assert v.unsqueeze(0).double(memory_format=glia.channels_last_3d).stride() == (36, 1, 12, 6, 2)
    with pytest.raises(RuntimeError, match="^required rank 5 tensor to use channels_last_3d format$"):
        v.float(memory_format=glia.channels_last_3d)
    # preserve_format keeps a transposed (dense) input's order of strides; contiguous_format does not.
    t = glia.arange(6.0).reshape(2, 3).t()
    assert t.double().stride() == (1, 3) and t.double(memory_format=glia.contiguous_format).stride() == (2, 1)
    assert t.float(memory_format=glia.contiguous_format) is t  # torch: no change for a non-channels-last layout
    assert t.clone().stride() == (1, 3) and t.clone(memory_format=glia.contiguous_format).stride() == (2, 1)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported by the contiguous operator"):
        t.contiguous(memory_format=glia.preserve_format)


def test_factories_take_memory_format_as_torch():
    x = glia.zeros(2, 3, 2, 3)
    cl = _channels_last_strides(2, 3, 2, 3)
    assert glia.empty(2, 3, 2, 3, memory_format=glia.channels_last).stride() == cl
    for f in (glia.zeros_like, glia.ones_like, glia.empty_like, glia.rand_like, glia.randn_like):
        y = f(x, memory_format=glia.channels_last, requires_grad=True)
        assert y.stride() == cl and y.is_leaf and y.requires_grad
        assert f(y).stride() == cl  # preserve_format, the default
        assert f(y, memory_format=glia.contiguous_format).stride() == (18, 6, 3, 1)
    assert glia.full_like(x, 2.0, memory_format=glia.channels_last).stride() == cl
    with pytest.raises(RuntimeError, match="^required rank 4 tensor to use channels_last format$"):
        glia.empty(2, 3, memory_format=glia.channels_last)


def test_list_index_follows_torch_1_13_sequence_rule():
    a = glia.arange(12.0).reshape(3, 4)
    # A list holding a slice (or None, Ellipsis, a sequence, a tensor) indexes like a tuple.
    np.testing.assert_array_equal(a[[slice(0, 2), slice(1, 3)]].numpy(), a.numpy()[0:2, 1:3])
    np.testing.assert_array_equal(a[[None, slice(1, 2)]].numpy(), a.numpy()[None, 1:2])
    np.testing.assert_array_equal(a[[Ellipsis, 1]].numpy(), a.numpy()[..., 1])
    # A list of plain ints stays one index tensor.
    np.testing.assert_array_equal(a[[2, 0]].numpy(), a.numpy()[[2, 0]])
    # A list of lists is a tuple of two index tensors (not one 2-D index tensor for dim 0).
    np.testing.assert_array_equal(a[[[0, 1], [1, 2]]].numpy(), a.numpy()[[0, 1], [1, 2]])


def test_mT_of_scalars_and_vectors_as_torch():
    s = glia.tensor(3.0, requires_grad=True)
    m = s.mT
    assert m.shape == () and m.item() == 3.0
    m.backward()
    assert s.grad.item() == 1.0
    with pytest.raises(RuntimeError, match="tensor.mT is only supported on matrices or batches of matrices. "
                                           "Got 1-D tensor."):
        glia.ones(3).mT
    assert glia.ones(2, 3).mT.shape == (3, 2)
