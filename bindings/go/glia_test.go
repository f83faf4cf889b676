package glia

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func floats(t *testing.T, x *Tensor) []float32 {
	t.Helper()
	return Must(x.Float32s())
}

func eqFloats(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > tol {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

func TestTensors(t *testing.T) {
	a := Must(FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3))
	defer a.Release()
	shape := Must(a.Shape())
	if len(shape) != 2 || shape[0] != 2 || shape[1] != 3 {
		t.Fatalf("shape %v", shape)
	}
	if n := Must(a.Numel()); n != 6 {
		t.Fatalf("numel %d", n)
	}
	if d := Must(a.DType()); d != Float32 || d.String() != "float32" {
		t.Fatalf("dtype %v", d)
	}
	b := Must(Ones(3))
	sum := Must(a.Add(b)) // broadcast
	eqFloats(t, "a+1", floats(t, sum), []float32{2, 3, 4, 5, 6, 7}, 0)
	m := Must(FromFloat32([]float32{1, 0, 0, 1, 1, 1}, 3, 2))
	p := Must(a.MatMul(m)) // [[1+3, 2+3], [4+6, 5+6]]
	eqFloats(t, "matmul", floats(t, p), []float32{4, 5, 10, 11}, 0)
	tr := Must(a.Transpose(0, 1)) // a non-contiguous view: Float32s copies in row-major order
	eqFloats(t, "transpose", floats(t, tr), []float32{1, 4, 2, 5, 3, 6}, 0)
	s := Must(a.Sum())
	if v := Must(s.Item()); v != 21 {
		t.Fatalf("sum %v", v)
	}
	if got := Must(FromFloat32([]float32{1, 2}, 2)).String(); got != "tensor([1., 2.])" {
		t.Fatalf("repr %q", got)
	}
	am := Must(a.Argmax(1, false))
	if got := Must(am.Int64s()); got[0] != 2 || got[1] != 2 {
		t.Fatalf("argmax %v", got)
	}
	sm := Must(a.Softmax(1))
	rows := Must(sm.SumDims([]int64{1}, false))
	eqFloats(t, "softmax rows", floats(t, rows), []float32{1, 1}, 1e-6)
	cat := Must(Cat([]*Tensor{a, a}, 0))
	if sh := Must(cat.Shape()); sh[0] != 4 || sh[1] != 3 {
		t.Fatalf("cat shape %v", sh)
	}
	// int8 and int16 (since 0.2): int64 -> int8 keeps the low bits, as torch's .to(torch.int8).
	i64 := Must(FromInt64([]int64{-128, 127, 300}, 3))
	i8 := Must(i64.To(Int8))
	if d := Must(i8.DType()); d != Int8 || d.String() != "int8" || d.Size() != 1 || Int16.String() != "int16" ||
		Int16.Size() != 2 {
		t.Fatalf("int8 dtype %v", d)
	}
	if got := Must(i8.Int64s()); got[0] != -128 || got[1] != 127 || got[2] != 44 {
		t.Fatalf("int8 values %v", got)
	}
	if got := i8.String(); got != "tensor([-128,  127,   44], dtype=torch.int8)" {
		t.Fatalf("int8 repr %q", got)
	}
	ReleaseAll(b, sum, m, p, tr, s, am, sm, rows, cat, i64, i8)
}

func TestAutograd(t *testing.T) {
	x := Must(FromFloat32([]float32{1, 2, 3}))
	ok(t, x.SetRequiresGrad(true))
	// y = sum(3 x^2 + 2 x): dy/dx = 6 x + 2 = [8, 14, 20]
	sq := Must(x.Mul(x))
	if name := Must(sq.GradFnName()); name != "MulBackward0" {
		t.Fatalf("grad_fn %q", name)
	}
	y := Must(Must(Must(sq.MulScalar(3)).Add(Must(x.MulScalar(2)))).Sum())
	ok(t, y.Backward())
	g := Must(x.Grad())
	eqFloats(t, "grad", floats(t, g), []float32{8, 14, 20}, 0)
	if leaf := Must(x.IsLeaf()); !leaf {
		t.Fatal("x should be a leaf")
	}
	// NoGrad: nothing is recorded.
	NoGrad(func() {
		z := Must(x.Mul(x))
		if rg := Must(z.RequiresGrad()); rg {
			t.Error("requires_grad inside NoGrad")
		}
		if GradEnabled() {
			t.Error("grad mode on inside NoGrad")
		}
	})
	if !GradEnabled() {
		t.Fatal("grad mode not restored")
	}
}

// A module defined in Go: y = x * w + b with parameters w, b.
func newAffine(t *testing.T) *Module {
	m := Must(NewModule("Affine", func(self *Module, in []*Tensor) ([]*Tensor, error) {
		w, err := self.Parameter("w")
		if err != nil {
			return nil, err
		}
		defer w.Release()
		b, err := self.Parameter("b")
		if err != nil {
			return nil, err
		}
		defer b.Release()
		xw, err := in[0].Mul(w)
		if err != nil {
			return nil, err
		}
		defer xw.Release()
		y, err := xw.Add(b)
		return []*Tensor{y}, err
	}))
	ok(t, m.RegisterParameter("w", Must(FromFloat32([]float32{2, 3}))))
	ok(t, m.RegisterParameter("b", Must(FromFloat32([]float32{0.5, -1}))))
	return m
}

func TestCustomModule(t *testing.T) {
	m := newAffine(t)
	defer m.Release()
	if name := Must(m.TypeName()); name != "Affine" {
		t.Fatalf("type name %q", name)
	}
	if s := m.String(); s != "Affine()" {
		t.Fatalf("repr %q", s)
	}
	x := Must(FromFloat32([]float32{1, 2, 3, 4}, 2, 2))
	y := Must(m.Call(x))
	eqFloats(t, "forward", floats(t, y), []float32{2.5, 5, 6.5, 11}, 0)
	ok(t, Must(y.Sum()).Backward())
	w := Must(m.Parameter("w"))
	// d sum(x w + b) / dw = column sums of x = [4, 6]; / db = [2, 2]
	eqFloats(t, "dw", floats(t, Must(w.Grad())), []float32{4, 6}, 0)
	eqFloats(t, "db", floats(t, Must(Must(m.Parameter("b")).Grad())), []float32{2, 2}, 0)
	sd := Must(m.StateDict())
	if keys := Must(sd.Keys()); strings.Join(keys, ",") != "w,b" {
		t.Fatalf("state dict keys %v", keys)
	}
	// A Go module inside a built-in container.
	seq := Must(NewSequential(m, Must(NewReLU())))
	y2 := Must(seq.Call(x))
	eqFloats(t, "seq", floats(t, y2), []float32{2.5, 5, 6.5, 11}, 0)
	if !strings.Contains(seq.String(), "(0): Affine()") {
		t.Fatalf("seq repr %q", seq.String())
	}
}

func TestHooks(t *testing.T) {
	lin := Must(NewLinear(2, 2, true))
	defer lin.Release()
	x := Must(FromFloat32([]float32{1, 2}, 1, 2))
	y0 := floats(t, Must(lin.Call(x)))
	calls := 0
	id := Must(lin.AddForwardHook(func(m *Module, in, out []*Tensor) ([]*Tensor, error) {
		calls++
		if len(in) != 1 || len(out) != 1 {
			t.Errorf("hook saw %d inputs, %d outputs", len(in), len(out))
		}
		d, err := out[0].MulScalar(2)
		return []*Tensor{d}, err
	}))
	y1 := floats(t, Must(lin.Call(x)))
	eqFloats(t, "hooked", y1, []float32{2 * y0[0], 2 * y0[1]}, 1e-6)
	ok(t, lin.RemoveHook(id))
	eqFloats(t, "unhooked", floats(t, Must(lin.Call(x))), y0, 0)
	if calls != 1 {
		t.Fatalf("hook ran %d times", calls)
	}
	if err := lin.RemoveHook(id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("removing twice: %v", err)
	}

	// A tensor hook replacing the gradient: grad * 10.
	v := Must(FromFloat32([]float32{1, 2, 3}))
	ok(t, v.SetRequiresGrad(true))
	var seen []float32
	Must(v.RegisterHook(func(g *Tensor) (*Tensor, error) {
		seen = floats(t, g)
		return g.MulScalar(10)
	}))
	ok(t, Must(Must(v.Mul(v)).Sum()).Backward())
	eqFloats(t, "hook saw", seen, []float32{2, 4, 6}, 0)
	eqFloats(t, "hooked grad", floats(t, Must(v.Grad())), []float32{20, 40, 60}, 0)
}

func TestTrainingLossFalls(t *testing.T) {
	ManualSeed(0)
	// y = 2 x - 1 on [-1, 1].
	xs := make([]float32, 32)
	ys := make([]float32, 32)
	for i := range xs {
		xs[i] = float32(i)/16 - 1
		ys[i] = 2*xs[i] - 1
	}
	x := Must(FromFloat32(xs, 32, 1))
	y := Must(FromFloat32(ys, 32, 1))
	model := Must(NewSequential(Must(NewLinear(1, 16, true)), Must(NewTanh()), Must(NewLinear(16, 1, true))))
	lossFn := Must(NewMSELoss())
	o := DefaultAdamOptions()
	o.LR = 0.05
	opt := Must(Adam(Must(model.Parameters()), o))
	var first, last float64
	for step := 0; step < 200; step++ {
		ok(t, opt.ZeroGrad())
		pred := Must(model.Call(x))
		loss := Must(lossFn.Call(pred, y))
		ok(t, loss.Backward())
		ok(t, opt.Step())
		l := Must(loss.Item())
		if step == 0 {
			first = l
		}
		last = l
		ReleaseAll(pred, loss)
	}
	t.Logf("loss %.5f -> %.5f", first, last)
	if !(last < first/20) || last > 0.01 {
		t.Fatalf("loss did not fall: %v -> %v", first, last)
	}
	if lr := Must(opt.LR()); lr != 0.05 {
		t.Fatalf("lr %v", lr)
	}
}

func TestConvNet(t *testing.T) {
	net := Must(NewSequential(
		Must(NewConv2d(1, 4, 3, 3, &Conv2dOptions{Padding: [2]int64{1, 1}})),
		Must(NewReLU()),
		Must(NewMaxPool2d(2, 2)),
		Must(NewFlatten(1, -1)),
		Must(NewLinear(4*4*4, 3, true)),
	))
	x := Must(Randn(2, 1, 8, 8))
	logits := Must(net.Call(x))
	if sh := Must(logits.Shape()); len(sh) != 2 || sh[0] != 2 || sh[1] != 3 {
		t.Fatalf("logits shape %v", sh)
	}
	ce := Must(NewCrossEntropyLoss())
	target := Must(FromInt64([]int64{0, 2}))
	loss := Must(ce.Call(logits, target))
	ok(t, loss.Backward())
	g := Must(Must(net.Parameter("0.weight")).Grad())
	if g == nil {
		t.Fatal("conv weight has no grad")
	}
	if !strings.Contains(net.String(), "Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))") {
		t.Fatalf("repr %s", net.String())
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	a := Must(NewSequential(Must(NewLinear(3, 4, true)), Must(NewReLU()), Must(NewLinear(4, 2, true))))
	b := Must(NewSequential(Must(NewLinear(3, 4, true)), Must(NewReLU()), Must(NewLinear(4, 2, true))))
	x := Must(Randn(5, 3))
	ya := floats(t, Must(a.Call(x)))
	path := filepath.Join(dir, "model.safetensors")
	ok(t, a.Save(path))
	ok(t, b.Load(path, true))
	eqFloats(t, "loaded model", floats(t, Must(b.Call(x))), ya, 0)

	d := Must(NewTensorDict())
	ok(t, d.Set("weights", Must(FromFloat32([]float32{1.5, -2, 3}))))
	ok(t, d.Set("epoch", Must(FromInt64([]int64{7}))))
	for _, f := range []Format{FormatSafetensors, FormatTorch} {
		p := filepath.Join(dir, "dict"+string(rune('0'+f)))
		ok(t, d.Save(p, f))
		e := Must(LoadTensorDict(p, FormatAuto))
		if keys := Must(e.Keys()); strings.Join(keys, ",") != "weights,epoch" {
			t.Fatalf("format %d: keys %v", f, keys)
		}
		eqFloats(t, "weights", floats(t, Must(e.Get("weights"))), []float32{1.5, -2, 3}, 0)
		if ep := Must(Must(e.Get("epoch")).Int64s()); ep[0] != 7 {
			t.Fatalf("epoch %v", ep)
		}
		e.Release()
	}
	// A state dict with a missing key: strict loading fails with torch's text, nothing changes.
	sd := Must(NewTensorDict())
	ok(t, sd.Set("0.weight", Must(Zeros(4, 3))))
	err := b.LoadStateDict(sd, true)
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), `Missing key(s) in state_dict: "0.bias"`) {
		t.Fatalf("strict load: %v", err)
	}
	eqFloats(t, "unchanged", floats(t, Must(b.Call(x))), ya, 0)
}

func TestErrors(t *testing.T) {
	a := Must(Ones(2, 3))
	b := Must(Ones(4))
	_, err := a.Add(b)
	var ge *Error
	if !errors.As(err, &ge) || ge.Code != ErrShape || !errors.Is(err, ErrShape) {
		t.Fatalf("shape mismatch: %v", err)
	}
	const want = "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
	if !strings.Contains(ge.Message, want) {
		t.Fatalf("message %q", ge.Message)
	}
	if ErrShape.String() != "GLIA_ERR_SHAPE" || !strings.HasPrefix(err.Error(), "GLIA_ERR_SHAPE: ") {
		t.Fatalf("names: %q %q", ErrShape.String(), err.Error())
	}

	_, err = LoadTensorDict(filepath.Join(t.TempDir(), "missing.safetensors"), FormatAuto)
	if !errors.Is(err, ErrIO) {
		t.Fatalf("missing file: %v", err)
	}
	lin := Must(NewLinear(2, 2, true))
	if err := lin.Load("/nonexistent/dir/model.safetensors", true); !errors.Is(err, ErrIO) {
		t.Fatalf("module load of a missing file: %v", err)
	}

	// A panic in a Go callback becomes GLIA_ERR_CALLBACK carrying the panic's text.
	bad := Must(NewModule("Bad", func(self *Module, in []*Tensor) ([]*Tensor, error) {
		panic("boom")
	}))
	_, err = bad.Call(a)
	if !errors.Is(err, ErrCallback) || !strings.Contains(err.Error(), "panic in forward: boom") {
		t.Fatalf("panic: %v", err)
	}
	// A Go error returned by forward: GLIA_ERR_CALLBACK with its message.
	failing := Must(NewModule("Failing", func(self *Module, in []*Tensor) ([]*Tensor, error) {
		return nil, errors.New("no input today")
	}))
	if _, err = failing.Call(a); !errors.Is(err, ErrCallback) || !strings.Contains(err.Error(), "no input today") {
		t.Fatalf("forward error: %v", err)
	}
	// A panicking hook.
	v := Must(FromFloat32([]float32{1, 2}))
	ok(t, v.SetRequiresGrad(true))
	Must(v.RegisterHook(func(g *Tensor) (*Tensor, error) { panic("hook panic") }))
	if err := Must(v.Sum()).Backward(); !errors.Is(err, ErrCallback) || !strings.Contains(err.Error(), "hook panic") {
		t.Fatalf("hook panic: %v", err)
	}

	// Use after Release: a Go error, never a crash; Release is idempotent.
	c := Must(Ones(2))
	c.Release()
	c.Release()
	if _, err := c.Sum(); !errors.Is(err, ErrInvalidHandle) {
		t.Fatalf("use after release: %v", err)
	}
	if _, err := a.Add(c); !errors.Is(err, ErrInvalidHandle) {
		t.Fatalf("released argument: %v", err)
	}
	if !strings.Contains(c.String(), "used after Release") {
		t.Fatalf("released repr %q", c.String())
	}
	var nilT *Tensor
	if _, err := nilT.Shape(); !errors.Is(err, ErrInvalidHandle) {
		t.Fatalf("nil tensor: %v", err)
	}
	lin.Release()
	if _, err := lin.Call(a); !errors.Is(err, ErrInvalidHandle) {
		t.Fatalf("released module: %v", err)
	}
	// A stale token reaching glia itself is caught by its handle registry.
	d := Must(Ones(2))
	raw := d.h.Load()
	d.Release()
	stale := &Tensor{}
	stale.h.Store(raw)
	if _, err := stale.Sum(); !errors.Is(err, ErrInvalidHandle) || strings.Contains(err.Error(), "glia (Go)") {
		t.Fatalf("stale: %v", err)
	} else {
		t.Logf("stale handle: %v", err)
	}
	// Optimizer argument errors carry torch's text.
	o := DefaultSGDOptions()
	o.LR = -1
	if _, err := SGD([]*Tensor{a}, o); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "Invalid learning rate: -1.0") {
		t.Fatalf("sgd lr: %v", err)
	}
}

// One model shared by 8 goroutines in inference (grad mode off): the C API allows concurrent
// forward of one module while grad mode is off. Every result must equal the single-threaded one.
func TestConcurrentInference(t *testing.T) {
	model := Must(NewSequential(Must(NewLinear(16, 64, true)), Must(NewReLU()), Must(NewLinear(64, 8, true))))
	ok(t, model.Eval())
	inputs := make([]*Tensor, 8)
	want := make([][]float32, 8)
	for i := range inputs {
		inputs[i] = Must(Randn(32, 16))
		NoGrad(func() { want[i] = floats(t, Must(model.Call(inputs[i]))) })
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for rep := 0; rep < 50; rep++ {
				i := (g + rep) % 8
				NoGrad(func() {
					y, err := model.Call(inputs[i])
					if err != nil {
						errs <- err
						return
					}
					got, err := y.Float32s()
					y.Release()
					if err != nil {
						errs <- err
						return
					}
					for k := range got {
						if got[k] != want[i][k] {
							errs <- errors.New("concurrent result differs from the single-threaded one")
							return
						}
					}
				})
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Finalizers release what the program forgot: the handles go back to glia from the finalizer
// goroutine (glia's bytes in use fall back), and tensors owned by modules survive their Go
// wrappers.
func TestFinalizers(t *testing.T) {
	m := newAffine(t)
	defer m.Release()
	w := Must(m.Parameter("w"))
	w = nil
	_ = w
	runtime.GC()
	before := Must(MemoryInUse())
	func() {
		for i := 0; i < 64; i++ {
			_ = Must(Ones(1 << 16)) // 256 KiB each, never released explicitly
		}
	}()
	if during := Must(MemoryInUse()); during < before+32<<18 {
		t.Fatalf("bytes in use %d -> %d: the tensors were not allocated?", before, during)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		if Must(MemoryInUse()) <= before || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if after := Must(MemoryInUse()); after > before {
		t.Fatalf("finalizers did not release the tensors: %d bytes in use, %d before", after, before)
	}
	x := Must(FromFloat32([]float32{1, 1}))
	eqFloats(t, "after GC", floats(t, Must(m.Call(x))), []float32{2.5, 2}, 0)
}

// glia calls free_user_data exactly once for every Go callback: the cgo handles of a module's
// forward and of its hooks are deleted when the module dies or the hook is removed.
func TestCallbackHandlesFreed(t *testing.T) {
	// Let the finalizers of earlier tests' garbage (modules and hooks never released) run
	// first, so that only this test changes the count.
	base := liveCallbacks.Load()
	for stable := 0; stable < 3; {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		if n := liveCallbacks.Load(); n == base {
			stable++
		} else {
			base, stable = n, 0
		}
	}
	m := newAffine(t)
	id := Must(m.AddForwardHook(func(*Module, []*Tensor, []*Tensor) ([]*Tensor, error) { return nil, nil }))
	Must(m.AddForwardHook(func(*Module, []*Tensor, []*Tensor) ([]*Tensor, error) { return nil, nil }))
	if n := liveCallbacks.Load() - base; n != 3 {
		t.Fatalf("%d live callbacks, want 3", n)
	}
	ok(t, m.RemoveHook(id))
	if n := liveCallbacks.Load() - base; n != 2 {
		t.Fatalf("%d live callbacks after removing a hook, want 2", n)
	}
	m.Release()
	if n := liveCallbacks.Load() - base; n != 0 {
		t.Fatalf("%d live callbacks after Release, want 0", n)
	}
	// A failed registration frees its callback at once.
	if _, err := NewModule("", func(*Module, []*Tensor) ([]*Tensor, error) { return nil, nil }); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("empty type name: %v", err)
	}
	if n := liveCallbacks.Load() - base; n != 0 {
		t.Fatalf("%d live callbacks after a failed NewModule, want 0", n)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	runtime.GC()
	os.Exit(code)
}

// glia's handles are tokens (generation << 32 | slot): after a slot is reused 0xc0 times its
// token lies at 0xc000000000, where the Go heap starts. The binding keeps handles as uintptr,
// so the collector never takes a token for a pointer; this runs GCs while such tokens live.
func TestHandleTokensInGoHeapRange(t *testing.T) {
	sawHeapRange := false
	for i := 0; i < 1000; i++ {
		x := Must(Ones(1))
		if x.h.Load() >= 0xc000000000 {
			sawHeapRange = true
		}
		if i%50 == 0 {
			runtime.GC()
		}
		y := Must(x.AddScalar(1))
		x.Release()
		y.Release()
	}
	if !sawHeapRange {
		t.Fatal("no token reached the Go heap's address range; the test no longer covers it")
	}
}
