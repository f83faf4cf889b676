"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict over the C containers.

The C container holds the C modules (so a C Sequential runs its children, Python ones included,
without Python); the Python wrapper mirrors them in ``_modules`` / ``_parameters`` so that
indexing returns the very Python objects that were put in.
"""

import operator
from collections import OrderedDict, abc as container_abcs

from ..._ffi import C, check, c_void_p, byref
from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module, _typename
from .. import _util

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _handles(mods):
    mods = list(mods)
    arr = (c_void_p * max(1, len(mods)))(*[m._h for m in mods])
    return arr, len(mods)


def _check_module(m):
    if not isinstance(m, Module):
        raise TypeError("{} is not a Module subclass".format(_typename(m)))
    return m


class _Container(Module):
    def __deepcopy__(self, memo):
        import copy

        if id(self) in memo:
            return memo[id(self)]
        new = self._copy_with(lambda v: copy.deepcopy(v, memo))
        memo[id(self)] = new
        new.train(self.training)
        for m, m2 in zip(self.modules(), new.modules()):
            check(C.glia_module_train(m2._h, int(m.training)))
        return new

    def _copy_with(self, f):
        if isinstance(self, (ParameterList, ParameterDict)):
            items = OrderedDict((k, f(v)) for k, v in self._parameters.items())
        else:
            items = OrderedDict((k, f(v)) for k, v in self._modules.items())
        if isinstance(self, Sequential):
            return type(self)(items)
        if isinstance(self, (ModuleList, ParameterList)):
            return type(self)(list(items.values()))
        return type(self)(items)
    def _make(self, fn, *args):
        out = c_void_p()
        check(fn(*args, byref(out)))
        self._init_common(out.value)

    def _delete_positions(self, idx, pop_fn):
        """del self[idx] of a Sequential / ModuleList: torch 1.13 renumbers the rest "0", "1", ..."""
        if isinstance(idx, slice):
            positions = sorted(range(len(self._modules))[idx], reverse=True)
        else:
            positions = [self._norm_index(idx)]
        for i in positions:  # highest first: the lower positions stay valid
            check(pop_fn(self._h, i, None))
        mods = list(self._modules.values())
        for i in positions:
            del mods[i]
        self.__dict__["_modules"] = OrderedDict((str(i), m) for i, m in enumerate(mods))

    def _pop(self, key):
        v = self[key]
        del self[key]
        return v

    def _norm_index(self, idx):
        idx = operator.index(idx)
        n = len(self)
        if not (-n <= idx < n):
            raise IndexError("index {} is out of range".format(idx))
        return idx + n if idx < 0 else idx


class Sequential(_Container):
    pop = _Container._pop

    def __init__(self, *args):
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            self._make(C.glia_nn_sequential, None, 0)
            for key, module in args[0].items():
                self.add_module(key, _check_module(module))
        else:
            for m in args:
                _check_module(m)
            arr, n = _handles(args)
            self._make(C.glia_nn_sequential, arr, n)
            for i, m in enumerate(args):
                self._modules[str(i)] = m

    def forward(self, input):
        return self(input)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[self._norm_index(idx)]

    def __setitem__(self, idx, module):
        i = self._norm_index(idx)
        check(C.glia_nn_sequential_set(self._h, i, _check_module(module)._h))
        key = list(self._modules)[i]
        self._modules[key] = module

    def __delitem__(self, idx):
        self._delete_positions(idx, C.glia_nn_sequential_pop)

    def append(self, module):
        check(C.glia_nn_sequential_append(self._h, _check_module(module)._h))
        self._modules[str(len(self._modules))] = module
        return self

    def insert(self, index, module):
        _check_module(module)
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError("Index out of range: {}".format(index))
        check(C.glia_nn_sequential_insert(self._h, index, module._h))
        mods = list(self._modules.values())
        mods.insert(index + n if index < 0 else index, module)
        self.__dict__["_modules"] = OrderedDict((str(i), m) for i, m in enumerate(mods))
        return self

    def extend(self, sequential):
        for m in sequential:
            self.append(m)
        return self

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]


class ModuleList(_Container):
    pop = _Container._pop

    def __init__(self, modules=None):
        mods = [_check_module(m) for m in (modules or [])]
        arr, n = _handles(mods)
        self._make(C.glia_nn_module_list, arr, n)
        for i, m in enumerate(mods):
            self._modules[str(i)] = m

    def __call__(self, *args, **kwargs):
        Module.forward(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return list(self._modules.values())[self._norm_index(idx)]

    def __setitem__(self, idx, module):
        i = self._norm_index(idx)
        check(C.glia_nn_module_list_set(self._h, i, _check_module(module)._h))
        self._modules[str(i)] = module

    def __delitem__(self, idx):
        self._delete_positions(idx, C.glia_nn_module_list_pop)

    def __iadd__(self, modules):
        return self.extend(modules)

    def append(self, module):
        check(C.glia_nn_module_list_append(self._h, _check_module(module)._h))
        self._modules[str(len(self._modules))] = module
        return self

    def extend(self, modules):
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        mods = [_check_module(m) for m in modules]
        arr, n = _handles(mods)
        check(C.glia_nn_module_list_extend(self._h, arr, n))
        for m in mods:
            self._modules[str(len(self._modules))] = m
        return self

    def insert(self, index, module):
        _check_module(module)
        n = len(self._modules)
        check(C.glia_nn_module_list_insert(self._h, index, module._h))
        mods = list(self._modules.values())
        mods.insert(index + n if index < 0 else index, module)
        self.__dict__["_modules"] = OrderedDict((str(i), m) for i, m in enumerate(mods))

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]


class ModuleDict(_Container):
    pop = _Container._pop

    def __init__(self, modules=None):
        self._make(C.glia_nn_module_dict, None, None, 0)
        if modules is not None:
            self.update(modules)

    def __call__(self, *args, **kwargs):
        Module.forward(self)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, _check_module(module))

    def __delitem__(self, key):
        if key not in self._modules:
            raise KeyError(key)
        check(C.glia_nn_module_dict_pop(self._h, str(key).encode(), None), KeyError)
        del self._modules[key]

    def clear(self):
        check(C.glia_nn_dict_clear(self._h))
        self._modules.clear()

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        if isinstance(modules, (OrderedDict, ModuleDict, container_abcs.Mapping)):
            for k, m in modules.items():
                self[k] = m
        else:
            for j, m in enumerate(modules):
                if not isinstance(m, container_abcs.Iterable) or isinstance(m, (str, bytes)):
                    raise TypeError("ModuleDict update sequence element #" + str(j) + " should be Iterable; is"
                                    + type(m).__name__)
                if not len(m) == 2:
                    raise ValueError("ModuleDict update sequence element #" + str(j) + " has length "
                                     + str(len(m)) + "; 2 is required")
                self[m[0]] = m[1]


def _as_param(v):
    if isinstance(v, Parameter):
        return v
    if isinstance(v, Tensor):
        return Parameter(v)
    raise TypeError("glia: ParameterList/ParameterDict hold tensors, got {}".format(_typename(v)))


class ParameterList(_Container):
    def __init__(self, values=None):
        ps = [_as_param(v) for v in (values or [])]
        arr, n = _util.handles(ps)
        self._make(C.glia_nn_parameter_list, arr, n)
        for i, p in enumerate(ps):
            self._parameters[str(i)] = p

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._parameters.values())[idx])
        return list(self._parameters.values())[self._norm_index(idx)]

    def __setitem__(self, idx, param):
        i = self._norm_index(idx)
        p = _as_param(param)
        check(C.glia_nn_parameter_list_set(self._h, i, p._h))
        self._parameters[str(i)] = p

    def append(self, value):
        p = _as_param(value)
        check(C.glia_nn_parameter_list_append(self._h, p._h))
        self._parameters[str(len(self._parameters))] = p
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def __iadd__(self, values):
        return self.extend(values)

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]


class ParameterDict(_Container):
    def __init__(self, parameters=None):
        self._make(C.glia_nn_parameter_dict, None, None, 0)
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        p = _as_param(value)
        check(C.glia_nn_parameter_dict_set(self._h, str(key).encode(), p._h))
        self._parameters[key] = p

    def __delitem__(self, key):
        # torch 1.13: delattr -> AttributeError("'ParameterDict' object has no attribute 'k'")
        check(C.glia_nn_parameter_dict_pop(self._h, str(key).encode(), None), AttributeError)
        del self._parameters[key]

    def pop(self, key):
        if key not in self._parameters:
            raise AttributeError("'ParameterDict' object has no attribute '{}'".format(key))
        v = self._parameters[key]
        del self[key]
        return v

    def popitem(self):
        if not self._parameters:
            raise KeyError("popitem(): dictionary is empty")
        k = next(reversed(self._parameters))
        return k, self.pop(k)

    def clear(self):
        check(C.glia_nn_dict_clear(self._h))
        self._parameters.clear()

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters):
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            items = list(parameters.items())
        elif isinstance(parameters, container_abcs.Mapping):
            items = sorted(parameters.items())
        else:
            items = [tuple(kv) for kv in parameters]
        for k, v in items:
            self[k] = v
