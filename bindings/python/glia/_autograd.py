"""Grad mode (no_grad, enable_grad, set_grad_enabled, inference_mode) (owned by the tensor work).

Grad mode is per thread in glia, as in torch: each context manager changes the
calling thread's mode and restores the previous one on exit. Each also works
as a decorator.
"""

import functools
import inspect

from ._ffi import C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


def is_grad_enabled():
    return C.glia_grad_mode_enabled() != 0


def is_inference_mode_enabled():
    return C.glia_inference_mode_enabled() != 0


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generator functions)."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError("glia: grad-mode decorators apply to functions, not classes")
        make = self._clone

        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                try:
                    with make():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with make():
                                gen.close()
                            raise
                        except BaseException as e:  # noqa: B902
                            with make():
                                response = gen.throw(e)
                        else:
                            with make():
                                response = gen.send(request)
                except StopIteration as e:
                    return e.value

            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with make():
                return func(*args, **kwargs)

        return wrapper

    def _clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disables gradient recording in the calling thread (torch.no_grad)."""

    def __init__(self):
        self.prev = None

    def __enter__(self):
        self.prev = C.glia_grad_mode_enabled()
        C.glia_grad_mode_set(0)

    def __exit__(self, *exc):
        C.glia_grad_mode_set(self.prev)
        return False


class enable_grad(_DecoratorContextManager):
    """Enables gradient recording in the calling thread (torch.enable_grad)."""

    def __init__(self):
        self.prev = None

    def __enter__(self):
        self.prev = C.glia_grad_mode_enabled()
        C.glia_grad_mode_set(1)

    def __exit__(self, *exc):
        C.glia_grad_mode_set(self.prev)
        return False


class set_grad_enabled(_DecoratorContextManager):
    """torch.set_grad_enabled(mode): takes effect at once as a call; as a context manager
    the previous mode comes back on exit."""

    def __init__(self, mode):
        self.prev = C.glia_grad_mode_enabled()
        self.mode = 1 if mode else 0
        C.glia_grad_mode_set(self.mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        C.glia_grad_mode_set(self.prev)
        return False

    def _clone(self):
        return self.__class__(self.mode)

    def __call__(self, func):
        C.glia_grad_mode_set(self.prev)  # as a decorator it applies only inside the function
        return super().__call__(func)


class inference_mode(_DecoratorContextManager):
    """torch.inference_mode(mode=True): no graph, and tensors made inside are inference tensors."""

    def __init__(self, mode=True):
        self.mode = 1 if mode else 0
        self.prev = None

    def __enter__(self):
        self.prev = C.glia_inference_mode_enabled()
        C.glia_inference_mode_set(self.mode)

    def __exit__(self, *exc):
        C.glia_inference_mode_set(self.prev)
        return False

    def _clone(self):
        return self.__class__(self.mode)
