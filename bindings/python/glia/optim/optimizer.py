"""torch.optim's optimizers over glia_optimizer (the update runs in C, one pass per parameter)."""

import ctypes
import weakref
from collections import defaultdict

import numpy as np

from .. import _ffi
from .._ffi import C, check, c_void_p, byref
from .._tensor import Tensor
from ..nn import _util

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop"]

_FLAGS = ("nesterov", "maximize", "amsgrad", "centered")
_IGNORED = ("foreach", "differentiable", "capturable", "fused")
# Options that are pairs, with the names glia_optimizer_{get,set}_option gives their two values.
_PAIRS = {"betas": ("beta1", "beta2"), "etas": ("etaminus", "etaplus"),
          "step_sizes": ("step_size_min", "step_size_max")}
# Group keys a scheduler adds, held by the C optimizer too (OneCycleLR's max_lr, ...).
_SCHEDULER_KEYS = ("initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum")


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


class _ParamGroup(dict):
    """One entry of optimizer.param_groups, a live view: writing an option the C optimizer has
    ('lr', 'momentum', 'betas', 'nesterov', 'initial_lr', ...) changes that group in C (checked as
    the constructor checks it: ValueError with torch's text); other keys are plain dict entries."""

    def __init__(self, opt, index, *args):
        super().__init__(*args)
        self._opt = weakref.ref(opt)
        self._index = index

    def __setitem__(self, key, value):
        opt = self._opt()
        if opt is not None and opt._h is not None:
            if key in type(opt)._fields or key in _SCHEDULER_KEYS:
                self._set_c_option(opt, key, value)
            elif key == "params" and key in self:
                raise NotImplementedError("glia: param_group['params'] cannot change after construction")
        super().__setitem__(key, value)

    def _set_c_option(self, opt, key, value):
        h, g = opt._h, self._index
        if key in _PAIRS:
            n1, n2 = (n.encode() for n in _PAIRS[key])
            b1, b2 = float(value[0]), float(value[1])
            old = ctypes.c_double()
            check(C.glia_optimizer_get_option(h, g, n1, byref(old)))
            check(C.glia_optimizer_set_option(h, g, n1, b1), ValueError)
            try:
                check(C.glia_optimizer_set_option(h, g, n2, b2), ValueError)
            except ValueError:
                check(C.glia_optimizer_set_option(h, g, n1, old.value))
                raise
        elif key in _FLAGS:
            check(C.glia_optimizer_set_option(h, g, key.encode(), float(bool(value))), ValueError)
        else:
            check(C.glia_optimizer_set_option(h, g, key.encode(), float(value)), ValueError)

    def _refresh_lr(self):
        opt = self._opt()
        lr = ctypes.c_double()
        check(C.glia_optimizer_get_lr(opt._h, self._index, byref(lr)))
        dict.__setitem__(self, "lr", lr.value)


class Optimizer:
    _options_type = None
    _options_init = None
    _create = None
    _fields = ()

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)  # torch's attribute; glia keeps the state in C (see state_dict())
        self._h = None
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + type(params).__name__)
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.param_groups = []
        for g in groups:
            self.add_param_group(g)

    def _options(self, group):
        o = self._options_type()
        type(self)._options_init(byref(o))
        for k in self._fields:
            v = group[k]
            if v is required:
                raise TypeError("parameter group didn't specify a value of required optimization parameter " + k)
            if k in _PAIRS:
                getattr(o, k)[0], getattr(o, k)[1] = float(v[0]), float(v[1])
            elif k in _FLAGS:
                setattr(o, k, int(bool(v)))
            else:
                setattr(o, k, float(v))
        return o

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError("param group must be a dict")
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + type(p).__name__)
        group = dict(param_group)
        group["params"] = params
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        o = self._options(group)
        arr, n = _util.handles(params)
        if self._h is None:
            out = c_void_p()
            check(type(self)._create(arr, n, byref(o), byref(out)), ValueError)
            self._h = out.value
        else:
            check(C.glia_optimizer_add_param_group(self._h, arr, n, byref(o)), ValueError)
        self.param_groups.append(_ParamGroup(self, len(self.param_groups), group))

    def __del__(self, _release=C.glia_optimizer_release, _free=C.glia_error_free):
        h = getattr(self, "_h", None)
        if h:
            self._h = None
            _free(_release(h))

    def zero_grad(self, set_to_none=True):
        check(C.glia_optimizer_zero_grad(self._h, int(bool(set_to_none))))

    def step(self, closure=None):
        loss = None
        if closure is not None:
            from .. import _autograd

            eg = getattr(_autograd, "enable_grad", None)
            if eg is not None:
                with eg():
                    loss = closure()
            else:
                loss = closure()
        check(C.glia_optimizer_step(self._h))
        return loss

    def state_dict(self):
        """torch's nested layout: {'state': {index: {name: tensor}}, 'param_groups': [{..., 'params': [ints]}]}."""
        dh = c_void_p()
        check(C.glia_optimizer_state_dict(self._h, byref(dh)))
        flat = _util.dict_to_py(dh.value)
        state, groups = {}, []
        for key, t in flat.items():
            parts = key.split(".")
            if parts[0] == "state":
                state.setdefault(int(parts[1]), {})[".".join(parts[2:])] = t
            else:
                g = int(parts[1])
                while len(groups) <= g:
                    groups.append({})
                name = ".".join(parts[2:])
                v = _util.to_numpy(t)
                if name == "params":
                    groups[g][name] = [int(x) for x in v.reshape(-1)]
                elif name in _PAIRS:
                    groups[g][name] = (float(v[0]), float(v[1]))
                elif name in _FLAGS:
                    groups[g][name] = bool(v)
                else:
                    groups[g][name] = float(v)
        for g in groups:  # 'params' last, as torch
            g["params"] = g.pop("params")
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        flat = {}
        for i, entries in state_dict["state"].items():
            for name, t in entries.items():
                if t is None:
                    continue
                flat["state.%d.%s" % (int(i), name)] = t if isinstance(t, Tensor) else _util.from_numpy(
                    np.asarray(t, np.float32))
        for gi, g in enumerate(state_dict["param_groups"]):
            for name, v in g.items():
                if v is None or name in _IGNORED or isinstance(v, str):
                    continue
                key = "param_groups.%d.%s" % (gi, name)
                if name == "params":
                    flat[key] = _util.from_numpy(np.asarray(v, np.int64))
                else:
                    flat[key] = _util.from_numpy(np.asarray(v, np.float64))
        d = _util.py_to_dict(flat)
        try:
            check(C.glia_optimizer_load_state_dict(self._h, d), ValueError)
        finally:
            C.glia_error_free(C.glia_tensor_dict_release(d))
        for gi, g in enumerate(self.param_groups):
            for name, v in state_dict["param_groups"][gi].items():
                if name != "params":
                    dict.__setitem__(g, name, v)
            g._refresh_lr()

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\n"
            s += "Parameter Group {0}\n".format(i)
            for key in sorted(group.keys()):
                if key != "params":
                    s += "    {0}: {1}\n".format(key, group[key])
        s += ")"
        return s


class SGD(Optimizer):
    _options_type = _ffi.glia_sgd_options
    _options_init = C.glia_sgd_options_init
    _create = C.glia_optim_sgd
    _fields = ("lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize")

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        if lr is not required and lr < 0.0:
            raise ValueError("Invalid learning rate: {}".format(lr))
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)


class Adam(Optimizer):
    _options_type = _ffi.glia_adam_options
    _options_init = C.glia_adam_options_init
    _create = C.glia_optim_adam
    _fields = ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)


class AdamW(Adam):
    _options_init = C.glia_adamw_options_init
    _create = C.glia_optim_adamw

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, foreach=foreach,
                        maximize=maximize, capturable=capturable)
        Optimizer.__init__(self, params, defaults)


class RMSprop(Optimizer):
    _options_type = _ffi.glia_rmsprop_options
    _options_init = C.glia_rmsprop_options_init
    _create = C.glia_optim_rmsprop
    _fields = ("lr", "alpha", "eps", "weight_decay", "momentum", "centered", "maximize")

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 foreach=None, maximize=False, differentiable=False):
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)
