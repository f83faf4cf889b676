package glia

// Tests of the generated wrappers (ops_gen.go, scripts/gen_wrappers.py): a sample of every argument
// shape -- unary, binary, Numbers of each kind, optional values, int64 slices, enums, strings,
// tensor lists, several outputs, in-place ops, module constructors -- against values computed here,
// and errors as *Error with the C code.

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func closeTo(t *testing.T, what string, got []float32, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range got {
		if math.Abs(float64(got[i])-want[i]) > 1e-5*(1+math.Abs(want[i])) {
			t.Fatalf("%s: at %d got %v, want %v", what, i, got, want)
		}
	}
}

func int64s(t *testing.T, x *Tensor) []int64 {
	t.Helper()
	return Must(x.Int64s())
}

func eqInt64s(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

var genX = []float32{-1.5, -0.25, 0, 0.5, 2}

func mapX(f func(float64) float64) []float64 {
	out := make([]float64, len(genX))
	for i, v := range genX {
		out[i] = f(float64(v))
	}
	return out
}

func TestGeneratedUnary(t *testing.T) {
	x := Must(FromFloat32(genX, 5))
	closeTo(t, "sinh", floats(t, Must(x.Sinh())), mapX(math.Sinh))
	closeTo(t, "cosh", floats(t, Must(x.Cosh())), mapX(math.Cosh))
	closeTo(t, "atan", floats(t, Must(x.Atan())), mapX(math.Atan))
	closeTo(t, "expm1", floats(t, Must(x.Expm1())), mapX(math.Expm1))
	closeTo(t, "floor", floats(t, Must(x.Floor())), mapX(math.Floor))
	closeTo(t, "hardtanh", floats(t, Must(x.Hardtanh(-0.5, 1))), []float64{-0.5, -0.25, 0, 0.5, 1})
}

func TestGeneratedBinaryAndNumbers(t *testing.T) {
	a := Must(FromFloat32([]float32{1, -2, 3}, 3))
	b := Must(FromFloat32([]float32{2, 2, -4}, 3))
	closeTo(t, "atan2", floats(t, Must(a.Atan2(b))), []float64{math.Atan2(1, 2), math.Atan2(-2, 2), math.Atan2(3, -4)})
	closeTo(t, "hypot", floats(t, Must(a.Hypot(b))), []float64{math.Sqrt(5), math.Sqrt(8), 5})
	closeTo(t, "logaddexp", floats(t, Must(a.Logaddexp(b))), []float64{
		math.Log(math.Exp(1) + math.Exp(2)), math.Log(math.Exp(-2) + math.Exp(2)), math.Log(math.Exp(3) + math.Exp(-4))})
	// A float Number gives float32; an int Number keeps an int64 tensor integral (torch's promotion).
	e := Must(FromInt64([]int64{0, 1, 3}, 3))
	pf := Must(ScalarPow(NumFloat(2), e))
	if Must(pf.DType()) != Float32 {
		t.Fatalf("float base: %v", Must(pf.DType()))
	}
	closeTo(t, "2.0 ** e", floats(t, pf), []float64{1, 2, 8})
	pi := Must(ScalarPow(NumInt(2), e))
	if Must(pi.DType()) != Int64 {
		t.Fatalf("int base: %v", Must(pi.DType()))
	}
	eqInt64s(t, "2 ** e", int64s(t, pi), []int64{1, 2, 8})
}

func TestGeneratedReductions(t *testing.T) {
	x := Must(FromFloat32([]float32{1, 2, 3, 4, 6, 8}, 2, 3))
	closeTo(t, "logsumexp", floats(t, Must(x.Logsumexp([]int64{1}, false))), []float64{
		math.Log(math.Exp(1) + math.Exp(2) + math.Exp(3)), math.Log(math.Exp(4) + math.Exp(6) + math.Exp(8))})
	p := Must(x.Prod([]int64{0}, true))
	if s := Must(p.Shape()); len(s) != 2 || s[0] != 1 || s[1] != 3 {
		t.Fatalf("prod keepdim shape %v", s)
	}
	closeTo(t, "prod", floats(t, p), []float64{4, 12, 24})
	if v := Must(Must(x.Prod(nil, false)).Item()); v != 1152 {
		t.Fatalf("prod of all: %v", v)
	}
	v, m, err := x.VarMean([]int64{1}, 1, false)
	ok(t, err)
	closeTo(t, "var", floats(t, v), []float64{1, 4})
	closeTo(t, "mean", floats(t, m), []float64{2, 6})
	closeTo(t, "flip", floats(t, Must(x.Flip([]int64{1}))), []float64{3, 2, 1, 8, 6, 4})
	closeTo(t, "roll", floats(t, Must(x.Roll([]int64{1}, []int64{1}))), []float64{3, 1, 2, 8, 4, 6})
}

func TestGeneratedSeveralOutputs(t *testing.T) {
	x := Must(FromFloat32([]float32{3, 1, 2, 5}, 4))
	values, indices, err := x.Sort(0, true, false)
	ok(t, err)
	closeTo(t, "sort values", floats(t, values), []float64{5, 3, 2, 1})
	eqInt64s(t, "sort indices", int64s(t, indices), []int64{3, 0, 2, 1})
	top, topI, err := x.Topk(2, 0, false, true)
	ok(t, err)
	closeTo(t, "topk", floats(t, top), []float64{1, 2})
	eqInt64s(t, "topk indices", int64s(t, topI), []int64{1, 2})
	mn, mx, err := x.Aminmax(nil, false)
	ok(t, err)
	if Must(mn.Item()) != 1 || Must(mx.Item()) != 5 {
		t.Fatalf("aminmax %v %v", Must(mn.Item()), Must(mx.Item()))
	}
	u, inverse, counts, err := Must(FromFloat32([]float32{2, 1, 2}, 3)).Unique(true, nil)
	ok(t, err)
	closeTo(t, "unique", floats(t, u), []float64{1, 2})
	eqInt64s(t, "inverse", int64s(t, inverse), []int64{1, 0, 1})
	eqInt64s(t, "counts", int64s(t, counts), []int64{1, 2})
}

func TestGeneratedOptionalsEnumsStrings(t *testing.T) {
	x := Must(FromFloat32([]float32{4, 1, 3, 2}, 2, 2))
	if i := Must(Must(x.Argmin(nil, false)).Int64s()); i[0] != 1 {
		t.Fatalf("argmin over all: %v", i)
	}
	one := int64(1)
	eqInt64s(t, "argmin dim 1", int64s(t, Must(x.Argmin(&one, false))), []int64{1, 1})
	f64 := Float64
	c := Must(x.Cumsum(1, &f64))
	if Must(c.DType()) != Float64 {
		t.Fatalf("cumsum dtype %v", Must(c.DType()))
	}
	if got := Must(c.Float64s()); got[0] != 4 || got[1] != 5 || got[2] != 3 || got[3] != 5 {
		t.Fatalf("cumsum %v", got)
	}
	q := Must(FromFloat32([]float32{0.5}, 1))
	closeTo(t, "quantile linear", floats(t, Must(x.Quantile(q, nil, false, QuantileInterpolationLinear))), []float64{2.5})
	closeTo(t, "quantile lower", floats(t, Must(x.Quantile(q, nil, false, QuantileInterpolationLower))), []float64{2})
	in := Must(FromFloat32([]float32{0, 2, 5}, 3))
	target := Must(FromFloat32([]float32{0.5, 0, 0}, 3))
	// huber: 0.5 d^2 where |d| <= delta, else delta (|d| - delta / 2); delta = 1.
	closeTo(t, "huber sum", floats(t, Must(in.HuberLoss(target, ReductionSum, 1))), []float64{0.125 + 1.5 + 4.5})
	if s := Must(Must(in.HuberLoss(target, ReductionNone, 1)).Shape()); len(s) != 1 || s[0] != 3 {
		t.Fatalf("huber none shape %v", s)
	}
	seq := Must(FromFloat32([]float32{1, 3, 5, 7}, 4))
	vals := Must(FromFloat32([]float32{3, 6}, 2))
	eqInt64s(t, "searchsorted", int64s(t, Must(seq.Searchsorted(vals, false, false, "", nil))), []int64{1, 3})
	eqInt64s(t, "searchsorted right", int64s(t, Must(seq.Searchsorted(vals, false, false, "right", nil))), []int64{2, 3})
}

func TestGeneratedTensorListsAndFunctions(t *testing.T) {
	a := Must(FromFloat32([]float32{1, 2, 3, 4}, 2, 2))
	b := Must(FromFloat32([]float32{5, 6, 7, 8}, 2, 2))
	want := floats(t, Must(a.MatMul(b)))
	closeTo(t, "einsum", floats(t, Must(Einsum("ij,jk->ik", []*Tensor{a, b}))),
		[]float64{float64(want[0]), float64(want[1]), float64(want[2]), float64(want[3])})
	d := Must(BlockDiag([]*Tensor{Must(FromFloat32([]float32{1}, 1, 1)), Must(FromFloat32([]float32{2, 3}, 1, 2))}))
	closeTo(t, "block_diag", floats(t, d), []float64{1, 0, 0, 0, 2, 3})
}

func TestGeneratedInPlace(t *testing.T) {
	x := Must(FromFloat32(genX, 5))
	ok(t, x.AddScalarInPlace(NumFloat(1.5), 2)) // x += 2 * 1.5
	closeTo(t, "add_scalar_", floats(t, x), []float64{1.5, 2.75, 3, 3.5, 5})
	hi := NumFloat(3)
	ok(t, x.ClampInPlace(nil, &hi))
	closeTo(t, "clamp_", floats(t, x), []float64{1.5, 2.75, 3, 3, 3})
	y := Must(FromFloat32(genX, 5))
	ok(t, y.ReluInPlace())
	closeTo(t, "relu_", floats(t, y), []float64{0, 0, 0, 0.5, 2})
	ok(t, y.NnInitConstantInPlace(7))
	closeTo(t, "constant_", floats(t, y), []float64{7, 7, 7, 7, 7})
}

func TestGeneratedModules(t *testing.T) {
	m := Must(NewHardtanh(-0.5, 0.5, false))
	closeTo(t, "Hardtanh", floats(t, Must(m.Call(Must(FromFloat32(genX, 5))))), []float64{-0.5, -0.25, 0, 0.5, 0.5})
	g := Must(NewGLU(-1))
	closeTo(t, "GLU", floats(t, Must(g.Call(Must(FromFloat32([]float32{1, 2, 0, 0}, 1, 4))))), []float64{0.5, 1})
	if _, err := g.Call(Must(FromFloat32([]float32{1, 2, 3}, 1, 3))); err == nil {
		t.Fatal("GLU of an odd size: no error")
	}
}

func TestGeneratedOptionsStructs(t *testing.T) {
	v := make([]float32, 16)
	for i := range v {
		v[i] = float32(i)
	}
	x := Must(FromFloat32(v, 1, 1, 4, 4))
	w := Must(Ones(1, 1, 2, 2))
	def := DefaultConv2dOpts()
	if def.Stride != [2]int64{1, 1} || def.Groups != 1 {
		t.Fatalf("conv2d defaults %+v", def)
	}
	if s := Must(Must(x.Conv2d(w, nil, nil)).Shape()); len(s) != 4 || s[2] != 3 || s[3] != 3 {
		t.Fatalf("conv2d with the defaults: shape %v", s)
	}
	strided := DefaultConv2dOpts()
	strided.Stride = [2]int64{2, 2}
	closeTo(t, "conv2d stride 2", floats(t, Must(x.Conv2d(w, nil, &strided))), []float64{10, 18, 42, 50})
	pool := DefaultMaxPool2dOptions()
	pool.KernelSize = [2]int64{2, 2}
	m, idx, err := x.MaxPool2d(&pool)
	ok(t, err)
	closeTo(t, "max_pool2d", floats(t, m), []float64{5, 7, 13, 15})
	eqInt64s(t, "max_pool2d indices", int64s(t, idx), []int64{5, 7, 13, 15})
	avg := DefaultAvgPool1dOptions()
	if !avg.CountIncludePad || avg.CeilMode {
		t.Fatalf("avg_pool1d defaults %+v", avg)
	}
	avg.KernelSize = 2
	mod := Must(NewAvgPool1d(&avg))
	closeTo(t, "AvgPool1d", floats(t, Must(mod.Call(Must(FromFloat32([]float32{0, 1, 2, 3}, 1, 1, 4))))), []float64{0.5, 2.5})
}

func TestGeneratedErrors(t *testing.T) {
	a := Must(FromFloat32([]float32{1, 2}, 2))
	b := Must(FromFloat32([]float32{1, 2, 3}, 3))
	_, err := a.Atan2(b)
	var ge *Error
	if !errors.As(err, &ge) || !errors.Is(err, ErrShape) || !strings.Contains(ge.Message, "must match the size") {
		t.Fatalf("atan2 shape mismatch: %v", err)
	}
	// A released (or nil) tensor is ErrInvalidHandle, before any C call.
	c := Must(FromFloat32([]float32{1}, 1))
	c.Release()
	if _, err := c.Sinh(); !errors.Is(err, ErrInvalidHandle) {
		t.Fatalf("released tensor: %v", err)
	}
	if _, err := Einsum("i", []*Tensor{nil}); !errors.Is(err, ErrInvalidHandle) {
		t.Fatalf("nil in a tensor list: %v", err)
	}
	// nil is None for an optional tensor; a released one is an error, not a silent None.
	seq := Must(FromFloat32([]float32{1, 3}, 2))
	if _, err := seq.Searchsorted(seq, false, false, "", c); !errors.Is(err, ErrInvalidHandle) {
		t.Fatalf("released optional tensor: %v", err)
	}
}
