"""Tensor methods where torch 1.13 has a rule of its own (issue 20's defects): reflected operators
with a Tensor operand, split functions' tuples, 0-d and empty edge cases, advanced indexing."""

import numpy as np
import pytest

import glia


def _pair():
    x = glia.tensor([[1.5, -2.0], [3.0, 4.5]], requires_grad=True)
    y = glia.tensor([2.0, -0.5], requires_grad=True)
    return x, y


@pytest.mark.parametrize("name,forward", [
    ("__radd__", lambda x, y: y + x), ("__rsub__", lambda x, y: y - x), ("__rmul__", lambda x, y: y * x),
    ("__rmod__", lambda x, y: y % x), ("__rfloordiv__", lambda x, y: y // x),
    ("__rtruediv__", lambda x, y: x.reciprocal() * y), ("__rdiv__", lambda x, y: x.reciprocal() * y),
    ("__rmatmul__", lambda x, y: y @ x)])
def test_reflected_operators_take_a_tensor_as_torch(name, forward):
    # torch: x.__rsub__(y) is y - x (torch/_tensor.py), differentiable in both operands.
    x, y = _pair()
    got = getattr(x, name)(y)
    x2, y2 = _pair()
    want = forward(x2, y2)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    if name not in ("__rmod__", "__rfloordiv__"):
        got.sum().backward()
        want.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), x2.grad.numpy())
        np.testing.assert_array_equal(y.grad.numpy(), y2.grad.numpy())


def test_rpow_with_a_tensor_copies_the_base_out_of_the_graph_as_torch():
    # torch 1.13: torch.tensor(other, dtype=result_type(other, self)) ** self: no gradient for `other`.
    x = glia.tensor([2.0, 3.0], requires_grad=True)
    b = glia.tensor(2.0, requires_grad=True)
    r = x.__rpow__(b)
    np.testing.assert_array_equal(r.detach().numpy(), [4.0, 8.0])
    r.sum().backward()
    assert b.grad is None
    np.testing.assert_allclose(x.grad.numpy(), np.array([4.0, 8.0]) * np.log(2.0), rtol=1e-6)
    assert glia.tensor([1, 2]).__rpow__(glia.tensor(3.0)).dtype == glia.float32


def test_reflected_operators_refuse_other_types():
    x = glia.ones(2)
    assert x.__radd__("a") is NotImplemented and x.__rmatmul__(2.0) is NotImplemented
    with pytest.raises(TypeError):
        "a" - x


@pytest.mark.parametrize("call", [
    lambda t: t.tensor_split(3, 1), lambda t: t.tensor_split([1, 3], dim=2), lambda t: glia.tensor_split(t, 2),
    lambda t: t.hsplit(2), lambda t: t.vsplit([1]), lambda t: t.dsplit(4), lambda t: glia.dsplit(t, [1, 2]),
    lambda t: glia.hsplit(t, 2), lambda t: glia.vsplit(t, 2), lambda t: t.split(1), lambda t: t.split([1, 1]),
    lambda t: t.chunk(2, 2), lambda t: t.unbind(1), lambda t: glia.unbind(t, -1)])
def test_split_functions_return_tuples_as_torch(call):
    t = glia.arange(32.0).reshape(2, 4, 4)
    parts = call(t)
    assert type(parts) is tuple and all(isinstance(p, glia.Tensor) for p in parts)


@pytest.mark.parametrize("key", [
    ([0, 2], [1, 3]), ([0, 2], slice(None), [1, 3]), (slice(None), [0, 2], [1, 3]), ([[0], [2]], [1, 3]),
    ([0, 2], [1, 3], [4, 0]), ([0, -1], [1, -3]), (Ellipsis, [0, 1], [2, 3]), (slice(1, None), [0, 1], [2, 3]),
    ([0, 1], slice(1, 3), [2, 3]), (np.array([[0, 1], [1, 2]]), np.array([0, 3])),
    (np.array([True, False, True]), slice(None), [1, 3]), (np.array([True, False, True]), [0, 1])])
def test_several_index_tensors_index_as_numpy(key):
    # With only index tensors, slices and Ellipsis, torch's rule is NumPy's: the indices broadcast together
    # and their shape replaces the indexed dims, in place when those are adjacent, else first.
    a = np.arange(60.0).reshape(3, 4, 5)
    x = glia.tensor(a)
    gkey = tuple(glia.tensor(k) if isinstance(k, np.ndarray) else k for k in key)
    np.testing.assert_array_equal(x[gkey].numpy(), a[key])


def test_integer_and_index_tensors_follow_torch_1_13():
    # torch selects integer indices first (basic indexing), so x[0, :, [1, 2]] is x[0][:, [1, 2]], shape
    # [4, 2] (NumPy gives [2, 4]); a list holding lists or slices indexes like a tuple.
    a = np.arange(60.0).reshape(3, 4, 5)
    x = glia.tensor(a)
    np.testing.assert_array_equal(x[0, :, [1, 2]].numpy(), a[0][:, [1, 2]])
    np.testing.assert_array_equal(x[[[0, 2, 1], [1, 3, 3], [0, 0, 2]]].numpy(), a[[0, 2, 1], [1, 3, 3], [0, 0, 2]])
    np.testing.assert_array_equal(x[[[0, 2], [1, 2], slice(None)]].numpy(), a[[0, 2], [1, 2], :])
    np.testing.assert_array_equal(x[[slice(0, 2), 1]].numpy(), a[0:2, 1])
    with pytest.raises(IndexError, match="^index 5 is out of bounds for dimension 0 with size 3$"):
        x[[0, 5], [1, 3]]
    with pytest.raises(IndexError, match=r"^shape mismatch: indexing tensors could not be broadcast together "
                                         r"with shapes \[2\], \[3\]$"):
        x[[0, 1], [1, 2, 3]]


def test_several_index_tensors_are_differentiable():
    y = glia.arange(60.0, requires_grad=True)
    r = y.reshape(3, 4, 5)[[0, 2], :, [1, 3]]
    (r * glia.arange(8.0).reshape(2, 4)).sum().backward()
    want = np.zeros((3, 4, 5))
    want[0, :, 1] = [0, 1, 2, 3]
    want[2, :, 3] = [4, 5, 6, 7]
    np.testing.assert_array_equal(y.grad.numpy(), want.reshape(-1))


def test_flip_takes_dims_by_keyword():
    a = np.arange(6.0).reshape(2, 3)
    x = glia.tensor(a)
    np.testing.assert_array_equal(x.flip(dims=(0,)).numpy(), a[::-1])
    np.testing.assert_array_equal(x.flip(dims=[0, 1]).numpy(), a[::-1, ::-1])
    np.testing.assert_array_equal(x.flip(1).numpy(), a[:, ::-1])
    with pytest.raises(TypeError):
        x.flip(0, dims=[1])


def test_H_and_mH_as_torch():
    a = np.arange(6.0).reshape(2, 3)
    x = glia.tensor(a)
    np.testing.assert_array_equal(x.H.numpy(), a.T)
    np.testing.assert_array_equal(glia.tensor(np.arange(24.0).reshape(2, 3, 4)).mH.numpy(),
                                  np.arange(24.0).reshape(2, 3, 4).transpose(0, 2, 1))
    assert glia.tensor(2.0).H.item() == 2.0 and glia.tensor(2.0).mH.shape == ()
    with pytest.raises(RuntimeError, match=r"^tensor.H is only supported on matrices \(2-D tensors\). Got 1-D tensor.$"):
        glia.ones(3).H
    with pytest.raises(RuntimeError, match="For batches of matrices, consider using tensor.mH"):
        glia.ones(2, 2, 2).H
    with pytest.raises(RuntimeError, match="^tensor.mH is only supported on matrices or batches of matrices"):
        glia.ones(3).mH


def test_sum_to_size_as_torch():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = glia.tensor(a, requires_grad=True)
    np.testing.assert_array_equal(x.sum_to_size(3, 1).detach().numpy(), a.sum(0).sum(1, keepdims=True))
    np.testing.assert_array_equal(x.sum_to_size((1, 1, 4)).detach().numpy(), a.sum((0, 1), keepdims=True))
    np.testing.assert_array_equal(x.sum_to_size(glia.Size([4])).detach().numpy(), a.sum((0, 1)))
    x.sum_to_size(3, 1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3, 4)))
    with pytest.raises(RuntimeError, match=r"^size \{\[2\]\} is not expandable to size \{\[2, 3, 4\]\}.$"):
        x.sum_to_size(2)


def test_new_empty_strided_has_the_strides_asked_for():
    x = glia.ones(2, 2)
    for size, stride in [((2, 3), (1, 2)), ((2, 3), (0, 1)), ((1, 1, 12), (5, 20, 10)), ((3,), (2,))]:
        t = x.new_empty_strided(size, stride)
        assert t.shape == size and t.stride() == stride and t.dtype == glia.float32
    t = x.new_empty_strided((2, 3), (3, 1), dtype=glia.float64, requires_grad=True)
    assert t.dtype == glia.float64 and t.requires_grad
    assert x.new_empty_strided((2, 0), (3, 4)).shape == (2, 0)


def test_small_methods_as_torch():
    m = glia.arange(6.0).reshape(2, 3)
    assert m.positive() is m and glia.positive(m) is m
    with pytest.raises(RuntimeError, match="^The `\\+` operator, on a bool tensor is not supported.$"):
        glia.tensor([True]).positive()
    np.testing.assert_array_equal(glia.zeros(2, 2).addmm(m, m.t(), beta=2, alpha=0.5).numpy(),
                                  0.5 * np.arange(6.0).reshape(2, 3) @ np.arange(6.0).reshape(2, 3).T)
    assert m.broadcast_to((4, 2, 3)).shape == (4, 2, 3)
    assert glia.sgn(glia.tensor([-2, 0, 3])).tolist() == [-1, 0, 1]
    assert glia.sgn(glia.tensor([-2.5, 0.0, 3.0])).tolist() == [-1.0, 0.0, 1.0]
    nan = float("nan")
    assert glia.signbit(glia.tensor([-0.0, 0.0, nan, -nan, -1.0])).tolist() == [True, False, False, True, True]
    assert glia.signbit(glia.tensor([-1, 0, 2])).tolist() == [True, False, False]
    assert glia.signbit(glia.tensor([True])).tolist() == [False]
    d = glia.deg2rad(glia.tensor([180, 90]))
    assert d.dtype == glia.float32
    np.testing.assert_allclose(d.numpy(), [np.pi, np.pi / 2], rtol=1e-7)
    np.testing.assert_allclose(glia.rad2deg(glia.tensor([np.pi], dtype=glia.float64)).numpy(), [180.0], rtol=1e-15)
    r = glia.isreal(glia.tensor([[1.0, nan]]))
    assert r.dtype == glia.bool and r.tolist() == [[True, True]]


@pytest.mark.parametrize("op", [lambda a, b: a // b, lambda a, b: a % b, lambda a, b: glia.remainder(a, b),
                                lambda a, b: a.div(b, rounding_mode="floor"), lambda a, b: a.div(b, rounding_mode="trunc"),
                                lambda a, b: a // 2, lambda a, b: a % 2.5, lambda a, b: 7 % a, lambda a, b: 7 // b])
def test_rounding_division_computes_on_inputs_that_require_grad(op):
    # torch computes these forward whatever requires grad (issue 20 had glia raising here).
    av, bv = np.array([5.0, -3.0, 7.5]), np.array([2.0, 2.0, -4.0])
    a, b = glia.tensor(av, requires_grad=True), glia.tensor(bv, requires_grad=True)
    got = op(a, b)
    want = op(glia.tensor(av), glia.tensor(bv))
    np.testing.assert_array_equal(got.detach().numpy(), want.numpy())
    assert got.requires_grad


def test_remainder_gradients_as_torch():
    # torch's RemainderBackward1: d/da = 1, d/db = -floor(a / b).
    av, bv = np.array([5.0, -3.0, 7.5]), np.array([2.0, 2.0, -4.0])
    a, b = glia.tensor(av, requires_grad=True), glia.tensor(bv, requires_grad=True)
    (a % b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.ones(3))
    np.testing.assert_array_equal(b.grad.numpy(), -np.floor(av / bv))
