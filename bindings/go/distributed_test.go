package glia

// Tests of the distributed wrappers: a world of two ranks as two goroutines of this process, each
// with its own store and process group on 127.0.0.1; stores; DDP against one process training on
// the whole batch; SyncBatchNorm; errors with their exact codes and messages.

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func requireGloo(t *testing.T) {
	t.Helper()
	if !IsGlooAvailable() {
		t.Skip("glia was built without Gloo (libgloo-dev): process groups not tested")
	}
}

// runTwo runs body(rank) for ranks 0 and 1 on two goroutines; an error fails the test.
func runTwo(t *testing.T, body func(rank int64) error) {
	t.Helper()
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r := int64(0); r < 2; r++ {
		wg.Add(1)
		go func(r int64) {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[r] = fmt.Errorf("panic: %v", p)
				}
			}()
			errs[r] = body(r)
		}(r)
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

func groupOf(dir string, rank int64) (*ProcessGroup, error) {
	s, err := NewFileStore(filepath.Join(dir, "store"), 2)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	o := DefaultProcessGroupOptions()
	o.Hostname = "127.0.0.1"
	o.Timeout = time.Minute
	return NewProcessGroup(s, rank, 2, &o)
}

// expectValues fails unless x holds want exactly.
func expectValues(what string, x *Tensor, want []float32) error {
	got, err := x.Float32s()
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%s: got %v, want %v", what, got, want)
	}
	return nil
}

// expectError fails unless err is a *Error with code and message.
func expectError(what string, err error, code ErrorCode, message string) error {
	var ge *Error
	if !errors.As(err, &ge) {
		return fmt.Errorf("%s: got %v, want %v %q", what, err, code, message)
	}
	if ge.Code != code || (message != "" && ge.Message != message) {
		return fmt.Errorf("%s: got %v %q, want %v %q", what, ge.Code, ge.Message, code, message)
	}
	return nil
}

func TestDistCollectivesOfTwoRanks(t *testing.T) {
	requireGloo(t)
	dir := t.TempDir()
	runTwo(t, func(rank int64) error {
		g, err := groupOf(dir, rank)
		if err != nil {
			return err
		}
		defer g.Release()
		if r, _ := g.Rank(); r != rank {
			return fmt.Errorf("Rank() = %d", r)
		}
		if n, _ := g.Size(); n != 2 {
			return fmt.Errorf("Size() = %d", n)
		}
		r := float32(rank)
		fresh := func() *Tensor { return Must(FromFloat32([]float32{r + 1, 10 * (r + 1), -r}, 3)) }
		for _, c := range []struct {
			op   ReduceOp
			want []float32
		}{
			{ReduceSum, []float32{3, 30, -1}},
			{ReduceAvg, []float32{1.5, 15, -0.5}},
			{ReduceMax, []float32{2, 20, 0}},
			{ReduceMin, []float32{1, 10, -1}},
		} {
			x := fresh()
			if err := g.AllReduce(x, c.op); err != nil {
				return err
			}
			if err := expectValues(fmt.Sprint("all_reduce ", c.op), x, c.want); err != nil {
				return err
			}
		}
		i := Must(FromInt64([]int64{rank + 2, rank + 3}, 2))
		if err := g.AllReduce(i, ReduceProduct); err != nil {
			return err
		}
		if got := Must(i.Int64s()); !reflect.DeepEqual(got, []int64{6, 12}) {
			return fmt.Errorf("product: %v", got)
		}

		b := Must(Full(7+float64(rank), 2))
		if err := g.Broadcast(b, 1); err != nil {
			return err
		}
		if err := expectValues("broadcast", b, []float32{8, 8}); err != nil {
			return err
		}

		red := Must(FromFloat32([]float32{r, r + 1}, 2))
		if err := g.Reduce(red, 0, ReduceSum); err != nil {
			return err
		}
		want := []float32{1, 2}
		if rank == 0 {
			want = []float32{1, 3}
		}
		if err := expectValues("reduce", red, want); err != nil {
			return err
		}

		gathered := []*Tensor{Must(Zeros(2)), Must(Zeros(2))}
		if err := g.AllGather(gathered, Must(FromFloat32([]float32{r, r + 0.5}, 2))); err != nil {
			return err
		}
		if err := expectValues("all_gather 0", gathered[0], []float32{0, 0.5}); err != nil {
			return err
		}
		if err := expectValues("all_gather 1", gathered[1], []float32{1, 1.5}); err != nil {
			return err
		}

		out := Must(Zeros(2))
		if err := g.ReduceScatter(out, []*Tensor{Must(Full(1+float64(rank), 2)), Must(Full(10*(1+float64(rank)), 2))},
			ReduceSum); err != nil {
			return err
		}
		want = []float32{30, 30}
		if rank == 0 {
			want = []float32{3, 3}
		}
		if err := expectValues("reduce_scatter", out, want); err != nil {
			return err
		}

		if err := g.Barrier(); err != nil {
			return err
		}

		// async_op=True
		a := Must(FromFloat32([]float32{r, 2 * r}, 2))
		w, err := g.AllReduceAsync(a, ReduceSum)
		if err != nil {
			return err
		}
		defer w.Release()
		if err := w.Wait(30 * time.Second); err != nil {
			return err
		}
		if done, err := w.IsCompleted(); err != nil || !done {
			return fmt.Errorf("IsCompleted after Wait: %v %v", done, err)
		}
		if err := expectValues("async all_reduce", a, []float32{1, 2}); err != nil {
			return err
		}
		bw, err := g.BarrierAsync()
		if err != nil {
			return err
		}
		if err := bw.Wait(-1); err != nil {
			return err
		}
		bw.Release()
		if err := bw.Wait(-1); !errors.Is(err, ErrInvalidHandle) {
			return fmt.Errorf("Wait after Release: %v", err)
		}

		// argument errors come back at once and change nothing
		err = g.AllGather([]*Tensor{Must(Zeros(2)), Must(Zeros(2))}, Must(Zeros(3)))
		if err := expectError("all_gather", err, ErrShape,
			"ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected [3], got [2])"); err != nil {
			return err
		}
		if err := expectError("avg of int64", g.AllReduce(Must(FromInt64([]int64{1}, 1)), ReduceAvg), ErrDtype,
			""); err != nil {
			return err
		}
		return g.Barrier()
	})
}

func TestDistStores(t *testing.T) {
	server := Must(NewTCPStore("127.0.0.1", 0, true, 20*time.Second))
	defer server.Release()
	port := Must(server.Port())
	if port <= 0 {
		t.Fatalf("port %d", port)
	}
	client := Must(NewTCPStore("127.0.0.1", port, false, 20*time.Second))
	defer client.Release()
	if p := Must(client.Port()); p != port {
		t.Fatalf("client port %d, server %d", p, port)
	}

	ok(t, server.Set("k", []byte("v\x00w")))
	if v := Must(client.Get("k")); string(v) != "v\x00w" {
		t.Fatalf("get: %q", v)
	}
	if v := Must(client.Add("n", 2)); v != 2 {
		t.Fatalf("add: %d", v)
	}
	if v := Must(server.Add("n", 3)); v != 5 {
		t.Fatalf("add: %d", v)
	}
	if v := Must(client.CompareSet("n", []byte("4"), []byte("9"))); string(v) != "5" {
		t.Fatalf("compare_set (no match): %q", v)
	}
	if v := Must(client.CompareSet("n", []byte("5"), []byte("9"))); string(v) != "9" {
		t.Fatalf("compare_set: %q", v)
	}
	if v := Must(client.CompareSet("fresh", nil, []byte("x"))); string(v) != "x" {
		t.Fatalf("compare_set (absent): %q", v)
	}
	big := []byte(strings.Repeat("b", 1000))
	ok(t, client.Set("big", big))
	if v := Must(server.Get("big")); string(v) != string(big) {
		t.Fatalf("get big: %d bytes", len(v))
	}
	if !Must(server.Check("k", "n")) || Must(server.Check("k", "absent")) {
		t.Fatal("check")
	}
	if n := Must(server.NumKeys()); n != 4 {
		t.Fatalf("num_keys %d", n)
	}
	if !Must(client.DeleteKey("big")) || Must(client.DeleteKey("big")) {
		t.Fatal("delete_key")
	}

	prefixed := Must(NewPrefixStore("run1", client))
	defer prefixed.Release()
	ok(t, prefixed.Set("a", []byte("1")))
	if v := Must(server.Get("run1/a")); string(v) != "1" {
		t.Fatalf("prefix: %q", v)
	}
	ok(t, prefixed.Wait([]string{"a"}, time.Second))

	msg := fmt.Sprintf("TCPStore: timed out after 100 ms waiting for keys [never] (server 127.0.0.1:%d)", port)
	ok(t, expectError("wait", client.Wait([]string{"k", "never"}, 100*time.Millisecond), ErrIO, msg))
	ok(t, client.SetTimeout(100*time.Millisecond))
	_, err := client.Get("never")
	ok(t, expectError("get", err, ErrIO, msg))
	_, err = client.Add("k", 1)
	ok(t, expectError("add to a non-integer", err, ErrInvalidArgument, ""))

	dir := t.TempDir()
	file := Must(NewFileStore(filepath.Join(dir, "fs"), 1))
	defer file.Release()
	ok(t, file.Set("x", []byte("y")))
	if v := Must(file.Get("x")); string(v) != "y" {
		t.Fatalf("file get: %q", v)
	}
	ok(t, expectError("file wait", file.Wait([]string{"z"}, 50*time.Millisecond), ErrIO,
		"FileStore: timed out after 50 ms waiting for keys [z] in '"+filepath.Join(dir, "fs")+"'"))
	_, err = file.Port()
	ok(t, expectError("port of a file store", err, ErrInvalidArgument, ""))
	_, err = NewTCPStore("127.0.0.1", 0, false, time.Second)
	ok(t, expectError("client on port 0", err, ErrInvalidArgument, ""))
	file.Release()
	ok(t, expectError("released store", file.Set("x", nil), ErrInvalidHandle, ""))
}

func TestDistProcessGroupOverTCPStore(t *testing.T) {
	requireGloo(t)
	server := Must(NewTCPStore("127.0.0.1", 0, true, 20*time.Second))
	defer server.Release()
	port := Must(server.Port())
	runTwo(t, func(rank int64) error {
		s := server
		if rank == 1 {
			var err error
			if s, err = NewTCPStore("127.0.0.1", port, false, 20*time.Second); err != nil {
				return err
			}
			defer s.Release()
		}
		o := DefaultProcessGroupOptions()
		o.Hostname = "127.0.0.1"
		o.GroupName = "tcp_group"
		g, err := NewProcessGroup(s, rank, 2, &o)
		if err != nil {
			return err
		}
		defer g.Release()
		x := Must(Full(float64(rank)+1, 3))
		if err := g.AllReduce(x, ReduceMin); err != nil {
			return err
		}
		return expectValues("min", x, []float32{1, 1, 1})
	})
}

func TestDistProcessGroupFromEnv(t *testing.T) {
	requireGloo(t)
	if os.Getenv("MASTER_ADDR") != "" {
		t.Skip("MASTER_ADDR is set: env:// not tested")
	}
	_, err := NewProcessGroupFromEnv(nil)
	ok(t, expectError("from env", err, ErrInvalidArgument,
		"glia_process_group_create_from_env: environment variable MASTER_ADDR expected, but not set"))
	probe := Must(NewTCPStore("127.0.0.1", 0, true, 5*time.Second)) // a free port, released at once
	port := Must(probe.Port())
	probe.Release()
	t.Setenv("MASTER_ADDR", "127.0.0.1")
	t.Setenv("MASTER_PORT", fmt.Sprint(port))
	t.Setenv("RANK", "0")
	t.Setenv("WORLD_SIZE", "1")
	o := DefaultProcessGroupOptions()
	o.Hostname = "127.0.0.1"
	g := Must(NewProcessGroupFromEnv(&o))
	defer g.Release()
	if r, n := Must(g.Rank()), Must(g.Size()); r != 0 || n != 1 {
		t.Fatalf("rank %d of %d", r, n)
	}
	x := Must(FromFloat32([]float32{1, 2}, 2))
	ok(t, g.AllReduce(x, ReduceSum))
	ok(t, expectValues("world of one", x, []float32{1, 2}))
}

// param is the module's parameter `name` (panics when missing).
func (m *Module) param(name string) *Tensor { return Must(m.Parameter(name)) }

// fixedLinear is a Linear(3, 2) with fixed parameters, the same on every rank.
func fixedLinear() (*Module, error) {
	m, err := NewLinear(3, 2, true)
	if err != nil {
		return nil, err
	}
	NoGrad(func() {
		err = m.param("weight").CopyFrom(Must(FromFloat32([]float32{0.1, -0.2, 0.3, 0.4, 0.5, -0.6}, 2, 3)))
		if err == nil {
			err = m.param("bias").CopyFrom(Must(FromFloat32([]float32{0.05, -0.05}, 2)))
		}
	})
	return m, err
}

var (
	distX = []float32{0.1, 0.2, 0.3, -1, 0.5, 2, 0.7, 0.8, -0.9, 1, 1.1, 1.2,
		1.3, -1.4, 1.5, 1.6, 1.7, 1.8, -1.9, 2, 2.1, 2.2, 2.3, -2.4}
	distY = []float32{1, 0, 0, 1, 1, 1, -1, 0, 0.5, 0.5, 2, -1, 0, 0, 1, -2}
)

// rows is rows [start, start+n) of a row-major matrix of width columns.
func distRows(v []float32, width, start, n int) *Tensor {
	return Must(FromFloat32(v[start*width:(start+n)*width], int64(n), int64(width)))
}

func sgdSteps(m *Module, x, y *Tensor, steps int) error {
	o := DefaultSGDOptions()
	o.LR = 0.1
	opt, err := SGD(Must(m.Parameters()), o)
	if err != nil {
		return err
	}
	defer opt.Release()
	for s := 0; s < steps; s++ {
		if err := opt.ZeroGrad(); err != nil {
			return err
		}
		out, err := m.Call(x)
		if err != nil {
			return err
		}
		loss, err := MSELoss(out, y)
		if err != nil {
			return err
		}
		if err := loss.Backward(); err != nil {
			return err
		}
		if err := opt.Step(); err != nil {
			return err
		}
	}
	return nil
}

func distCloseTo(what string, got, want []float32, tol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: got %v, want %v", what, got, want)
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > tol {
			return fmt.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	return nil
}

func TestDistDDPMatchesOneProcessOnTheWholeBatch(t *testing.T) {
	requireGloo(t)
	ref := Must(fixedLinear())
	ok(t, sgdSteps(ref, distRows(distX, 3, 0, 8), distRows(distY, 2, 0, 8), 3))
	refW, refB := Must(ref.param("weight").Float32s()), Must(ref.param("bias").Float32s())

	dir := t.TempDir()
	weights, biases := make([][]float32, 2), make([][]float32, 2)
	runTwo(t, func(rank int64) error {
		g, err := groupOf(dir, rank)
		if err != nil {
			return err
		}
		defer g.Release()
		model, err := fixedLinear()
		if err != nil {
			return err
		}
		if rank == 1 { // DDP broadcasts rank 0's parameters
			NoGrad(func() { err = model.param("weight").FillInPlace(5) })
			if err != nil {
				return err
			}
		}
		o := DefaultDDPOptions()
		o.BucketCapMB = 1
		ddp, err := NewDistributedDataParallel(model, g, &o)
		if err != nil {
			return err
		}
		defer ddp.Release()
		if name, _ := ddp.TypeName(); name != "DistributedDataParallel" {
			return fmt.Errorf("type name %q", name)
		}
		if n, err := ddp.BucketCount(); err != nil || n != 1 {
			return fmt.Errorf("BucketCount: %d %v", n, err)
		}
		if p, err := ddp.BucketParameters(0); err != nil || !reflect.DeepEqual(p, []int64{0, 1}) {
			return fmt.Errorf("BucketParameters(0): %v %v", p, err)
		}
		_, err = ddp.BucketParameters(1)
		if err := expectError("bucket 1", err, ErrInvalidArgument,
			"glia_ddp_bucket_parameters: bucket_index 1 is out of range for 1 buckets"); err != nil {
			return err
		}
		r := int(rank) * 4
		if err := sgdSteps(ddp.Module, distRows(distX, 3, r, 4), distRows(distY, 2, r, 4), 3); err != nil {
			return err
		}
		weights[rank] = Must(model.param("weight").Float32s())
		biases[rank] = Must(model.param("bias").Float32s())

		// NoSync: local gradients only, different on the two ranks; synchronised again afterwards
		x, y := distRows(distX, 3, r, 4), distRows(distY, 2, r, 4)
		backward := func() error {
			out, err := ddp.Call(x)
			if err != nil {
				return err
			}
			return Must(MSELoss(out, y)).Backward()
		}
		gathered := func() ([]float32, []float32, error) {
			all := []*Tensor{Must(Zeros(2, 3)), Must(Zeros(2, 3))}
			err := g.AllGather(all, Must(model.param("weight").Grad()))
			return Must(all[0].Float32s()), Must(all[1].Float32s()), err
		}
		ok := func(err error) {
			if err != nil {
				panic(err)
			}
		}
		ok(ddp.ZeroGrad())
		ok(ddp.NoSync(func() error {
			// torch's no_sync restores the flag it found: a nested one leaves it off
			ok(ddp.NoSync(func() error { return nil }))
			if Must(ddp.RequireBackwardGradSync()) {
				return fmt.Errorf("no_sync: synchronisation back on after a nested NoSync")
			}
			return backward()
		}))
		if !Must(ddp.RequireBackwardGradSync()) {
			return fmt.Errorf("no_sync: synchronisation still off after NoSync")
		}
		l0, l1, err := gathered()
		ok(err)
		if reflect.DeepEqual(l0, l1) {
			return fmt.Errorf("no_sync: the gradients are equal: %v", l0)
		}
		ok(ddp.ZeroGrad())
		ok(backward())
		s0, s1, err := gathered()
		ok(err)
		if !reflect.DeepEqual(s0, s1) {
			return fmt.Errorf("synchronised gradients differ: %v %v", s0, s1)
		}

		ok(ddp.RegisterBuiltinCommHook(CommHookFP16Compress))
		return expectError("second hook", ddp.RegisterBuiltinCommHook(CommHookAllReduce), ErrState,
			"register_comm_hook or register_builtin_comm_hook can only be called once.")
	})
	if !reflect.DeepEqual(weights[0], weights[1]) || !reflect.DeepEqual(biases[0], biases[1]) {
		t.Fatalf("the ranks differ: %v %v / %v %v", weights[0], weights[1], biases[0], biases[1])
	}
	ok(t, distCloseTo("weight", weights[0], refW, 1e-5))
	ok(t, distCloseTo("bias", biases[0], refB, 1e-5))
}

func TestDistDDPWithAGoCommHook(t *testing.T) {
	requireGloo(t)
	ref := Must(fixedLinear())
	ok(t, sgdSteps(ref, distRows(distX, 3, 0, 8), distRows(distY, 2, 0, 8), 3))
	refW := Must(ref.param("weight").Float32s())

	before := liveCallbacks.Load()
	dir := t.TempDir()
	weights := make([][]float32, 2)
	calls := make([]atomic.Int64, 2)
	runTwo(t, func(rank int64) error {
		g, err := groupOf(dir, rank)
		if err != nil {
			return err
		}
		defer g.Release()
		model := Must(fixedLinear())
		ddp, err := NewDistributedDataParallel(model, g, nil)
		if err != nil {
			return err
		}
		defer ddp.Release()
		err = ddp.RegisterCommHook(func(bucket *Tensor, index, count int64) error {
			if index != 0 || count != 1 {
				return fmt.Errorf("bucket %d of %d", index, count)
			}
			calls[rank].Add(1)
			return g.AllReduce(bucket, ReduceAvg)
		})
		if err != nil {
			return err
		}
		r := int(rank) * 4
		if err := sgdSteps(ddp.Module, distRows(distX, 3, r, 4), distRows(distY, 2, r, 4), 3); err != nil {
			return err
		}
		weights[rank] = Must(model.param("weight").Float32s())

		// a hook's error fails the backward with GLIA_ERR_CALLBACK
		ddp2 := Must(NewDistributedDataParallel(Must(fixedLinear()), g, nil))
		defer ddp2.Release()
		if err := ddp2.RegisterCommHook(func(*Tensor, int64, int64) error { return errors.New("hook says no") }); err != nil {
			return err
		}
		out := Must(ddp2.Call(distRows(distX, 3, 0, 4)))
		err = Must(out.Sum()).Backward()
		var ge *Error
		if !errors.As(err, &ge) || ge.Code != ErrCallback || !strings.Contains(ge.Message, "hook says no") {
			return fmt.Errorf("backward with a failing hook: %v", err)
		}
		return nil
	})
	if calls[0].Load() != 3 || calls[1].Load() != 3 {
		t.Fatalf("hook calls %d, %d", calls[0].Load(), calls[1].Load())
	}
	if !reflect.DeepEqual(weights[0], weights[1]) {
		t.Fatalf("the ranks differ: %v %v", weights[0], weights[1])
	}
	ok(t, distCloseTo("weight", weights[0], refW, 1e-5))
	if n := liveCallbacks.Load(); n != before {
		t.Fatalf("%d Go callbacks still held after the DDP modules were released (%d before)", n, before)
	}
}

func TestDistSyncBatchNorm(t *testing.T) {
	requireGloo(t)
	dir := t.TempDir()
	runTwo(t, func(rank int64) error {
		g, err := groupOf(dir, rank)
		if err != nil {
			return err
		}
		defer g.Release()
		bn, err := NewSyncBatchNorm(1, nil, g)
		if err != nil {
			return err
		}
		defer bn.Release()
		if name, _ := bn.TypeName(); name != "SyncBatchNorm" {
			return fmt.Errorf("type name %q", name)
		}
		// rank 0: [0, 2], rank 1: [4, 6]; the mean of all four is 3, their biased variance 5
		r := float32(rank)
		x := Must(FromFloat32([]float32{4 * r, 4*r + 2}, 2, 1))
		s := float32(math.Sqrt(5 + 1e-5))
		if err := distCloseTo("sync", Must(Must(bn.Call(x)).Float32s()), []float32{(4*r - 3) / s, (4*r - 1) / s}, 1e-6); err != nil {
			return err
		}
		// without a group it is BatchNorm of this rank's batch
		if err := SetSyncBatchNormProcessGroup(bn, nil); err != nil {
			return err
		}
		s1 := float32(math.Sqrt(1 + 1e-5))
		return distCloseTo("local", Must(Must(bn.Call(x)).Float32s()), []float32{-1 / s1, 1 / s1}, 1e-6)
	})
}

func TestDataParallelConstruction(t *testing.T) {
	lin := Must(fixedLinear())
	dp := Must(NewDataParallel(lin, nil, nil, 0))
	defer dp.Release()
	if name := Must(dp.TypeName()); name != "DataParallel" {
		t.Fatalf("type name %q", name)
	}
	x := distRows(distX, 3, 0, 4)
	if got, want := Must(Must(dp.Call(x)).Float32s()), Must(Must(lin.Call(x)).Float32s()); !reflect.DeepEqual(got, want) {
		t.Fatalf("forward: %v, the module's: %v", got, want)
	}
	_, err := NewDataParallel(lin, []Device{{DeviceCPU, 0}}, nil, 0)
	ok(t, expectError("CPU device", err, ErrDevice, "DataParallel: device_ids[0] is the CPU; DataParallel replicates "+
		"over the devices of a backend (cuda or another loaded one), pass no device_ids to run on the CPU"))
}
