#!/usr/bin/python3
"""Writes tests/golden/modules/layers.json and layers_conv.json (the
convolutions and pools): the built-in layers of
tests/nn/layers_*_test.cpp against torch.nn (torch 1.13).

Run from tests/golden with a Python that has torch:
    /usr/bin/python3 gen_layers.py
The output is committed; CI has no torch.

{"cases": [...], "errors": [...]}

A case is {name, module, args, dtype, train, params, inputs, out, w, grads,
repr, keys, tol}:
  module, args: which glia_nn_* constructor and its arguments (the C++ test's
        build() reads them; keys follow torch's keyword names)
  params: [{name, value}] the torch module's parameters in registration
        order; the test copies them into the glia module
  inputs: tensors {dtype, shape, values}; floating inputs require grad
  out: the module's output; w: a weight of out's shape; grads: {"input0",
        ..., "<param name>"}: the gradients of sum(out * w) (absent for
        integer inputs)
  repr: repr(module); keys: list(module.state_dict())
  tol: relative tolerance (|glia - torch| <= tol * (1 + |torch|))
An error is {name, module, args, message}: constructing must fail with
GLIA_ERR_INVALID_ARGUMENT and a message containing torch's str(exception).
"""

import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from golden import encode

HERE = os.path.dirname(os.path.abspath(__file__))
gen = torch.Generator().manual_seed(4321)


def enc(t):
    t = t.detach()
    name = str(t.dtype).replace("torch.", "")
    return {"dtype": name, "shape": list(t.shape), "values": [encode(v) for v in t.reshape(-1).tolist()]}


def randn(*shape, dtype=torch.float64):
    return torch.randn(*shape, generator=gen, dtype=torch.float64).to(dtype)


class Normalize(nn.Module):
    """torchvision.transforms.Normalize (torchvision is not installed here)."""

    def __init__(self, mean, std):
        super().__init__()
        self.mean, self.std = mean, std

    def forward(self, x):
        mean = torch.as_tensor(self.mean, dtype=x.dtype).view(-1, 1, 1)
        std = torch.as_tensor(self.std, dtype=x.dtype).view(-1, 1, 1)
        return (x - mean) / std

    def __repr__(self):
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


cases = []
errors = []


def case(name, module, args, make, inputs, dtype=torch.float64, train=False, tol=None):
    m = make().to(dtype)
    with torch.no_grad():  # fresh values from our generator, independent of torch's init RNG
        for p in m.parameters():
            p.copy_(randn(*p.shape, dtype=dtype) * 0.5)
        if isinstance(m, nn.Embedding) and m.padding_idx is not None:
            m.weight[m.padding_idx].zero_()
    m.train(train)
    xs = []
    for x in inputs:
        x = x.to(dtype) if x.is_floating_point() else x
        if x.is_floating_point():
            x = x.clone().requires_grad_(True)
        xs.append(x)
    params0 = [{"name": n, "value": enc(p)} for n, p in m.named_parameters()]
    out = m(*xs)
    w = randn(*out.shape, dtype=dtype)
    diff = [x for x in xs if x.is_floating_point()] + list(m.parameters())
    gs = torch.autograd.grad((out * w).sum(), diff, allow_unused=True)
    grads = {}
    k = 0
    for i, x in enumerate(xs):
        if x.is_floating_point():
            grads[f"input{i}"] = enc(gs[k])
            k += 1
    for (n, _), g in zip(m.named_parameters(), gs[k:]):
        grads[n] = enc(g if g is not None else torch.zeros(()))
    if tol is None:
        tol = 1e-10 if dtype == torch.float64 else 2e-5
    cases.append({
        "name": name + ("" if dtype == torch.float64 else "_f32"),
        "module": module, "args": args, "dtype": str(dtype).replace("torch.", ""), "train": train,
        "params": params0, "inputs": [enc(x) for x in xs], "out": enc(out), "w": enc(w), "grads": grads,
        "repr": repr(m), "keys": list(m.state_dict().keys()), "tol": tol,
    })


def both(name, module, args, make, inputs, **kw):
    case(name, module, args, make, inputs, torch.float64, **kw)
    case(name, module, args, make, inputs, torch.float32, **kw)


x4 = lambda *s: randn(*s)

both("identity", "Identity", {}, nn.Identity, [x4(2, 3)])
both("linear", "Linear", {"in_features": 4, "out_features": 3, "bias": True}, lambda: nn.Linear(4, 3), [x4(5, 4)])
case("linear_nobias_3d", "Linear", {"in_features": 4, "out_features": 2, "bias": False},
     lambda: nn.Linear(4, 2, bias=False), [x4(2, 3, 4)])
both("bilinear", "Bilinear", {"in1_features": 3, "in2_features": 4, "out_features": 2, "bias": True},
     lambda: nn.Bilinear(3, 4, 2), [x4(5, 3), x4(5, 4)])
case("bilinear_nobias_3d", "Bilinear", {"in1_features": 2, "in2_features": 3, "out_features": 4, "bias": False},
     lambda: nn.Bilinear(2, 3, 4, bias=False), [x4(2, 3, 2), x4(2, 3, 3)])


def conv(name, cin, cout, k, kw=None, inp=(2, 2, 6, 5), f32=False, **a):
    kk = (k, k) if kw is None else (k, kw)
    args = {"in_channels": cin, "out_channels": cout, "kernel_size": list(kk)}
    for key, v in a.items():
        args[key] = list(v) if isinstance(v, tuple) else v
    make = lambda: nn.Conv2d(cin, cout, kk, **a)
    (both if f32 else case)(name, "Conv2d", args, make, [x4(*inp)])


conv("conv2d", 2, 4, 3, f32=True)
conv("conv2d_lenet", 1, 6, 5, inp=(2, 1, 8, 8), padding=2)
conv("conv2d_stride_pad_dil", 2, 4, 3, 2, stride=(2, 1), padding=(1, 2), dilation=(2, 1))
conv("conv2d_groups_nobias", 4, 6, 3, inp=(2, 4, 5, 5), groups=2, bias=False)
conv("conv2d_same_odd", 2, 3, 3, padding="same")
conv("conv2d_same_even", 2, 3, 4, 2, padding="same", dilation=(1, 3))
conv("conv2d_valid", 2, 3, 3, padding="valid")
conv("conv2d_reflect", 2, 3, 3, padding=1, padding_mode="reflect", f32=True)
conv("conv2d_replicate", 2, 3, 3, 2, padding=(2, 1), padding_mode="replicate")
conv("conv2d_circular_same_even", 2, 3, 4, padding="same", padding_mode="circular")
conv("conv2d_unbatched", 2, 3, 3, inp=(2, 5, 5), padding=1)


def convt(name, cin, cout, k, inp=(2, 2, 4, 5), f32=False, **a):
    args = {"in_channels": cin, "out_channels": cout, "kernel_size": [k, k]}
    for key, v in a.items():
        args[key] = list(v) if isinstance(v, tuple) else v
    (both if f32 else case)(name, "ConvTranspose2d", args, lambda: nn.ConvTranspose2d(cin, cout, k, **a),
                            [x4(*inp)])


convt("conv_transpose2d", 2, 3, 3, f32=True)
convt("conv_transpose2d_full", 4, 6, 3, inp=(2, 4, 3, 4), stride=(2, 3), padding=(1, 0), output_padding=(1, 2),
      groups=2, dilation=(1, 2))
convt("conv_transpose2d_nobias", 2, 2, 2, stride=2, bias=False)

# Pools: inputs without ties (a permutation) so max's gradient is unambiguous.
def perm(*s):
    n = 1
    for v in s:
        n *= v
    return (torch.randperm(n, generator=gen).to(torch.float64) / 8 - 3).reshape(s)


def pool(name, module, args, make, inp, f32=False):
    (both if f32 else case)(name, module, args, make, [inp])


pool("max_pool2d", "MaxPool2d", {"kernel_size": [2, 2]}, lambda: nn.MaxPool2d(2), perm(2, 2, 6, 6), f32=True)
pool("max_pool2d_full", "MaxPool2d", {"kernel_size": [2, 3], "stride": [1, 2], "padding": [1, 1],
                                      "dilation": [2, 1], "ceil_mode": True},
     lambda: nn.MaxPool2d((2, 3), (1, 2), 1, (2, 1), ceil_mode=True), perm(2, 2, 7, 8))
pool("avg_pool2d", "AvgPool2d", {"kernel_size": [2, 2]}, lambda: nn.AvgPool2d(2), x4(2, 2, 6, 6), f32=True)
pool("avg_pool2d_full", "AvgPool2d", {"kernel_size": [3, 3], "stride": [2, 2], "padding": [1, 1],
                                      "ceil_mode": True, "count_include_pad": False},
     lambda: nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False), x4(2, 2, 7, 8))
pool("avg_pool2d_divisor", "AvgPool2d", {"kernel_size": [2, 3], "stride": [1, 2], "divisor_override": 5},
     lambda: nn.AvgPool2d((2, 3), (1, 2), divisor_override=5), x4(1, 2, 5, 7))
pool("adaptive_avg_pool2d", "AdaptiveAvgPool2d", {"output_size": [3, 3]}, lambda: nn.AdaptiveAvgPool2d(3),
     x4(2, 2, 7, 5), f32=True)
pool("adaptive_avg_pool2d_none", "AdaptiveAvgPool2d", {"output_size": [None, 2]},
     lambda: nn.AdaptiveAvgPool2d((None, 2)), x4(2, 2, 5, 7))

act_x = lambda: x4(3, 5) * 2
both("relu", "ReLU", {}, nn.ReLU, [act_x()])
both("leaky_relu", "LeakyReLU", {"negative_slope": 0.01}, nn.LeakyReLU, [act_x()])
case("leaky_relu_02", "LeakyReLU", {"negative_slope": 0.2}, lambda: nn.LeakyReLU(0.2), [act_x()])
both("elu", "ELU", {"alpha": 1.0}, nn.ELU, [act_x()])
case("elu_alpha", "ELU", {"alpha": 0.5}, lambda: nn.ELU(0.5), [act_x()])
both("gelu", "GELU", {"approximate": "none"}, nn.GELU, [act_x()])
both("gelu_tanh", "GELU", {"approximate": "tanh"}, lambda: nn.GELU("tanh"), [act_x()])
both("silu", "SiLU", {}, nn.SiLU, [act_x()])
both("sigmoid", "Sigmoid", {}, nn.Sigmoid, [act_x()])
both("tanh", "Tanh", {}, nn.Tanh, [act_x()])
both("softmax", "Softmax", {"dim": 1}, lambda: nn.Softmax(1), [x4(2, 4, 3)])
case("softmax_neg", "Softmax", {"dim": -1}, lambda: nn.Softmax(-1), [x4(2, 4, 3)])
both("log_softmax", "LogSoftmax", {"dim": 1}, lambda: nn.LogSoftmax(1), [x4(2, 4, 3)])
case("dropout_eval", "Dropout", {"p": 0.5}, nn.Dropout, [x4(4, 5)], train=False)
case("dropout_p0_train", "Dropout", {"p": 0.0}, lambda: nn.Dropout(0.0), [x4(4, 5)], train=True)
case("dropout_p03_eval", "Dropout", {"p": 0.3}, lambda: nn.Dropout(0.3), [x4(4, 5)], train=False)
both("flatten", "Flatten", {"start_dim": 1, "end_dim": -1}, nn.Flatten, [x4(2, 3, 2, 2)])
case("flatten_mid", "Flatten", {"start_dim": 0, "end_dim": 1}, lambda: nn.Flatten(0, 1), [x4(2, 3, 2, 2)])
both("unflatten", "Unflatten", {"dim": 1, "sizes": [2, 3]}, lambda: nn.Unflatten(1, (2, 3)), [x4(2, 6, 2)])
case("unflatten_one", "Unflatten", {"dim": -1, "sizes": [4]}, lambda: nn.Unflatten(-1, (4,)), [x4(3, 4)])
case("unflatten_infer", "Unflatten", {"dim": 0, "sizes": [2, -1]}, lambda: nn.Unflatten(0, (2, -1)), [x4(6, 2)])
both("normalize", "Normalize", {"mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]},
     lambda: Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]), [x4(2, 3, 4, 5)])
case("normalize_one", "Normalize", {"mean": [0.5], "std": [0.25]}, lambda: Normalize([0.5], [0.25]),
     [x4(3, 2, 2)])

idx = torch.tensor([[1, 3, 0, 3], [9, 2, 2, 7]])
both("embedding", "Embedding", {"num_embeddings": 10, "embedding_dim": 3}, lambda: nn.Embedding(10, 3), [idx])
case("embedding_pad", "Embedding", {"num_embeddings": 10, "embedding_dim": 3, "padding_idx": 2},
     lambda: nn.Embedding(10, 3, padding_idx=2), [idx])
case("embedding_pad_neg", "Embedding", {"num_embeddings": 10, "embedding_dim": 3, "padding_idx": -1},
     lambda: nn.Embedding(10, 3, padding_idx=-1), [idx])
case("embedding_max_norm", "Embedding",
     {"num_embeddings": 10, "embedding_dim": 3, "max_norm": 1.0, "norm_type": 1.5},
     lambda: nn.Embedding(10, 3, max_norm=1.0, norm_type=1.5), [idx])


def error(name, module, args, make):
    try:
        make()
    except Exception as e:  # noqa: BLE001
        errors.append({"name": name, "module": module, "args": args, "message": str(e)})
        return
    raise AssertionError(name + " did not fail")


error("conv_groups_in", "Conv2d", {"in_channels": 3, "out_channels": 4, "kernel_size": [3, 3], "groups": 2},
      lambda: nn.Conv2d(3, 4, 3, groups=2))
error("conv_groups_out", "Conv2d", {"in_channels": 4, "out_channels": 3, "kernel_size": [3, 3], "groups": 2},
      lambda: nn.Conv2d(4, 3, 3, groups=2))
error("conv_groups_zero", "Conv2d", {"in_channels": 4, "out_channels": 4, "kernel_size": [3, 3], "groups": 0},
      lambda: nn.Conv2d(4, 4, 3, groups=0))
error("conv_same_strided", "Conv2d",
      {"in_channels": 4, "out_channels": 4, "kernel_size": [3, 3], "stride": [2, 1], "padding": "same"},
      lambda: nn.Conv2d(4, 4, 3, stride=(2, 1), padding="same"))
error("conv_negative", "Conv2d", {"in_channels": -1, "out_channels": 3, "kernel_size": [3, 3]},
      lambda: nn.Conv2d(-1, 3, 3))
error("convt_groups_in", "ConvTranspose2d",
      {"in_channels": 3, "out_channels": 4, "kernel_size": [3, 3], "groups": 2},
      lambda: nn.ConvTranspose2d(3, 4, 3, groups=2))
error("convt_groups_zero", "ConvTranspose2d",
      {"in_channels": 3, "out_channels": 4, "kernel_size": [3, 3], "groups": -1},
      lambda: nn.ConvTranspose2d(3, 4, 3, groups=-1))
error("linear_negative", "Linear", {"in_features": -1, "out_features": 3, "bias": True}, lambda: nn.Linear(-1, 3))
error("bilinear_negative", "Bilinear", {"in1_features": 2, "in2_features": -2, "out_features": 3, "bias": True},
      lambda: nn.Bilinear(2, -2, 3))
error("dropout_high", "Dropout", {"p": 1.5}, lambda: nn.Dropout(1.5))
error("dropout_negative", "Dropout", {"p": -0.1}, lambda: nn.Dropout(-0.1))
error("embedding_pad_high", "Embedding", {"num_embeddings": 10, "embedding_dim": 3, "padding_idx": 10},
      lambda: nn.Embedding(10, 3, padding_idx=10))
error("embedding_pad_low", "Embedding", {"num_embeddings": 10, "embedding_dim": 3, "padding_idx": -11},
      lambda: nn.Embedding(10, 3, padding_idx=-11))
error("embedding_negative", "Embedding", {"num_embeddings": -1, "embedding_dim": 3},
      lambda: nn.Embedding(-1, 3))
error("gelu_approximate", "GELU", {"approximate": "foo"}, lambda: nn.GELU("foo")(torch.zeros(1)))

# Forward errors (the module is built, calling it fails): {..., "inputs": [...]}.
forward_errors = []


def ferror(name, module, args, make, inputs):
    try:
        make()(*inputs)
    except Exception as e:  # noqa: BLE001
        forward_errors.append({"name": name, "module": module, "args": args, "message": str(e),
                               "inputs": [enc(x) for x in inputs]})
        return
    raise AssertionError(name + " did not fail")


bil = {"in1_features": 2, "in2_features": 3, "out_features": 4, "bias": True}
ferror("bilinear_in1", "Bilinear", bil, lambda: nn.Bilinear(2, 3, 4), [torch.zeros(5, 3), torch.zeros(5, 3)])
ferror("bilinear_in2", "Bilinear", bil, lambda: nn.Bilinear(2, 3, 4), [torch.zeros(5, 2), torch.zeros(5, 2)])
ferror("bilinear_batch", "Bilinear", bil, lambda: nn.Bilinear(2, 3, 4), [torch.zeros(5, 2), torch.zeros(4, 3)])
ferror("bilinear_ndim", "Bilinear", bil, lambda: nn.Bilinear(2, 3, 4), [torch.zeros(5, 2), torch.zeros(5, 1, 3)])

SPATIAL = ("Conv2d", "ConvTranspose2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d")
files = {
    "layers.json": {"cases": [c for c in cases if c["module"] not in SPATIAL], "errors": errors,
                    "forward_errors": forward_errors},
    "layers_conv.json": {"cases": [c for c in cases if c["module"] in SPATIAL], "errors": [], "forward_errors": []},
}
for fname, content in files.items():
    with open(os.path.join(HERE, "modules", fname), "w") as f:
        json.dump(content, f, separators=(",", ":"))
    print(fname, len(content["cases"]), "cases,", len(content["errors"]), "errors,",
          len(content["forward_errors"]), "forward errors")
