package glia

// Distributed training (torch.distributed, docs/distributed.md): key-value stores for
// rendezvous, process groups and their collectives, DistributedDataParallel and SyncBatchNorm.
// Stores, process groups and works may be used from any goroutine: glia serializes their calls
// (a group queues its collectives on its own thread in the order they were called; every rank
// must call the same collectives in the same order). Several ranks may live in one process,
// each with its own store and group.

/*
#include "shim_dist.h"
*/
import "C"

import (
	"runtime"
	"runtime/cgo"
	"sync/atomic"
	"time"
	"unsafe"
)

// IsGlooAvailable is torch.distributed.is_gloo_available(): whether this build of glia has the
// Gloo backend (without it, NewProcessGroup fails with ErrUnsupported).
func IsGlooAvailable() bool {
	var v C.int32_t
	return check(C.glia_dist_is_gloo_available(&v)) == nil && v != 0
}

// millis is a timeout in milliseconds; a negative duration stays -1 (the store's or group's own).
func millis(d time.Duration) C.int64_t {
	if d < 0 {
		return -1
	}
	return C.int64_t(d / time.Millisecond)
}

// handleBox is the part every distributed handle type shares: one reference, released once.
type handleBox struct {
	h atomic.Uintptr
}

func (b *handleBox) get(kind string) (C.gh, error) {
	if b == nil {
		return 0, released(kind)
	}
	h := b.h.Load()
	if h == 0 {
		return 0, released(kind)
	}
	return C.gh(h), nil
}

func (b *handleBox) release(f func(C.gh) *C.glia_error) {
	if b == nil {
		return
	}
	if h := b.h.Swap(0); h != 0 {
		C.glia_error_free(f(C.gh(h)))
	}
}

// ---- stores ----

// Store is a key-value store for rendezvous (torch's Store): a file, TCP, prefix or Redis store.
type Store struct {
	b handleBox
}

func wrapStore(h C.gh) *Store {
	s := &Store{}
	s.b.h.Store(uintptr(h))
	runtime.SetFinalizer(s, (*Store).Release)
	return s
}

func newStore(f func(out *C.gh) *C.glia_error) (*Store, error) {
	var out C.gh
	if err := check(f(&out)); err != nil {
		return nil, err
	}
	return wrapStore(out), nil
}

// Release drops this reference. Idempotent; safe from any goroutine. A file store's file is
// removed when the last of its numWorkers stores is released.
func (s *Store) Release() {
	if s != nil {
		s.b.release(func(h C.gh) *C.glia_error { return C.gs_store_release(h) })
	}
}

func (s *Store) handle() (C.gh, error) {
	if s == nil {
		return 0, released("Store")
	}
	return s.b.get("Store")
}

func (s *Store) do(f func(h C.gh) *C.glia_error) error {
	h, err := s.handle()
	if err != nil {
		return err
	}
	e := f(h)
	runtime.KeepAlive(s)
	return check(e)
}

// NewFileStore is torch's FileStore(path, num_workers): a file shared by the processes; the
// last of numWorkers stores to be released removes it (-1: never).
func NewFileStore(path string, numWorkers int64) (*Store, error) {
	p, free := cString(path)
	defer free()
	return newStore(func(out *C.gh) *C.glia_error { return C.gs_store_file_create(p, C.int64_t(numWorkers), out) })
}

// NewTCPStore is torch's TCPStore(host, port, is_master, timeout): a server binds port (0: a
// free one, see Port); every store connects to it, retrying for timeout.
func NewTCPStore(host string, port int, isServer bool, timeout time.Duration) (*Store, error) {
	h, free := cString(host)
	defer free()
	return newStore(func(out *C.gh) *C.glia_error {
		return C.gs_store_tcp_create(h, C.int32_t(port), flag(isServer), millis(timeout), out)
	})
}

// NewPrefixStore is torch's PrefixStore(prefix, store): keys become "<prefix>/<key>" in store.
func NewPrefixStore(prefix string, store *Store) (*Store, error) {
	p, free := cString(prefix)
	defer free()
	var r *Store
	err := store.do(func(s C.gh) *C.glia_error {
		var out C.gh
		e := C.gs_store_prefix_create(p, s, &out)
		if e == nil {
			r = wrapStore(out)
		}
		return e
	})
	return r, err
}

// NewRedisStore is a store in a Redis server at host:port (commands time out after timeout).
func NewRedisStore(host string, port int, timeout time.Duration) (*Store, error) {
	h, free := cString(host)
	defer free()
	return newStore(func(out *C.gh) *C.glia_error {
		return C.gs_store_redis_create(h, C.int32_t(port), millis(timeout), out)
	})
}

// Port is the port of a TCP store: the bound one for a server made with port 0 (TCPStore.port).
func (s *Store) Port() (int, error) {
	var p C.int32_t
	err := s.do(func(h C.gh) *C.glia_error { return C.gs_store_tcp_port(h, &p) })
	return int(p), err
}

func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// readValue reads a value into a buffer, again with the full length when it did not fit.
func readValue(f func(buf unsafe.Pointer, capacity C.size_t, length *C.size_t) *C.glia_error) ([]byte, error) {
	buf := make([]byte, 64)
	var n C.size_t
	if err := check(f(bytesPtr(buf), C.size_t(len(buf)), &n)); err != nil {
		return nil, err
	}
	if int(n) > len(buf) {
		buf = make([]byte, int(n))
		if err := check(f(bytesPtr(buf), C.size_t(len(buf)), &n)); err != nil {
			return nil, err
		}
	}
	return buf[:int(n)], nil
}

// Set is set(key, value).
func (s *Store) Set(key string, value []byte) error {
	k, free := cString(key)
	defer free()
	err := s.do(func(h C.gh) *C.glia_error {
		return C.gs_store_set(h, k, bytesPtr(value), C.size_t(len(value)))
	})
	runtime.KeepAlive(value)
	return err
}

// Get is get(key): it waits up to the store's timeout for the key (ErrIO after it).
func (s *Store) Get(key string) ([]byte, error) {
	h, err := s.handle()
	if err != nil {
		return nil, err
	}
	k, free := cString(key)
	defer free()
	v, err := readValue(func(b unsafe.Pointer, c C.size_t, n *C.size_t) *C.glia_error {
		return C.gs_store_get(h, k, b, c, n)
	})
	runtime.KeepAlive(s)
	return v, err
}

// Add is add(key, amount): the value is a decimal integer (absent: 0); it stores and returns
// value + amount.
func (s *Store) Add(key string, amount int64) (int64, error) {
	k, free := cString(key)
	defer free()
	var v C.int64_t
	err := s.do(func(h C.gh) *C.glia_error { return C.gs_store_add(h, k, C.int64_t(amount), &v) })
	return int64(v), err
}

// CompareSet is compare_set(key, expected, desired): it sets desired when the value is expected
// (or the key is absent and expected is empty) and returns the value the key has afterwards.
func (s *Store) CompareSet(key string, expected, desired []byte) ([]byte, error) {
	h, err := s.handle()
	if err != nil {
		return nil, err
	}
	k, free := cString(key)
	defer free()
	v, err := readValue(func(b unsafe.Pointer, c C.size_t, n *C.size_t) *C.glia_error {
		return C.gs_store_compare_set(h, k, bytesPtr(expected), C.size_t(len(expected)), bytesPtr(desired),
			C.size_t(len(desired)), b, c, n)
	})
	runtime.KeepAlive(s)
	runtime.KeepAlive(expected)
	runtime.KeepAlive(desired)
	return v, err
}

// cKeys is keys as C strings; free releases them.
func cKeys(keys []string) (ptrs []*C.char, free func()) {
	ptrs = make([]*C.char, len(keys))
	for i, k := range keys {
		ptrs[i] = C.CString(k)
	}
	return ptrs, func() {
		for _, p := range ptrs {
			C.free(unsafe.Pointer(p))
		}
	}
}

func keysPtr(ptrs []*C.char) **C.char {
	if len(ptrs) == 0 {
		return nil
	}
	return &ptrs[0]
}

// Wait is wait(keys, timeout): it returns when every key exists (a negative timeout: the store's
// own); ErrIO after the timeout, naming the missing keys.
func (s *Store) Wait(keys []string, timeout time.Duration) error {
	ptrs, free := cKeys(keys)
	defer free()
	return s.do(func(h C.gh) *C.glia_error {
		return C.gs_store_wait(h, keysPtr(ptrs), C.int64_t(len(ptrs)), millis(timeout))
	})
}

// Check is check(keys): whether every key exists now.
func (s *Store) Check(keys ...string) (bool, error) {
	ptrs, free := cKeys(keys)
	defer free()
	var r C.int32_t
	err := s.do(func(h C.gh) *C.glia_error { return C.gs_store_check(h, keysPtr(ptrs), C.int64_t(len(ptrs)), &r) })
	return r != 0, err
}

// DeleteKey is delete_key(key): whether the key existed.
func (s *Store) DeleteKey(key string) (bool, error) {
	k, free := cString(key)
	defer free()
	var r C.int32_t
	err := s.do(func(h C.gh) *C.glia_error { return C.gs_store_delete_key(h, k, &r) })
	return r != 0, err
}

// NumKeys is num_keys() (a prefix store counts its whole store's, as torch's).
func (s *Store) NumKeys() (int64, error) {
	var n C.int64_t
	err := s.do(func(h C.gh) *C.glia_error { return C.gs_store_num_keys(h, &n) })
	return int64(n), err
}

// SetTimeout is set_timeout(timeout): the timeout of Get and Wait (> 0).
func (s *Store) SetTimeout(timeout time.Duration) error {
	return s.do(func(h C.gh) *C.glia_error { return C.gs_store_set_timeout(h, millis(timeout)) })
}

// ---- process groups ----

// ReduceOp is torch.distributed.ReduceOp (glia_reduce_op). ReduceAvg takes floating tensors only.
type ReduceOp int32

// The reductions of the collectives.
const (
	ReduceSum     ReduceOp = C.GLIA_REDUCE_SUM
	ReduceAvg     ReduceOp = C.GLIA_REDUCE_AVG
	ReduceProduct ReduceOp = C.GLIA_REDUCE_PRODUCT
	ReduceMin     ReduceOp = C.GLIA_REDUCE_MIN
	ReduceMax     ReduceOp = C.GLIA_REDUCE_MAX
)

// DistBackend is a process-group backend (torch's Backend).
type DistBackend int32

// The backends; NCCL is not built yet (ErrUnsupported).
const (
	BackendGloo DistBackend = C.GLIA_DIST_BACKEND_GLOO
	BackendNCCL DistBackend = C.GLIA_DIST_BACKEND_NCCL
)

// ProcessGroupOptions are a process group's options; DefaultProcessGroupOptions gives glia's
// defaults (as a nil *ProcessGroupOptions). Empty strings are the defaults: Hostname this host's
// name when it resolves to a bindable address (else 127.0.0.1), Iface GLOO_SOCKET_IFNAME,
// GroupName "default".
type ProcessGroupOptions struct {
	Backend                    DistBackend
	Timeout                    time.Duration // every collective's and the rendezvous' timeout
	Hostname, Iface, GroupName string
}

// DefaultProcessGroupOptions are glia's defaults (Gloo, a 5-minute timeout).
func DefaultProcessGroupOptions() ProcessGroupOptions {
	var o C.glia_process_group_options
	C.glia_process_group_options_init(&o)
	return ProcessGroupOptions{Backend: DistBackend(o.backend), Timeout: time.Duration(o.timeout_ms) * time.Millisecond}
}

// ProcessGroup is a process group (torch's ProcessGroup). Every collective works in place, as
// torch's; the plain form waits for it (async_op=False), the Async form returns a *Work
// (async_op=True): the tensors must not be used until its Wait succeeds.
type ProcessGroup struct {
	b handleBox
}

func wrapProcessGroup(h C.gh) *ProcessGroup {
	g := &ProcessGroup{}
	g.b.h.Store(uintptr(h))
	runtime.SetFinalizer(g, (*ProcessGroup).Release)
	return g
}

// Release drops this reference; the last one waits for queued collectives and closes the
// connections. Idempotent; safe from any goroutine.
func (g *ProcessGroup) Release() {
	if g != nil {
		g.b.release(func(h C.gh) *C.glia_error { return C.gs_process_group_release(h) })
	}
}

func (g *ProcessGroup) handle() (C.gh, error) {
	if g == nil {
		return 0, released("ProcessGroup")
	}
	return g.b.get("ProcessGroup")
}

func newProcessGroup(store *Store, rank, worldSize int64, opts *ProcessGroupOptions, fromEnv bool) (*ProcessGroup, error) {
	o := DefaultProcessGroupOptions()
	if opts != nil {
		o = *opts
	}
	optional := func(s string) (*C.char, func()) {
		if s == "" {
			return nil, func() {}
		}
		return cString(s)
	}
	host, f1 := optional(o.Hostname)
	defer f1()
	iface, f2 := optional(o.Iface)
	defer f2()
	name, f3 := optional(o.GroupName)
	defer f3()
	var sh C.gh
	if !fromEnv {
		var err error
		if sh, err = store.handle(); err != nil {
			return nil, err
		}
	}
	var out C.gh
	e := C.gs_process_group_create(sh, C.int64_t(rank), C.int64_t(worldSize), C.int32_t(o.Backend),
		millis(o.Timeout), host, iface, name, flag(fromEnv), &out)
	runtime.KeepAlive(store)
	if err := check(e); err != nil {
		return nil, err
	}
	return wrapProcessGroup(out), nil
}

// NewProcessGroup is init_process_group(backend, store=store, rank, world_size): it waits for
// every rank up to the timeout and connects to each. opts nil: the defaults.
func NewProcessGroup(store *Store, rank, worldSize int64, opts *ProcessGroupOptions) (*ProcessGroup, error) {
	return newProcessGroup(store, rank, worldSize, opts, false)
}

// NewProcessGroupFromEnv is init_process_group(backend, init_method="env://"): it reads
// MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE (what glia-run sets); rank 0 serves a TCP store
// on MASTER_PORT.
func NewProcessGroupFromEnv(opts *ProcessGroupOptions) (*ProcessGroup, error) {
	return newProcessGroup(nil, 0, 0, opts, true)
}

// Rank is get_rank(group).
func (g *ProcessGroup) Rank() (int64, error) {
	var r C.int64_t
	err := g.do(func(h C.gh) *C.glia_error { return C.gs_process_group_rank(h, &r) })
	return int64(r), err
}

// Size is get_world_size(group).
func (g *ProcessGroup) Size() (int64, error) {
	var n C.int64_t
	err := g.do(func(h C.gh) *C.glia_error { return C.gs_process_group_size(h, &n) })
	return int64(n), err
}

func (g *ProcessGroup) do(f func(h C.gh) *C.glia_error) error {
	h, err := g.handle()
	if err != nil {
		return err
	}
	e := f(h)
	runtime.KeepAlive(g)
	return check(e)
}

// collective runs f with the group's handle and the tensors' handles (outs first, then ins);
// async returns the work.
func (g *ProcessGroup) collective(ts []*Tensor, async bool, f func(g C.gh, ts []C.gh, out *C.gh) *C.glia_error) (*Work, error) {
	hs, err := handles("Tensor", ts)
	if err != nil {
		return nil, err
	}
	var w C.gh
	var wp *C.gh
	if async {
		wp = &w
	}
	err = g.do(func(h C.gh) *C.glia_error { return f(h, hs, wp) })
	runtime.KeepAlive(ts)
	if err != nil || !async {
		return nil, err
	}
	return wrapWork(w), nil
}

// AllReduce is all_reduce(tensor, op), in place on every rank.
func (g *ProcessGroup) AllReduce(t *Tensor, op ReduceOp) error {
	_, err := g.allReduce(t, op, false)
	return err
}

// AllReduceAsync is all_reduce(tensor, op, async_op=True).
func (g *ProcessGroup) AllReduceAsync(t *Tensor, op ReduceOp) (*Work, error) {
	return g.allReduce(t, op, true)
}

func (g *ProcessGroup) allReduce(t *Tensor, op ReduceOp, async bool) (*Work, error) {
	return g.collective([]*Tensor{t}, async, func(h C.gh, ts []C.gh, out *C.gh) *C.glia_error {
		return C.gs_all_reduce(h, ts[0], C.int(op), out)
	})
}

// Broadcast is broadcast(tensor, src=root): root's tensor is copied into every rank's.
func (g *ProcessGroup) Broadcast(t *Tensor, root int64) error {
	_, err := g.broadcast(t, root, false)
	return err
}

// BroadcastAsync is broadcast(tensor, src=root, async_op=True).
func (g *ProcessGroup) BroadcastAsync(t *Tensor, root int64) (*Work, error) {
	return g.broadcast(t, root, true)
}

func (g *ProcessGroup) broadcast(t *Tensor, root int64, async bool) (*Work, error) {
	return g.collective([]*Tensor{t}, async, func(h C.gh, ts []C.gh, out *C.gh) *C.glia_error {
		return C.gs_broadcast(h, ts[0], C.int64_t(root), out)
	})
}

// Reduce is reduce(tensor, dst=root, op): root's tensor receives the reduction; the others' are
// unchanged.
func (g *ProcessGroup) Reduce(t *Tensor, root int64, op ReduceOp) error {
	_, err := g.reduce(t, root, op, false)
	return err
}

// ReduceAsync is reduce(tensor, dst=root, op, async_op=True).
func (g *ProcessGroup) ReduceAsync(t *Tensor, root int64, op ReduceOp) (*Work, error) {
	return g.reduce(t, root, op, true)
}

func (g *ProcessGroup) reduce(t *Tensor, root int64, op ReduceOp, async bool) (*Work, error) {
	return g.collective([]*Tensor{t}, async, func(h C.gh, ts []C.gh, out *C.gh) *C.glia_error {
		return C.gs_reduce_to(h, ts[0], C.int64_t(root), C.int(op), out)
	})
}

// AllGather is all_gather(outputs, input): outputs[r] (world size of them, the input's shape and
// dtype) receives rank r's input.
func (g *ProcessGroup) AllGather(outputs []*Tensor, input *Tensor) error {
	_, err := g.allGather(outputs, input, false)
	return err
}

// AllGatherAsync is all_gather(outputs, input, async_op=True).
func (g *ProcessGroup) AllGatherAsync(outputs []*Tensor, input *Tensor) (*Work, error) {
	return g.allGather(outputs, input, true)
}

func (g *ProcessGroup) allGather(outputs []*Tensor, input *Tensor, async bool) (*Work, error) {
	all := append(append([]*Tensor{}, outputs...), input)
	return g.collective(all, async, func(h C.gh, ts []C.gh, out *C.gh) *C.glia_error {
		n := len(outputs)
		return C.gs_all_gather(h, ghPtr(ts[:n]), C.int64_t(n), ts[n], out)
	})
}

// ReduceScatter is reduce_scatter(output, inputs, op): output receives the reduction over the
// ranks of inputs[rank].
func (g *ProcessGroup) ReduceScatter(output *Tensor, inputs []*Tensor, op ReduceOp) error {
	_, err := g.reduceScatter(output, inputs, op, false)
	return err
}

// ReduceScatterAsync is reduce_scatter(output, inputs, op, async_op=True).
func (g *ProcessGroup) ReduceScatterAsync(output *Tensor, inputs []*Tensor, op ReduceOp) (*Work, error) {
	return g.reduceScatter(output, inputs, op, true)
}

func (g *ProcessGroup) reduceScatter(output *Tensor, inputs []*Tensor, op ReduceOp, async bool) (*Work, error) {
	all := append([]*Tensor{output}, inputs...)
	return g.collective(all, async, func(h C.gh, ts []C.gh, out *C.gh) *C.glia_error {
		return C.gs_reduce_scatter(h, ts[0], ghPtr(ts[1:]), C.int64_t(len(ts)-1), C.int(op), out)
	})
}

// Barrier is barrier(): it returns when every rank has entered it.
func (g *ProcessGroup) Barrier() error {
	_, err := g.collective(nil, false, func(h C.gh, _ []C.gh, out *C.gh) *C.glia_error { return C.gs_barrier(h, out) })
	return err
}

// BarrierAsync is barrier(async_op=True).
func (g *ProcessGroup) BarrierAsync() (*Work, error) {
	return g.collective(nil, true, func(h C.gh, _ []C.gh, out *C.gh) *C.glia_error { return C.gs_barrier(h, out) })
}

// Work is the handle of a collective in flight (torch's Work).
type Work struct {
	b handleBox
}

func wrapWork(h C.gh) *Work {
	w := &Work{}
	w.b.h.Store(uintptr(h))
	runtime.SetFinalizer(w, (*Work).Release)
	return w
}

// Release drops this reference; the collective runs to its end regardless.
func (w *Work) Release() {
	if w != nil {
		w.b.release(func(h C.gh) *C.glia_error { return C.gs_work_release(h) })
	}
}

func (w *Work) do(f func(h C.gh) *C.glia_error) error {
	if w == nil {
		return released("Work")
	}
	h, err := w.b.get("Work")
	if err != nil {
		return err
	}
	e := f(h)
	runtime.KeepAlive(w)
	return check(e)
}

// Wait is Work.wait(timeout): it waits until the collective completes and returns its error (a
// negative timeout: as long as it runs). ErrIO when the timeout passes first (the collective goes
// on).
func (w *Work) Wait(timeout time.Duration) error {
	return w.do(func(h C.gh) *C.glia_error { return C.gs_work_wait(h, millis(timeout)) })
}

// IsCompleted is Work.is_completed(): whether the collective finished (successfully or not).
func (w *Work) IsCompleted() (bool, error) {
	var r C.int32_t
	err := w.do(func(h C.gh) *C.glia_error { return C.gs_work_is_completed(h, &r) })
	return r != 0, err
}

// ---- DistributedDataParallel ----

// DDPOptions are DistributedDataParallel's keyword arguments; DefaultDDPOptions gives torch's
// defaults (as a nil *DDPOptions).
type DDPOptions struct {
	BucketCapMB          float64 // bucket size; the first bucket closes at 1 MiB (torch's)
	FindUnusedParameters bool    // a parameter without a gradient is reduced as zero
	BroadcastBuffers     bool    // rank 0's buffers are broadcast before every synchronised forward
	GradientAsBucketView bool    // each .grad becomes a view of its bucket
}

// DefaultDDPOptions are torch's defaults (25 MiB buckets, broadcast_buffers).
func DefaultDDPOptions() DDPOptions {
	var o C.glia_ddp_options
	C.glia_ddp_options_init(&o)
	return DDPOptions{BucketCapMB: float64(o.bucket_cap_mb), FindUnusedParameters: o.find_unused_parameters != 0,
		BroadcastBuffers: o.broadcast_buffers != 0, GradientAsBucketView: o.gradient_as_bucket_view != 0}
}

// BuiltinCommHook is one of DDP's built-in communication hooks (torch's BuiltinCommHookType).
type BuiltinCommHook int32

// The built-in hooks: the default average, and torch's fp16 / bf16 compression.
const (
	CommHookAllReduce    BuiltinCommHook = C.GLIA_DDP_COMM_HOOK_ALLREDUCE
	CommHookFP16Compress BuiltinCommHook = C.GLIA_DDP_COMM_HOOK_FP16_COMPRESS
	CommHookBF16Compress BuiltinCommHook = C.GLIA_DDP_COMM_HOOK_BF16_COMPRESS
)

// CommHookFunc is a DDP communication hook: bucket (borrowed: valid during the call) holds this
// rank's gradients of bucket index (of count); the hook must replace them by their average over
// the group (e.g. group.AllReduce(bucket, ReduceAvg)).
type CommHookFunc func(bucket *Tensor, index, count int64) error

// DistributedDataParallel is torch.nn.parallel.DistributedDataParallel: a *Module whose child
// "module" is yours (state-dict keys "module.<name>"), with DDP's own methods.
type DistributedDataParallel struct {
	*Module
}

// NewDistributedDataParallel is DistributedDataParallel(module, process_group=group): every rank
// calls it with the same model; rank 0's parameters and buffers are broadcast to the others, and
// backward averages the gradients over the group. opts nil: torch's defaults.
func NewDistributedDataParallel(m *Module, g *ProcessGroup, opts *DDPOptions) (*DistributedDataParallel, error) {
	o := DefaultDDPOptions()
	if opts != nil {
		o = *opts
	}
	gh, err := g.handle()
	if err != nil {
		return nil, err
	}
	var r *Module
	err = m.do(func(mh C.gh) *C.glia_error {
		var out C.gh
		e := C.gs_ddp_create(mh, gh, C.double(o.BucketCapMB), flag(o.FindUnusedParameters), flag(o.BroadcastBuffers),
			flag(o.GradientAsBucketView), &out)
		if e == nil {
			r = wrapModule(out)
		}
		return e
	})
	runtime.KeepAlive(g)
	if err != nil {
		return nil, err
	}
	return &DistributedDataParallel{r}, nil
}

// SetRequireBackwardGradSync is torch's require_backward_grad_sync = flag (NoSync sets false).
func (d *DistributedDataParallel) SetRequireBackwardGradSync(sync bool) error {
	return d.Module.do(func(h C.gh) *C.glia_error { return C.gs_ddp_set_require_backward_grad_sync(h, flag(sync)) })
}

// RequireBackwardGradSync is torch's require_backward_grad_sync (false inside NoSync).
func (d *DistributedDataParallel) RequireBackwardGradSync() (bool, error) {
	var out C.int32_t
	err := d.Module.do(func(h C.gh) *C.glia_error { return C.gs_ddp_require_backward_grad_sync(h, &out) })
	return out != 0, err
}

// NoSync is `with ddp.no_sync():` — it runs f with gradient synchronisation off (backward only
// accumulates local gradients; the next synchronised backward averages them), then restores the
// flag it found, as torch's no_sync does, also when f panics (a nested NoSync leaves it off).
func (d *DistributedDataParallel) NoSync(f func() error) error {
	previous, err := d.RequireBackwardGradSync()
	if err != nil {
		return err
	}
	if err := d.SetRequireBackwardGradSync(false); err != nil {
		return err
	}
	defer d.SetRequireBackwardGradSync(previous) //nolint:errcheck // the flag of a live DDP module
	return f()
}

// RegisterBuiltinCommHook is torch's _register_builtin_comm_hook (at most one hook per DDP
// module: a second is ErrState).
func (d *DistributedDataParallel) RegisterBuiltinCommHook(hook BuiltinCommHook) error {
	return d.Module.do(func(h C.gh) *C.glia_error { return C.gs_ddp_register_builtin_comm_hook(h, C.int(hook)) })
}

// RegisterCommHook is torch's register_comm_hook(state, hook) (the state is what hook captures).
// It runs on backward's thread, buckets in the same order on every rank; its error (or panic)
// fails the backward with ErrCallback.
func (d *DistributedDataParallel) RegisterCommHook(hook CommHookFunc) error {
	if hook == nil {
		return &Error{Code: ErrInvalidArgument, Message: "glia (Go): RegisterCommHook: hook is nil"}
	}
	h, err := d.Module.handle()
	if err != nil {
		return err
	}
	handle := newCallbackHandle(hook) // glia deletes it (free_user_data), also when this fails
	e := C.gs_ddp_register_comm_hook(h, C.uintptr_t(handle))
	runtime.KeepAlive(d)
	return check(e)
}

// BucketCount is the number of gradient buckets.
func (d *DistributedDataParallel) BucketCount() (int64, error) {
	var count, buckets C.int64_t
	err := d.Module.do(func(h C.gh) *C.glia_error { return C.gs_ddp_bucket_parameters(h, 0, nil, 0, &count, &buckets) })
	return int64(buckets), err
}

// BucketParameters is GradBucket.parameters() of bucket index (buckets in reduction order: the
// last parameters first), as indices into the parameters that require grad, in registration
// order.
func (d *DistributedDataParallel) BucketParameters(index int64) ([]int64, error) {
	var count C.int64_t
	err := d.Module.do(func(h C.gh) *C.glia_error {
		return C.gs_ddp_bucket_parameters(h, C.int64_t(index), nil, 0, &count, nil)
	})
	if err != nil {
		return nil, err
	}
	idx := make([]int64, int(count))
	err = d.Module.do(func(h C.gh) *C.glia_error {
		return C.gs_ddp_bucket_parameters(h, C.int64_t(index), int64Ptr(idx), C.int64_t(len(idx)), &count, nil)
	})
	if err != nil {
		return nil, err
	}
	return idx[:int(count)], nil
}

func runDDPCommHook(ud, bucket uintptr, index, count int64) *C.glia_error {
	fn := cgo.Handle(ud).Value().(CommHookFunc)
	b := C.uintptr_t(bucket)
	bs, err := borrowTensors(&b, 1)
	if err != nil {
		return callbackError(err)
	}
	defer ReleaseAll(bs...)
	if err := fn(bs[0], index, count); err != nil {
		return callbackError(err)
	}
	return nil
}

// ---- SyncBatchNorm ----

// NewSyncBatchNorm is torch.nn.SyncBatchNorm(num_features, ..., process_group): options nil for
// torch's defaults, group nil for none (BatchNorm in training too). In training with a group of
// more than one rank, every rank normalises with the statistics of the batch of all ranks.
func NewSyncBatchNorm(numFeatures int64, options *BatchNormOptions, group *ProcessGroup) (*Module, error) {
	var gh C.gh
	if group != nil {
		var err error
		if gh, err = group.handle(); err != nil {
			return nil, err
		}
	}
	var o C.gh
	e := C.gs_nn_sync_batch_norm(C.int64_t(numFeatures), options.toC(), gh, &o)
	runtime.KeepAlive(group)
	if err := check(e); err != nil {
		return nil, err
	}
	return wrapModule(o), nil
}

// SetSyncBatchNormProcessGroup is torch's module.process_group = group for a module made by
// NewSyncBatchNorm (group nil: none).
func SetSyncBatchNormProcessGroup(m *Module, group *ProcessGroup) error {
	var gh C.gh
	if group != nil {
		var err error
		if gh, err = group.handle(); err != nil {
			return err
		}
	}
	err := m.do(func(h C.gh) *C.glia_error { return C.gs_nn_sync_batch_norm_set_process_group(h, gh) })
	runtime.KeepAlive(group)
	return err
}

// ---- DataParallel ----

// DeviceType is a kind of device (glia_device_type).
type DeviceType int32

// The device types.
const (
	DeviceCPU         DeviceType = C.GLIA_CPU
	DeviceCUDA        DeviceType = C.GLIA_CUDA
	DevicePrivateUse1 DeviceType = C.GLIA_PRIVATEUSE1
)

// Device is a device: its type and index (0 for the CPU; -1 for CUDA is the current device).
type Device struct {
	Type  DeviceType
	Index int32
}

// NewDataParallel is torch.nn.DataParallel(module, device_ids, output_device, dim): one process,
// several devices of one backend other than the CPU. Forward scatters the inputs along dim, runs a
// replica per device and gathers the outputs on outputDevice (nil: deviceIDs[0]); backward sums
// the replicas' gradients into module's parameters. No deviceIDs: forward calls module as it is.
// Errors: ErrDevice (a CPU entry, mixed types, a device the backend does not have),
// ErrInvalidArgument (a repeated device).
func NewDataParallel(m *Module, deviceIDs []Device, outputDevice *Device, dim int64) (*Module, error) {
	types := make([]C.int32_t, len(deviceIDs))
	indices := make([]C.int32_t, len(deviceIDs))
	for i, d := range deviceIDs {
		types[i], indices[i] = C.int32_t(d.Type), C.int32_t(d.Index)
	}
	var tp, ip *C.int32_t
	if len(deviceIDs) > 0 {
		tp, ip = &types[0], &indices[0]
	}
	var has, ot, oi C.int32_t
	if outputDevice != nil {
		has, ot, oi = 1, C.int32_t(outputDevice.Type), C.int32_t(outputDevice.Index)
	}
	var r *Module
	err := m.do(func(h C.gh) *C.glia_error {
		var out C.gh
		e := C.gs_nn_data_parallel(h, tp, ip, C.int64_t(len(deviceIDs)), has, ot, oi, C.int64_t(dim), &out)
		if e == nil {
			r = wrapModule(out)
		}
		return e
	})
	runtime.KeepAlive(types)
	runtime.KeepAlive(indices)
	return r, err
}
