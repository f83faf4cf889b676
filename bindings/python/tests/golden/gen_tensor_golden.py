"""Generates tensor_golden.json: torch 1.13's results for the expressions the
binding's tests evaluate with glia (the same source text, `torch` bound to
glia there). Run with /usr/bin/python3 (torch + numpy):

    /usr/bin/python3 bindings/python/tests/golden/gen_tensor_golden.py
"""

import json
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
rs = np.random.RandomState(1234)

# Inputs: name -> (numpy array, dtype name). The tests rebuild them from the JSON.
INPUTS = {
    "a": (rs.randn(3, 4).astype(np.float32), "float32"),
    "b": (rs.randn(3, 4).astype(np.float32), "float32"),
    "v": (rs.randn(4).astype(np.float32), "float32"),
    "m": (rs.randn(4, 5).astype(np.float32), "float32"),
    "p": (rs.rand(3, 4).astype(np.float32) + 0.1, "float32"),
    "d": (rs.randn(2, 3).astype(np.float64), "float64"),
    "i": (rs.randint(-5, 6, size=(3, 4)).astype(np.int64), "int64"),
    "j": (rs.randint(1, 4, size=(3, 4)).astype(np.int32), "int32"),
    "u": (rs.randint(0, 255, size=(5,)).astype(np.uint8), "uint8"),
    "k": (rs.rand(3, 4) > 0.5, "bool"),
    "x4": (rs.randn(2, 3, 6, 6).astype(np.float32), "float32"),
    "w4": (rs.randn(4, 3, 3, 3).astype(np.float32), "float32"),
    "wt": (rs.randn(3, 2, 3, 3).astype(np.float32), "float32"),
    "bias4": (rs.randn(4).astype(np.float32), "float32"),
    "logits": (rs.randn(5, 4).astype(np.float32), "float32"),
    "target": (np.array([0, 3, 1, 2, 3], dtype=np.int64), "int64"),
    "target_ign": (np.array([0, -100, 1, 2, 3], dtype=np.int64), "int64"),
    "cw": (np.array([1.0, 2.0, 0.5, 1.5], dtype=np.float32), "float32"),
    "probs": (rs.rand(5, 4).astype(np.float32) * 0.9 + 0.05, "float32"),
    "labels": ((rs.rand(5, 4) > 0.5).astype(np.float32), "float32"),
    "emb": (rs.randn(6, 3).astype(np.float32), "float32"),
    "idx": (np.array([[0, 2], [5, 1]], dtype=np.int64), "int64"),
    "h": (rs.randn(2, 3).astype(np.float16), "float16"),
}

# Value cases: expression -> result (a tensor, a tuple of tensors, or a Python value).
VALUES = [
    # arithmetic and promotion
    "a + b", "a - b", "a * b", "a / b", "a + 2", "a * 2.5", "2 - a", "2 / p", "2 ** a", "a ** 2", "-a",
    "abs(a)", "a.abs()", "a.add(b, alpha=2)", "a.sub(b, alpha=0.5)", "i + 1", "i * 2", "i / 2", "i + 1.5",
    "i // 2", "j + i", "u + 1", "k + k", "h * 2.5", "d + a[:2, :3]", "i + a", "2 / i", 
    "a.div(b, rounding_mode='floor')", "i.div(3, rounding_mode='trunc')", "a.pow(b.abs())", "p.pow(0.5)",
    "a @ m", "v @ m", "m.t() @ v", "a.matmul(m)", "torch.mm(a, m)", "torch.bmm(x4[0], x4[1].transpose(1, 2))",
    "torch.addmm(bias4, a, m[:, :4], beta=0.5, alpha=2)",
    # comparisons and logic
    "a == b", "a != b", "a < b", "a <= 0", "a > 0.5", "a >= b", "i == 2", "k & (a > 0)", "k | (a > 0)",
    "k ^ (a > 0)", "~k", "torch.logical_and(a > 0, k)", "torch.logical_not(k)",
    # math
    "p.exp()", "p.log()", "p.log1p()", "a.expm1()", "p.sqrt()", "p.rsqrt()", "a.sigmoid()", "a.tanh()",
    "a.relu()", "a.sign()", "a.clamp(-0.5, 0.5)", "a.clamp(min=0)", "a.clamp(max=0.1)", "i.clamp(-2, 2)",
    "a.clamp(b, b + 1)", "torch.maximum(a, b)", "torch.minimum(a, b)", "torch.where(k, a, b)",
    "torch.where(a > 0, a, 0.0)", "a.softmax(1)", "a.log_softmax(0)", "torch.softmax(a, -1)",
    "a.exp().log()", "i.exp()", "a.square()", "a.reciprocal()", "a.masked_fill(k, -1.0)",
    # reductions
    "a.sum()", "a.sum(0)", "a.sum(1, keepdim=True)", "a.sum((0, 1))", "i.sum()", "k.sum()", "a.mean()",
    "a.mean(1)", "a.mean(-1, keepdim=True)", "a.prod(1)", "i.prod()", "a.max()", "a.min()", "a.max(1)",
    "a.min(0, keepdim=True)", "a.argmax()", "a.argmax(1)", "a.argmin(0, keepdim=True)", "a.std()",
    "a.std(1)", "a.var(0, unbiased=False)", "a.var(1, keepdim=True)", "a.std(1, correction=0)", "a.norm()",
    "a.norm(1)", "a.norm(p=float('inf'), dim=1)", "a.logsumexp(1)", "a.amax(1)", "a.amin((0, 1))",
    "torch.max(a, b)", "d.sum()", "d.mean(0)", "a.any()", "k.all(1)", "(a > 0).any(0)",
    # shape
    "a.view(4, 3)", "a.view(-1)", "a.reshape(2, 6)", "a.permute(1, 0)", "a.transpose(0, 1)", "a.t()", "a.T",
    "x4.flatten(1)", "x4.flatten()", "a.unflatten(1, (2, 2))", "a.unsqueeze(0).shape", "a.unsqueeze(-1).shape",
    "a[None].squeeze()", "a[None].squeeze(0)", "v.expand(3, 4)", "v[None].expand(2, -1)",
    "a.contiguous()", "a.t().contiguous()", "a.t().is_contiguous()", "a.narrow(1, 1, 2)", "a.select(0, -1)",
    "a.index_select(1, torch.tensor([3, 0, 0]))", "a.gather(1, torch.tensor([[0], [1], [3]]))",
    "a.scatter(1, torch.tensor([[0], [1], [3]]), 9.0)",
    "a.scatter_add(0, torch.tensor([[0, 1, 2, 0]]), torch.ones(1, 4))", "a.masked_select(k)",
    "a.split(2, 1)", "a.split([1, 3], 1)", "a.chunk(2, 0)", "torch.cat([a, b])", "torch.cat([a, b], 1)",
    "torch.stack([a, b])", "torch.stack([a, b], -1)", "a.repeat(2, 1)", "a.unbind(1)", "a.flatten().tolist()",
    "a.stride()", "a.t().stride()", "a.size()", "a.size(1)", "a.size(-1)", "a.dim()", "a.numel()",
    "x4.shape", "a.expand_as(torch.zeros(2, 3, 4)).shape", "a.float().dtype", "i.double()", "a.long()",
    "a.int()", "a.bool()", "a.half()", "a.to(torch.float64)", "a.to(torch.float16).float()", "i.float()",
    "k.long()", "a.type()", "i.type()", "a.item() if a.numel() == 1 else a[1, 2].item()", "i[0, 0].item()",
    "k[0, 0].item()", "a.tolist()", "i.tolist()", "k.tolist()", "float(a[0, 1])", "int(i[1, 1])",
    "bool(k[0, 0])", "len(a)", "a.is_floating_point()", "i.is_floating_point()", "a.dtype", "d.dtype",
    "u.dtype", "a.element_size()", "d.element_size()",
    # indexing
    "a[0]", "a[-1]", "a[1:3]", "a[:, 1]", "a[:, -1]", "a[..., 2]", "a[..., None].shape", "a[None, :, None].shape",
    "a[::2]", "a[:, 1::2]", "a[1, 2]", "a[-2:, :-1]", "a[k]", "a[a > 0]", "a[torch.tensor([2, 0])]",
    "a[:, torch.tensor([3, 1])]", "a[torch.tensor([True, False, True])]", "a[torch.tensor([[0, 1], [2, 2]])]",
    "a[1][2]", "x4[0, :, 1:3, ::2]", "x4[..., 0, 0]", "a[[0, 2]]", "a[-3]", "a[1:1]",
    # factories
    "torch.zeros(2, 3)", "torch.ones(2, dtype=torch.int64)", "torch.full((2, 2), 7)", "torch.full((2,), 1.5)",
    "torch.full((2,), True)", "torch.arange(5)", "torch.arange(1, 4)", "torch.arange(0, 1, 0.25)",
    "torch.arange(5, dtype=torch.float32)", "torch.arange(10, 0, -3)", "torch.zeros_like(a)",
    "torch.ones_like(i)", "torch.full_like(a, 3)", "torch.tensor([1, 2, 3])", "torch.tensor([1.0, 2])",
    "torch.tensor([True, False])", "torch.tensor([[1, 2], [3, 4]], dtype=torch.float64)", "torch.tensor(3.5)",
    "torch.tensor(7)", "torch.tensor([])", "torch.tensor([[True, 1], [2, 3.5]])", "torch.zeros(0, 3)",
    "torch.empty(2, 3).shape", "torch.linspace(0, 1, 5)", "torch.tensor([1, 2], dtype=torch.uint8)",
    "torch.zeros((2, 3)).shape", "torch.ones([4]).shape",
]

# Repr cases: expression -> repr(result) (the C library's printing vs torch's).
REPRS = [
    "a", "i", "k", "d", "h", "u", "v", "a.max(1)", "a.min(0, keepdim=True)", "torch.tensor(3.5)", "torch.tensor(7)", "torch.tensor([])",
    "torch.zeros(0, 3)", "torch.tensor([1e10, 1.0])", "torch.tensor([1e-5, 1.0])", "torch.tensor([1.0, 2.0])",
    "torch.tensor([float('nan'), float('inf'), -float('inf'), 1.5])", "torch.arange(2000.)",
    "torch.arange(12).reshape(2, 2, 3)", "a.to(torch.bfloat16)", "torch.tensor([100000.0, 1.0])",
    "torch.tensor([0.1, 0.25], dtype=torch.float64)", "torch.tensor(2, dtype=torch.int32)",
    "a.dtype", "i.dtype", "k.dtype", "a.to(torch.bfloat16).dtype", "a.shape", "torch.zeros(()).shape",
    "a.device", "torch.tensor([1.5], requires_grad=True)", "torch.tensor([1.5], requires_grad=True) * 2",
    "torch.tensor([1.5], requires_grad=True) + 1", "torch.tensor([1.5], requires_grad=True).sum()",
    "torch.tensor([1.5], requires_grad=True).sum(0)", "torch.tensor([[1.5]], requires_grad=True).t()",
    "torch.tensor([1.5], requires_grad=True).exp()", "torch.tensor([1.5], requires_grad=True) @ torch.ones(1)",
    "torch.tensor([1.5], requires_grad=True)[0]", "torch.tensor([1.5], requires_grad=True).view(1, 1)",
    "torch.tensor([1.5], requires_grad=True).mean()", "torch.tensor([1.5], requires_grad=True).relu()",
    "torch.tensor([1.5], requires_grad=True).sigmoid()", "torch.tensor([1.5], requires_grad=True).pow(2)",
    "torch.tensor([1.5], requires_grad=True).detach()", "torch.tensor([1.5], requires_grad=True) - 1",
    "torch.tensor([1.5], requires_grad=True) / 2", "-torch.tensor([1.5], requires_grad=True)",
]

# Functional cases: value checks of torch.nn.functional as F.
FUNCTIONAL = [
    "F.relu(a)", "F.relu6(a * 5)", "F.leaky_relu(a)", "F.leaky_relu(a, 0.2)", "F.elu(a)", "F.elu(a, 0.5)",
    "F.gelu(a)", "F.gelu(a, approximate='tanh')", "F.silu(a)", "F.sigmoid(a)", "F.tanh(a)", "F.softplus(a)",
    "F.softplus(a, beta=2, threshold=1)", "F.hardtanh(a)", "F.hardtanh(a, -0.5, 0.2)", "F.softmax(a, dim=1)",
    "F.log_softmax(a, dim=0)", "F.linear(a, m.t())", "F.linear(a, m.t(), v[:1].expand(5).contiguous())",
    "F.conv2d(x4, w4)", "F.conv2d(x4, w4, bias4, stride=2, padding=1)", "F.conv2d(x4, w4, padding='same')",
    "F.conv2d(x4, w4, dilation=2)", "F.conv2d(x4, w4[:, :1].repeat(1, 1, 1, 1)[:3], groups=3)",
    "F.conv_transpose2d(x4, wt)", "F.conv_transpose2d(x4, wt, stride=2, padding=1, output_padding=1)",
    "F.max_pool2d(x4, 2)", "F.max_pool2d(x4, 3, stride=2, padding=1)", "F.max_pool2d(x4, 2, return_indices=True)",
    "F.max_pool2d(x4, 3, ceil_mode=True)", "F.avg_pool2d(x4, 2)", "F.avg_pool2d(x4, 3, 2, 1)",
    "F.avg_pool2d(x4, 3, 2, 1, count_include_pad=False)", "F.adaptive_avg_pool2d(x4, 1)",
    "F.adaptive_avg_pool2d(x4, (2, 3))", "F.batch_norm(x4, None, None, training=True)",
    "F.batch_norm(x4, torch.zeros(3), torch.ones(3), torch.tensor([1., 2., 3.]), torch.tensor([0., 1., 0.]))",
    "F.layer_norm(a, (4,))", "F.layer_norm(x4, (6, 6))", "F.layer_norm(a, [4], v, v)",
    "F.group_norm(x4, 3)", "F.group_norm(x4, 1, torch.tensor([1., 2., 3.]), torch.tensor([0., 1., 0.]))",
    "F.dropout(a, 0.5, training=False)", "F.dropout(a, 0.0)", "F.embedding(idx, emb)",
    "F.embedding(idx, emb, padding_idx=0)", "F.pad(a, (1, 2))", "F.pad(a, (1, 1, 2, 0), value=3.0)",
    "F.pad(x4, (1, 1, 1, 1), mode='reflect')", "F.pad(x4, (2, 1, 0, 1), mode='replicate')",
    "F.pad(x4, (1, 1, 1, 1), mode='circular')", "F.normalize(a)", "F.normalize(a, p=1, dim=0)",
    "F.mse_loss(a, b)", "F.mse_loss(a, b, reduction='sum')", "F.mse_loss(a, b, reduction='none')",
    "F.l1_loss(a, b)", "F.smooth_l1_loss(a, b)", "F.smooth_l1_loss(a, b, beta=0.5)", "F.huber_loss(a, b)",
    "F.huber_loss(a, b, delta=0.3, reduction='sum')", "F.nll_loss(logits.log_softmax(1), target)",
    "F.nll_loss(logits.log_softmax(1), target, weight=cw)",
    "F.nll_loss(logits.log_softmax(1), target_ign, reduction='none')", "F.cross_entropy(logits, target)",
    "F.cross_entropy(logits, target, weight=cw)", "F.cross_entropy(logits, target_ign)",
    "F.cross_entropy(logits, target, reduction='sum')", "F.cross_entropy(logits, target, label_smoothing=0.1)",
    "F.cross_entropy(logits, target_ign, weight=cw, label_smoothing=0.2)",
    "F.cross_entropy(logits, probs.softmax(1))", "F.binary_cross_entropy(probs, labels)",
    "F.binary_cross_entropy(probs, labels, weight=cw)", "F.binary_cross_entropy(probs, labels, reduction='none')",
    "F.binary_cross_entropy_with_logits(logits, labels)",
    "F.binary_cross_entropy_with_logits(logits, labels, pos_weight=cw)",
    "F.binary_cross_entropy_with_logits(logits, labels, weight=cw, reduction='sum')",
    "F.one_hot(torch.tensor([0, 2, 1]), 4)",
]

# Gradient cases: d sum(expr * g) / d leaves, where the named inputs require grad; g is a fixed weight.
GRADS = [
    ("a * b + a.exp()", ["a", "b"]), ("(a @ m).tanh()", ["a", "m"]), ("a.softmax(1)", ["a"]),
    ("a.log_softmax(0)", ["a"]), ("p.sqrt() / (p + 1)", ["p"]), ("a.max(1).values", ["a"]),
    ("a.std(1)", ["a"]), ("a.norm()", ["a"]), ("a[:, 1:3].sum(1)", ["a"]), ("a.t().reshape(-1)", ["a"]),
    ("torch.cat([a, b], 1)", ["a", "b"]), ("torch.where(a > 0, a, b * 2)", ["a", "b"]),
    ("F.conv2d(x4, w4, bias4, padding=1)", ["x4", "w4", "bias4"]), ("F.max_pool2d(x4, 2)", ["x4"]),
    ("F.cross_entropy(logits, target, label_smoothing=0.1)", ["logits"]),
    ("F.layer_norm(a, (4,), v, v)", ["a", "v"]), ("F.gelu(a)", ["a"]), ("a.logsumexp(1)", ["a"]),
    ("a.pow(2).mean()", ["a"]), ("a.clamp(-0.5, 0.5)", ["a"]), ("a.index_select(1, torch.tensor([3, 0, 0]))", ["a"]),
    ("F.embedding(idx, emb)", ["emb"]), ("F.group_norm(x4, 3)", ["x4"]),
    ("F.binary_cross_entropy_with_logits(logits, labels, pos_weight=cw)", ["logits"]),
]


def encode(x):
    if isinstance(x, torch.Tensor):
        t = x.detach()
        if t.dtype == torch.bfloat16:
            t = t.float()
        return {"tensor": t.numpy().tolist(), "dtype": str(x.dtype).replace("torch.", ""), "shape": list(x.shape)}
    if isinstance(x, tuple) and type(x) is not tuple and hasattr(x, "_fields"):
        return {"tuple": [encode(y) for y in x]}
    if isinstance(x, torch.Size):
        return {"size": list(x)}
    if isinstance(x, (tuple, list)) and x and isinstance(x[0], torch.Tensor):
        return {"tuple": [encode(y) for y in x]}
    if isinstance(x, torch.dtype):
        return {"dtype_value": str(x)}
    if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
        return {"float": repr(x)}
    if isinstance(x, tuple):
        return {"pytuple": list(x)}
    return {"value": x}


def env():
    import torch.nn.functional as F

    e = {"torch": torch, "F": F}
    for name, (arr, _dt) in INPUTS.items():
        e[name] = torch.from_numpy(arr.copy())
    return e


def main():
    out = {"inputs": {n: {"data": a.astype(np.float64).tolist() if a.dtype != np.bool_ else a.tolist(),
                          "dtype": dt, "shape": list(a.shape)} for n, (a, dt) in INPUTS.items()},
           "values": {}, "reprs": {}, "functional": {}, "grads": {}}
    for key, exprs, fn in (("values", VALUES, encode), ("reprs", REPRS, repr), ("functional", FUNCTIONAL, encode)):
        for expr in exprs:
            try:
                out[key][expr] = fn(eval(expr, env()))
            except Exception as e:  # a case torch itself rejects: fix the list
                raise SystemExit("torch fails on %r: %s: %s" % (expr, type(e).__name__, e))
    for expr, leaves in GRADS:
        e = env()
        for n in leaves:
            e[n] = e[n].clone().requires_grad_(True)
        y = eval(expr, e)
        g = torch.from_numpy(np.random.RandomState(7).randn(*y.shape).astype(np.float32)) if y.dim() else torch.tensor(1.0)
        (y * g).sum().backward()
        out["grads"][expr] = {"leaves": leaves, "weight": g.numpy().tolist(),
                              "grads": {n: e[n].grad.numpy().tolist() for n in leaves}}
    with open(os.path.join(HERE, "tensor_golden.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
