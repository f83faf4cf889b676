// Trains a small classifier on two interleaved spirals with glia from Go: a Sequential of
// Linear and ReLU layers, CrossEntropyLoss and Adam; prints the falling loss, saves the
// model, loads it into a fresh one and checks both agree.
//
//	cd examples/go && PKG_CONFIG_PATH=<build>/pkgconfig LD_LIBRARY_PATH=<build>/src go run ./train
package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"glia"
)

func newModel() (*glia.Module, error) {
	l1, err := glia.NewLinear(2, 32, true)
	if err != nil {
		return nil, err
	}
	l2, err := glia.NewLinear(32, 32, true)
	if err != nil {
		return nil, err
	}
	l3, err := glia.NewLinear(32, 2, true)
	if err != nil {
		return nil, err
	}
	r1, _ := glia.NewReLU()
	r2, _ := glia.NewReLU()
	return glia.NewSequential(l1, r1, l2, r2, l3)
}

func run() error {
	glia.ManualSeed(0)
	// Two spirals, 100 points each.
	const n = 100
	xs := make([]float32, 0, 4*n)
	ys := make([]int64, 0, 2*n)
	for class := 0; class < 2; class++ {
		for i := 0; i < n; i++ {
			r := float64(i) / n
			a := 3*math.Pi*r + math.Pi*float64(class)
			xs = append(xs, float32(r*math.Cos(a)), float32(r*math.Sin(a)))
			ys = append(ys, int64(class))
		}
	}
	x, err := glia.FromFloat32(xs, 2*n, 2)
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := glia.FromInt64(ys)
	if err != nil {
		return err
	}
	defer y.Release()

	model, err := newModel()
	if err != nil {
		return err
	}
	defer model.Release()
	lossFn, err := glia.NewCrossEntropyLoss()
	if err != nil {
		return err
	}
	defer lossFn.Release()
	params, err := model.Parameters()
	if err != nil {
		return err
	}
	opts := glia.DefaultAdamOptions()
	opts.LR = 0.01
	opt, err := glia.Adam(params, opts)
	glia.ReleaseAll(params...) // the optimizer holds its own references
	if err != nil {
		return err
	}
	defer opt.Release()

	var first, last float64
	for epoch := 0; epoch <= 300; epoch++ {
		if err := opt.ZeroGrad(); err != nil {
			return err
		}
		logits, err := model.Call(x)
		if err != nil {
			return err
		}
		loss, err := lossFn.Call(logits, y)
		logits.Release()
		if err != nil {
			return err
		}
		if err := loss.Backward(); err != nil {
			return err
		}
		if err := opt.Step(); err != nil {
			return err
		}
		last, err = loss.Item()
		loss.Release()
		if err != nil {
			return err
		}
		if epoch == 0 {
			first = last
		}
		if epoch%50 == 0 {
			fmt.Printf("epoch %3d  loss %.4f\n", epoch, last)
		}
	}
	if !(last < first/2) {
		return fmt.Errorf("the loss did not fall: %.4f -> %.4f", first, last)
	}

	// Save, load into a fresh model, compare predictions (inference: grad mode off).
	dir, err := os.MkdirTemp("", "glia-go-example")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "spirals.safetensors")
	if err := model.Save(path); err != nil {
		return err
	}
	fresh, err := newModel()
	if err != nil {
		return err
	}
	defer fresh.Release()
	if err := fresh.Load(path, true); err != nil {
		return err
	}
	var a, b []float32
	glia.NoGrad(func() {
		var pa, pb *glia.Tensor
		if pa, err = model.Call(x); err != nil {
			return
		}
		defer pa.Release()
		if pb, err = fresh.Call(x); err != nil {
			return
		}
		defer pb.Release()
		if a, err = pa.Float32s(); err == nil {
			b, err = pb.Float32s()
		}
	})
	if err != nil {
		return err
	}
	for i := range a {
		if a[i] != b[i] {
			return fmt.Errorf("the loaded model disagrees at %d: %v vs %v", i, a[i], b[i])
		}
	}
	fmt.Printf("loss %.4f -> %.4f; saved and reloaded %s\n", first, last, filepath.Base(path))
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
