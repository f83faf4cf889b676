package glia

/*
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"sync/atomic"
)

// Module is a reference to a glia module (torch.nn.Module).
type Module struct {
	h atomic.Uintptr
}

func wrapModule(h C.gh) *Module {
	m := &Module{}
	m.h.Store(uintptr(h))
	runtime.SetFinalizer(m, (*Module).Release)
	return m
}

// Release drops this reference. Idempotent; safe from any goroutine. A parent module keeps
// its children alive.
func (m *Module) Release() {
	if m == nil {
		return
	}
	if h := m.h.Swap(0); h != 0 {
		C.glia_error_free(C.gs_module_release(C.gh(h)))
	}
}

func (m *Module) handle() (C.gh, error) {
	if m == nil {
		return 0, released("Module")
	}
	h := m.h.Load()
	if h == 0 {
		return 0, released("Module")
	}
	return C.gh(h), nil
}

func (m *Module) do(f func(h C.gh) *C.glia_error) error {
	h, err := m.handle()
	if err != nil {
		return err
	}
	e := f(h)
	runtime.KeepAlive(m)
	return check(e)
}

func newModule(f func(out *C.gh) *C.glia_error) (*Module, error) {
	var out C.gh
	if err := check(f(&out)); err != nil {
		return nil, err
	}
	return wrapModule(out), nil
}

// Forward is Module.__call__: hooks, forward, and autograd wiring. Returns every output.
func (m *Module) Forward(inputs ...*Tensor) ([]*Tensor, error) {
	hs, err := handles("Tensor", inputs)
	if err != nil {
		return nil, err
	}
	var outs [C.GLIA_MODULE_MAX_OUTPUTS]C.gh
	var n C.int64_t
	err = m.do(func(h C.gh) *C.glia_error {
		return C.gs_module_forward(h, ghPtr(hs), C.int64_t(len(hs)), &outs[0], C.GLIA_MODULE_MAX_OUTPUTS, &n)
	})
	runtime.KeepAlive(inputs)
	if err != nil {
		return nil, err
	}
	res := make([]*Tensor, int(n))
	for i := range res {
		if outs[i] != 0 {
			res[i] = wrapTensor(outs[i])
		}
	}
	return res, nil
}

// Call is Forward for a module with exactly one output.
func (m *Module) Call(inputs ...*Tensor) (*Tensor, error) {
	outs, err := m.Forward(inputs...)
	if err != nil {
		return nil, err
	}
	if len(outs) != 1 {
		ReleaseAll(outs...)
		return nil, &Error{Code: ErrInvalidArgument, Message: "glia (Go): Module.Call: forward returned " +
			itoa(len(outs)) + " outputs, expected 1"}
	}
	return outs[0], nil
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// RegisterParameter registers t as parameter `name` (a floating tensor is made to require
// grad, as nn.Parameter does). The module holds the tensor itself, not a copy.
func (m *Module) RegisterParameter(name string, t *Tensor) error {
	th, err := t.handle()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(t)
	cname, free := cString(name)
	defer free()
	return m.do(func(h C.gh) *C.glia_error { return C.gs_module_register_parameter(h, cname, th) })
}

// RegisterBuffer registers t as buffer `name` (persistent: part of the state dict).
func (m *Module) RegisterBuffer(name string, t *Tensor, persistent bool) error {
	th, err := t.handle()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(t)
	cname, free := cString(name)
	defer free()
	return m.do(func(h C.gh) *C.glia_error { return C.gs_module_register_buffer(h, cname, th, flag(persistent)) })
}

// AddModule registers child as submodule `name`.
func (m *Module) AddModule(name string, child *Module) error {
	ch, err := child.handle()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(child)
	cname, free := cString(name)
	defer free()
	return m.do(func(h C.gh) *C.glia_error { return C.gs_module_add_module(h, cname, ch) })
}

// Parameter is the parameter at a dotted path ("0.weight").
func (m *Module) Parameter(path string) (*Tensor, error) {
	cpath, free := cString(path)
	defer free()
	var out C.gh
	if err := m.do(func(h C.gh) *C.glia_error { return C.gs_module_get_parameter(h, cpath, &out) }); err != nil {
		return nil, err
	}
	return wrapTensor(out), nil
}

// Submodule is the module at a dotted path ("" is m itself).
func (m *Module) Submodule(path string) (*Module, error) {
	cpath, free := cString(path)
	defer free()
	var out C.gh
	if err := m.do(func(h C.gh) *C.glia_error { return C.gs_module_get_submodule(h, cpath, &out) }); err != nil {
		return nil, err
	}
	return wrapModule(out), nil
}

// NamedParameters is named_parameters() as a dict of the parameters themselves.
func (m *Module) NamedParameters() (*TensorDict, error) {
	var out C.gh
	if err := m.do(func(h C.gh) *C.glia_error { return C.gs_module_named_parameters(h, &out) }); err != nil {
		return nil, err
	}
	return wrapDict(out), nil
}

// Parameters is every parameter (recursively, each once, registration order).
func (m *Module) Parameters() ([]*Tensor, error) {
	d, err := m.NamedParameters()
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return d.Values()
}

// Train sets training mode recursively (train(on)).
func (m *Module) Train(on bool) error {
	return m.do(func(h C.gh) *C.glia_error { return C.gs_module_train(h, flag(on)) })
}

// Eval is Train(false).
func (m *Module) Eval() error { return m.Train(false) }

// IsTraining is the training flag.
func (m *Module) IsTraining() (bool, error) {
	var v C.int32_t
	err := m.do(func(h C.gh) *C.glia_error { return C.gs_module_is_training(h, &v) })
	return v != 0, err
}

// ZeroGrad clears every parameter's grad (set_to_none=True).
func (m *Module) ZeroGrad() error {
	return m.do(func(h C.gh) *C.glia_error { return C.gs_module_zero_grad(h) })
}

// String is torch's repr of the module tree.
func (m *Module) String() string {
	h, err := m.handle()
	if err != nil {
		return "<" + err.Error() + ">"
	}
	s, err := readString(func(buf *C.char, capacity C.size_t, length *C.size_t) *C.glia_error {
		return C.gs_module_to_string(h, buf, capacity, length)
	})
	runtime.KeepAlive(m)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return s
}

// TypeName is the module's type name ("Linear").
func (m *Module) TypeName() (string, error) {
	h, err := m.handle()
	if err != nil {
		return "", err
	}
	s, err := readString(func(buf *C.char, capacity C.size_t, length *C.size_t) *C.glia_error {
		return C.gs_module_type_name(h, buf, capacity, length)
	})
	runtime.KeepAlive(m)
	return s, err
}

// StateDict is state_dict(): detached tensors sharing the module's storage.
func (m *Module) StateDict() (*TensorDict, error) {
	var out C.gh
	if err := m.do(func(h C.gh) *C.glia_error { return C.gs_module_state_dict(h, &out) }); err != nil {
		return nil, err
	}
	return wrapDict(out), nil
}

// LoadStateDict is load_state_dict(d, strict); all-or-nothing.
func (m *Module) LoadStateDict(d *TensorDict, strict bool) error {
	dh, err := d.handle()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(d)
	return m.do(func(h C.gh) *C.glia_error { return C.gs_module_load_state_dict(h, dh, flag(strict)) })
}

// Save writes the state dict to path as safetensors (atomically).
func (m *Module) Save(path string) error {
	cpath, free := cString(path)
	defer free()
	return m.do(func(h C.gh) *C.glia_error { return C.gs_module_save(h, cpath) })
}

// Load reads a checkpoint (safetensors or PyTorch, by content) into the module; all-or-nothing.
func (m *Module) Load(path string, strict bool) error {
	cpath, free := cString(path)
	defer free()
	return m.do(func(h C.gh) *C.glia_error { return C.gs_module_load(h, cpath, flag(strict)) })
}

// HookID identifies a registered hook.
type HookID uint64

// RemoveHook removes a module hook by id.
func (m *Module) RemoveHook(id HookID) error {
	return m.do(func(h C.gh) *C.glia_error { return C.gs_module_remove_hook(h, C.uint64_t(id)) })
}

// ---- built-in layers (torch.nn) ----

// NewLinear is torch.nn.Linear(in, out, bias).
func NewLinear(in, out int64, bias bool) (*Module, error) {
	return newModule(func(o *C.gh) *C.glia_error { return C.gs_nn_linear(C.int64_t(in), C.int64_t(out), flag(bias), o) })
}

// Conv2dOptions are torch.nn.Conv2d's keywords; the zero value is stride 1, padding 0, bias.
type Conv2dOptions struct {
	Stride  [2]int64 // {0, 0} means {1, 1}
	Padding [2]int64
	NoBias  bool
}

// NewConv2d is torch.nn.Conv2d(in, out, (kh, kw), ...); opts may be nil.
func NewConv2d(in, out, kh, kw int64, opts *Conv2dOptions) (*Module, error) {
	o := Conv2dOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Stride == [2]int64{} {
		o.Stride = [2]int64{1, 1}
	}
	return newModule(func(r *C.gh) *C.glia_error {
		return C.gs_nn_conv2d(C.int64_t(in), C.int64_t(out), C.int64_t(kh), C.int64_t(kw), C.int64_t(o.Stride[0]),
			C.int64_t(o.Stride[1]), C.int64_t(o.Padding[0]), C.int64_t(o.Padding[1]), flag(!o.NoBias), r)
	})
}

// NewMaxPool2d is torch.nn.MaxPool2d((kh, kw)) with stride = kernel size.
func NewMaxPool2d(kh, kw int64) (*Module, error) {
	return newModule(func(r *C.gh) *C.glia_error { return C.gs_nn_max_pool2d(C.int64_t(kh), C.int64_t(kw), 0, 0, r) })
}

func simple(kind C.int) (*Module, error) {
	return newModule(func(r *C.gh) *C.glia_error { return C.gs_nn_simple(kind, r) })
}

// NewReLU is torch.nn.ReLU().
func NewReLU() (*Module, error) { return simple(C.GS_NN_RELU) }

// NewSigmoid is torch.nn.Sigmoid().
func NewSigmoid() (*Module, error) { return simple(C.GS_NN_SIGMOID) }

// NewTanh is torch.nn.Tanh().
func NewTanh() (*Module, error) { return simple(C.GS_NN_TANH) }

// NewIdentity is torch.nn.Identity().
func NewIdentity() (*Module, error) { return simple(C.GS_NN_IDENTITY) }

// NewCrossEntropyLoss is torch.nn.CrossEntropyLoss() (mean reduction).
func NewCrossEntropyLoss() (*Module, error) { return simple(C.GS_NN_CE) }

// NewMSELoss is torch.nn.MSELoss() (mean reduction).
func NewMSELoss() (*Module, error) { return simple(C.GS_NN_MSE) }

// NewFlatten is torch.nn.Flatten(start, end) (torch's defaults are 1, -1).
func NewFlatten(start, end int64) (*Module, error) {
	return newModule(func(r *C.gh) *C.glia_error { return C.gs_nn_flatten(C.int64_t(start), C.int64_t(end), r) })
}

// NewDropout is torch.nn.Dropout(p).
func NewDropout(p float64) (*Module, error) {
	return newModule(func(r *C.gh) *C.glia_error { return C.gs_nn_dropout(C.double(p), r) })
}

// NewLogSoftmax is torch.nn.LogSoftmax(dim).
func NewLogSoftmax(dim int64) (*Module, error) {
	return newModule(func(r *C.gh) *C.glia_error { return C.gs_nn_log_softmax(C.int64_t(dim), r) })
}

// NewSequential is torch.nn.Sequential(mods...); it holds its own references to the children.
func NewSequential(mods ...*Module) (*Module, error) {
	hs := make([]C.gh, len(mods))
	for i, m := range mods {
		h, err := m.handle()
		if err != nil {
			return nil, err
		}
		hs[i] = h
	}
	r, err := newModule(func(o *C.gh) *C.glia_error { return C.gs_nn_sequential(ghPtr(hs), C.int64_t(len(hs)), o) })
	runtime.KeepAlive(mods)
	return r, err
}

// Append adds a module at the end of a Sequential.
func (m *Module) Append(child *Module) error {
	ch, err := child.handle()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(child)
	return m.do(func(h C.gh) *C.glia_error { return C.gs_nn_sequential_append(h, ch) })
}
