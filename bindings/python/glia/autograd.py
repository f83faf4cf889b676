"""glia.autograd: backward, grad and Function (owned by the tensor work).

``Function`` subclasses define static ``forward(ctx, *args)`` and
``backward(ctx, *grad_outputs)`` as in torch; ``apply`` runs them through
glia_autograd_function_apply. C holds only a registry integer per
application; an exception raised in forward or backward comes back out of
``apply`` / ``backward()`` with its own type and traceback.
"""

from ._cdefs import c_int32, c_int64, c_void_p, glia_autograd_backward_fn, glia_autograd_forward_fn
from ._cdefs import glia_autograd_function_def
from ._ffi import C, _park, byref, check, free_user_data, lookup, register
from ._tensor import Tensor, _handles
from ._autograd import enable_grad, no_grad, set_grad_enabled, inference_mode, is_grad_enabled  # noqa: F401

__all__ = ["backward", "grad", "Function", "FunctionCtx", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "is_grad_enabled"]


def _seq(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _check_tensors(ts, what):
    for t in ts:
        if not isinstance(t, Tensor):
            raise TypeError("%s must be Tensors, not %s" % (what, type(t).__name__))


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """torch.autograd.backward: accumulates into the leaves' .grad."""
    if inputs is not None:
        raise NotImplementedError("glia: backward(inputs=...) is not supported")
    tensors = _seq(tensors)
    _check_tensors(tensors, "tensors")
    grads = _seq(grad_tensors if grad_tensors is not None else grad_variables)
    if grads is not None and len(grads) != len(tensors):
        raise RuntimeError("got %d tensors and %d gradients" % (len(tensors), len(grads)))
    if retain_graph is None:
        retain_graph = create_graph
    arr, n = _handles(tensors)
    garr = None if grads is None else _handles(grads)[0]
    check(C.glia_autograd_backward(arr, n, garr, 1 if retain_graph else 0, 1 if create_graph else 0))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, is_grads_batched=False):
    """torch.autograd.grad: the gradients of outputs with respect to inputs (a tuple; None for unused)."""
    outputs = _seq(outputs)
    inputs = _seq(inputs)
    _check_tensors(outputs, "outputs")
    _check_tensors(inputs, "inputs")
    grads = _seq(grad_outputs)
    if grads is not None and len(grads) != len(outputs):
        raise RuntimeError(
            "grad can be implicitly created only for scalar outputs" if not grads else
            "got %d tensors and %d gradients" % (len(outputs), len(grads))
        )
    if retain_graph is None:
        retain_graph = create_graph
    oarr, no = _handles(outputs)
    iarr, ni = _handles(inputs)
    garr = None if grads is None else _handles(grads)[0]
    outs = (c_void_p * max(ni, 1))()
    check(C.glia_autograd_grad(oarr, no, iarr, ni, garr, 1 if retain_graph else 0, 1 if create_graph else 0,
                               1 if allow_unused else 0, outs))
    return tuple(Tensor._wrap(outs[i]) if outs[i] else None for i in range(ni))


# ---------------------------------------------------------------------------
# Function


class FunctionCtx:
    """The ``ctx`` of a custom Function: save_for_backward, saved_tensors, needs_input_grad."""

    def __init__(self):
        self._c = None  # the glia_autograd_ctx * while a callback runs
        self._to_save = None
        self.needs_input_grad = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument %d is of type %s"
                                % (tensors.index(t), type(t).__name__))
        self._to_save = tensors

    @property
    def saved_tensors(self):
        if self._c is None:
            raise RuntimeError("saved_tensors is only available during backward")
        n = c_int64()
        check(C.glia_autograd_ctx_saved_tensors(self._c, None, 0, byref(n)))
        outs = (c_void_p * max(n.value, 1))()
        check(C.glia_autograd_ctx_saved_tensors(self._c, outs, n.value, byref(n)))
        return tuple(Tensor._wrap(outs[i]) if outs[i] else None for i in range(n.value))

    def mark_dirty(self, *args):
        pass

    def mark_non_differentiable(self, *args):
        pass

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class _Application:
    """Registry entry for one Function.apply: the class, the call's arguments and its ctx."""

    __slots__ = ("cls", "args", "positions", "ctx", "outputs", "n_outputs", "__weakref__")


def _borrow(handle):
    check(C.glia_tensor_retain(handle))
    return Tensor._wrap(handle)


def _forward_body(user_data, ctx_ptr, inputs, n_inputs, outputs, n_outputs):
    try:
        app = lookup(user_data)
        ctx = app.ctx
        ctx._c = ctx_ptr
        if app.outputs is None:
            args = list(app.args)
            for k, pos in enumerate(app.positions):
                args[pos] = _borrow(inputs[k])
            needs = [False] * len(args)
            for k, pos in enumerate(app.positions):
                flag = c_int32()
                check(C.glia_autograd_ctx_needs_input_grad(ctx_ptr, k, byref(flag)))
                needs[pos] = flag.value != 0
            ctx.needs_input_grad = tuple(needs)
            result = app.cls.forward(ctx, *args)
            outs = result if isinstance(result, tuple) else (result,)
            for i, o in enumerate(outs):
                if not isinstance(o, Tensor):
                    raise TypeError("%s.forward must return Tensors; output %d is %s"
                                    % (app.cls.__name__, i, type(o).__name__))
            app.outputs = outs
            app.n_outputs = len(outs) if isinstance(result, tuple) else -1
        if len(app.outputs) != n_outputs:
            return _park(_OutputCount(len(app.outputs)))
        if ctx._to_save is not None:
            arr, n = _handles(ctx._to_save)
            check(C.glia_autograd_ctx_save_for_backward(ctx_ptr, arr, n))
        for i, o in enumerate(app.outputs):
            check(C.glia_tensor_retain(o._h))
            outputs[i] = o._h
        return None
    except BaseException as e:  # noqa: B902 - nothing may unwind through C frames
        return _park(e)
    finally:
        try:
            app.ctx._c = None
        except Exception:
            pass


def _backward_body(user_data, ctx_ptr, grad_outputs, n_outputs, grad_inputs, n_inputs):
    try:
        app = lookup(user_data)
        ctx = app.ctx
        ctx._c = ctx_ptr
        grads = [_borrow(grad_outputs[i]) if grad_outputs[i] else None for i in range(n_outputs)]
        result = app.cls.backward(ctx, *grads)
        res = result if isinstance(result, tuple) else (result,)
        n_args = len(app.args)
        if len(res) < n_args and all(r is None for r in res[len(app.positions):]) and len(res) == len(app.positions):
            pass
        if len(res) != n_args:
            raise RuntimeError(
                "function %sBackward returned an incorrect number of gradients (expected %d, got %d)"
                % (app.cls.__name__, n_args, len(res))
            )
        for k, pos in enumerate(app.positions):
            g = res[pos]
            if g is None:
                continue
            if not isinstance(g, Tensor):
                raise TypeError("%s.backward must return Tensors or None; gradient %d is %s"
                                % (app.cls.__name__, pos, type(g).__name__))
            check(C.glia_tensor_retain(g._h))
            grad_inputs[k] = g._h
        return None
    except BaseException as e:  # noqa: B902
        return _park(e)
    finally:
        try:
            app.ctx._c = None
        except Exception:
            pass


_forward_trampoline = glia_autograd_forward_fn(_forward_body)
_backward_trampoline = glia_autograd_backward_fn(_backward_body)


class _OutputCount(Exception):
    """Internal: forward returned a different number of outputs than apply asked for."""

    def __init__(self, n):
        super().__init__(n)
        self.n = n


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._glia_n_outputs = 1


class Function(metaclass=_FunctionMeta):
    """torch.autograd.Function: subclass with static forward(ctx, ...) and backward(ctx, ...)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args):
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        app = _Application()
        app.cls = cls
        app.args = args
        app.positions = positions
        app.ctx = FunctionCtx()
        app.outputs = None
        app.n_outputs = None
        inputs, n_in = _handles([args[i] for i in positions])
        name = cls.__name__.encode()
        n_out = cls._glia_n_outputs
        for _attempt in range(2):
            d = glia_autograd_function_def()
            C.glia_autograd_function_def_init(byref(d))
            d.name = name
            d.forward = _forward_trampoline
            d.backward = _backward_trampoline
            d.user_data = register(app)
            d.free_user_data = free_user_data
            outs = (c_void_p * n_out)()
            try:
                check(C.glia_autograd_function_apply(byref(d), inputs, n_in, outs, n_out))
            except _OutputCount as e:
                # forward ran once; replay its outputs with the right count (forward is not run again)
                n_out = e.n
                cls._glia_n_outputs = n_out
                continue
            result = tuple(Tensor._wrap(outs[i]) for i in range(n_out))
            # The graph node (alive while the outputs are) reaches `app` through the registry: keep
            # no Tensor in it, or outputs -> node -> app -> outputs would be a cycle through C.
            app.outputs = None
            app.args = tuple(None if isinstance(a, Tensor) else a for a in args)
            app.ctx._to_save = None
            return result if app.n_outputs != -1 else result[0]
        raise RuntimeError("glia: Function.apply could not settle the number of outputs")




BackwardCFunction = FunctionCtx
