// Package glia is the Go binding of libglia, an embeddable neural-network engine with
// PyTorch's torch.nn semantics, over its C API (include/glia/glia.h).
//
// Ownership: every *Tensor, *Module, *Optimizer and *TensorDict owns one reference to a glia
// handle. Release drops it (idempotent, safe from any goroutine); a finalizer releases what
// was not released, but the Go collector does not see glia's memory, so release temporaries
// in loops. A value used after Release returns an *Error with code ErrInvalidHandle.
//
// Errors: every fallible call returns an error; glia's errors are *Error values carrying an
// ErrorCode, so errors.Is(err, glia.ErrShape) works.
//
// Goroutines: distinct objects may be used from any number of goroutines; one module may run
// Forward concurrently while grad mode is off (NoGrad); anything that mutates one object
// (an optimizer step, LoadStateDict, in-place ops) needs the caller's serialization. Grad
// mode is per OS thread in glia, so NoGrad locks the goroutine to its thread.
package glia

/*
#cgo pkg-config: glia
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// ErrorCode mirrors enum glia_error_code. It is itself an error, so that
// errors.Is(err, glia.ErrShape) matches any *Error of that code.
type ErrorCode int32

// Error codes; values are glia's and never change.
const (
	OK                 ErrorCode = 0
	ErrInvalidArgument ErrorCode = 1
	ErrInvalidHandle   ErrorCode = 2
	ErrShape           ErrorCode = 3
	ErrDtype           ErrorCode = 4
	ErrDevice          ErrorCode = 5
	ErrOutOfMemory     ErrorCode = 6
	ErrIO              ErrorCode = 7
	ErrFormat          ErrorCode = 8
	ErrNotFound        ErrorCode = 9
	ErrState           ErrorCode = 10
	ErrCallback        ErrorCode = 11
	ErrUnsupported     ErrorCode = 12
	ErrInternal        ErrorCode = 13
)

// String is glia's name of the code, e.g. "GLIA_ERR_SHAPE".
func (c ErrorCode) String() string {
	return C.GoString(C.glia_error_code_name(C.enum_glia_error_code(c)))
}

// Error makes an ErrorCode usable as an errors.Is target.
func (c ErrorCode) Error() string { return c.String() }

// Error is an error returned by glia: its code and message.
type Error struct {
	Code    ErrorCode
	Message string
}

func (e *Error) Error() string { return e.Code.String() + ": " + e.Message }

// Is reports whether target is this error's code (errors.Is(err, glia.ErrShape)).
func (e *Error) Is(target error) bool {
	c, ok := target.(ErrorCode)
	return ok && c == e.Code
}

// check turns a glia_error into a Go error and frees it.
func check(e *C.glia_error) error {
	if e == nil {
		return nil
	}
	err := &Error{Code: ErrorCode(C.glia_error_code(e)), Message: C.GoString(C.glia_error_message(e))}
	C.glia_error_free(e)
	return err
}

func released(kind string) error {
	return &Error{Code: ErrInvalidHandle, Message: fmt.Sprintf("glia (Go): %s used after Release (or nil)", kind)}
}

// Must returns v, panicking when err is not nil (for examples and tests).
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Version is the version string of the loaded library ("0.2.0").
func Version() string { return C.GoString(C.glia_version_string()) }

// ManualSeed seeds glia's generators. glia keeps one generator per OS thread; a goroutine
// that needs a reproducible sequence draws inside runtime.LockOSThread.
func ManualSeed(seed uint64) { C.glia_manual_seed(C.uint64_t(seed)) }

// SetNumThreads sets the number of threads glia's kernels use.
func SetNumThreads(n int) error { return check(C.glia_set_num_threads(C.int32_t(n))) }

// MemoryInUse is the number of bytes of CPU tensor storage held by live tensors.
func MemoryInUse() (uint64, error) {
	var n C.uint64_t
	err := check(C.gs_memory_in_use(&n))
	return uint64(n), err
}

// GradEnabled reports whether the calling OS thread records autograd graphs.
func GradEnabled() bool { return C.glia_grad_mode_enabled() != 0 }

// NoGrad runs f with glia's grad mode off (torch.no_grad). Grad mode is per OS thread in glia,
// so the goroutine stays locked to its thread while f runs; goroutines that f starts are not
// in no-grad mode.
func NoGrad(f func()) {
	withGradMode(false, f)
}

// EnableGrad runs f with grad mode on (torch.enable_grad).
func EnableGrad(f func()) {
	withGradMode(true, f)
}

func withGradMode(on bool, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev := C.glia_grad_mode_enabled()
	flag := C.int32_t(0)
	if on {
		flag = 1
	}
	C.glia_grad_mode_set(flag)
	defer C.glia_grad_mode_set(prev)
	f()
}

// cString is C.CString with a deferred-free companion.
func cString(s string) (*C.char, func()) {
	p := C.CString(s)
	return p, func() { C.free(unsafe.Pointer(p)) }
}

// readString runs an snprintf-style glia function twice: to size, then to fill.
func readString(f func(buf *C.char, capacity C.size_t, length *C.size_t) *C.glia_error) (string, error) {
	var n C.size_t
	if err := check(f(nil, 0, &n)); err != nil {
		return "", err
	}
	buf := make([]byte, int(n)+1)
	if err := check(f((*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)), &n)); err != nil {
		return "", err
	}
	return string(buf[:int(n)]), nil
}
