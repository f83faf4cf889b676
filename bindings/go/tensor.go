package glia

/*
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// DType mirrors glia_dtype.
type DType int32

// Element types; values are glia's.
const (
	Float32  DType = 0
	Float64  DType = 1
	Float16  DType = 2
	BFloat16 DType = 3
	Int64    DType = 4
	Int32    DType = 5
	Uint8    DType = 6
	Bool     DType = 7
	Int8     DType = 8 // since 0.2
	Int16    DType = 9 // since 0.2
)

// String is torch's name of the dtype ("float32").
func (d DType) String() string {
	p := C.glia_dtype_name(C.glia_dtype(d))
	if p == nil {
		return "unknown dtype"
	}
	return C.GoString(p)
}

// Size is the number of bytes of one element (0 for an unknown dtype).
func (d DType) Size() int { return int(C.glia_dtype_size(C.glia_dtype(d))) }

// Tensor is a reference to a glia tensor (a strided view of a storage).
type Tensor struct {
	h atomic.Uintptr // the glia handle token; 0 once released
}

// wrapTensor takes over one handle reference.
func wrapTensor(h C.gh) *Tensor {
	t := &Tensor{}
	t.h.Store(uintptr(h))
	runtime.SetFinalizer(t, (*Tensor).Release)
	return t
}

// Release drops this reference. Idempotent; safe from any goroutine. Views and modules that
// hold the same tensor keep it alive.
func (t *Tensor) Release() {
	if t == nil {
		return
	}
	if h := t.h.Swap(0); h != 0 {
		C.glia_error_free(C.gs_tensor_release(C.gh(h)))
	}
}

func (t *Tensor) handle() (C.gh, error) {
	if t == nil {
		return 0, released("Tensor")
	}
	h := t.h.Load()
	if h == 0 {
		return 0, released("Tensor")
	}
	return C.gh(h), nil
}

// Ref returns a new reference to the same tensor (its own Release).
func (t *Tensor) Ref() (*Tensor, error) {
	h, err := t.handle()
	if err != nil {
		return nil, err
	}
	e := C.gs_tensor_retain(h)
	runtime.KeepAlive(t)
	if err := check(e); err != nil {
		return nil, err
	}
	return wrapTensor(h), nil
}

// ReleaseAll releases every tensor (nil entries are skipped).
func ReleaseAll(ts ...*Tensor) {
	for _, t := range ts {
		t.Release()
	}
}

func int64Ptr(s []int64) *C.int64_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.int64_t)(unsafe.Pointer(&s[0]))
}

// newTensor runs a glia call that writes one new tensor.
func newTensor(f func(out *C.gh) *C.glia_error) (*Tensor, error) {
	var out C.gh
	if err := check(f(&out)); err != nil {
		return nil, err
	}
	return wrapTensor(out), nil
}

func factory(kind C.int, dtype DType, value float64, shape []int64) (*Tensor, error) {
	return newTensor(func(out *C.gh) *C.glia_error {
		return C.gs_factory(kind, int64Ptr(shape), C.int64_t(len(shape)), C.double(value), C.int(dtype), out)
	})
}

// Zeros is a float32 tensor of zeros (torch.zeros(*shape)).
func Zeros(shape ...int64) (*Tensor, error) { return factory(C.GS_ZEROS, Float32, 0, shape) }

// Ones is a float32 tensor of ones.
func Ones(shape ...int64) (*Tensor, error) { return factory(C.GS_ONES, Float32, 0, shape) }

// Full is a float32 tensor filled with value.
func Full(value float64, shape ...int64) (*Tensor, error) {
	return factory(C.GS_FULL, Float32, value, shape)
}

// Empty is an uninitialised float32 tensor.
func Empty(shape ...int64) (*Tensor, error) { return factory(C.GS_EMPTY, Float32, 0, shape) }

// Rand is uniform on [0, 1) from the calling thread's generator.
func Rand(shape ...int64) (*Tensor, error) { return factory(C.GS_RAND, Float32, 0, shape) }

// Randn is standard normal from the calling thread's generator.
func Randn(shape ...int64) (*Tensor, error) { return factory(C.GS_RANDN, Float32, 0, shape) }

// ZerosOf is Zeros with a dtype.
func ZerosOf(dtype DType, shape ...int64) (*Tensor, error) {
	return factory(C.GS_ZEROS, dtype, 0, shape)
}

// FullOf is Full with a dtype.
func FullOf(dtype DType, value float64, shape ...int64) (*Tensor, error) {
	return factory(C.GS_FULL, dtype, value, shape)
}

// Arange is torch.arange(start, end, step) as float32.
func Arange(start, end, step float64) (*Tensor, error) {
	return newTensor(func(out *C.gh) *C.glia_error {
		return C.gs_arange(C.double(start), C.double(end), C.double(step), C.int(Float32), out)
	})
}

func fromData(ptr unsafe.Pointer, nbytes int, n int, dtype DType, shape []int64) (*Tensor, error) {
	if shape == nil {
		shape = []int64{int64(n)}
	}
	return newTensor(func(out *C.gh) *C.glia_error {
		return C.gs_from_data(ptr, C.size_t(nbytes), int64Ptr(shape), C.int64_t(len(shape)), C.int(dtype), out)
	})
}

// FromFloat32 copies data (row-major) into a new float32 tensor of the given shape
// (default: [len(data)]).
func FromFloat32(data []float32, shape ...int64) (*Tensor, error) {
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	return fromData(p, 4*len(data), len(data), Float32, shape)
}

// FromFloat64 copies data into a new float64 tensor.
func FromFloat64(data []float64, shape ...int64) (*Tensor, error) {
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	return fromData(p, 8*len(data), len(data), Float64, shape)
}

// FromInt64 copies data into a new int64 tensor (class indices for CrossEntropy).
func FromInt64(data []int64, shape ...int64) (*Tensor, error) {
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	return fromData(p, 8*len(data), len(data), Int64, shape)
}

// Scalar is a 0-dim float32 tensor.
func Scalar(v float64) (*Tensor, error) { return factory(C.GS_FULL, Float32, v, nil) }

// Dim is the number of dimensions.
func (t *Tensor) Dim() (int, error) {
	h, err := t.handle()
	if err != nil {
		return 0, err
	}
	var n C.int64_t
	e := C.gs_ndim(h, &n)
	runtime.KeepAlive(t)
	return int(n), check(e)
}

// Shape is the sizes of the tensor.
func (t *Tensor) Shape() ([]int64, error) {
	h, err := t.handle()
	if err != nil {
		return nil, err
	}
	var n C.int64_t
	if err := check(C.gs_ndim(h, &n)); err != nil {
		return nil, err
	}
	shape := make([]int64, int(n))
	e := C.gs_shape(h, n, int64Ptr(shape))
	runtime.KeepAlive(t)
	if err := check(e); err != nil {
		return nil, err
	}
	return shape, nil
}

// Numel is the number of elements.
func (t *Tensor) Numel() (int64, error) {
	h, err := t.handle()
	if err != nil {
		return 0, err
	}
	var n C.int64_t
	e := C.gs_numel(h, &n)
	runtime.KeepAlive(t)
	return int64(n), check(e)
}

// DType is the element type.
func (t *Tensor) DType() (DType, error) {
	h, err := t.handle()
	if err != nil {
		return 0, err
	}
	var d C.int
	e := C.gs_dtype(h, &d)
	runtime.KeepAlive(t)
	return DType(d), check(e)
}

// To converts to dtype (a new reference to t itself when it already has it).
func (t *Tensor) To(dtype DType) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_to_dtype(a, C.int(dtype), out) })
}

// copyOut copies the elements, converted to dtype, in row-major order into dst.
func (t *Tensor) copyOut(dtype DType, dst unsafe.Pointer, n int) error {
	c, err := t.To(dtype)
	if err != nil {
		return err
	}
	defer c.Release()
	h, err := c.handle()
	if err != nil {
		return err
	}
	return check(C.gs_copy_to_host(h, dst, C.size_t(n*dtype.Size())))
}

// Float32s copies the elements (converted to float32) in row-major order.
func (t *Tensor) Float32s() ([]float32, error) {
	n, err := t.Numel()
	if err != nil {
		return nil, err
	}
	out := make([]float32, n)
	var p unsafe.Pointer
	if n > 0 {
		p = unsafe.Pointer(&out[0])
	}
	return out, t.copyOut(Float32, p, int(n))
}

// Float64s copies the elements (converted to float64) in row-major order.
func (t *Tensor) Float64s() ([]float64, error) {
	n, err := t.Numel()
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	var p unsafe.Pointer
	if n > 0 {
		p = unsafe.Pointer(&out[0])
	}
	return out, t.copyOut(Float64, p, int(n))
}

// Int64s copies the elements (converted to int64, truncating) in row-major order.
func (t *Tensor) Int64s() ([]int64, error) {
	n, err := t.Numel()
	if err != nil {
		return nil, err
	}
	out := make([]int64, n)
	var p unsafe.Pointer
	if n > 0 {
		p = unsafe.Pointer(&out[0])
	}
	return out, t.copyOut(Int64, p, int(n))
}

// Item is the single element as a float64 (torch's .item()).
func (t *Tensor) Item() (float64, error) {
	h, err := t.handle()
	if err != nil {
		return 0, err
	}
	var v C.double
	e := C.gs_item(h, &v)
	runtime.KeepAlive(t)
	return float64(v), check(e)
}

// String is torch's repr ("tensor([1., 2.])"); an error's text when that fails.
func (t *Tensor) String() string {
	h, err := t.handle()
	if err != nil {
		return "<" + err.Error() + ">"
	}
	s, err := readString(func(buf *C.char, capacity C.size_t, length *C.size_t) *C.glia_error {
		return C.gs_to_string(h, buf, capacity, length)
	})
	runtime.KeepAlive(t)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return s
}
