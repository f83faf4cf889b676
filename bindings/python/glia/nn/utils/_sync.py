"""Keeps a Python Module's _parameters / _buffers in step with its C module after a C function of
torch.nn.utils (weight_norm, spectral_norm) changed them. Entries the C function left alone keep their
wrappers; `same` names new entries that hold a tensor the caller already wraps (spectral_norm's weight_orig
is the Parameter that was weight, as in torch)."""

from collections import OrderedDict

from ..._ffi import C
from ..._tensor import Tensor
from ..parameter import Parameter


def sync(module, names, same=None):
    """`names`: the entries the C function removed or added (the others are unchanged)."""
    same = same or {}
    for store, fn, cls in (("_parameters", C.glia_module_named_parameters, Parameter),
                           ("_buffers", C.glia_module_named_buffers, Tensor)):
        old = module.__dict__[store]
        new = OrderedDict()
        for name, t in module._c_named(fn, cls).items():
            if name in same:
                new[name] = same[name]
            elif name in old and name not in names:
                new[name] = old[name]
            else:
                new[name] = t
        for name, t in old.items():  # reserved (None) entries, which C iteration leaves out
            if t is None and name not in names:
                new[name] = None
        old.clear()
        old.update(new)
        if store == "_buffers":
            module.__dict__["_non_persistent_buffers_set"] &= set(new)
