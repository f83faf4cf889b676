package glia

/*
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"sync/atomic"
)

// Format is a checkpoint file format (glia_format).
type Format int32

// Checkpoint formats.
const (
	FormatAuto        Format = 0 // loading: by content; saving: safetensors
	FormatSafetensors Format = 1
	FormatTorch       Format = 2 // torch.save's zip format
)

// TensorDict is an ordered name -> tensor map (state dicts, checkpoints).
type TensorDict struct {
	h atomic.Uintptr
}

func wrapDict(h C.gh) *TensorDict {
	d := &TensorDict{}
	d.h.Store(uintptr(h))
	runtime.SetFinalizer(d, (*TensorDict).Release)
	return d
}

// NewTensorDict is an empty dict.
func NewTensorDict() (*TensorDict, error) {
	var out C.gh
	if err := check(C.gs_dict_create(&out)); err != nil {
		return nil, err
	}
	return wrapDict(out), nil
}

// LoadTensorDict reads a checkpoint (safetensors or PyTorch; FormatAuto picks by content).
func LoadTensorDict(path string, format Format) (*TensorDict, error) {
	cpath, free := cString(path)
	defer free()
	var out C.gh
	if err := check(C.gs_dict_load(cpath, C.int(format), &out)); err != nil {
		return nil, err
	}
	return wrapDict(out), nil
}

// Release drops this reference. Idempotent; safe from any goroutine.
func (d *TensorDict) Release() {
	if d == nil {
		return
	}
	if h := d.h.Swap(0); h != 0 {
		C.glia_error_free(C.gs_dict_release(C.gh(h)))
	}
}

func (d *TensorDict) handle() (C.gh, error) {
	if d == nil || d.h.Load() == 0 {
		return 0, released("TensorDict")
	}
	return C.gh(d.h.Load()), nil
}

func (d *TensorDict) do(f func(h C.gh) *C.glia_error) error {
	h, err := d.handle()
	if err != nil {
		return err
	}
	e := f(h)
	runtime.KeepAlive(d)
	return check(e)
}

// Len is the number of entries.
func (d *TensorDict) Len() (int, error) {
	var n C.int64_t
	err := d.do(func(h C.gh) *C.glia_error { return C.gs_dict_size(h, &n) })
	return int(n), err
}

// Keys are the names in insertion order.
func (d *TensorDict) Keys() ([]string, error) {
	n, err := d.Len()
	if err != nil {
		return nil, err
	}
	h, _ := d.handle()
	keys := make([]string, n)
	for i := range keys {
		keys[i], err = readString(func(buf *C.char, capacity C.size_t, length *C.size_t) *C.glia_error {
			return C.gs_dict_key_at(h, C.int64_t(i), buf, capacity, length)
		})
		if err != nil {
			return nil, err
		}
	}
	runtime.KeepAlive(d)
	return keys, nil
}

// Values are the tensors in insertion order (new references).
func (d *TensorDict) Values() ([]*Tensor, error) {
	n, err := d.Len()
	if err != nil {
		return nil, err
	}
	vals := make([]*Tensor, 0, n)
	for i := 0; i < n; i++ {
		var out C.gh
		if err := d.do(func(h C.gh) *C.glia_error { return C.gs_dict_value_at(h, C.int64_t(i), &out) }); err != nil {
			ReleaseAll(vals...)
			return nil, err
		}
		vals = append(vals, wrapTensor(out))
	}
	return vals, nil
}

// Get is the tensor of key (ErrNotFound when absent).
func (d *TensorDict) Get(key string) (*Tensor, error) {
	ckey, free := cString(key)
	defer free()
	var out C.gh
	if err := d.do(func(h C.gh) *C.glia_error { return C.gs_dict_get(h, ckey, &out) }); err != nil {
		return nil, err
	}
	return wrapTensor(out), nil
}

// Set inserts or replaces key (the dict holds its own reference to t).
func (d *TensorDict) Set(key string, t *Tensor) error {
	th, err := t.handle()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(t)
	ckey, free := cString(key)
	defer free()
	return d.do(func(h C.gh) *C.glia_error { return C.gs_dict_set(h, ckey, th) })
}

// Save writes the dict to path (atomically); FormatAuto writes safetensors.
func (d *TensorDict) Save(path string, format Format) error {
	cpath, free := cString(path)
	defer free()
	return d.do(func(h C.gh) *C.glia_error { return C.gs_dict_save(h, cpath, C.int(format)) })
}
