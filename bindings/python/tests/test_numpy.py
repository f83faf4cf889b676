"""numpy interop: zero-copy both ways, lifetimes, dtypes, errors."""

import gc
import weakref

import numpy as np
import pytest

import glia


def test_numpy_view_shares_memory_both_ways():
    t = glia.zeros(2, 3)
    a = t.numpy()
    assert a.dtype == np.float32 and a.shape == (2, 3)
    a[1, 2] = 5.0
    assert t[1, 2].item() == 5.0
    t[0, 0] = 7.0
    assert a[0, 0] == 7.0
    assert a.ctypes.data == t.data_ptr()


def test_numpy_view_keeps_tensor_alive():
    t = glia.arange(6.0)
    r = weakref.ref(t)
    a = t.numpy()
    del t
    gc.collect()
    assert r() is not None  # the array's base holds the Tensor
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    del a
    gc.collect()
    assert r() is None


def test_numpy_of_strided_views():
    t = glia.arange(12).reshape(3, 4)
    a = t.t().numpy()
    assert a.shape == (4, 3) and a.strides == (8, 32)
    assert a.tolist() == np.arange(12).reshape(3, 4).T.tolist()
    e = glia.tensor([1.0, 2.0]).expand(3, 2).numpy()
    assert e.strides == (0, 4) and e.tolist() == [[1, 2]] * 3
    s = t[:, 1::2].numpy()
    assert s.tolist() == [[1, 3], [5, 7], [9, 11]]


@pytest.mark.parametrize("dt,npdt", [(glia.float32, np.float32), (glia.float64, np.float64),
                                     (glia.float16, np.float16), (glia.int64, np.int64), (glia.int32, np.int32),
                                     (glia.uint8, np.uint8), (glia.bool, np.bool_), (glia.int8, np.int8),
                                     (glia.int16, np.int16)])
def test_dtypes_round_trip(dt, npdt):
    t = glia.ones(3, dtype=dt)
    a = t.numpy()
    assert a.dtype == npdt
    b = glia.from_numpy(a)
    assert b.dtype is dt and b.data_ptr() == t.data_ptr()


def test_numpy_errors_like_torch():
    with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires grad\. Use "
                                           r"tensor\.detach\(\)\.numpy\(\) instead\.$"):
        glia.ones(2, requires_grad=True).numpy()
    with pytest.raises(TypeError, match="^Got unsupported ScalarType BFloat16$"):
        glia.ones(2, dtype=glia.bfloat16).numpy()
    assert glia.ones(2, requires_grad=True).detach().numpy().tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.complex128"):
        glia.from_numpy(np.ones(2, dtype=np.complex128))
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is negative"):
        glia.from_numpy(np.arange(4.0)[::-1])
    with pytest.raises(TypeError, match="expected np.ndarray"):
        glia.from_numpy([1, 2])


def test_from_numpy_shares_memory_and_keeps_array_alive():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = glia.from_numpy(a)
    assert t.dtype is glia.float64 and t.shape == (2, 3)
    t[0, 1] = 100.0
    assert a[0, 1] == 100.0
    a[1, 2] = -1.0
    assert t[1, 2].item() == -1.0
    r = weakref.ref(a.base if a.base is not None else a)
    del a
    gc.collect()
    assert r() is not None  # glia holds the array (through the registry) until its deleter runs
    v = t[1]  # a view: the blob lives while any view does
    del t
    gc.collect()
    assert r() is not None and v.tolist() == [3.0, 4.0, -1.0]
    del v
    gc.collect()
    assert r() is None


def test_from_numpy_strided_array():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    t = glia.from_numpy(a)
    assert t.stride() == (4, 2) and t.tolist() == a.tolist()
    t.fill_(0)
    assert (a == 0).all()


def test_array_protocol_and_ndarray_ops():
    t = glia.tensor([1.0, 2.0])
    assert np.asarray(t).tolist() == [1.0, 2.0]
    assert np.array(t, dtype=np.float64).dtype == np.float64
    r = np.float64(2.0) * t
    assert isinstance(r, glia.Tensor)
    assert glia.tensor(np.array([[1, 2]], dtype=np.int32)).dtype is glia.int32
    assert glia.tensor(np.array(3.5)).shape == ()
    assert glia.as_tensor(np.ones(2)).dtype is glia.float64


def test_empty_arrays():
    t = glia.zeros(0, 3)
    assert t.numpy().shape == (0, 3)
    assert glia.from_numpy(np.zeros((0, 2), dtype=np.float32)).shape == (0, 2)


def test_numpy_scalars_and_readonly_arrays():
    assert glia.tensor(np.float64(1.5)).dtype is glia.float64
    assert glia.tensor(np.int32(3)).dtype is glia.int32 and glia.tensor(np.int32(3)).shape == ()
    ro = np.frombuffer(np.arange(3, dtype=np.float32).tobytes(), dtype=np.float32)
    with pytest.warns(UserWarning, match="not writable"):
        t = glia.from_numpy(ro)
    assert t.tolist() == [0.0, 1.0, 2.0]
