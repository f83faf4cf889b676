"""nn.Module: a Python class backed by a C glia_module.

Design (see docs/python.md):
  * Every Module owns one reference to a C module (``self._h``). A Python subclass gets one made
    with glia_module_create whose forward is the module-level trampoline ``_FORWARD``; its
    user_data is a registry int whose entry is a weakref to the Python Module. C never holds a
    Python object, so no reference cycle can run through the library; the Python objects
    (parameters, buffers, children, hook callables) live in ordinary dicts on the Module where
    Python's GC sees them.
  * Calling a module always goes through glia_module_forward, so forward pre-hooks, forward hooks
    and full backward hooks are registered in C and run with the library's (torch's) order and
    replacement rules whether the module is called from Python or from C (a Python module inside a
    C Sequential). Non-tensor positional/keyword arguments cannot cross the C ABI: __call__ parks
    the full (args, kwargs) in a per-module call frame; only the tensors travel through C and the
    trampolines put them back in place, so hooks and forward see torch's argument tuples.
"""

import copy
import ctypes
import itertools
import threading
import weakref
from collections import OrderedDict, namedtuple

from ... import _ffi
from ..._ffi import C, check, c_void_p, c_int64, c_size_t, byref
from ..._tensor import Tensor
from .. import _util
from ..parameter import Parameter, is_lazy
from ..parameter import _UNINIT_SHAPE

__all__ = ["Module", "RemovableHandle"]

_MAX = 64  # GLIA_MODULE_MAX_OUTPUTS

class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _Frame:
    __slots__ = ("args", "kwargs", "result", "result_handles", "entered")

    def __init__(self, args, kwargs):
        self.args = tuple(args)
        self.kwargs = kwargs
        self.result = None
        self.result_handles = None
        self.entered = False


def _tensors_of(obj):
    """The tensors a Python value carries through C (Tensor -> 1; tuple/list of Tensor/None -> n)."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)) and all(isinstance(x, Tensor) or x is None for x in obj):
        return list(obj)
    return []


def _write(tensors, out, out_n):
    if len(tensors) > _MAX:
        raise RuntimeError("glia: at most %d tensors can cross a module call" % _MAX)
    for i, t in enumerate(tensors):
        out[i] = _util.retained(t._h) if t is not None else None
    out_n[0] = len(tensors)


def _borrowed_list(ptr, n, known=()):
    """Python Tensors for borrowed C handles, reusing the Python objects in `known` with the same handle."""
    by_h = {t._h: t for t in known if isinstance(t, Tensor)}
    res = []
    for i in range(n):
        h = ptr[i]
        if not h:
            res.append(None)
        elif h in by_h:
            res.append(by_h[h])
        else:
            res.append(_util.wrap_borrowed(h))
    return res


def _args_with(frame, tensors):
    """frame.args with its tensor positions replaced by `tensors` (in order)."""
    it = iter(tensors)
    args = []
    for a in frame.args:
        args.append(next(it, None) if isinstance(a, Tensor) else a)
    args.extend(it)
    return tuple(args)


def _current_frame(mod):
    frames = mod.__dict__.get("_frames")
    if not frames:
        return None
    stack = frames.get(threading.get_ident())
    return stack[-1] if stack else None


def _result_of(frame, outs):
    """The Python output for the C outputs `outs`: the object forward (or a hook) returned when its
    tensors are those handles, else a Tensor / tuple rebuilt from them."""
    if frame is not None and frame.result_handles is not None:
        if [t._h if t is not None else None for t in outs] == frame.result_handles:
            return frame.result
    if len(outs) == 1:
        return outs[0]
    return tuple(outs)


# ---------------------------------------------------------------------------
# Trampolines: one per callback signature, for the life of the process.


@_ffi.glia_module_forward_fn
def _FORWARD(user_data, self_h, inputs, n_inputs, outputs, capacity, out_n):
    def body():
        mod = _ffi.lookup(user_data)()
        if mod is None:
            raise RuntimeError("glia: the Python module of this C module was deleted")
        frame = _current_frame(mod)
        if frame is not None and not frame.entered:
            frame.entered = True
            known = [a for a in frame.args if isinstance(a, Tensor)]
            args = _args_with(frame, _borrowed_list(inputs, n_inputs, known))
            kwargs = frame.kwargs
        else:  # called from C (e.g. inside a C Sequential)
            frame = None
            args = tuple(_borrowed_list(inputs, n_inputs))
            kwargs = {}
        result = mod.forward(*args, **kwargs)
        ts = _tensors_of(result)
        if frame is not None:
            frame.result = result
            frame.result_handles = [t._h if t is not None else None for t in ts]
        elif not ts and result is not None:
            raise RuntimeError("glia: a module called from C must return tensors, got %s" % type(result).__name__)
        _write(ts, outputs, out_n)

    return _ffi.guard(body)()


@_ffi.glia_module_extra_repr_fn
def _EXTRA_REPR(user_data, self_h, buffer, capacity, out_length):
    def body():
        mod = _ffi.lookup(user_data)()
        text = mod.extra_repr().encode() if mod is not None else b""
        out_length[0] = len(text)
        if capacity and buffer:
            n = min(len(text), capacity - 1)
            ctypes.memmove(buffer, text + b"\0", n)
            ctypes.memset(buffer + n, 0, 1)

    return _ffi.guard(body)()


def _noop_hook(*args):
    return None


def _hook_target(user_data):
    """(module, hook); a hook removed (or whose module died) while a recorded graph still holds it is a no-op,
    as in torch where removing a hook before backward() stops it from running."""
    mod_ref, slot = _ffi.lookup(user_data)
    mod = mod_ref()
    if mod is None:
        return None, _noop_hook
    return mod, mod._hook_fns.get(slot, _noop_hook)


@_ffi.glia_forward_pre_hook_fn
def _PRE_HOOK(user_data, module_h, inputs, n_inputs, repl, capacity, out_n):
    def body():
        mod, hook = _hook_target(user_data)
        frame = _current_frame(mod)
        if frame is not None and not frame.entered:
            known = [a for a in frame.args if isinstance(a, Tensor)]
            args = _args_with(frame, _borrowed_list(inputs, n_inputs, known))
        else:
            frame = None
            args = tuple(_borrowed_list(inputs, n_inputs))
        res = hook(mod, args)
        if res is None:
            return
        if not isinstance(res, tuple):
            res = (res,)
        if frame is not None:
            frame.args = res
        _write([a for a in res if isinstance(a, Tensor)], repl, out_n)

    return _ffi.guard(body)()


@_ffi.glia_forward_hook_fn
def _FWD_HOOK(user_data, module_h, inputs, n_inputs, outputs, n_outputs, repl, capacity, out_n):
    def body():
        mod, hook = _hook_target(user_data)
        frame = _current_frame(mod)
        if frame is not None and frame.entered:
            known = [a for a in frame.args if isinstance(a, Tensor)]
            args = _args_with(frame, _borrowed_list(inputs, n_inputs, known))
        else:
            frame = None
            args = tuple(_borrowed_list(inputs, n_inputs))
        known_out = _tensors_of(frame.result) if frame is not None else []
        outs = _borrowed_list(outputs, n_outputs, known_out)
        output = _result_of(frame, outs)
        res = hook(mod, args, output)
        if res is None:
            return
        ts = _tensors_of(res)
        if frame is not None:
            frame.result = res
            frame.result_handles = [t._h if t is not None else None for t in ts]
        _write(ts, repl, out_n)

    return _ffi.guard(body)()


@_ffi.glia_backward_pre_hook_fn
def _BWD_PRE_HOOK(user_data, module_h, grads, n, repl, capacity, out_n):
    def body():
        mod, hook = _hook_target(user_data)
        res = hook(mod, tuple(_borrowed_list(grads, n)))
        if res is None:
            return
        if isinstance(res, Tensor):
            res = (res,)
        _write(list(res), repl, out_n)

    return _ffi.guard(body)()


@_ffi.glia_backward_hook_fn
def _BWD_HOOK(user_data, module_h, gin, n_gin, gout, n_gout, repl, capacity, out_n):
    def body():
        mod, hook = _hook_target(user_data)
        res = hook(mod, tuple(_borrowed_list(gin, n_gin)), tuple(_borrowed_list(gout, n_gout)))
        if res is None:
            return
        if isinstance(res, Tensor):
            res = (res,)
        _write(list(res), repl, out_n)

    return _ffi.guard(body)()


_slots = itertools.count(1)


class RemovableHandle:
    """What register_*_hook returns: .remove() (idempotent), usable as a context manager."""

    def __init__(self, module, hook_id, slot, registry=None):
        self._module = weakref.ref(module)
        self.id = hook_id
        self._slot = slot
        self._registry = registry  # the module's _forward_hooks (...) dict, as torch's hooks_dict_ref

    def remove(self):
        mod = self._module()
        if mod is None or self._slot is None:
            return
        slot, self._slot = self._slot, None
        if self._registry is not None:
            self._registry.pop(self.id, None)
        mod._hook_fns.pop(slot, None)
        err = C.glia_module_remove_hook(mod._h, self.id)
        if err:
            C.glia_error_free(err)  # already gone (module destroyed its hooks)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _dtype_code(dtype):
    for attr in ("_code", "_value", "value", "code"):
        v = getattr(dtype, attr, None)
        if isinstance(v, int):
            return v
    names = {"float32": 0, "float": 0, "float64": 1, "double": 1, "float16": 2, "half": 2, "bfloat16": 3}
    s = str(dtype).replace("glia.", "").replace("torch.", "")
    if s in names:
        return names[s]
    raise TypeError("glia: unsupported dtype %r" % (dtype,))


class Module:
    """torch.nn.Module over a C glia_module."""

    _version = 1
    dump_patches = False

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError("Module.__init__() takes no arguments")
        self._init_python_module()

    # -- construction -----------------------------------------------------------------
    def _init_common(self, h):
        d = self.__dict__
        d["_h"] = h
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_hook_fns"] = {}
        d["_frames"] = {}  # thread id -> stack of _Frame (calls in progress)
        d["_forward_hooks"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()

    def _init_python_module(self):
        if "_h" in self.__dict__:
            return
        d = _ffi.glia_module_def()
        C.glia_module_def_init(byref(d))
        d.forward = _FORWARD
        d.extra_repr = _EXTRA_REPR
        d.user_data = _ffi.register(weakref.ref(self))
        d.free_user_data = _ffi.free_user_data
        out = c_void_p()
        check(C.glia_module_create(type(self).__name__.encode(), byref(d), byref(out)))
        self._init_common(out.value)

    def _adopt(self, h, none_params=(), none_buffers=()):
        """Wraps a C module made by a glia_nn_* constructor: its parameters, buffers and children."""
        self._init_common(h)
        for name in none_params:
            self._parameters[name] = None
        for name in none_buffers:
            self._buffers[name] = None
        for name, t in self._c_named(C.glia_module_named_parameters, Parameter).items():
            self._parameters[name] = t
        for name, t in self._c_named(C.glia_module_named_buffers, Tensor).items():
            self._buffers[name] = t

    def _c_named(self, fn, cls):
        dh = c_void_p()
        check(fn(self._h, None, 0, 0, byref(dh)))
        d = _util.dict_to_py(dh.value)
        out = OrderedDict()
        for k, t in d.items():
            h, t._h = t._h, None  # take over the reference in the wrapper class wanted
            out[k] = cls._wrap(h)
        return out

    def __del__(self, _release=C.glia_module_release, _free=C.glia_error_free):
        h = self.__dict__.get("_h")
        if h:
            self.__dict__["_h"] = None
            _free(_release(h))

    # -- attributes -------------------------------------------------------------------
    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        t = self._c_tensor_attribute(name)
        if t is not None:
            return t
        raise AttributeError("'{}' object has no attribute '{}'".format(type(self).__name__, name))

    def _c_tensor_attribute(self, name):
        """The module's tensor attribute `name` (glia_module_get_tensor_attribute: set by weight_norm,
        spectral_norm and the other torch.nn.utils reparametrizations in C), or None."""
        h = self.__dict__.get("_h")
        if not h or name.startswith("__"):
            return None
        out = c_void_p()
        err = C.glia_module_get_tensor_attribute(h, name.encode(), byref(out))
        if err:
            C.glia_error_free(err)
            return None
        return Tensor._wrap(out.value)

    def __setattr__(self, name, value):
        d = self.__dict__
        if "_h" not in d:
            if isinstance(value, (Parameter, Module)) or name in ("training",):
                if name == "training":
                    object.__setattr__(self, name, value)
                    return
                raise AttributeError("cannot assign parameters or modules before Module.__init__() call")
            object.__setattr__(self, name, value)
            return
        params, buffers, modules = d["_parameters"], d["_buffers"], d["_modules"]
        if isinstance(value, Parameter):
            self._remove_from(name, keep="_parameters")
            self.register_parameter(name, value)
        elif name in params:
            if value is not None:
                raise TypeError(
                    "cannot assign '{}' as parameter '{}' (torch.nn.Parameter or None expected)".format(
                        _typename(value), name
                    )
                )
            self.register_parameter(name, None)
        elif isinstance(value, Module):
            self._remove_from(name, keep="_modules")
            self.add_module(name, value)
        elif name in modules:
            if value is not None:
                raise TypeError(
                    "cannot assign '{}' as child module '{}' (torch.nn.Module or None expected)".format(
                        _typename(value), name
                    )
                )
            self.add_module(name, None)
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    "cannot assign '{}' as buffer '{}' (torch.Tensor or None expected)".format(_typename(value), name)
                )
            self.register_buffer(name, value, persistent=name not in d["_non_persistent_buffers_set"])
        elif name == "training":
            self._set_training_flag(bool(value))
        elif isinstance(getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)
        else:
            # A plain tensor attribute is also the C module's (glia_module_set_tensor_attribute), so a built-in
            # forward that reads a weight by name sees it (torch.nn.utils.prune, parametrize, functional_call).
            if isinstance(value, Tensor):
                check(C.glia_module_set_tensor_attribute(self._h, name.encode(), value._h))
            elif isinstance(d.get(name), Tensor):
                C.glia_error_free(C.glia_module_remove_tensor_attribute(self._h, name.encode()))
            object.__setattr__(self, name, value)

    def _remove_from(self, name, keep):
        d = self.__dict__
        d.pop(name, None)
        for store in ("_parameters", "_buffers", "_modules"):
            if store != keep and name in d[store]:
                check(C.glia_module_remove(self._h, name.encode()))
                del d[store][name]
                d["_non_persistent_buffers_set"].discard(name)

    def __delattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if name in d[store]:
                check(C.glia_module_remove(self._h, name.encode()), AttributeError)
                del d[store][name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        if name not in d and self._c_tensor_attribute(name) is not None:
            check(C.glia_module_remove_tensor_attribute(self._h, name.encode()), AttributeError)
            return
        if isinstance(d.get(name), Tensor):
            C.glia_error_free(C.glia_module_remove_tensor_attribute(self._h, name.encode()))
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self))
        keys += list(self._parameters) + list(self._modules) + list(self._buffers)
        keys = [k for k in keys if not k[0].isdigit()]
        return sorted(set(keys))

    @property
    def training(self):
        v = ctypes.c_int32()
        check(C.glia_module_is_training(self._h, byref(v)))
        return bool(v.value)

    @training.setter
    def training(self, mode):
        self._set_training_flag(bool(mode))

    def _set_training_flag(self, mode):
        # torch's `m.training = mode` sets this module's flag only (train() is recursive).
        check(C.glia_module_set_training(self._h, int(mode)))

    # -- registration -----------------------------------------------------------------
    def _check_name(self, name, kind, store):
        if not isinstance(name, str):
            raise TypeError("{} name should be a string. Got {}".format(kind, _typename(name)))
        if name == "":
            raise KeyError('{} name can\'t be empty string ""'.format(kind))
        if "." in name:
            raise KeyError('{} name can\'t contain "."'.format(kind))
        if name in self.__dict__ and name not in self.__dict__[store]:
            raise KeyError("attribute '{}' already exists".format(name))

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter", "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                "cannot assign '{}' object to parameter '{}' (torch.nn.Parameter or None required)".format(
                    _typename(param), name
                )
            )
        check(C.glia_module_register_parameter(self._h, name.encode(), param._h if param is not None else None))
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer", "_buffers")
        if name in self._parameters or name in self._modules:
            raise KeyError("attribute '{}' already exists".format(name))
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                "cannot assign '{}' object to buffer '{}' (torch Tensor or None required)".format(
                    _typename(tensor), name
                )
            )
        check(
            C.glia_module_register_buffer(
                self._h, name.encode(), tensor._h if tensor is not None else None, 1 if persistent else 0
            )
        )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError("{} is not a Module subclass".format(_typename(module)))
        if not isinstance(name, str):
            raise TypeError("module name should be a string. Got {}".format(_typename(name)))
        if hasattr(self, name) and name not in self._modules:
            raise KeyError("attribute '{}' already exists".format(name))
        if "." in name:
            raise KeyError('module name can\'t contain ".", got: {}'.format(name))
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        check(C.glia_module_add_module(self._h, name.encode(), module._h if module is not None else None))
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        p = getattr(mod, name)
        if not isinstance(p, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return p

    # -- calling ----------------------------------------------------------------------
    def forward(self, *input):
        raise NotImplementedError(
            'Module [{}] is missing the required "forward" function'.format(type(self).__name__)
        )

    def __call__(self, *args, **kwargs):
        frame = _Frame(args, kwargs)
        tid = threading.get_ident()
        frames = self.__dict__["_frames"].setdefault(tid, [])
        frames.append(frame)
        try:
            ins = [a for a in args if isinstance(a, Tensor)]
            if len(ins) > _MAX:
                raise RuntimeError("glia: at most %d tensor arguments" % _MAX)
            arr = (c_void_p * max(1, len(ins)))(*[t._h for t in ins])
            outs = (c_void_p * _MAX)()
            n = c_int64()
            check(C.glia_module_forward(self._h, arr, len(ins), outs, _MAX, byref(n)))
            known = _tensors_of(frame.result) if frame.result_handles is not None else []
            by_h = {t._h: t for t in known if t is not None}
            res = []
            for i in range(n.value):
                h = outs[i]
                if not h:
                    res.append(None)
                elif h in by_h:
                    C.glia_error_free(C.glia_tensor_release(h))
                    res.append(by_h[h])
                else:
                    res.append(_util.wrap(h))
            if frame.result_handles is not None and not frame.result_handles and n.value == 0:
                return frame.result
            if frame.result_handles is None and n.value == 0:
                return None
            return _result_of(frame, res)
        finally:
            frames.pop()
            if not frames:
                self.__dict__["_frames"].pop(tid, None)

    _call_impl = __call__

    # -- hooks ------------------------------------------------------------------------
    def _add_hook(self, adder, trampoline, hook, flags, registry):
        slot = next(_slots)
        self._hook_fns[slot] = hook
        ud = _ffi.register((weakref.ref(self), slot))
        hid = ctypes.c_uint64()
        try:
            check(adder(self._h, trampoline, ud, _ffi.free_user_data, flags, byref(hid)))
        except BaseException:
            self._hook_fns.pop(slot, None)
            raise
        registry[hid.value] = hook
        if flags & 1:  # prepend: first in the dict too, as torch's move_to_end(last=False)
            registry.move_to_end(hid.value, last=False)
        handle = RemovableHandle(self, hid.value, slot, registry)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False):
        return self._add_hook(C.glia_module_add_forward_pre_hook, _PRE_HOOK, hook, 1 if prepend else 0,
                              self._forward_pre_hooks)

    def register_forward_hook(self, hook, *, prepend=False, always_call=False):
        flags = (1 if prepend else 0) | (2 if always_call else 0)
        return self._add_hook(C.glia_module_add_forward_hook, _FWD_HOOK, hook, flags, self._forward_hooks)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        return self._add_hook(C.glia_module_add_backward_pre_hook, _BWD_PRE_HOOK, hook, 1 if prepend else 0,
                              self._backward_hooks)

    def register_full_backward_hook(self, hook, prepend=False):
        return self._add_hook(C.glia_module_add_backward_hook, _BWD_HOOK, hook, 1 if prepend else 0,
                              self._backward_hooks)

    # -- iteration --------------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix="", recurse=True):
        memo = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or id(v) in memo:
                    continue
                memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True):
        return self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True):
        return self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_children(self):
        memo = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in memo:
                memo.add(id(m))
                yield name, m

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if id(self) not in memo:
            if remove_duplicate:
                memo.add(id(self))
            yield prefix, self
            for name, m in self._modules.items():
                if m is None:
                    continue
                sub = prefix + ("." if prefix else "") + name
                for x in m.named_modules(memo, sub, remove_duplicate):
                    yield x

    # -- modes and grads --------------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        check(C.glia_module_train(self._h, int(mode)))
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        check(C.glia_module_requires_grad(self._h, int(bool(requires_grad))))
        return self

    def zero_grad(self, set_to_none=True):
        check(C.glia_module_zero_grad(self._h, int(bool(set_to_none))))

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        for a in args:
            if isinstance(a, str) or type(a).__name__ == "device":
                device = a
            elif isinstance(a, Tensor):
                dtype = _util.tensor_dtype_code(a._h)
            else:
                dtype = a
        if device is not None and str(device) not in ("cpu", "cpu:0"):
            raise RuntimeError("glia's Python binding moves modules to the CPU only (got %s)" % (device,))
        if dtype is not None:
            code = dtype if isinstance(dtype, int) else _dtype_code(dtype)
            dt = ctypes.c_int(code)
            check(C.glia_module_to(self._h, None, byref(dt)))
            self._refresh_buffers()
        return self

    def _refresh_buffers(self):
        """glia_module_to replaces buffers (parameters keep their handles, as torch keeps its Parameter
        objects): re-read every module's buffers so that attribute access (m.running_mean) sees the new
        tensors, as state_dict() does. A buffer the C side did not replace keeps its Python object."""
        for m in self.modules():
            fresh = m._c_named(C.glia_module_named_buffers, Tensor)
            for name, t in fresh.items():
                old = m._buffers.get(name)
                if old is None or old.dtype != t.dtype or old.data_ptr() != t.data_ptr():
                    m._buffers[name] = t
            if hasattr(m, "_sync_lazy_entries"):
                m._sync_lazy_entries()  # a lazy module's new buffers are placeholders still

    def float(self):
        return self.to(0)

    def double(self):
        return self.to(1)

    def half(self):
        return self.to(2)

    def bfloat16(self):
        return self.to(3)

    def cpu(self):
        return self

    # -- state dicts ------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        if keep_vars:
            for name, m in self.named_modules(remove_duplicate=False):
                pre = prefix + name + ("." if name else "")
                for k, p in m._parameters.items():
                    if p is not None:
                        destination[pre + k] = p
                for k, b in m._buffers.items():
                    if b is not None and k not in m._non_persistent_buffers_set:
                        destination[pre + k] = b
            return destination
        dh = c_void_p()
        check(C.glia_module_state_dict(self._h, byref(dh)))
        for k, v in _util.dict_to_py(dh.value).items():
            destination[prefix + k] = v
        # A lazy module's placeholders are listed as themselves (torch's LazyModuleMixin._save_to_state_dict).
        for name, m in self.named_modules(remove_duplicate=False):
            pre = prefix + name + ("." if name else "")
            for store in (m._parameters, m._buffers):
                for k, t in store.items():
                    if is_lazy(t) and pre + k in destination:
                        destination[pre + k] = t
        return destination

    def load_state_dict(self, state_dict, strict=True):
        if not hasattr(state_dict, "items"):
            raise TypeError("Expected state_dict to be dict-like, got {}.".format(type(state_dict)))
        self._check_lazy_sources(state_dict)
        d = _util.py_to_dict(state_dict)
        rep = c_void_p()
        try:
            check(C.glia_module_load_state_dict(self._h, d, int(bool(strict)), 0, byref(rep)))
        finally:
            C.glia_error_free(C.glia_tensor_dict_release(d))
        for m in self.modules():
            if hasattr(m, "_sync_lazy_entries"):
                m._sync_lazy_entries()  # placeholders the checkpoint materialised
        try:
            lists = []
            for which in (0, 1):
                n = c_int64()
                check(C.glia_load_report_count(rep, which, byref(n)))
                lists.append([_ffi.read_string(C.glia_load_report_key, rep, which, i) for i in range(n.value)])
        finally:
            C.glia_error_free(C.glia_load_report_release(rep))
        return _IncompatibleKeys(lists[0], lists[1])

    def _check_lazy_sources(self, state_dict):
        # torch: loading a placeholder (UninitializedParameter) into an initialised entry fails on its shape.
        for key, v in state_dict.items():
            if not is_lazy(v):
                continue
            path, _, name = str(key).rpartition(".")
            try:
                m = self.get_submodule(path)
            except AttributeError:
                continue
            t = m._parameters.get(name, m._buffers.get(name)) if isinstance(m, Module) else None
            if t is not None and not is_lazy(t):
                raise RuntimeError(_UNINIT_SHAPE)

    # -- printing ---------------------------------------------------------------------
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        return ""

    def __repr__(self):
        return _ffi.read_string(C.glia_module_to_string, self._h)

    def share_memory(self):
        return self

    # -- copying ----------------------------------------------------------------------
    _INTERNAL = frozenset(["_h", "_parameters", "_buffers", "_non_persistent_buffers_set", "_modules", "_hook_fns",
                           "_frames", "_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_ctor"])

    def __deepcopy__(self, memo):
        """copy.deepcopy(module): a new C module with copies of the parameters and buffers (hooks are not
        copied). Built-ins are rebuilt from their constructor arguments."""
        if id(self) in memo:
            return memo[id(self)]
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        ctor = self.__dict__.get("_ctor")
        if ctor is not None:
            args, kwargs = copy.deepcopy(ctor, memo)
            cls.__init__(new, *args, **kwargs)
            for name, p in self._parameters.items():
                if p is not None:
                    setattr(new, name, copy.deepcopy(p, memo))
            for name, b in self._buffers.items():
                if b is not None:
                    new.register_buffer(name, copy.deepcopy(b, memo), name not in self._non_persistent_buffers_set)
        else:
            new._init_python_module()
            for name, v in self.__dict__.items():
                if name not in Module._INTERNAL:
                    object.__setattr__(new, name, copy.deepcopy(v, memo))
            for name, p in self._parameters.items():
                if p is None:
                    new.register_parameter(name, None)
                else:
                    new.register_parameter(name, copy.deepcopy(p, memo))
            for name, b in self._buffers.items():
                new.register_buffer(name, copy.deepcopy(b, memo), name not in self._non_persistent_buffers_set)
            for name, m in self._modules.items():
                new.add_module(name, copy.deepcopy(m, memo))
        new.train(self.training)
        for m, m2 in zip(self.modules(), new.modules()):
            check(C.glia_module_train(m2._h, int(m.training)))
        return new

    def __reduce_ex__(self, proto):
        raise TypeError("glia modules cannot be pickled; save module.state_dict() with glia.save")


def _typename(obj):
    if isinstance(obj, Tensor):
        return "torch.FloatTensor"
    t = type(obj)
    mod = t.__module__
    return t.__name__ if mod == "builtins" else mod + "." + t.__qualname__
