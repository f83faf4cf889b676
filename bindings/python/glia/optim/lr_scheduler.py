"""torch.optim.lr_scheduler over glia_lr_scheduler: StepLR, MultiStepLR, CosineAnnealingLR, LinearLR,
ExponentialLR, PolynomialLR, ConstantLR, LambdaLR, MultiplicativeLR, SequentialLR, ChainedScheduler,
ReduceLROnPlateau, CyclicLR, OneCycleLR and CosineAnnealingWarmRestarts (torch 1.13's signatures and
state dicts; lambdas and scale functions are Python callables called from C)."""

import collections
import ctypes
import math
import types
import warnings
import weakref

import numpy as np

from .._ffi import C, check, c_void_p, byref
from .. import _ffi
from ..nn import _util

__all__ = ["StepLR", "MultiStepLR", "CosineAnnealingLR", "LinearLR"]


_EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)

# torch raises ValueError where glia's step fails with GLIA_ERR_INVALID_ARGUMENT ("Tried to step 12 times...").
_VALUE_ERRORS = {_ffi.GLIA_ERR_INVALID_ARGUMENT: ValueError}

# Group entries the C optimizer holds and a scheduler changes (read back after each step).
_SYNCED = ("momentum", "betas", "initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum")


def _sync_groups(optimizer):
    """Reads back what a scheduler changed in the groups (lr, momentum or betas, its own keys)."""
    v = ctypes.c_double()
    for i, g in enumerate(optimizer.param_groups):
        g._refresh_lr()
        for k in _SYNCED:
            if k == "betas":
                if "betas" not in type(optimizer)._fields:
                    continue
                check(C.glia_optimizer_get_option(optimizer._h, i, b"beta1", byref(v)))
                b1 = v.value
                check(C.glia_optimizer_get_option(optimizer._h, i, b"beta2", byref(v)))
                dict.__setitem__(g, "betas", (b1, v.value))
                continue
            if k == "momentum" and k not in type(optimizer)._fields:
                continue
            err = C.glia_optimizer_get_option(optimizer._h, i, k.encode(), byref(v))
            if err:
                C.glia_error_free(err)  # absent (a scheduler key not set)
                continue
            dict.__setitem__(g, k, v.value)


class _LRScheduler:
    """The C scheduler holds the state (last_epoch, _last_lr, ...); the Python object holds torch's
    attributes of its settings. state_dict() is torch's dict (keys in torch's order)."""

    _settings = ()  # the scheduler's own state_dict entries, in torch's order (before base_lrs)
    _after = ()  # entries after _last_lr (LambdaLR's lr_lambdas)
    _common = ("base_lrs", "last_epoch", "verbose", "_step_count", "_get_lr_called_within_step", "_last_lr")
    _int_keys = ("last_epoch", "_step_count", "step_size", "T_max", "total_iters", "patience", "cooldown",
                 "cooldown_counter", "num_bad_epochs", "total_steps", "T_0", "T_i", "T_mult")
    _list_keys = ("base_lrs", "_last_lr", "min_lrs", "max_lrs", "base_momentums", "max_momentums")
    _bool_keys = ("cycle_momentum", "use_beta1")
    _codes = {}  # key -> tuple of torch's strings, by glia's code

    def _init(self, optimizer, fn, *args):
        self.optimizer = optimizer
        self.verbose = False
        self._h = None
        out = c_void_p()
        check(fn(*((optimizer._h,) if optimizer is not None else ()), *args, byref(out)), ValueError)
        self._h = out.value
        self._after_init()

    def _after_init(self):
        _sync_groups(self.optimizer)
        self.base_lrs = [g["initial_lr"] for g in self.optimizer.param_groups]

    @property
    def last_epoch(self):
        v = ctypes.c_int64()
        check(C.glia_lr_scheduler_get_last_epoch(self._h, byref(v)), AttributeError)
        return v.value

    @last_epoch.setter
    def last_epoch(self, value):
        # torch's plain attribute: glia changes it in the C scheduler's state.
        flat = {k: _util.to_numpy(t) for k, t in self._flat_state().items()}
        flat["last_epoch"] = np.asarray(int(value), np.int64)
        self._load_flat(flat)

    @property
    def _last_lr(self):
        out = []
        v = ctypes.c_double()
        for i in range(len(self.optimizer.param_groups)):
            err = C.glia_lr_scheduler_get_last_lr(self._h, i, byref(v))
            if err:
                C.glia_error_free(err)
                raise AttributeError("'%s' object has no attribute '_last_lr'" % type(self).__name__)
            out.append(v.value)
        return out

    def step(self, epoch=None):
        if epoch is None:
            check(C.glia_lr_scheduler_step(self._h), codes=_VALUE_ERRORS)
        else:
            warnings.warn(_EPOCH_DEPRECATION_WARNING, UserWarning)
            check(C.glia_lr_scheduler_step_epoch(self._h, float(epoch)), codes=_VALUE_ERRORS)
        _sync_groups(self.optimizer)

    def get_last_lr(self):
        return self._last_lr

    # ---- state dicts: glia's flat dict of tensors <-> torch's dict ----

    def _flat_state(self):
        dh = c_void_p()
        check(C.glia_lr_scheduler_state_dict(self._h, byref(dh)))
        return _util.dict_to_py(dh.value)

    def _value(self, k, v):
        """torch's value of entry k from its numpy array v."""
        if k == "milestones":
            return collections.Counter(int(x) for x in v.reshape(-1))
        if k == "_milestones":
            return [int(x) for x in v.reshape(-1)]
        if k in self._list_keys:
            return [float(x) for x in v.reshape(-1)]
        if k in self._codes:
            return self._codes[k][int(v)]
        if k in self._bool_keys:
            return bool(v)
        if k in self._int_keys:
            return int(v)
        return float(v)

    def _extra(self, k):
        """Entries torch has that glia's C dict does not (Python objects)."""
        if k == "verbose":
            return self.verbose
        if k == "_get_lr_called_within_step":
            return False
        raise KeyError(k)

    def _keys(self):
        return tuple(self._settings) + self._common + tuple(self._after)

    def state_dict(self):
        """torch's dict, in torch's order (milestones as a Counter, strings as torch's)."""
        vals = {k: self._value(k, _util.to_numpy(t)) for k, t in self._flat_state().items()}
        out = {}
        for k in self._keys():
            if k in vals:
                out[k] = vals[k]
            else:
                try:
                    out[k] = self._extra(k)
                except KeyError:
                    pass
        return out

    _skip = ("verbose", "_get_lr_called_within_step")

    def _array(self, k, v):
        """glia's flat entry (a numpy array) for torch's entry k = v; None to leave it out."""
        if k in self._skip:
            return None
        if k == "milestones":
            return np.asarray(sorted(collections.Counter(v).elements()), np.int64).reshape(-1)
        if k == "_milestones":
            return np.asarray(list(v), np.int64).reshape(-1)
        if k in self._codes:
            return np.asarray(self._codes[k].index(v), np.int64)
        if k in self._bool_keys:
            return np.asarray(int(bool(v)), np.int64)
        if k in self._int_keys:
            return np.asarray(int(v), np.int64)
        return np.asarray(v, np.float64)

    def _flatten(self, state_dict, prefix=""):
        flat = {}
        for k, v in state_dict.items():
            a = self._array(k, v)
            if a is not None:
                flat[prefix + k] = a
        return flat

    def _load_flat(self, flat):
        d = _util.py_to_dict({k: _util.from_numpy(a) for k, a in flat.items()})
        try:
            check(C.glia_lr_scheduler_load_state_dict(self._h, d), ValueError)
        finally:
            C.glia_error_free(C.glia_tensor_dict_release(d))

    def load_state_dict(self, state_dict):
        self._load_flat(self._flatten(state_dict))
        self._loaded(state_dict)

    def _loaded(self, state_dict):
        """torch's __dict__.update for the Python-side attributes."""
        for k in self._settings:
            if k in state_dict and not k.startswith("_"):
                setattr(self, k, state_dict[k])
        if "base_lrs" in state_dict:
            self.base_lrs = list(state_dict["base_lrs"])

    def __del__(self, _release=C.glia_lr_scheduler_release, _free=C.glia_error_free):
        h = getattr(self, "_h", None)
        if h:
            self._h = None
            _free(_release(h))


class StepLR(_LRScheduler):
    _settings = ("step_size", "gamma")

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size, self.gamma = step_size, gamma
        self._init(optimizer, C.glia_lr_scheduler_step_lr, step_size, gamma)


class MultiStepLR(_LRScheduler):
    _settings = ("milestones", "gamma")

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        arr, n = _ffi.int64_array(sorted(milestones))
        self.milestones, self.gamma = collections.Counter(milestones), gamma
        self._init(optimizer, C.glia_lr_scheduler_multi_step_lr, arr, n, gamma)


class CosineAnnealingLR(_LRScheduler):
    _settings = ("T_max", "eta_min")

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max, self.eta_min = T_max, eta_min
        self._init(optimizer, C.glia_lr_scheduler_cosine_annealing_lr, T_max, float(eta_min))


class LinearLR(_LRScheduler):
    _settings = ("start_factor", "end_factor", "total_iters")

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1,
                 verbose=False):
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        self._init(optimizer, C.glia_lr_scheduler_linear_lr, float(start_factor), float(end_factor), total_iters)


# ---- issue 21: the rest of torch.optim.lr_scheduler -------------------------------------------------

__all__ += ["ExponentialLR", "PolynomialLR", "ConstantLR", "LambdaLR", "MultiplicativeLR", "SequentialLR",
            "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR", "OneCycleLR", "CosineAnnealingWarmRestarts"]


def _format_param(name, optimizer, param):
    """torch's _format_param: a list needs one value per group; C gets the list, or the scalar once."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError("expected {} values for {}, got {}".format(len(optimizer.param_groups), name,
                                                                        len(param)))
        return [float(x) for x in param]
    return [float(param)]


def _doubles(values):
    return (ctypes.c_double * len(values))(*values), len(values)


class ExponentialLR(_LRScheduler):
    _settings = ("gamma",)

    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        self._init(optimizer, C.glia_lr_scheduler_exponential_lr, float(gamma))


class PolynomialLR(_LRScheduler):
    _settings = ("total_iters", "power")

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1, verbose=False):
        self.total_iters, self.power = total_iters, power
        self._init(optimizer, C.glia_lr_scheduler_polynomial_lr, int(total_iters), float(power))


class ConstantLR(_LRScheduler):
    _settings = ("factor", "total_iters")

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=False):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        self._init(optimizer, C.glia_lr_scheduler_constant_lr, float(factor), int(total_iters))


def _lambda_body(user_data, group, epoch, out):
    try:
        out[0] = float(_ffi.lookup(user_data)[group](epoch))
        return None
    except BaseException as e:  # noqa: B902 - nothing may unwind through C frames
        return _ffi._park(e)


_lambda_trampoline = _ffi.glia_lr_lambda_fn(_lambda_body)


class _LambdaScheduler(_LRScheduler):
    _after = ("lr_lambdas",)
    _create = None

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        n = len(optimizer.param_groups)
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * n
        else:
            if len(lr_lambda) != n:
                raise ValueError("Expected {} lr_lambdas, but got {}".format(n, len(lr_lambda)))
            self.lr_lambdas = list(lr_lambda)
        # C holds the registry key of this list (not of self: no cycle); free_user_data drops it.
        key = _ffi.register(self.lr_lambdas)
        self._init(optimizer, type(self)._create, _lambda_trampoline, key, _ffi.free_user_data)

    def _extra(self, k):
        if k == "lr_lambdas":
            return [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy() for fn in self.lr_lambdas]
        return super()._extra(k)

    _skip = _LRScheduler._skip + ("lr_lambdas",)

    def _loaded(self, state_dict):
        super()._loaded(state_dict)
        for idx, fn in enumerate(state_dict.get("lr_lambdas", ())):
            if fn is not None:
                self.lr_lambdas[idx].__dict__.update(fn)


class LambdaLR(_LambdaScheduler):
    _create = C.glia_lr_scheduler_lambda_lr


class MultiplicativeLR(_LambdaScheduler):
    _create = C.glia_lr_scheduler_multiplicative_lr


class _Composite(_LRScheduler):
    def _after_init(self):
        _sync_groups(self.optimizer)

    def state_dict(self):
        vals = {k: self._value(k, _util.to_numpy(t)) for k, t in self._flat_state().items()
                if not k.startswith("_schedulers.")}
        out = {k: vals[k] for k in self._keys() if k in vals}
        out["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return out

    def load_state_dict(self, state_dict):
        flat = {}
        for k, v in state_dict.items():
            if k == "_schedulers":
                for i, (s, sd) in enumerate(zip(self._schedulers, v)):
                    flat.update(s._flatten(sd, "_schedulers.%d." % i))
            else:
                a = self._array(k, v)
                if a is not None:
                    flat[k] = a
        self._load_flat(flat)
        if "_milestones" in state_dict:
            self._milestones = list(state_dict["_milestones"])
        for s, sd in zip(self._schedulers, state_dict.get("_schedulers", ())):
            s._loaded(sd)


class SequentialLR(_Composite):
    _settings = ("_milestones", "last_epoch", "_last_lr")
    _common = ()

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose=False):
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        arr = (c_void_p * max(1, len(self._schedulers)))(*[s._h for s in self._schedulers])
        ms, n = _ffi.int64_array(self._milestones)
        self._init(optimizer, C.glia_lr_scheduler_sequential_lr, arr, len(self._schedulers), ms, n)

    def step(self):
        check(C.glia_lr_scheduler_step(self._h), codes=_VALUE_ERRORS)
        _sync_groups(self.optimizer)


class ChainedScheduler(_Composite):
    _settings = ("_last_lr",)
    _common = ()

    def __init__(self, schedulers):
        self._schedulers = list(schedulers)
        self._h = None
        self.verbose = False
        self.optimizer = self._schedulers[0].optimizer if self._schedulers else None
        arr = (c_void_p * max(1, len(self._schedulers)))(*[s._h for s in self._schedulers])
        out = c_void_p()
        check(C.glia_lr_scheduler_chained_scheduler(arr, len(self._schedulers), byref(out)), ValueError)
        self._h = out.value
        self._after_init()

    def step(self):
        check(C.glia_lr_scheduler_step(self._h), codes=_VALUE_ERRORS)
        _sync_groups(self.optimizer)


class _NoAttribute:
    """An attribute torch's class lacks (hasattr is False, access raises AttributeError)."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, cls):
        raise AttributeError("'%s' object has no attribute '%s'" % (cls.__name__, self.name))


class ReduceLROnPlateau(_LRScheduler):
    _settings = ("factor", "min_lrs", "patience", "verbose", "cooldown", "cooldown_counter", "mode", "threshold",
                 "threshold_mode", "best", "num_bad_epochs", "mode_worse", "eps", "last_epoch", "_last_lr")
    _common = ()
    _codes = {"mode": ("min", "max"), "threshold_mode": ("rel", "abs")}
    _state = ("cooldown_counter", "best", "num_bad_epochs", "mode_worse")
    get_last_lr = _NoAttribute()  # torch 1.13's ReduceLROnPlateau has none (its _last_lr appears at the first step)

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8, verbose=False):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError("expected {} min_lrs, got {}".format(n, len(min_lr)))
            self.min_lrs = list(min_lr)
        else:
            self.min_lrs = [min_lr] * n
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.factor, self.patience, self.cooldown, self.mode = factor, patience, cooldown, mode
        self.threshold, self.threshold_mode, self.eps = threshold, threshold_mode, eps
        o = _ffi.glia_reduce_lr_on_plateau_options()
        C.glia_reduce_lr_on_plateau_options_init(byref(o))
        o.mode = ("min", "max").index(mode)
        o.factor = float(factor)
        o.patience = int(patience)
        o.threshold = float(threshold)
        o.threshold_mode = ("rel", "abs").index(threshold_mode)
        o.cooldown = int(cooldown)
        lrs, nl = _doubles([float(x) for x in self.min_lrs])
        o.min_lrs = ctypes.cast(lrs, ctypes.POINTER(ctypes.c_double))
        o.n_min_lrs = nl
        o.eps = float(eps)
        self._init(optimizer, C.glia_lr_scheduler_reduce_lr_on_plateau, byref(o))

    def _after_init(self):
        _sync_groups(self.optimizer)

    def __getattr__(self, name):
        if name in type(self)._state:
            return self.state_dict()[name]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def step(self, metrics, epoch=None):
        if epoch is not None:
            raise NotImplementedError("glia: ReduceLROnPlateau.step(metrics, epoch) is deprecated in torch and "
                                      "not supported")
        check(C.glia_lr_scheduler_step_metric(self._h, float(metrics)), codes=_VALUE_ERRORS)
        _sync_groups(self.optimizer)

    def _value(self, k, v):
        if k in ("best", "mode_worse", "threshold", "eps", "factor"):
            return float(v)
        return super()._value(k, v)

    def _loaded(self, state_dict):
        for k in ("factor", "min_lrs", "patience", "cooldown", "mode", "threshold", "threshold_mode", "eps"):
            if k in state_dict:
                setattr(self, k, state_dict[k])


class CyclicLR(_LRScheduler):
    _settings = ("max_lrs", "total_size", "step_ratio", "mode", "gamma", "_scale_fn_custom", "_scale_fn_ref",
                 "scale_mode", "cycle_momentum", "base_momentums", "max_momentums")
    _codes = {"scale_mode": ("cycle", "iterations")}
    _skip = _LRScheduler._skip + ("_scale_fn_custom", "_scale_fn_ref")
    _modes = ("triangular", "triangular2", "exp_range")

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1., scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1, verbose=False):
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if mode not in self._modes and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        if cycle_momentum and "momentum" not in optimizer.defaults:
            raise ValueError("optimizer must support momentum with `cycle_momentum` option enabled")
        base_m = _format_param("base_momentum", optimizer, base_momentum) if cycle_momentum else [0.8]
        max_m = _format_param("max_momentum", optimizer, max_momentum) if cycle_momentum else [0.9]
        self.mode, self.gamma = mode, gamma
        self._scale_holder = [scale_fn]
        o = _ffi.glia_cyclic_lr_options()
        C.glia_cyclic_lr_options_init(byref(o))
        o.step_size_up = float(step_size_up)
        o.step_size_down = float(step_size_down) if step_size_down is not None else math.nan
        o.mode = self._modes.index(mode) if mode in self._modes else 0
        o.gamma = float(gamma)
        if scale_fn is not None:
            o.scale_fn = _scale_trampoline
            o.scale_fn_user_data = _ffi.register(self._scale_holder)
            o.free_scale_fn_user_data = _ffi.free_user_data
            o.scale_mode = 0 if scale_mode == "cycle" else 1
        o.cycle_momentum = int(bool(cycle_momentum))
        keep = []
        if len(base_m) > 1 or len(max_m) > 1:
            n = len(optimizer.param_groups)
            b, _ = _doubles(base_m * n if len(base_m) == 1 else base_m)
            m, _ = _doubles(max_m * n if len(max_m) == 1 else max_m)
            keep += [b, m]
            o.base_momentums = ctypes.cast(b, ctypes.POINTER(ctypes.c_double))
            o.max_momentums = ctypes.cast(m, ctypes.POINTER(ctypes.c_double))
            o.n_momentums = n
        else:
            o.base_momentum, o.max_momentum = base_m[0], max_m[0]
        lo, nlo = _doubles(base_lrs)
        hi, nhi = _doubles(max_lrs)
        self._init(optimizer, C.glia_lr_scheduler_cyclic_lr, lo, nlo, hi, nhi, byref(o))

    def _after_init(self):
        _sync_groups(self.optimizer)
        self.base_lrs = self.state_dict()["base_lrs"]

    @property
    def _scale_fn_custom(self):
        return self._scale_holder[0]

    def _triangular_scale_fn(self, x):
        return 1.

    def _triangular2_scale_fn(self, x):
        return 1 / (2. ** (x - 1))

    def _exp_range_scale_fn(self, x):
        return self.gamma ** (x)

    def scale_fn(self, x):
        if self._scale_holder[0] is not None:
            return self._scale_holder[0](x)
        return getattr(self, "_%s_scale_fn" % self.mode)(x)

    def _extra(self, k):
        if k == "_scale_fn_custom":
            return self._scale_holder[0]
        if k == "_scale_fn_ref":
            if self._scale_holder[0] is not None:
                return None
            return weakref.WeakMethod(getattr(self, "_%s_scale_fn" % self.mode))
        return super()._extra(k)

    def _value(self, k, v):
        if k == "mode":
            return self.mode
        return super()._value(k, v)

    def _array(self, k, v):
        if k == "mode":
            return np.asarray(self._modes.index(v) if v in self._modes else 0, np.int64)
        if k == "scale_mode":
            return np.asarray(0 if v == "cycle" else 1, np.int64)
        return super()._array(k, v)

    def _loaded(self, state_dict):
        for k in ("mode", "gamma"):
            if k in state_dict:
                setattr(self, k, state_dict[k])
        if callable(state_dict.get("_scale_fn_custom")):
            self._scale_holder[0] = state_dict["_scale_fn_custom"]
        if "base_lrs" in state_dict:
            self.base_lrs = list(state_dict["base_lrs"])


def _scale_body(user_data, x, out):
    try:
        out[0] = float(_ffi.lookup(user_data)[0](x))
        return None
    except BaseException as e:  # noqa: B902 - nothing may unwind through C frames
        return _ffi._park(e)


_scale_trampoline = _ffi.glia_lr_scale_fn(_scale_body)


class OneCycleLR(_LRScheduler):
    _settings = ("total_steps", "_schedule_phases", "anneal_func", "cycle_momentum", "use_beta1")
    _skip = _LRScheduler._skip + ("_schedule_phases", "anneal_func")

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25., final_div_factor=1e4, three_phase=False, last_epoch=-1, verbose=False):
        if total_steps is None and epochs is None and steps_per_epoch is None:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        elif total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError("Expected positive integer total_steps, but got {}".format(total_steps))
        else:
            if epochs <= 0 or not isinstance(epochs, int):
                raise ValueError("Expected positive integer epochs, but got {}".format(epochs))
            if steps_per_epoch <= 0 or not isinstance(steps_per_epoch, int):
                raise ValueError("Expected positive integer steps_per_epoch, but got {}".format(steps_per_epoch))
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError("Expected float between 0 and 1 pct_start, but got {}".format(pct_start))
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must by one of 'cos' or 'linear', instead got {}".format(
                anneal_strategy))
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if cycle_momentum and "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
            raise ValueError("optimizer must support momentum with `cycle_momentum` option enabled")
        max_m = _format_param("max_momentum", optimizer, max_momentum) if cycle_momentum else [0.95]
        base_m = _format_param("base_momentum", optimizer, base_momentum) if cycle_momentum else [0.85]
        o = _ffi.glia_one_cycle_lr_options()
        C.glia_one_cycle_lr_options_init(byref(o))
        ints = []
        for name, v in (("total_steps", total_steps), ("epochs", epochs), ("steps_per_epoch", steps_per_epoch)):
            if v is not None:
                ints.append(ctypes.c_int64(int(v)))
                setattr(o, name, ctypes.pointer(ints[-1]))
        o.pct_start = float(pct_start)
        o.anneal_strategy = ("cos", "linear").index(anneal_strategy)
        o.cycle_momentum = int(bool(cycle_momentum))
        keep = []
        if len(base_m) > 1 or len(max_m) > 1:
            n = len(optimizer.param_groups)
            b, _ = _doubles(base_m * n if len(base_m) == 1 else base_m)
            m, _ = _doubles(max_m * n if len(max_m) == 1 else max_m)
            keep += [b, m]
            o.base_momentums = ctypes.cast(b, ctypes.POINTER(ctypes.c_double))
            o.max_momentums = ctypes.cast(m, ctypes.POINTER(ctypes.c_double))
            o.n_momentums = n
        else:
            o.base_momentum, o.max_momentum = base_m[0], max_m[0]
        o.div_factor = float(div_factor)
        o.final_div_factor = float(final_div_factor)
        o.three_phase = int(bool(three_phase))
        self.anneal_func = self._annealing_cos if anneal_strategy == "cos" else self._annealing_linear
        hi, nhi = _doubles(max_lrs)
        self._init(optimizer, C.glia_lr_scheduler_one_cycle_lr, hi, nhi, byref(o))

    def _annealing_cos(self, start, end, pct):
        "Cosine anneal from `start` to `end` as pct goes from 0.0 to 1.0."
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    def _annealing_linear(self, start, end, pct):
        "Linearly anneal from `start` to `end` as pct goes from 0.0 to 1.0."
        return (end - start) * pct + start

    _PHASES = {2: [("initial_lr", "max_lr", "max_momentum", "base_momentum"),
                   ("max_lr", "min_lr", "base_momentum", "max_momentum")],
               3: [("initial_lr", "max_lr", "max_momentum", "base_momentum"),
                   ("max_lr", "initial_lr", "base_momentum", "max_momentum"),
                   ("initial_lr", "min_lr", "max_momentum", "max_momentum")]}

    def state_dict(self):
        flat = {k: _util.to_numpy(t) for k, t in self._flat_state().items()}
        ends = []
        while "_schedule_phases.%d.end_step" % len(ends) in flat:
            ends.append(float(flat.pop("_schedule_phases.%d.end_step" % len(ends))))
        vals = {k: self._value(k, v) for k, v in flat.items() if k != "anneal_func"}
        phases = []
        for i, (e, names) in enumerate(zip(ends, self._PHASES[len(ends)])):
            end = int(e) if i == len(ends) - 1 else e  # torch's last end_step is total_steps - 1, an int
            phases.append(dict(zip(("end_step", "start_lr", "end_lr", "start_momentum", "end_momentum"),
                                   (end,) + names)))
        vals["_schedule_phases"] = phases
        vals["anneal_func"] = self._annealing_cos if int(flat["anneal_func"]) == 0 else self._annealing_linear
        out = {}
        for k in self._keys():
            if k in vals:
                out[k] = vals[k]
            else:
                try:
                    out[k] = self._extra(k)
                except KeyError:
                    pass
        return out

    def _flatten(self, state_dict, prefix=""):
        flat = super()._flatten(state_dict, prefix)
        for i, ph in enumerate(state_dict.get("_schedule_phases", ())):
            flat["%s_schedule_phases.%d.end_step" % (prefix, i)] = np.asarray(float(ph["end_step"]), np.float64)
        if "anneal_func" in state_dict:
            name = getattr(state_dict["anneal_func"], "__name__", "")
            flat[prefix + "anneal_func"] = np.asarray(0 if name == "_annealing_cos" else 1, np.int64)
        return flat

    def _loaded(self, state_dict):
        super()._loaded(state_dict)
        if "anneal_func" in state_dict:
            name = getattr(state_dict["anneal_func"], "__name__", "")
            self.anneal_func = self._annealing_cos if name == "_annealing_cos" else self._annealing_linear


class CosineAnnealingWarmRestarts(_LRScheduler):
    _settings = ("T_0", "T_i", "T_mult", "eta_min", "T_cur")

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError("Expected positive integer T_0, but got {}".format(T_0))
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError("Expected integer T_mult >= 1, but got {}".format(T_mult))
        self.T_0, self.T_mult, self.eta_min = T_0, T_mult, eta_min
        self._init(optimizer, C.glia_lr_scheduler_cosine_annealing_warm_restarts, T_0, T_mult, float(eta_min))

    @property
    def T_cur(self):
        return self.state_dict()["T_cur"]

    @property
    def T_i(self):
        return self.state_dict()["T_i"]

    def step(self, epoch=None):
        if epoch is None:
            check(C.glia_lr_scheduler_step(self._h), codes=_VALUE_ERRORS)
        else:
            if epoch < 0:
                raise ValueError("Expected non-negative epoch, but got {}".format(epoch))
            check(C.glia_lr_scheduler_step_epoch(self._h, float(epoch)), codes=_VALUE_ERRORS)
        _sync_groups(self.optimizer)

    def _loaded(self, state_dict):
        for k in ("T_0", "T_mult", "eta_min"):
            if k in state_dict:
                setattr(self, k, state_dict[k])
        if "base_lrs" in state_dict:
            self.base_lrs = list(state_dict["base_lrs"])
