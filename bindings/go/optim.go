package glia

/*
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"sync/atomic"
)

// Optimizer is a reference to a glia optimizer (torch.optim.Optimizer). Step and ZeroGrad
// mutate the parameters: serialize them with any other use of those parameters.
type Optimizer struct {
	h atomic.Uintptr
}

func wrapOptimizer(h C.gh) *Optimizer {
	o := &Optimizer{}
	o.h.Store(uintptr(h))
	runtime.SetFinalizer(o, (*Optimizer).Release)
	return o
}

// Release drops this reference. Idempotent; safe from any goroutine.
func (o *Optimizer) Release() {
	if o == nil {
		return
	}
	if h := o.h.Swap(0); h != 0 {
		C.glia_error_free(C.gs_optimizer_release(C.gh(h)))
	}
}

func (o *Optimizer) do(f func(h C.gh) *C.glia_error) error {
	if o == nil || o.h.Load() == 0 {
		return released("Optimizer")
	}
	e := f(C.gh(o.h.Load()))
	runtime.KeepAlive(o)
	return check(e)
}

// SGDOptions are torch.optim.SGD's options; DefaultSGDOptions gives torch's defaults.
type SGDOptions struct {
	LR, Momentum, Dampening, WeightDecay float64
	Nesterov                             bool
}

// DefaultSGDOptions are torch's defaults (lr 0.001).
func DefaultSGDOptions() SGDOptions {
	var o C.glia_sgd_options
	C.glia_sgd_options_init(&o)
	return SGDOptions{LR: float64(o.lr), Momentum: float64(o.momentum), Dampening: float64(o.dampening),
		WeightDecay: float64(o.weight_decay), Nesterov: o.nesterov != 0}
}

// AdamOptions are torch.optim.Adam's options; DefaultAdamOptions gives torch's defaults.
type AdamOptions struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64
}

// DefaultAdamOptions are torch's Adam defaults (lr 0.001, betas (0.9, 0.999), eps 1e-8).
func DefaultAdamOptions() AdamOptions {
	var o C.glia_adam_options
	C.glia_adam_options_init(&o)
	return AdamOptions{LR: float64(o.lr), Beta1: float64(o.betas[0]), Beta2: float64(o.betas[1]),
		Eps: float64(o.eps), WeightDecay: float64(o.weight_decay)}
}

func newOptimizer(params []*Tensor, f func(p *C.gh, n C.int64_t, out *C.gh) *C.glia_error) (*Optimizer, error) {
	hs, err := handles("Tensor", params)
	if err != nil {
		return nil, err
	}
	var out C.gh
	e := f(ghPtr(hs), C.int64_t(len(hs)), &out)
	runtime.KeepAlive(params)
	if err := check(e); err != nil {
		return nil, err
	}
	return wrapOptimizer(out), nil
}

// SGD is torch.optim.SGD(params, ...). The optimizer holds its own references to params.
func SGD(params []*Tensor, o SGDOptions) (*Optimizer, error) {
	return newOptimizer(params, func(p *C.gh, n C.int64_t, out *C.gh) *C.glia_error {
		return C.gs_optim_sgd(p, n, C.double(o.LR), C.double(o.Momentum), C.double(o.Dampening),
			C.double(o.WeightDecay), flag(o.Nesterov), out)
	})
}

// Adam is torch.optim.Adam(params, ...).
func Adam(params []*Tensor, o AdamOptions) (*Optimizer, error) {
	return newOptimizer(params, func(p *C.gh, n C.int64_t, out *C.gh) *C.glia_error {
		return C.gs_optim_adam(p, n, 0, C.double(o.LR), C.double(o.Beta1), C.double(o.Beta2), C.double(o.Eps),
			C.double(o.WeightDecay), out)
	})
}

// AdamW is torch.optim.AdamW(params, ...) (decoupled weight decay; torch's default 0.01).
func AdamW(params []*Tensor, o AdamOptions) (*Optimizer, error) {
	return newOptimizer(params, func(p *C.gh, n C.int64_t, out *C.gh) *C.glia_error {
		return C.gs_optim_adam(p, n, 1, C.double(o.LR), C.double(o.Beta1), C.double(o.Beta2), C.double(o.Eps),
			C.double(o.WeightDecay), out)
	})
}

// Step is one update of every parameter that has a grad.
func (o *Optimizer) Step() error {
	return o.do(func(h C.gh) *C.glia_error { return C.gs_optimizer_step(h) })
}

// ZeroGrad clears every parameter's grad (set_to_none=True).
func (o *Optimizer) ZeroGrad() error {
	return o.do(func(h C.gh) *C.glia_error { return C.gs_optimizer_zero_grad(h) })
}

// LR is the learning rate of the first parameter group.
func (o *Optimizer) LR() (float64, error) {
	var v C.double
	err := o.do(func(h C.gh) *C.glia_error { return C.gs_optimizer_get_lr(h, &v) })
	return float64(v), err
}

// SetLR sets the learning rate of the first parameter group.
func (o *Optimizer) SetLR(lr float64) error {
	return o.do(func(h C.gh) *C.glia_error { return C.gs_optimizer_set_lr(h, C.double(lr)) })
}
