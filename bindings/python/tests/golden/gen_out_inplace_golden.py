"""Generates out_inplace_golden.json: torch 1.13's results for issue 20's out= arguments, in-place
variants and aliases, as the binding spells them, evaluated with the inputs of gen_tensor_golden.py
and the helpers in HELPERS (executed with torch = torch here, torch = glia in test_out_inplace.py).
It also records which public torch functions take out= (OUT_NAMES, probed from torch's argument
parser), the list the binding's _out_inplace._OUT_NAMES must equal. Run with /usr/bin/python3:

    /usr/bin/python3 bindings/python/tests/golden/gen_out_inplace_golden.py
"""

import inspect
import json
import os
import re
import warnings

import numpy as np
import torch

from gen_tensor_golden import HERE, encode, env

HELPERS = '''
import warnings


def Z(*shape, dtype=None):
    return torch.zeros(*shape, dtype=dtype or torch.float32)


def same(r, o):
    if isinstance(o, (tuple, list)):
        return len(r) == len(o) and all(x is y for x, y in zip(r, o))
    return r is o


def out_case(f, o):
    """(whether f returned out itself, out's values afterwards)."""
    r = f(o)
    return (same(r, o), o)


def ver(t, f):
    v = t._version
    f(t)
    return t._version - v


def ip(t, name, *args, **kwargs):
    """(whether the in-place method returned self, self afterwards)."""
    r = getattr(t, name)(*args, **kwargs)
    return (r is t, t)


def geo(t):
    return (tuple(t.shape), tuple(t.stride()), t)


def nograd(f):
    with torch.no_grad():
        return f()


def warns(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f()
    return [str(x.message).split(" (Triggered internally")[0] for x in w]
'''

VALUES = [
    # out=: elementwise, with casts, broadcasting, strided and aliased outs
    "out_case(lambda o: torch.exp(a, out=o), Z(3, 4))", "out_case(lambda o: torch.exp(a, out=o), Z(0))",
    "out_case(lambda o: torch.add(a, b, out=o), Z(3, 4, dtype=torch.float64))",
    "out_case(lambda o: torch.add(i, 2, out=o), Z(3, 4, dtype=torch.int32))",
    "out_case(lambda o: torch.sub(a, v, alpha=2, out=o), Z(3, 4))", "out_case(lambda o: torch.mul(a, v, out=o), Z(3, 4))",
    "out_case(lambda o: torch.div(a, b, rounding_mode='floor', out=o), Z(3, 4))",
    "out_case(lambda o: torch.atan2(a, b, out=o), Z(3, 4))", "out_case(lambda o: torch.pow(a, 2, out=o), Z(12))",
    "out_case(lambda o: torch.eq(a, b, out=o), Z(3, 4, dtype=torch.bool))",
    "out_case(lambda o: torch.lt(a, 0, out=o), Z(3, 4))", "out_case(lambda o: torch.lt(a, 0, out=o), Z(3, 4, dtype=torch.int64))",
    "out_case(lambda o: torch.clamp(a, -0.5, 0.5, out=o), Z(3, 4))", "out_case(lambda o: torch.sigmoid(d, out=o), Z(2, 3, dtype=torch.float64))",
    "out_case(lambda o: torch.where(a > 0, a, b, out=o), Z(3, 4))", "out_case(lambda o: torch.logical_and(a, k, out=o), Z(3, 4, dtype=torch.bool))",
    "out_case(lambda o: torch.bitwise_and(i, 6, out=o), Z(3, 4, dtype=torch.int64))",
    "out_case(lambda o: torch.sqrt(p, out=o.t()), Z(4, 3))", "out_case(lambda o: torch.neg(a, out=o[:, ::2]), Z(3, 8))",
    "(lambda x: (torch.exp(x, out=x) is x, x))(a.clone())", "(lambda x: (torch.mul(x, x, out=x) is x, x))(a.clone())",
    # reductions with dim
    "out_case(lambda o: torch.sum(a, 1, out=o), Z(3))", "out_case(lambda o: torch.sum(i, 1, out=o), Z(3, dtype=torch.int64))",
    "out_case(lambda o: torch.mean(a, 0, keepdim=True, out=o), Z(1, 4))", "out_case(lambda o: torch.amax(a, (0, 1), out=o), Z(0))",
    "out_case(lambda o: torch.prod(a, 1, out=o), Z(3, dtype=torch.float64))", "out_case(lambda o: torch.std(a, 1, out=o), Z(3))",
    "out_case(lambda o: torch.logsumexp(a, 1, out=o), Z(3))", "out_case(lambda o: torch.argmax(a, 1, out=o), Z(3, dtype=torch.int64))",
    "out_case(lambda o: torch.cumsum(a, 1, out=o), Z(3, 4))", "out_case(lambda o: torch.norm(a, out=o), Z(()))",
    "out_case(lambda o: torch.any(k, 1, out=o), Z(3, dtype=torch.bool))",
    # matmul family
    "out_case(lambda o: torch.matmul(a, m, out=o), Z(3, 5))", "out_case(lambda o: torch.mm(a, m, out=o), Z(0))",
    "out_case(lambda o: torch.mv(a, v, out=o), Z(3))", "out_case(lambda o: torch.dot(v, v, out=o), Z(()))",
    "out_case(lambda o: torch.bmm(x4[0, :2, :3, :4], x4[1, :2, :4, :2], out=o), Z(2, 3, 2))",
    "out_case(lambda o: torch.addmm(b[:, :1], a, m[:, :1], out=o), Z(3, 1))",
    "out_case(lambda o: torch.outer(v, v[:2], out=o), Z(4, 2))",
    # cat / stack
    "out_case(lambda o: torch.cat([a, b], 0, out=o), Z(6, 4))", "out_case(lambda o: torch.cat((a, b), 1, out=o), Z(0))",
    "out_case(lambda o: torch.stack([a, b], 1, out=o), Z(3, 2, 4))", "out_case(lambda o: torch.hstack([a, b], out=o), Z(3, 8))",
    "out_case(lambda o: torch.vstack([a, b], out=o), Z(0))", "out_case(lambda o: torch.concatenate([a, b], out=o), Z(6, 4))",
    "out_case(lambda o: F.normalize(a, out=o), Z(3, 4))", "out_case(lambda o: F.normalize(a, 1.0, 0, out=o), Z(0))",
    # factories (out's dtype when none is given)
    "out_case(lambda o: torch.zeros(2, 3, out=o), Z(0, dtype=torch.int64))", "out_case(lambda o: torch.ones((2,), out=o), Z(2))",
    "out_case(lambda o: torch.full((2, 2), 3, out=o), Z(0, dtype=torch.int32))",
    "out_case(lambda o: torch.arange(5, out=o), Z(0))", "out_case(lambda o: torch.arange(1, 4, out=o), Z(0, dtype=torch.float64))",
    "out_case(lambda o: torch.linspace(0, 1, 5, out=o), Z(5))", "out_case(lambda o: torch.eye(3, out=o), Z(0))",
    "out_case(lambda o: torch.logspace(0, 2, 3, out=o), Z(3, dtype=torch.float64))",
    "out_case(lambda o: torch.empty(2, 3, out=o).shape, Z(0))[1].shape", "out_case(lambda o: torch.rand(2, 3, out=o), Z(0))[1].shape",
    # several results: out=(values, indices)
    "out_case(lambda o: torch.sort(a, 1, out=o), (Z(0), Z(0, dtype=torch.int64)))",
    "out_case(lambda o: torch.sort(a, 0, descending=True, out=o), (Z(3, 4), Z(3, 4, dtype=torch.int64)))",
    "out_case(lambda o: torch.topk(a, 2, out=o), (Z(0), Z(0, dtype=torch.int64)))",
    "out_case(lambda o: torch.max(a, 1, out=o), (Z(3), Z(3, dtype=torch.int64)))",
    "out_case(lambda o: torch.min(a, 0, keepdim=True, out=o), (Z(0), Z(0, dtype=torch.int64)))",
    "out_case(lambda o: torch.max(a, b, out=o), Z(3, 4))", "out_case(lambda o: torch.median(a, 1, out=o), (Z(3), Z(3, dtype=torch.int64)))",
    "out_case(lambda o: torch.kthvalue(a, 2, 1, out=o), (Z(0), Z(0, dtype=torch.int64)))",
    "out_case(lambda o: torch.cummax(a, 1, out=o), (Z(0), Z(0, dtype=torch.int64)))",
    "out_case(lambda o: torch.aminmax(a, dim=1, out=o), (Z(0), Z(0)))",
    "type(torch.sort(a, out=(Z(0), Z(0, dtype=torch.int64)))).__name__",
    "torch.sort(a, out=(Z(0), Z(0, dtype=torch.int64))).values",
    # out= and grad mode
    "nograd(lambda: out_case(lambda o: torch.exp(a.requires_grad_(), out=o), Z(3, 4)))",
    "out_case(lambda o: torch.argmax(a.requires_grad_(), 1, out=o), Z(3, dtype=torch.int64))",
    "out_case(lambda o: torch.eq(a.requires_grad_(), 0, out=o), Z(3, 4, dtype=torch.bool))",
    # version counters
    "ver(Z(3, 4), lambda o: torch.exp(a, out=o))", "ver(Z(1), lambda o: torch.exp(a, out=o))",
    "ver(Z(3), lambda o: torch.sort(v[:3], out=(o, Z(3, dtype=torch.int64))))",
    "ver(a.clone(), lambda x: x.exp_())", "ver(a.clone(), lambda x: x.t_())", "ver(a.clone(), lambda x: x.eq_(0))",
    # resize warnings
    "warns(lambda: torch.exp(a, out=Z(5)))", "warns(lambda: torch.exp(a, out=Z(0)))", "warns(lambda: torch.exp(a, out=Z(3, 4)))",
    "warns(lambda: torch.sum(a, 0, out=Z(2, 2)))", "warns(lambda: torch.cat([a, b], out=Z(1)))",
    "warns(lambda: torch.sort(a, out=(Z(2), Z(0, dtype=torch.int64))))",
    # in place: unary
    "ip(a.clone(), 'exp_')", "ip(a.clone(), 'abs_')", "ip(i.clone(), 'abs_')", "ip(a.clone(), 'absolute_')",
    "ip(a.clone(), 'neg_')", "ip(i.clone(), 'negative_')", "ip(p.clone(), 'sqrt_')", "ip(p.clone(), 'rsqrt_')",
    "ip(p.clone(), 'log_')", "ip(p.clone(), 'log1p_')", "ip(a.clone(), 'expm1_')", "ip(a.clone(), 'sigmoid_')",
    "ip(d.clone(), 'tanh_')", "ip(p.clone(), 'reciprocal_')", "ip(a.clone(), 'square_')", "ip(i.clone(), 'square_')",
    "ip(a.clone(), 'sign_')", "ip(a.clone(), 'sgn_')", "ip(a.clone(), 'deg2rad_')", "ip(a.clone(), 'rad2deg_')",
    "ip(torch.tensor([1.0, float('nan'), float('inf'), -float('inf')]), 'nan_to_num_')",
    "ip(torch.tensor([1.0, float('nan'), float('inf')]), 'nan_to_num_', 0.5, 9.0)",
    "ip(i.clone(), 'bitwise_not_')", "ip(k.clone(), 'bitwise_not_')", "ip(a.clone(), 'logical_not_')",
    # in place: binary
    "ip(a.clone(), 'atan2_', b)", "ip(a.clone(), 'arctan2_', v)", "ip(a.clone(), 'hypot_', b)", "ip(a.clone(), 'copysign_', b)",
    "ip(i.clone(), 'fmod_', 3)", "ip(a.clone(), 'remainder_', 0.7)", "ip(p.clone(), 'xlogy_', p)",
    "ip(i.clone(), 'bitwise_and_', j)", "ip(i.clone(), 'bitwise_or_', 5)", "ip(k.clone(), 'bitwise_xor_', k.t().t())",
    "ip(i.clone(), 'bitwise_left_shift_', 2)", "ip(i.clone(), 'bitwise_right_shift_', 1)",
    "ip(i.clone(), 'floor_divide_', 2)", "ip(a.clone(), 'true_divide_', 2.0)", "ip(a.clone(), 'divide_', b)",
    "ip(a.clone(), 'divide_', b, rounding_mode='trunc')", "ip(a.clone(), 'multiply_', v)", "ip(a.clone(), 'subtract_', b, alpha=2)",
    "ip(a.clone(), 'logical_and_', k)", "ip(a.clone(), 'logical_or_', b)", "ip(a.clone(), 'logical_xor_', k)",
    "ip(a.clone(), 'clamp_min_', 0.1)", "ip(a.clone(), 'clamp_max_', 0.2)", "ip(i.clone(), 'clamp_min_', 0)",
    "ip(a.clone(), 'ldexp_', j)",
    # in place: comparisons (result cast to self's dtype)
    "ip(a.clone(), 'eq_', 0)", "ip(a.clone(), 'ne_', b)", "ip(a.clone(), 'lt_', b)", "ip(a.clone(), 'le_', 0.1)",
    "ip(a.clone(), 'gt_', v)", "ip(i.clone(), 'ge_', 0)", "ip(i.clone(), 'lt_', 1.5)", "ip(k.clone(), 'lt_', a)",
    "ip(a.clone(), 'greater_', b)", "ip(a.clone(), 'greater_equal_', b)", "ip(a.clone(), 'less_', b)",
    "ip(a.clone(), 'less_equal_', b)", "ip(a.clone(), 'not_equal_', b)",
    # in place: scans, products, diagonal
    "ip(a.clone(), 'cumsum_', 1)", "ip(a.clone(), 'cumprod_', 0)", "ip(i.clone(), 'cumsum_', 0)",
    "ip(torch.zeros(3, 5), 'addmm_', a, m)", "ip(torch.ones(3), 'addmv_', a, v, beta=2, alpha=0.5)",
    "ip(torch.ones(4, 4), 'addr_', v, v)", "ip(torch.ones(2, 2), 'addbmm_', x4[0, :, :2, :3], x4[1, :, :3, :2])",
    "ip(torch.ones(3, 2, 2), 'baddbmm_', x4[0, :, :2, :3], x4[1, :, :3, :2])",
    "ip(a.clone(), 'fill_diagonal_', 7)", "ip(torch.zeros(7, 3), 'fill_diagonal_', 5, wrap=True)",
    "ip(torch.zeros(7, 3), 'fill_diagonal_', 5)", "ip(torch.zeros(3, 3, 3), 'fill_diagonal_', 1)",
    "ip(torch.zeros(2, 5, dtype=torch.int64), 'fill_diagonal_', 3)",
    # in place: metadata
    "geo(a.clone().t_())", "geo(v.clone().t_())", "geo(x4.clone().transpose_(1, 3))", "geo(x4.clone().swapaxes_(0, 2))",
    "geo(x4.clone().swapdims_(-1, 0))", "geo(torch.zeros(1, 3, 1).squeeze_())", "geo(torch.zeros(1, 3, 1).squeeze_(2))",
    "geo(a.clone().unsqueeze_(1))", "geo(a.clone().unsqueeze_(-1))", "ip(a.clone(), 't_')[0]",
    # torch.X_ functions
    "torch.exp_(a.clone())", "torch.sigmoid_(a.clone())", "torch.relu_(a.clone())", "torch.clamp_min_(a.clone(), 0)",
    "torch.neg_(a.clone())", "torch.negative_(a.clone())", "torch.sqrt_(p.clone())", "torch.square_(a.clone())",
    "torch.xlogy_(p.clone(), p)", "torch.zero_(a.clone())", "torch.fill_(a.clone(), 2)", "torch.abs_(a.clone())",
    "torch.clamp_(a.clone(), -0.1, 0.1)", "torch.deg2rad_(a.clone())", "torch.nan_to_num_(a.clone())",
    "torch.celu_(a.clone())", "torch.celu_(a.clone(), 0.5)", "torch.selu_(a.clone())", "torch.threshold_(a.clone(), 0.1, 20.0)",
    "torch.rrelu_(a.clone())", "torch.dropout_(a.clone(), 0.5, False)", "torch.dropout_(a.clone(), 0.0, True)",
    "torch.alpha_dropout_(a.clone(), 0.5, False)", "torch.feature_alpha_dropout_(x4.clone(), 0.5, False)",
    "ip(a.clone(), 'clamp_min_', 0.1)[1] is not None",
    # aliases and small names
    "torch.absolute(a)", "torch.divide(a, b)", "torch.divide(a, b, rounding_mode='trunc')", "torch.multiply(a, v)",
    "torch.subtract(a, b, alpha=2)", "torch.negative(a)", "torch.greater(a, b)", "torch.greater_equal(a, 0)",
    "torch.less(a, b)", "torch.less_equal(a, b)", "torch.not_equal(a, b)", "torch.swapaxes(x4, 0, 3).shape",
    "torch.swapdims(a, 0, 1)", "a.swapaxes(0, 1)", "a.swapdims(1, 0)", "a.absolute()", "a.negative()", "a.divide(b)",
    "a.multiply(b)", "a.subtract(b)", "a.greater(b)", "a.less_equal(b)", "a.not_equal(b)",
    "torch.row_stack([a, b])", "torch.row_stack((v, v))", "torch.concatenate([a, b], 1)",
    "torch.is_complex(a)", "a.is_complex()", "torch.is_signed(a)", "torch.is_signed(u)", "i.is_signed()", "k.is_signed()",
    "torch.is_nonzero(torch.tensor([2]))", "torch.is_nonzero(torch.tensor(0.0))", "torch.tensor([3]).is_nonzero()",
    "torch.is_same_size(a, b)", "torch.is_same_size(a, v)", "a.is_same_size(b)",
    "torch.result_type(a, 1.5)", "torch.result_type(i, 2)", "torch.result_type(i, 2.5)", "torch.result_type(torch.tensor(1.0), j)",
    "torch.result_type(k, True)", "torch.result_type(u, i)", "torch.result_type(1, 2.0)", "torch.result_type(2, 3)",
    "torch.promote_types(torch.int32, torch.float16)", "torch.promote_types(torch.uint8, torch.int8)",
    "torch.promote_types(torch.bool, torch.int16)", "torch.promote_types(torch.float64, torch.float32)",
    "torch.can_cast(torch.float, torch.int)", "torch.can_cast(torch.int, torch.float)", "torch.can_cast(torch.int32, torch.bool)",
    "torch.can_cast(torch.bool, torch.uint8)", "torch.can_cast(torch.float64, torch.float16)",
    "torch.scalar_tensor(3)", "torch.scalar_tensor(2, dtype=torch.int64)", "torch.scalar_tensor(True)",
    "torch.t_copy(a)", "torch.t_copy(a).stride()", "torch.transpose_copy(x4, 1, 2).shape", "torch.permute_copy(a, (1, 0))",
    "torch.squeeze_copy(torch.zeros(1, 3, 1)).shape", "torch.unsqueeze_copy(a, 0)", "torch.select_copy(a, 1, 2)",
    "torch.diagonal_copy(a)", "torch.diagonal_copy(a, 1)", "torch.detach_copy(a)", "torch.alias_copy(a)",
    "torch.expand_copy(v, (2, 4))", "torch.expand_copy(v, (2, 4)).stride()", "torch.view_copy(a, (12,))",
    "torch.slice_copy(a, 1, 0, 3, 2)", "torch.slice_copy(a, 0, 1, 3, 1)", "torch.split_copy(a, 2)", "torch.split_with_sizes_copy(a, [1, 2])",
    "torch.unbind_copy(a, 1)", "torch.unfold_copy(a, 1, 2, 1)", "a.type_as(i)", "i.type_as(d)", "a.is_cpu",
    "torch.get_num_threads() > 0", "torch.adjoint(a)", "x4.adjoint().shape", "a.get_device()", "torch.get_device(a)",
    "torch.is_inference(a)", "a.is_distributed()", "torch.is_distributed(a)", "torch.unsafe_chunk(a, 2, 1)",
    "a.unsafe_chunk(3)", "torch.unsafe_split(a, 2, 1)", "a.unsafe_split(1)", "torch.unsafe_split_with_sizes(a, [1, 3], 1)",
    "out_case(lambda o: torch.t_copy(a, out=o), Z(4, 3))", "out_case(lambda o: torch.absolute(a, out=o), Z(3, 4))",
    "out_case(lambda o: torch.subtract(a, b, out=o), Z(3, 4))", "out_case(lambda o: torch.row_stack([a, b], out=o), Z(6, 4))",
]

# grad_fn names (the metadata variants t_, transpose_, unsqueeze_ record torch's TBackward1 ...; glia's
# view nodes are named as the out-of-place views', TransposeBackward0: not listed).
REPRS = [
    "(a.requires_grad_() * 2).exp_()", "(a.requires_grad_() * 2).sigmoid_()", "(a.requires_grad_() * 2).atan2_(b)",
    "(a.requires_grad_() * 2).cumsum_(1)", "(a.requires_grad_() * 2).sqrt_()", "(a.requires_grad_() * 2).eq_(0)",
    "torch.zeros(3, 4).hypot_(a.requires_grad_())", "(a.requires_grad_() * 2).log1p_()",
    "(a.requires_grad_() * 2).ne_(0)",
]

ERRORS = [
    # out=
    "torch.add(a, 1, out=Z(3, 4, dtype=torch.int64))", "torch.exp(a, out=Z(3, 4, dtype=torch.bool))",
    "torch.div(i, 2, out=Z(3, 4, dtype=torch.int64))",
    "torch.cat([a, b], out=Z(6, 4, dtype=torch.int32))", "torch.matmul(a, m, out=Z(0, dtype=torch.int64))",
    "torch.exp(a.requires_grad_(), out=Z(3, 4))", "torch.add(a.requires_grad_(), b, out=Z(3, 4))",
    "torch.cat([a.requires_grad_(), b], out=Z(6, 4))", "torch.sum(a.requires_grad_(), 1, out=Z(3))",
    "torch.mm(a.requires_grad_(), m, out=Z(3, 5))", "torch.mm(a, m, out=Z(3, 5, dtype=torch.float64))",
    "torch.sort(a.requires_grad_(), out=(Z(0), Z(0, dtype=torch.int64)))",
    "torch.max(a.requires_grad_(), 1, out=(Z(0), Z(0, dtype=torch.int64)))",
    "torch.add(a, 1, out=Z(3, 4).requires_grad_())", "F.normalize(a.requires_grad_(), out=Z(3, 4))",
    "(lambda x: torch.exp(x[:3], out=x[1:]))(torch.arange(4.0))",
    "(lambda x: torch.add(x[1:], 1, out=x[:3]))(torch.arange(4.0))",
    "torch.exp(a, out=Z(4).expand(3, 4))",
    # in place
    "a.requires_grad_().exp_()", "a.requires_grad_().atan2_(b)", "a.requires_grad_().eq_(0)", "a.requires_grad_().t_()",
    "a.requires_grad_().unsqueeze_(0)", "a.requires_grad_().fill_diagonal_(0)", "a.requires_grad_().cumsum_(0)",
    "i.clone().sigmoid_()", "i.clone().sqrt_()", "i.clone().atan2_(a)", "i.clone().true_divide_(2)",
    "i.clone().floor_divide_(1.5)", "i.clone().divide_(2)", "a.clone().unsqueeze_(3)", "a.clone().transpose_(0, 2)",
    "v.clone().atan2_(a)", "v.clone().eq_(a)", "v.clone().fill_diagonal_(1)", "torch.zeros(2, 3, 4).fill_diagonal_(1)",
    # small names
    "torch.is_nonzero(torch.ones(2))", "torch.is_nonzero(torch.tensor([]))", "torch.set_num_threads(0)",
]

GRADS = [
    ("(a * 2).exp_()", ["a"]), ("(a * 1).sigmoid_() * 3", ["a"]), ("(a + 0).atan2_(b)", ["a", "b"]),
    ("(p * 1).log_()", ["p"]), ("(a * 1).cumsum_(1)", ["a"]), ("(a * 1).cumprod_(0)", ["a"]), ("(a * 1).t_()", ["a"]),
    ("(a * 1).unsqueeze_(0)", ["a"]), ("(a * 1).transpose_(0, 1) * 2", ["a"]), ("(a * 1).clamp_min_(0.1)", ["a"]),
    ("(a * 1).eq_(0) + a", ["a"]), ("(a * 1).fill_diagonal_(2)", ["a"]), ("(a * 1).square_().square_()", ["a"]),
    ("torch.zeros(3, 4).atan2_(a)", ["a"]), ("(a * 1).xlogy_(p)", ["a", "p"]), ("(a * 1).hypot_(b)", ["a", "b"]),
    ("(a * 1).addmm_(a, m[:, :4])", ["a", "m"]), ("(p * 1).rsqrt_() * 2", ["p"]), ("(p * 1).reciprocal_()", ["p"]),
    ("(a * 1).lerp_(b, 0.3)", ["a", "b"]), ("(a * 1).copysign_(b)", ["a", "b"]), ("(a * 1).divide_(b)", ["a", "b"]),
]


def out_names():
    """torch 1.13's public functions whose Python signature takes out= (from the argument parser's
    messages; the *_copy functions and a few whose parser reports missing arguments first, checked by
    calling them)."""
    cands = set()
    for s in torch._C._jit_get_all_schemas():
        if any(a.is_out for a in s.arguments):
            cands.add(s.name.split("::")[1])
    names = []
    for n in sorted(cands):
        f = getattr(torch, n, None)
        if f is None or n.startswith("_"):
            continue
        try:
            names += [n] if "out" in inspect.signature(f).parameters else []
            continue
        except (ValueError, TypeError):
            pass
        res = None
        for args in ((), (torch.ones(2, 2),), (torch.ones(2, 2), torch.ones(2, 2))):
            try:
                f(*args, out=None, __probe__=1)
                m = ""
            except Exception as e:  # noqa: BLE001
                m = str(e).replace("\n", " ")
            if "unexpected keyword argument 'out'" in m:
                res = False
                break
            if "expected one of" in m:
                res = bool(re.search(r"Tensors? out\b", m))
                break
            if "unexpected keyword argument '__probe__'" in m:
                res = True
                break
        if res is None:  # the parser asked for arguments first: the docstring's signature
            res = bool(re.search(r"\bout=None\b|\bout \(Tensor", f.__doc__ or ""))
        if res:
            names.append(n)
    x = torch.ones(2, 3)
    for n, call in CALLED.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call(x)
            ok = True
        except TypeError:
            ok = False
        except RuntimeError:  # accepted, then refused (torch 1.13's *_copy do not resize out)
            ok = True
        if ok and n not in names:
            names.append(n)
    return sorted(names)


CALLED = {
    "stack": lambda x: torch.stack([x], out=torch.empty(0)), "hstack": lambda x: torch.hstack([x], out=torch.empty(0)),
    "vstack": lambda x: torch.vstack([x], out=torch.empty(0)), "dstack": lambda x: torch.dstack([x], out=torch.empty(0)),
    "column_stack": lambda x: torch.column_stack([x], out=torch.empty(0)),
    "row_stack": lambda x: torch.row_stack([x], out=torch.empty(0)),
    "topk": lambda x: torch.topk(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long))),
    "linspace": lambda x: torch.linspace(0, 1, 3, out=torch.empty(0)),
    "logspace": lambda x: torch.logspace(0, 1, 3, out=torch.empty(0)),
    "mvlgamma": lambda x: torch.mvlgamma(x + 2, 1, out=torch.empty(0)),
    "polygamma": lambda x: torch.polygamma(1, x, out=torch.empty(0)),
    "renorm": lambda x: torch.renorm(x, 2, 0, 1.0, out=torch.empty(0)),
    "threshold": lambda x: torch.threshold(x, 0.0, 1.0, out=torch.empty(0)),
    "addmm": lambda x: torch.addmm(x, x, torch.ones(3, 3), out=torch.empty(0)),
    "addbmm": lambda x: torch.addbmm(x, x[None], torch.ones(1, 3, 3), out=torch.empty(0)),
    "baddbmm": lambda x: torch.baddbmm(x[None], x[None], torch.ones(1, 3, 3), out=torch.empty(0)),
    "addmv": lambda x: torch.addmv(x[:, 0], x, torch.ones(3), out=torch.empty(0)),
    "addr": lambda x: torch.addr(x, x[:, 0], x[0], out=torch.empty(0)),
    "addcmul": lambda x: torch.addcmul(x, x, x, out=torch.empty(0)),
    "addcdiv": lambda x: torch.addcdiv(x, x, x, out=torch.empty(0)),
    "index_reduce": lambda x: torch.index_reduce(x, 0, torch.tensor([0]), x[:1], "prod", out=torch.empty(0)),
    "narrow_copy": lambda x: torch.narrow_copy(x, 0, 0, 1, out=torch.empty(0)),
    "t_copy": lambda x: torch.t_copy(x, out=torch.empty(3, 2)),
    "expand_copy": lambda x: torch.expand_copy(x, (2, 3), out=torch.empty(2, 3)),
    "permute_copy": lambda x: torch.permute_copy(x, (1, 0), out=torch.empty(3, 2)),
    "transpose_copy": lambda x: torch.transpose_copy(x, 0, 1, out=torch.empty(3, 2)),
    "unsqueeze_copy": lambda x: torch.unsqueeze_copy(x, 0, out=torch.empty(1, 2, 3)),
    "squeeze_copy": lambda x: torch.squeeze_copy(x, out=torch.empty(2, 3)),
    "select_copy": lambda x: torch.select_copy(x, 0, 0, out=torch.empty(3)),
    "diagonal_copy": lambda x: torch.diagonal_copy(x, out=torch.empty(2)),
    "detach_copy": lambda x: torch.detach_copy(x, out=torch.empty(2, 3)),
    "alias_copy": lambda x: torch.alias_copy(x, out=torch.empty(2, 3)),
    "view_copy": lambda x: torch.view_copy(x, (6,), out=torch.empty(6)),
    "slice_copy": lambda x: torch.slice_copy(x, out=torch.empty(2, 3)),
    "unfold_copy": lambda x: torch.unfold_copy(x, 1, 2, 1, out=torch.empty(2, 2, 2)),
    "split_copy": lambda x: torch.split_copy(x, 1, out=[torch.empty(1, 3), torch.empty(1, 3)]),
    "split_with_sizes_copy": lambda x: torch.split_with_sizes_copy(x, [1, 1], out=[torch.empty(1, 3), torch.empty(1, 3)]),
    "unbind_copy": lambda x: torch.unbind_copy(x, out=[torch.empty(3), torch.empty(3)]),
    "as_strided_copy": lambda x: torch.as_strided_copy(x, (2,), (1,), out=torch.empty(2)),
}


def enc(x):
    if type(x) is tuple or type(x) is list and x and not isinstance(x[0], torch.Tensor):
        return {"list": [enc(y) for y in x]}
    return encode(x)


def genv():
    e = env()
    exec(HELPERS, e)
    return e


def main():
    out = {"helpers": HELPERS, "values": {}, "reprs": {}, "errors": {}, "grads": {}, "out_names": out_names()}
    failed = []
    for expr in VALUES:
        try:
            out["values"][expr] = enc(eval(expr, genv()))
        except Exception as e:  # a case torch itself rejects: fix the list
            failed.append("%r: %s: %s" % (expr, type(e).__name__, e))
    if failed:
        raise SystemExit("torch fails on\n" + "\n".join(failed))
    for expr in REPRS:
        out["reprs"][expr] = repr(eval(expr, genv()))
    bad = []
    for expr in ERRORS:
        try:
            eval(expr, genv())
        except Exception as e:  # noqa: BLE001
            out["errors"][expr] = {"type": type(e).__name__, "message": str(e).split("\n")[0]}
        else:
            bad.append(expr)
    if bad:
        raise SystemExit("torch accepts %r" % bad)
    for expr, leaves in GRADS:
        e = genv()
        for n in leaves:
            e[n] = e[n].clone().double().requires_grad_(True)
        y = eval(expr, e)
        g = torch.from_numpy(np.random.RandomState(7).randn(*y.shape)) if y.dim() else torch.tensor(1.0)
        (y * g).sum().backward()
        out["grads"][expr] = {"leaves": leaves, "weight": g.numpy().tolist(),
                              "grads": {n: e[n].grad.numpy().tolist() for n in leaves}}
    with open(os.path.join(HERE, "out_inplace_golden.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
