"""torch.optim.lr_scheduler: StepLR, MultiStepLR, CosineAnnealingLR, LinearLR over glia_lr_scheduler."""

import collections
import ctypes

import numpy as np

from .._ffi import C, check, c_void_p, byref
from .. import _ffi
from ..nn import _util

__all__ = ["StepLR", "MultiStepLR", "CosineAnnealingLR", "LinearLR"]


class _LRScheduler:
    def _init(self, optimizer, fn, *args):
        self.optimizer = optimizer
        self._h = None
        out = c_void_p()
        check(fn(optimizer._h, *args, byref(out)), ValueError)
        self._h = out.value
        self.last_epoch = 0
        self.base_lrs = []
        for g in optimizer.param_groups:
            g._refresh_lr()
            dict.setdefault(g, "initial_lr", g["lr"])
            self.base_lrs.append(g["initial_lr"])
        self._last_lr = self._read()

    def _read(self):
        out = []
        v = ctypes.c_double()
        for i in range(len(self.optimizer.param_groups)):
            check(C.glia_lr_scheduler_get_last_lr(self._h, i, byref(v)))
            out.append(v.value)
        return out

    def step(self, epoch=None):
        if epoch is not None:
            raise NotImplementedError("glia: scheduler.step(epoch) is deprecated in torch and not supported")
        check(C.glia_lr_scheduler_step(self._h))
        self.last_epoch += 1
        for g in self.optimizer.param_groups:
            g._refresh_lr()
        self._last_lr = self._read()

    def get_last_lr(self):
        return list(self._last_lr)

    _settings = ()  # the scheduler's own state_dict entries, in torch's order
    _int_keys = ("last_epoch", "_step_count", "step_size", "T_max", "total_iters")

    def state_dict(self):
        """torch's layout: the settings, base_lrs, last_epoch, verbose, _step_count,
        _get_lr_called_within_step, _last_lr (milestones as a Counter, as torch)."""
        dh = c_void_p()
        check(C.glia_lr_scheduler_state_dict(self._h, byref(dh)))
        flat = _util.dict_to_py(dh.value)
        vals = {}
        for k, t in flat.items():
            v = _util.to_numpy(t)
            if k == "milestones":
                vals[k] = collections.Counter(int(x) for x in v.reshape(-1))
            elif k in ("base_lrs", "_last_lr"):
                vals[k] = [float(x) for x in v.reshape(-1)]
            elif k in self._int_keys:
                vals[k] = int(v)
            else:
                vals[k] = float(v)
        out = {k: vals[k] for k in self._settings}
        out.update(base_lrs=vals["base_lrs"], last_epoch=vals["last_epoch"], verbose=getattr(self, "verbose", False),
                   _step_count=vals["_step_count"], _get_lr_called_within_step=False, _last_lr=vals["_last_lr"])
        return out

    def load_state_dict(self, state_dict):
        flat = {}
        for k, v in state_dict.items():
            if k in ("verbose", "_get_lr_called_within_step"):
                continue
            if k == "milestones":
                arr = np.asarray(sorted(collections.Counter(v).elements()), np.int64).reshape(-1)
            elif k in self._int_keys:
                arr = np.asarray(int(v), np.int64)
            else:
                arr = np.asarray(v, np.float64)
            flat[k] = _util.from_numpy(arr)
        d = _util.py_to_dict(flat)
        try:
            check(C.glia_lr_scheduler_load_state_dict(self._h, d), ValueError)
        finally:
            C.glia_error_free(C.glia_tensor_dict_release(d))
        for k in self._settings:
            setattr(self, k, state_dict[k])
        self.base_lrs = list(state_dict["base_lrs"])
        self.last_epoch = int(state_dict["last_epoch"])
        self._last_lr = self._read()

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
