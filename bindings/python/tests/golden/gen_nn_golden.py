"""Generates nn_golden.npz and nn_golden.json (the nn/optim tests' expected values) with PyTorch 1.13.

Run: /usr/bin/python3 bindings/python/tests/golden/gen_nn_golden.py
Weights are drawn here and stored; the tests load the same weights into glia.
"""

import json
import os
from collections import OrderedDict

import numpy as np
import torch
from torch import nn

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(0)
arrays = {}
info = {}


def R(*shape):
    return rng.randn(*shape).astype(np.float32)


def put(prefix, module):
    for k, v in module.state_dict().items():
        arrays[prefix + "/" + k] = v.detach().numpy().copy()


def load(module, prefix):
    sd = module.state_dict()
    for k in sd:
        arrays[prefix + "/" + k] = R(*sd[k].shape) if sd[k].dtype == torch.float32 else sd[k].numpy().copy()
    module.load_state_dict({k: torch.from_numpy(arrays[prefix + "/" + k]) for k in sd})


# ---- the Modules note ------------------------------------------------------------------
class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, input):
        return (input @ self.weight) + self.bias


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l0 = MyLinear(4, 3)
        self.l1 = MyLinear(3, 1)

    def forward(self, x):
        x = self.l0(x)
        x = torch.relu(x)
        x = self.l1(x)
        return x


class BigNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = MyLinear(5, 4)
        self.net = Net()

    def forward(self, x):
        return self.net(self.l1(x))


class DynamicNet(nn.Module):
    def __init__(self, num_layers):
        super().__init__()
        self.linears = nn.ModuleList([MyLinear(4, 4) for _ in range(num_layers)])
        self.activations = nn.ModuleDict({"relu": nn.ReLU(), "lrelu": nn.LeakyReLU()})
        self.final = MyLinear(4, 1)

    def forward(self, x, act):
        for linear in self.linears:
            x = linear(x)
        x = self.activations[act](x)
        x = self.final(x)
        return x


class RunningMean(nn.Module):
    def __init__(self, num_features, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(num_features))

    def forward(self, x):
        self.mean = self.momentum * self.mean + (1.0 - self.momentum) * x
        return self.mean


class StatefulModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.param1 = nn.Parameter(torch.randn(2))
        self.register_parameter("param2", None)
        self.register_buffer("buffer1", torch.randn(3))
        self.register_buffer("buffer2", None)
        self.register_buffer("buffer3", torch.randn(4), persistent=False)
        self.linear = nn.Linear(2, 3)


x4 = R(2, 4)
arrays["x4"] = x4
m = MyLinear(4, 3)
load(m, "mylinear")
arrays["mylinear_out"] = m(torch.from_numpy(x4)).detach().numpy()
info["mylinear_repr"] = repr(m)

seq = nn.Sequential(MyLinear(4, 3), nn.ReLU(), MyLinear(3, 1))
load(seq, "seq")
arrays["seq_out"] = seq(torch.from_numpy(x4)).detach().numpy()
info["seq_repr"] = repr(seq)

net = Net()
load(net, "net")
arrays["net_out"] = net(torch.from_numpy(x4)).detach().numpy()
info["net_repr"] = repr(net)
info["net_named_parameters"] = [k for k, _ in net.named_parameters()]

big = BigNet()
load(big, "big")
x5 = R(3, 5)
arrays["x5"] = x5
arrays["big_out"] = big(torch.from_numpy(x5)).detach().numpy()
info["big_repr"] = repr(big)
info["big_named_modules"] = [k for k, _ in big.named_modules()]
info["big_state_keys"] = list(big.state_dict())

dyn = DynamicNet(3)
load(dyn, "dyn")
arrays["dyn_relu"] = dyn(torch.from_numpy(x4), "relu").detach().numpy()
arrays["dyn_lrelu"] = dyn(torch.from_numpy(x4), act="lrelu").detach().numpy()
info["dyn_repr"] = repr(dyn)
info["dyn_state_keys"] = list(dyn.state_dict())

rm = RunningMean(4)
outs = []
xs = R(3, 4)
arrays["rm_x"] = xs
for i in range(3):
    outs.append(rm(torch.from_numpy(xs[i])).numpy())
arrays["rm_out"] = np.stack(outs)
info["rm_state_keys"] = list(rm.state_dict())

sm = StatefulModule()
info["stateful_state_keys"] = list(sm.state_dict())
info["stateful_repr"] = repr(sm)
info["stateful_named_buffers"] = [k for k, _ in sm.named_buffers()]
info["stateful_named_parameters"] = [k for k, _ in sm.named_parameters()]

# hooks (the note's example, with stored weights)
lin = nn.Linear(3, 3)
load(lin, "hooklin")
xh = R(2, 3)
arrays["hook_x"] = xh


def forward_pre_hook(m, inputs):
    return inputs[0] + 1.0


def forward_hook(m, inputs, output):
    return output + inputs[0]


def backward_hook(m, grad_inputs, grad_outputs):
    return [torch.ones_like(gi) * 42.0 for gi in grad_inputs]


x = torch.from_numpy(xh).requires_grad_()
arrays["hook_plain"] = lin(x).detach().numpy()
h1 = lin.register_forward_pre_hook(forward_pre_hook)
arrays["hook_pre"] = lin(x).detach().numpy()
h2 = lin.register_forward_hook(forward_hook)
arrays["hook_both"] = lin(x).detach().numpy()
h1.remove()
h2.remove()
arrays["hook_removed"] = lin(x).detach().numpy()
lin(x).sum().backward()
arrays["hook_grad_plain"] = x.grad.numpy().copy()
x.grad = None
h3 = lin.register_full_backward_hook(backward_hook)
lin(x).sum().backward()
arrays["hook_grad_42"] = x.grad.numpy().copy()
h3.remove()

# ---- reprs of built-ins ------------------------------------------------------------------
builtins = OrderedDict(
    [
        ("Linear(2, 3)", nn.Linear(2, 3)),
        ("Linear(2, 3, bias=False)", nn.Linear(2, 3, bias=False)),
        ("Bilinear(2, 3, 4)", nn.Bilinear(2, 3, 4)),
        ("Conv2d(1, 6, 5, padding=2)", nn.Conv2d(1, 6, 5, padding=2)),
        ("Conv2d(2, 4, (3, 5), stride=2, bias=False)", nn.Conv2d(2, 4, (3, 5), stride=2, bias=False)),
        ("ConvTranspose2d(4, 2, 3, stride=2)", nn.ConvTranspose2d(4, 2, 3, stride=2)),
        ("MaxPool2d(2)", nn.MaxPool2d(2)),
        ("AvgPool2d(3, stride=1, padding=1)", nn.AvgPool2d(3, stride=1, padding=1)),
        ("AdaptiveAvgPool2d((2, 3))", nn.AdaptiveAvgPool2d((2, 3))),
        ("BatchNorm1d(4)", nn.BatchNorm1d(4)),
        ("BatchNorm2d(3, affine=False)", nn.BatchNorm2d(3, affine=False)),
        ("LayerNorm(4)", nn.LayerNorm(4)),
        ("GroupNorm(2, 4)", nn.GroupNorm(2, 4)),
        ("Dropout(0.25)", nn.Dropout(0.25)),
        ("Embedding(10, 3, padding_idx=0)", nn.Embedding(10, 3, padding_idx=0)),
        ("Flatten()", nn.Flatten()),
        ("Unflatten(1, (2, 3))", nn.Unflatten(1, (2, 3))),
        ("Identity()", nn.Identity()),
        ("ReLU()", nn.ReLU()),
        ("LeakyReLU(0.2)", nn.LeakyReLU(0.2)),
        ("ELU()", nn.ELU()),
        ("GELU()", nn.GELU()),
        ("GELU(approximate='tanh')", nn.GELU(approximate="tanh")),
        ("SiLU()", nn.SiLU()),
        ("Sigmoid()", nn.Sigmoid()),
        ("Tanh()", nn.Tanh()),
        ("Softmax(dim=1)", nn.Softmax(dim=1)),
        ("LogSoftmax(dim=-1)", nn.LogSoftmax(dim=-1)),
        ("MSELoss()", nn.MSELoss()),
        ("L1Loss(reduction='sum')", nn.L1Loss(reduction="sum")),
        ("SmoothL1Loss(beta=0.5)", nn.SmoothL1Loss(beta=0.5)),
        ("HuberLoss(delta=2.0)", nn.HuberLoss(delta=2.0)),
        ("NLLLoss()", nn.NLLLoss()),
        ("CrossEntropyLoss(label_smoothing=0.1)", nn.CrossEntropyLoss(label_smoothing=0.1)),
        ("BCELoss()", nn.BCELoss()),
        ("BCEWithLogitsLoss()", nn.BCEWithLogitsLoss()),
    ]
)
info["builtin_reprs"] = {k: repr(v) for k, v in builtins.items()}
info["builtin_state_keys"] = {k: list(v.state_dict()) for k, v in builtins.items()}
info["builtin_param_shapes"] = {k: {n: list(p.shape) for n, p in v.named_parameters()} for k, v in builtins.items()}

# forward values of parameterised built-ins with stored weights
fw = OrderedDict()
xin = {
    "lin": R(2, 2), "conv": R(2, 1, 8, 8), "convt": R(1, 4, 3, 3), "bn1": R(5, 4), "ln": R(3, 4),
    "gn": R(2, 4, 3), "emb": np.array([[1, 0, 9], [3, 3, 2]], dtype=np.int64), "bil1": R(3, 2), "bil2": R(3, 3),
    "pool": R(1, 2, 6, 6),
}
for k, v in xin.items():
    arrays["in_" + k] = v
mods = {
    "lin": nn.Linear(2, 3), "conv": nn.Conv2d(1, 6, 5, padding=2), "convt": nn.ConvTranspose2d(4, 2, 3, stride=2),
    "bn1": nn.BatchNorm1d(4), "ln": nn.LayerNorm(4), "gn": nn.GroupNorm(2, 4), "emb": nn.Embedding(10, 3),
}
for k, mod in mods.items():
    load(mod, "w_" + k)
    arrays["out_" + k] = mod(torch.from_numpy(xin[k])).detach().numpy()
bil = nn.Bilinear(2, 3, 4)
load(bil, "w_bil")
arrays["out_bil"] = bil(torch.from_numpy(xin["bil1"]), torch.from_numpy(xin["bil2"])).detach().numpy()
arrays["bn1_running_mean"] = mods["bn1"].running_mean.numpy()
arrays["bn1_running_var"] = mods["bn1"].running_var.numpy()
p = torch.from_numpy(xin["pool"])
arrays["out_maxpool"] = nn.MaxPool2d(2)(p).numpy()
arrays["out_avgpool"] = nn.AvgPool2d(3, stride=1, padding=1)(p).numpy()
arrays["out_adaptive"] = nn.AdaptiveAvgPool2d((2, 3))(p).numpy()
act_in = R(3, 5)
arrays["act_in"] = act_in
for name, mod in [("relu", nn.ReLU()), ("lrelu", nn.LeakyReLU(0.2)), ("elu", nn.ELU()), ("gelu", nn.GELU()),
                  ("gelut", nn.GELU(approximate="tanh")), ("silu", nn.SiLU()), ("sigmoid", nn.Sigmoid()),
                  ("tanh", nn.Tanh()), ("softmax", nn.Softmax(dim=1)), ("logsoftmax", nn.LogSoftmax(dim=-1))]:
    arrays["act_" + name] = mod(torch.from_numpy(act_in)).numpy()
tgt = R(3, 5)
prob = torch.sigmoid(torch.from_numpy(R(3, 5)))
bt = (rng.rand(3, 5) > 0.5).astype(np.float32)
cls = np.array([1, 0, 4], dtype=np.int64)
arrays["loss_tgt"], arrays["loss_prob"], arrays["loss_bt"], arrays["loss_cls"] = tgt, prob.numpy(), bt, cls
a, t = torch.from_numpy(act_in), torch.from_numpy(tgt)
arrays["loss_mse"] = nn.MSELoss()(a, t).numpy()
arrays["loss_l1"] = nn.L1Loss(reduction="sum")(a, t).numpy()
arrays["loss_sl1"] = nn.SmoothL1Loss(beta=0.5)(a, t).numpy()
arrays["loss_huber"] = nn.HuberLoss(delta=2.0)(a, t).numpy()
arrays["loss_nll"] = nn.NLLLoss()(torch.log_softmax(a, 1), torch.from_numpy(cls)).numpy()
arrays["loss_ce"] = nn.CrossEntropyLoss(label_smoothing=0.1)(a, torch.from_numpy(cls)).numpy()
arrays["loss_ce_none"] = nn.CrossEntropyLoss(reduction="none")(a, torch.from_numpy(cls)).numpy()
arrays["loss_bce"] = nn.BCELoss()(prob, torch.from_numpy(bt)).numpy()
arrays["loss_bcel"] = nn.BCEWithLogitsLoss()(a, torch.from_numpy(bt)).numpy()

# ---- load_state_dict errors ---------------------------------------------------------------
class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.fc2 = nn.Linear(3, 2)


tl = TwoLayer()
sd = tl.state_dict()
bad = OrderedDict(sd)
del bad["fc2.bias"]
bad["extra.weight"] = torch.zeros(1)
try:
    tl.load_state_dict(bad)
except RuntimeError as e:
    info["err_missing_unexpected"] = str(e)
r = tl.load_state_dict(bad, strict=False)
info["nonstrict_missing"], info["nonstrict_unexpected"] = r.missing_keys, r.unexpected_keys
info["nonstrict_repr"] = repr(r)
info["all_matched_repr"] = repr(tl.load_state_dict(sd))
bad2 = OrderedDict(sd)
bad2["fc1.weight"] = torch.zeros(3, 5)
try:
    tl.load_state_dict(bad2)
except RuntimeError as e:
    info["err_size"] = str(e)

# ---- optimizers -----------------------------------------------------------------------------
p0 = R(3, 2)
grads = R(5, 3, 2)
arrays["opt_p0"], arrays["opt_grads"] = p0, grads
opt_cfgs = OrderedDict(
    [
        ("sgd", ("SGD", dict(lr=0.1))),
        ("sgd_mom", ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01))),
        ("sgd_nesterov", ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True))),
        ("adam", ("Adam", dict(lr=0.01))),
        ("adam_ams", ("Adam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True))),
        ("adamw", ("AdamW", dict(lr=0.01))),
        ("rmsprop", ("RMSprop", dict(lr=0.01))),
        ("rmsprop_c", ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1))),
    ]
)
info["opt_cfgs"] = {k: [c, {kk: list(vv) if isinstance(vv, tuple) else vv for kk, vv in kw.items()}]
                    for k, (c, kw) in opt_cfgs.items()}
for name, (cls_name, kw) in opt_cfgs.items():
    p = torch.nn.Parameter(torch.from_numpy(p0.copy()))
    opt = getattr(torch.optim, cls_name)([p], **kw)
    traj = []
    for g in grads:
        opt.zero_grad()
        (p * torch.from_numpy(g)).sum().backward()
        opt.step()
        traj.append(p.detach().numpy().copy())
    arrays["opt_" + name] = np.stack(traj)
    sdict = opt.state_dict()
    info["opt_state_names_" + name] = sorted(sdict["state"][0].keys())

# ---- schedulers ------------------------------------------------------------------------------
sched_cfgs = OrderedDict(
    [
        ("StepLR", dict(step_size=2, gamma=0.5)),
        ("MultiStepLR", dict(milestones=[2, 5], gamma=0.1)),
        ("CosineAnnealingLR", dict(T_max=4, eta_min=0.01)),
        ("LinearLR", dict(start_factor=0.25, total_iters=4)),
    ]
)
info["sched_cfgs"] = sched_cfgs
info["sched_lrs"] = {}
for name, kw in sched_cfgs.items():
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=0.1)
    s = getattr(torch.optim.lr_scheduler, name)(opt, **kw)
    lrs = [s.get_last_lr()[0]]
    for _ in range(7):
        opt.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
    info["sched_lrs"][name] = lrs

# ---- init ----------------------------------------------------------------------------------
info["gains"] = {k: nn.init.calculate_gain(k) for k in ["linear", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]}
info["gain_lrelu_02"] = nn.init.calculate_gain("leaky_relu", 0.2)

np.savez_compressed(os.path.join(here, "nn_golden.npz"), **arrays)
with open(os.path.join(here, "nn_golden.json"), "w") as f:
    json.dump(info, f, indent=1, sort_keys=True)
print("wrote", len(arrays), "arrays and", len(info), "entries")
