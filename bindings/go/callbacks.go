package glia

// Exported trampolines for Go callbacks (called from callbacks.c). A file with //export may
// only declare in its preamble, so the work is done by helpers in hooks.go.

/*
#include <stdint.h>
#include "glia/glia.h"
*/
import "C"

import (
	"runtime/cgo"
	"sync/atomic"
)

// liveCallbacks counts the Go callbacks glia holds (for tests of free_user_data).
var liveCallbacks atomic.Int64

func newCallbackHandle(v any) cgo.Handle {
	liveCallbacks.Add(1)
	return cgo.NewHandle(v)
}

//export goFreeHandle
func goFreeHandle(ud C.uintptr_t) {
	cgo.Handle(ud).Delete()
	liveCallbacks.Add(-1)
}

//export goModuleForward
func goModuleForward(ud C.uintptr_t, self C.uintptr_t, in *C.uintptr_t, nIn C.int64_t, out *C.uintptr_t,
	capacity C.int64_t, nOut *C.int64_t) (ret *C.glia_error) {
	defer recoverInto(&ret, "forward")
	return runForward(uintptr(ud), uintptr(self), in, int(nIn), out, int(capacity), nOut)
}

//export goForwardHook
func goForwardHook(ud C.uintptr_t, module C.uintptr_t, in *C.uintptr_t, nIn C.int64_t, outs *C.uintptr_t,
	nOuts C.int64_t, repl *C.uintptr_t, capacity C.int64_t, nRepl *C.int64_t) (ret *C.glia_error) {
	defer recoverInto(&ret, "forward hook")
	return runForwardHook(uintptr(ud), uintptr(module), in, int(nIn), outs, int(nOuts), repl, int(capacity), nRepl)
}

//export goTensorHook
func goTensorHook(ud C.uintptr_t, grad C.uintptr_t, repl *C.uintptr_t) (ret *C.glia_error) {
	defer recoverInto(&ret, "tensor hook")
	return runTensorHook(uintptr(ud), uintptr(grad), repl)
}

//export goDDPCommHook
func goDDPCommHook(ud C.uintptr_t, bucket C.uintptr_t, index, count C.int64_t) (ret *C.glia_error) {
	defer recoverInto(&ret, "DDP comm hook")
	return runDDPCommHook(uintptr(ud), uintptr(bucket), int64(index), int64(count))
}
