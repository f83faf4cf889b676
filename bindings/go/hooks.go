package glia

/*
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/cgo"
	"unsafe"
)

// ForwardFunc is the forward of a module defined in Go. self is the module being called
// (borrowed: valid during the call); inputs are borrowed too: they are released when the
// function returns, so keep one with Ref. The returned tensors stay owned by the caller; glia
// takes its own references. Use self (not a captured *Module) to reach parameters: a closure
// that captures its own module keeps it alive forever.
type ForwardFunc func(self *Module, inputs []*Tensor) ([]*Tensor, error)

// ForwardHookFunc is a forward hook: it sees the inputs and outputs (borrowed) and returns nil
// to keep the outputs or a replacement list.
type ForwardHookFunc func(m *Module, inputs, outputs []*Tensor) ([]*Tensor, error)

// TensorHookFunc is a tensor hook: it sees the gradient flowing into the tensor (borrowed)
// and returns nil to keep it or a replacement.
type TensorHookFunc func(grad *Tensor) (*Tensor, error)

// NewModule defines a module whose forward is a Go function (a torch.nn.Module subclass).
// Register its parameters with RegisterParameter.
func NewModule(typeName string, forward ForwardFunc) (*Module, error) {
	if forward == nil {
		return nil, &Error{Code: ErrInvalidArgument, Message: "glia (Go): NewModule: forward is nil"}
	}
	cname, free := cString(typeName)
	defer free()
	handle := newCallbackHandle(forward)
	var out C.gh
	// glia calls free_user_data (deleting the handle) exactly once, also when this fails.
	if err := check(C.gs_module_create(cname, C.uintptr_t(handle), &out)); err != nil {
		return nil, err
	}
	return wrapModule(out), nil
}

// AddForwardHook registers a forward hook (register_forward_hook).
func (m *Module) AddForwardHook(hook ForwardHookFunc) (HookID, error) {
	mh, err := m.handle()
	if err != nil {
		return 0, err
	}
	handle := newCallbackHandle(hook) // glia deletes it (free_user_data), also when this fails
	var id C.uint64_t
	e := C.gs_module_add_forward_hook(mh, C.uintptr_t(handle), &id)
	runtime.KeepAlive(m)
	return HookID(id), check(e)
}

// RegisterHook registers a tensor hook (register_hook), called during backward.
func (t *Tensor) RegisterHook(hook TensorHookFunc) (HookID, error) {
	th, err := t.handle()
	if err != nil {
		return 0, err
	}
	handle := newCallbackHandle(hook)
	var id C.uint64_t
	e := C.gs_tensor_register_hook(th, C.uintptr_t(handle), &id)
	runtime.KeepAlive(t)
	return HookID(id), check(e)
}

// RemoveHook removes a tensor hook.
func (t *Tensor) RemoveHook(id HookID) error {
	return t.inPlace(func(a C.gh) *C.glia_error { return C.gs_remove_tensor_hook(a, C.uint64_t(id)) })
}

// ---- helpers of the exported trampolines ----

// callbackError is the glia_error a failed callback returns: glia then fails the call with
// GLIA_ERR_CALLBACK carrying the message.
func callbackError(err error) *C.glia_error {
	var ge *Error
	code := ErrCallback
	if errors.As(err, &ge) && ge.Code != OK {
		code = ge.Code
	}
	msg, free := cString(err.Error())
	defer free()
	return C.glia_error_new(C.enum_glia_error_code(code), msg)
}

// recoverInto turns a panic of a Go callback into a GLIA_ERR_CALLBACK error, so that it never
// unwinds through glia's C frames.
func recoverInto(ret **C.glia_error, what string) {
	if r := recover(); r != nil {
		msg, free := cString(fmt.Sprintf("glia (Go): panic in %s: %v", what, r))
		defer free()
		*ret = C.glia_error_new(C.GLIA_ERR_CALLBACK, msg)
	}
}

// borrowTensors wraps borrowed handles, taking a reference to each (released by the caller).
func borrowTensors(p *C.uintptr_t, n int) ([]*Tensor, error) {
	if n == 0 {
		return nil, nil
	}
	hs := unsafe.Slice((*C.gh)(unsafe.Pointer(p)), n)
	ts := make([]*Tensor, n)
	for i, h := range hs {
		if h == 0 {
			continue
		}
		if err := check(C.gs_tensor_retain(h)); err != nil {
			ReleaseAll(ts...)
			return nil, err
		}
		ts[i] = wrapTensor(h)
	}
	return ts, nil
}

func borrowModule(h uintptr) (*Module, error) {
	if err := check(C.gs_module_retain(C.gh(h))); err != nil {
		return nil, err
	}
	return wrapModule(C.gh(h)), nil
}

// writeTensors writes a new reference to each of ts into out (capacity entries), all or none.
func writeTensors(ts []*Tensor, out *C.uintptr_t, capacity int, n *C.int64_t) *C.glia_error {
	if len(ts) > capacity {
		return callbackError(fmt.Errorf("glia (Go): callback returned %d tensors, at most %d allowed", len(ts), capacity))
	}
	dst := unsafe.Slice((*C.gh)(unsafe.Pointer(out)), capacity)
	for i, t := range ts {
		var h C.gh
		if t != nil {
			var err error
			if h, err = t.handle(); err == nil {
				err = check(C.gs_tensor_retain(h))
			}
			if err != nil {
				for j := 0; j < i; j++ {
					C.glia_error_free(C.gs_tensor_release(dst[j]))
					dst[j] = 0
				}
				return callbackError(fmt.Errorf("glia (Go): callback output %d: %w", i, err))
			}
		}
		dst[i] = h
	}
	runtime.KeepAlive(ts)
	*n = C.int64_t(len(ts))
	return nil
}

func runForward(ud, self uintptr, in *C.uintptr_t, nIn int, out *C.uintptr_t, capacity int, nOut *C.int64_t) *C.glia_error {
	fn := cgo.Handle(ud).Value().(ForwardFunc)
	m, err := borrowModule(self)
	if err != nil {
		return callbackError(err)
	}
	defer m.Release()
	inputs, err := borrowTensors(in, nIn)
	if err != nil {
		return callbackError(err)
	}
	defer ReleaseAll(inputs...)
	outs, err := fn(m, inputs)
	if err != nil {
		return callbackError(err)
	}
	return writeTensors(outs, out, capacity, nOut)
}

func runForwardHook(ud, module uintptr, in *C.uintptr_t, nIn int, outs *C.uintptr_t, nOuts int, repl *C.uintptr_t,
	capacity int, nRepl *C.int64_t) *C.glia_error {
	fn := cgo.Handle(ud).Value().(ForwardHookFunc)
	m, err := borrowModule(module)
	if err != nil {
		return callbackError(err)
	}
	defer m.Release()
	inputs, err := borrowTensors(in, nIn)
	if err != nil {
		return callbackError(err)
	}
	defer ReleaseAll(inputs...)
	outputs, err := borrowTensors(outs, nOuts)
	if err != nil {
		return callbackError(err)
	}
	defer ReleaseAll(outputs...)
	r, err := fn(m, inputs, outputs)
	if err != nil {
		return callbackError(err)
	}
	if r == nil {
		return nil // keep (glia preset *nRepl to -1)
	}
	return writeTensors(r, repl, capacity, nRepl)
}

func runTensorHook(ud, grad uintptr, repl *C.uintptr_t) *C.glia_error {
	fn := cgo.Handle(ud).Value().(TensorHookFunc)
	g := C.uintptr_t(grad)
	gs, err := borrowTensors(&g, 1)
	if err != nil {
		return callbackError(err)
	}
	defer ReleaseAll(gs...)
	r, err := fn(gs[0])
	if err != nil || r == nil {
		if err != nil {
			return callbackError(err)
		}
		return nil
	}
	var n C.int64_t
	return writeTensors([]*Tensor{r}, repl, 1, &n)
}
