package glia

/*
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

func (t *Tensor) unary(f func(a C.gh, out *C.gh) *C.glia_error) (*Tensor, error) {
	a, err := t.handle()
	if err != nil {
		return nil, err
	}
	r, err := newTensor(func(out *C.gh) *C.glia_error { return f(a, out) })
	runtime.KeepAlive(t)
	return r, err
}

func (t *Tensor) binary(o *Tensor, f func(a, b C.gh, out *C.gh) *C.glia_error) (*Tensor, error) {
	a, err := t.handle()
	if err != nil {
		return nil, err
	}
	b, err := o.handle()
	if err != nil {
		return nil, err
	}
	r, err := newTensor(func(out *C.gh) *C.glia_error { return f(a, b, out) })
	runtime.KeepAlive(t)
	runtime.KeepAlive(o)
	return r, err
}

// Add is t + o (broadcast, torch's type promotion).
func (t *Tensor) Add(o *Tensor) (*Tensor, error) {
	return t.binary(o, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_add(a, b, 1, out) })
}

// Sub is t - o.
func (t *Tensor) Sub(o *Tensor) (*Tensor, error) {
	return t.binary(o, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_sub(a, b, 1, out) })
}

// Mul is t * o elementwise.
func (t *Tensor) Mul(o *Tensor) (*Tensor, error) {
	return t.binary(o, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_mul(a, b, out) })
}

// Div is t / o (true division).
func (t *Tensor) Div(o *Tensor) (*Tensor, error) {
	return t.binary(o, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_div(a, b, out) })
}

// MatMul is torch.matmul(t, o).
func (t *Tensor) MatMul(o *Tensor) (*Tensor, error) {
	return t.binary(o, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_matmul(a, b, out) })
}

// Pow is t ** o.
func (t *Tensor) Pow(o *Tensor) (*Tensor, error) {
	return t.binary(o, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_pow(a, b, out) })
}

// Maximum is the elementwise maximum.
func (t *Tensor) Maximum(o *Tensor) (*Tensor, error) {
	return t.binary(o, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_maximum(a, b, out) })
}

// Minimum is the elementwise minimum.
func (t *Tensor) Minimum(o *Tensor) (*Tensor, error) {
	return t.binary(o, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_minimum(a, b, out) })
}

// Eq is t == o (bool).
func (t *Tensor) Eq(o *Tensor) (*Tensor, error) {
	return t.binary(o, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_eq(a, b, out) })
}

// Lt is t < o (bool).
func (t *Tensor) Lt(o *Tensor) (*Tensor, error) {
	return t.binary(o, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_lt(a, b, out) })
}

// Gt is t > o (bool).
func (t *Tensor) Gt(o *Tensor) (*Tensor, error) {
	return t.binary(o, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_gt(a, b, out) })
}

// AddScalar is t + s.
func (t *Tensor) AddScalar(s float64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_add_scalar(a, C.double(s), out) })
}

// MulScalar is t * s.
func (t *Tensor) MulScalar(s float64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_mul_scalar(a, C.double(s), out) })
}

// DivScalar is t / s.
func (t *Tensor) DivScalar(s float64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_div_scalar(a, C.double(s), out) })
}

// PowScalar is t ** s.
func (t *Tensor) PowScalar(s float64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_pow_scalar(a, C.double(s), out) })
}

// Neg is -t.
func (t *Tensor) Neg() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_neg(a, out) })
}

// Abs is |t|.
func (t *Tensor) Abs() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_abs(a, out) })
}

// Exp is e^t.
func (t *Tensor) Exp() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_exp(a, out) })
}

// Log is the natural logarithm.
func (t *Tensor) Log() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_log(a, out) })
}

// Sqrt is the square root.
func (t *Tensor) Sqrt() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_sqrt(a, out) })
}

// Relu is max(t, 0).
func (t *Tensor) Relu() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_relu(a, out) })
}

// Sigmoid is 1 / (1 + e^-t).
func (t *Tensor) Sigmoid() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_sigmoid(a, out) })
}

// Tanh is tanh(t).
func (t *Tensor) Tanh() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_tanh(a, out) })
}

// Silu is t * sigmoid(t).
func (t *Tensor) Silu() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_silu(a, out) })
}

// Softmax is torch.softmax(t, dim).
func (t *Tensor) Softmax(dim int64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_softmax(a, C.int64_t(dim), out) })
}

// LogSoftmax is torch.log_softmax(t, dim).
func (t *Tensor) LogSoftmax(dim int64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_log_softmax(a, C.int64_t(dim), out) })
}

func (t *Tensor) reduce(kind C.int, dims []int64, keepdim bool) (*Tensor, error) {
	k := C.int32_t(0)
	if keepdim {
		k = 1
	}
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error {
		return C.gs_reduce(kind, a, int64Ptr(dims), C.int64_t(len(dims)), k, out)
	})
}

// Sum is the sum of every element (0-dim).
func (t *Tensor) Sum() (*Tensor, error) { return t.reduce(C.GS_SUM, nil, false) }

// SumDims is the sum over dims.
func (t *Tensor) SumDims(dims []int64, keepdim bool) (*Tensor, error) {
	return t.reduce(C.GS_SUM, dims, keepdim)
}

// Mean is the mean of every element (0-dim).
func (t *Tensor) Mean() (*Tensor, error) { return t.reduce(C.GS_MEAN, nil, false) }

// MeanDims is the mean over dims.
func (t *Tensor) MeanDims(dims []int64, keepdim bool) (*Tensor, error) {
	return t.reduce(C.GS_MEAN, dims, keepdim)
}

// Amax is the maximum over dims (nil: all).
func (t *Tensor) Amax(dims []int64, keepdim bool) (*Tensor, error) {
	return t.reduce(C.GS_AMAX, dims, keepdim)
}

// Amin is the minimum over dims (nil: all).
func (t *Tensor) Amin(dims []int64, keepdim bool) (*Tensor, error) {
	return t.reduce(C.GS_AMIN, dims, keepdim)
}

// Argmax is the int64 index of the first maximum along dim.
func (t *Tensor) Argmax(dim int64, keepdim bool) (*Tensor, error) {
	k := C.int32_t(0)
	if keepdim {
		k = 1
	}
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_argmax(a, C.int64_t(dim), 1, k, out) })
}

// Reshape is torch.reshape (one size may be -1).
func (t *Tensor) Reshape(shape ...int64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error {
		return C.gs_reshape(a, int64Ptr(shape), C.int64_t(len(shape)), out)
	})
}

// View is Tensor.view (shares storage; the strides must allow it).
func (t *Tensor) View(shape ...int64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error {
		return C.gs_view(a, int64Ptr(shape), C.int64_t(len(shape)), out)
	})
}

// Permute reorders the dimensions (a view).
func (t *Tensor) Permute(dims ...int64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error {
		return C.gs_permute(a, int64Ptr(dims), C.int64_t(len(dims)), out)
	})
}

// Transpose swaps two dimensions (a view).
func (t *Tensor) Transpose(dim0, dim1 int64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error {
		return C.gs_transpose(a, C.int64_t(dim0), C.int64_t(dim1), out)
	})
}

// Flatten flattens dims start..end.
func (t *Tensor) Flatten(start, end int64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error {
		return C.gs_flatten(a, C.int64_t(start), C.int64_t(end), out)
	})
}

// Unsqueeze inserts a dimension of size 1.
func (t *Tensor) Unsqueeze(dim int64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_unsqueeze(a, C.int64_t(dim), out) })
}

// Squeeze removes the given size-1 dims (none given: all of them).
func (t *Tensor) Squeeze(dims ...int64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error {
		return C.gs_squeeze(a, int64Ptr(dims), C.int64_t(len(dims)), out)
	})
}

// Select is t[..., index, ...] along dim (a view).
func (t *Tensor) Select(dim, index int64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error {
		return C.gs_select(a, C.int64_t(dim), C.int64_t(index), out)
	})
}

// Narrow is t.narrow(dim, start, length) (a view).
func (t *Tensor) Narrow(dim, start, length int64) (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error {
		return C.gs_narrow(a, C.int64_t(dim), C.int64_t(start), C.int64_t(length), out)
	})
}

// Clone is a copy with its own storage.
func (t *Tensor) Clone() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_clone(a, out) })
}

// Detach is a view outside any autograd graph.
func (t *Tensor) Detach() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_detach(a, out) })
}

// Contiguous is a contiguous tensor with the same values.
func (t *Tensor) Contiguous() (*Tensor, error) {
	return t.unary(func(a C.gh, out *C.gh) *C.glia_error { return C.gs_contiguous(a, out) })
}

func handles(kind string, ts []*Tensor) ([]C.gh, error) {
	hs := make([]C.gh, len(ts))
	for i, t := range ts {
		h, err := t.handle()
		if err != nil {
			return nil, err
		}
		hs[i] = h
	}
	return hs, nil
}

func ghPtr(hs []C.gh) *C.gh {
	if len(hs) == 0 {
		return nil
	}
	return (*C.gh)(unsafe.Pointer(&hs[0]))
}

func catOrStack(ts []*Tensor, dim int64, stack C.int32_t) (*Tensor, error) {
	hs, err := handles("Tensor", ts)
	if err != nil {
		return nil, err
	}
	r, err := newTensor(func(out *C.gh) *C.glia_error {
		return C.gs_cat(ghPtr(hs), C.int64_t(len(hs)), C.int64_t(dim), stack, out)
	})
	runtime.KeepAlive(ts)
	return r, err
}

// Cat concatenates along dim.
func Cat(ts []*Tensor, dim int64) (*Tensor, error) { return catOrStack(ts, dim, 0) }

// Stack stacks along a new dim.
func Stack(ts []*Tensor, dim int64) (*Tensor, error) { return catOrStack(ts, dim, 1) }

// Linear is torch.nn.functional.linear(x, weight, bias); bias may be nil.
func Linear(x, weight, bias *Tensor) (*Tensor, error) {
	var b C.gh
	if bias != nil {
		var err error
		if b, err = bias.handle(); err != nil {
			return nil, err
		}
	}
	r, err := x.binary(weight, func(a, w C.gh, out *C.gh) *C.glia_error { return C.gs_linear(a, w, b, out) })
	runtime.KeepAlive(bias)
	return r, err
}

// MSELoss is torch.nn.functional.mse_loss(input, target) with reduction "mean".
func MSELoss(input, target *Tensor) (*Tensor, error) {
	return input.binary(target, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_mse_loss(a, b, 1, out) })
}

// CrossEntropy is torch.nn.functional.cross_entropy(input, target) (class indices or
// probabilities).
func CrossEntropy(input, target *Tensor) (*Tensor, error) {
	return input.binary(target, func(a, b C.gh, out *C.gh) *C.glia_error { return C.gs_cross_entropy(a, b, out) })
}

func (t *Tensor) inPlace(f func(a C.gh) *C.glia_error) error {
	a, err := t.handle()
	if err != nil {
		return err
	}
	e := f(a)
	runtime.KeepAlive(t)
	return check(e)
}

// AddInPlace is t += alpha * o.
func (t *Tensor) AddInPlace(o *Tensor, alpha float64) error {
	b, err := o.handle()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(o)
	return t.inPlace(func(a C.gh) *C.glia_error { return C.gs_add_(a, b, C.double(alpha)) })
}

// MulScalarInPlace is t *= s.
func (t *Tensor) MulScalarInPlace(s float64) error {
	return t.inPlace(func(a C.gh) *C.glia_error { return C.gs_mul_scalar_(a, C.double(s)) })
}

// ZeroInPlace is t.zero_().
func (t *Tensor) ZeroInPlace() error {
	return t.inPlace(func(a C.gh) *C.glia_error { return C.gs_zero_(a) })
}

// FillInPlace is t.fill_(v).
func (t *Tensor) FillInPlace(v float64) error {
	return t.inPlace(func(a C.gh) *C.glia_error { return C.gs_fill_(a, C.double(v)) })
}

// CopyFrom is t.copy_(src) (broadcast, converting dtype).
func (t *Tensor) CopyFrom(src *Tensor) error {
	b, err := src.handle()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(src)
	return t.inPlace(func(a C.gh) *C.glia_error { return C.gs_copy_(a, b) })
}

// ---- autograd ----

func flag(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

// RequiresGrad reports whether gradients are recorded for t.
func (t *Tensor) RequiresGrad() (bool, error) {
	h, err := t.handle()
	if err != nil {
		return false, err
	}
	var v C.int32_t
	e := C.gs_requires_grad(h, &v)
	runtime.KeepAlive(t)
	return v != 0, check(e)
}

// SetRequiresGrad is requires_grad_(on).
func (t *Tensor) SetRequiresGrad(on bool) error {
	return t.inPlace(func(a C.gh) *C.glia_error { return C.gs_set_requires_grad(a, flag(on)) })
}

// IsLeaf reports whether t has no grad_fn.
func (t *Tensor) IsLeaf() (bool, error) {
	h, err := t.handle()
	if err != nil {
		return false, err
	}
	var v C.int32_t
	e := C.gs_is_leaf(h, &v)
	runtime.KeepAlive(t)
	return v != 0, check(e)
}

// Grad is the accumulated gradient (.grad), or nil when there is none.
func (t *Tensor) Grad() (*Tensor, error) {
	h, err := t.handle()
	if err != nil {
		return nil, err
	}
	var out C.gh
	e := C.gs_grad(h, &out)
	runtime.KeepAlive(t)
	if err := check(e); err != nil {
		return nil, err
	}
	if out == 0 {
		return nil, nil
	}
	return wrapTensor(out), nil
}

// SetGrad sets .grad (nil clears it).
func (t *Tensor) SetGrad(g *Tensor) error {
	var gh C.gh
	if g != nil {
		var err error
		if gh, err = g.handle(); err != nil {
			return err
		}
	}
	defer runtime.KeepAlive(g)
	return t.inPlace(func(a C.gh) *C.glia_error { return C.gs_set_grad(a, gh) })
}

// RetainGrad makes a non-leaf keep its .grad after backward.
func (t *Tensor) RetainGrad() error {
	return t.inPlace(func(a C.gh) *C.glia_error { return C.gs_retain_grad(a) })
}

// GradFnName is the name of t's grad_fn ("MulBackward0"), "" for a leaf.
func (t *Tensor) GradFnName() (string, error) {
	h, err := t.handle()
	if err != nil {
		return "", err
	}
	s, err := readString(func(buf *C.char, capacity C.size_t, length *C.size_t) *C.glia_error {
		return C.gs_grad_fn_name(h, buf, capacity, length)
	})
	runtime.KeepAlive(t)
	return s, err
}

// Backward is t.backward() for a one-element tensor.
func (t *Tensor) Backward() error { return t.BackwardWith(nil, false) }

// BackwardWith is t.backward(grad, retain_graph); grad may be nil for a one-element tensor.
func (t *Tensor) BackwardWith(grad *Tensor, retainGraph bool) error {
	var g C.gh
	if grad != nil {
		var err error
		if g, err = grad.handle(); err != nil {
			return err
		}
	}
	defer runtime.KeepAlive(grad)
	return t.inPlace(func(a C.gh) *C.glia_error { return C.gs_backward(a, g, flag(retainGraph)) })
}
