"""torch 1.13's other optimizers over glia_optimizer: Adadelta, Adagrad, Adamax, ASGD, NAdam, RAdam,
Rprop and LBFGS, with torch's signatures (the update runs in C, one pass per parameter)."""

import ctypes

import numpy as np

from .. import _ffi
from .._ffi import C, check
from .._tensor import Tensor
from ..nn import _util
from .optimizer import Optimizer

__all__ = ["Adadelta", "Adagrad", "Adamax", "ASGD", "NAdam", "RAdam", "Rprop", "LBFGS"]


class Adadelta(Optimizer):
    _options_type = _ffi.glia_adadelta_options
    _options_init = C.glia_adadelta_options_init
    _create = C.glia_optim_adadelta
    _fields = ("lr", "rho", "eps", "weight_decay", "maximize")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, maximize=False):
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach)
        super().__init__(params, defaults)


class Adagrad(Optimizer):
    _options_type = _ffi.glia_adagrad_options
    _options_init = C.glia_adagrad_options_init
    _create = C.glia_optim_adagrad
    _fields = ("lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps", "maximize")

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False):
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)


class Adamax(Optimizer):
    _options_type = _ffi.glia_adamax_options
    _options_init = C.glia_adamax_options_init
    _create = C.glia_optim_adamax
    _fields = ("lr", "betas", "eps", "weight_decay", "maximize")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)


class ASGD(Optimizer):
    _options_type = _ffi.glia_asgd_options
    _options_init = C.glia_asgd_options_init
    _create = C.glia_optim_asgd
    _fields = ("lr", "lambd", "alpha", "t0", "weight_decay", "maximize")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False):
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)


class NAdam(Optimizer):
    _options_type = _ffi.glia_nadam_options
    _options_init = C.glia_nadam_options_init
    _create = C.glia_optim_nadam
    _fields = ("lr", "betas", "eps", "weight_decay", "momentum_decay")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 foreach=None):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        foreach=foreach)
        super().__init__(params, defaults)


class RAdam(Optimizer):
    _options_type = _ffi.glia_radam_options
    _options_init = C.glia_radam_options_init
    _create = C.glia_optim_radam
    _fields = ("lr", "betas", "eps", "weight_decay")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach)
        super().__init__(params, defaults)


class Rprop(Optimizer):
    _options_type = _ffi.glia_rprop_options
    _options_init = C.glia_rprop_options_init
    _create = C.glia_optim_rprop
    _fields = ("lr", "etas", "step_sizes", "maximize")

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), foreach=None, maximize=False):
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)


_LINE_SEARCH = {None: 0, "strong_wolfe": 1}
_LBFGS_INTS = ("max_iter", "max_eval", "history_size")


class LBFGS(Optimizer):
    """torch.optim.LBFGS: step(closure) calls the closure (a Python function that re-evaluates the
    model, runs backward and returns the loss) as often as the iterations and the line search need.
    state_dict() gives torch's layout (old_dirs, old_stps and ro as lists; "al", torch's scratch
    space, is left out) and load_state_dict() takes it."""

    _options_type = _ffi.glia_lbfgs_options
    _options_init = C.glia_lbfgs_options_init
    _create = C.glia_optim_lbfgs
    _fields = ("lr", "max_iter", "max_eval", "tolerance_grad", "tolerance_change", "history_size", "line_search_fn")

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _options(self, group):
        o = self._options_type()
        type(self)._options_init(ctypes.byref(o))
        for k in self._fields:
            v = group[k]
            if k == "line_search_fn":
                if v not in _LINE_SEARCH:
                    raise ValueError("only 'strong_wolfe' is supported")
                o.line_search_fn = _LINE_SEARCH[v]
            elif k in _LBFGS_INTS:
                setattr(o, k, int(v))
            else:
                setattr(o, k, float(v))
        return o

    def step(self, closure):
        parked = []

        def call(user_data, out_loss):
            try:
                loss = closure()  # grad mode is on (the C step turns it on around the closure)
                out_loss[0] = float(loss)
                if not parked:
                    parked.append(loss)
                return None
            except BaseException as e:  # noqa: B902 - nothing may unwind through C
                return _ffi._park(e)

        fn = _ffi.glia_optimizer_closure_fn(call)
        check(C.glia_optimizer_step_closure(self._h, fn, None, None), ValueError)
        return parked[0] if parked else None

    def state_dict(self):
        sd = super().state_dict()
        for st in sd["state"].values():
            for k in ("old_dirs", "old_stps"):
                if k in st:
                    st[k] = [st[k][i] for i in range(st[k].shape[0])]
            if "ro" in st:
                st["ro"] = [st["ro"][i] for i in range(st["ro"].shape[0])]
            for k in ("func_evals", "n_iter"):
                if k in st:
                    st[k] = int(st[k].item())
            for k in ("t", "prev_loss"):
                if k in st:
                    st[k] = float(st[k].item())
        for g in sd["param_groups"]:
            for k in _LBFGS_INTS:
                g[k] = int(g[k])
            g["line_search_fn"] = {0: None, 1: "strong_wolfe"}[int(g["line_search_fn"])]
        return sd

    def load_state_dict(self, state_dict):
        import glia

        state = {}
        for i, entries in state_dict["state"].items():
            st = {}
            for k, v in entries.items():
                if k == "al" or v is None:
                    continue
                if k in ("old_dirs", "old_stps", "ro"):
                    if len(v) == 0:
                        n = 0 if k == "ro" else sum(p.numel() for p in self._params)
                        v = glia.zeros(*((0,) if k == "ro" else (0, n)), dtype=self._params[0].dtype)
                    else:
                        v = glia.stack([x if isinstance(x, Tensor) else glia.tensor(float(x)) for x in v])
                elif k in ("func_evals", "n_iter"):
                    v = _util.from_numpy(np.asarray(int(v), np.int64))
                elif k in ("t", "prev_loss") and not isinstance(v, Tensor):
                    v = _util.from_numpy(np.asarray(float(v), np.float64))
                elif k == "H_diag" and not isinstance(v, Tensor):
                    v = _util.from_numpy(np.asarray(float(v), np.float64))
                st[k] = v
            state[i] = st
        groups = []
        for g in state_dict["param_groups"]:
            g = dict(g)
            g["line_search_fn"] = _LINE_SEARCH.get(g.get("line_search_fn"), -1)
            groups.append(g)
        super().load_state_dict({"state": state, "param_groups": groups})
        for g, src in zip(self.param_groups, state_dict["param_groups"]):
            dict.__setitem__(g, "line_search_fn", src.get("line_search_fn"))
