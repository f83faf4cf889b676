"""torch.nn.utils.stateless.functional_call (torch 1.13): calls a module with some of its parameters and
buffers replaced for that one call, restored afterwards (also when the call raises). The C module's entries
are swapped too (glia_module_swap_tensor), so a built-in's forward computes with the given tensors."""

from ..._ffi import C, check, c_void_p, byref

__all__ = ["functional_call"]

_MISSING = object()


def _swap(sub, name, tensor):
    prev = c_void_p()
    check(C.glia_module_swap_tensor(sub._h, name.encode(), tensor._h if tensor is not None else None, byref(prev)))
    if prev.value:
        C.glia_error_free(C.glia_tensor_release(prev))


def _restore(swapped):
    for sub, store, name, old in reversed(swapped):
        if store is not None:
            _swap(sub, name, old)
            sub.__dict__[store][name] = old
        elif old is _MISSING:
            object.__delattr__(sub, name)
            C.glia_error_free(C.glia_module_remove_tensor_attribute(sub._h, name.encode()))
        else:
            sub.__setattr__(name, old)


def functional_call(module, parameters_and_buffers, args, kwargs=None):
    if kwargs is None:
        kwargs = {}
    swapped = []
    try:
        for name, tensor in parameters_and_buffers.items():
            path = name.split(".")
            sub = module
            for p in path[:-1]:
                sub = getattr(sub, p)
            leaf = path[-1]
            store = "_parameters" if leaf in sub._parameters else "_buffers" if leaf in sub._buffers else None
            if store is not None:
                old = sub.__dict__[store][leaf]
                _swap(sub, leaf, tensor)
                swapped.append((sub, store, leaf, old))
                sub.__dict__[store][leaf] = tensor
            else:
                old = sub.__dict__.get(leaf, _MISSING)
                swapped.append((sub, None, leaf, old))
                sub.__setattr__(leaf, tensor)
        if isinstance(args, tuple):
            out = module(*args, **kwargs)
        else:
            out = module(args, **kwargs)
    finally:
        _restore(swapped)
    return out
