//! Modules: a custom module written in Rust, hooks, built-in layers, training,
//! checkpoints and misuse errors.
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use glia::nn::{self, Module};
use glia::optim::{AdamOptions, LrScheduler, Optimizer, SgdOptions};
use glia::{Error, ErrorCode, Format, Tensor, TensorDict};

fn t(data: &[f32], shape: &[i64]) -> Tensor {
    Tensor::from_slice(data, shape).unwrap()
}

/// A fresh directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);
impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("glia-rust-{}-{}", name, std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// y = x * w + b, with w and b registered parameters.
fn affine(n: i64) -> Module {
    let m = Module::custom("Affine", |m, inputs| {
        let w = m.parameter("w")?;
        let b = m.parameter("b")?;
        Ok(vec![&(&inputs[0] * &w) + &b])
    })
    .unwrap();
    m.register_parameter("w", &Tensor::full(&[n], 2.0).unwrap()).unwrap();
    m.register_parameter("b", &Tensor::scalar(0.5).unwrap()).unwrap();
    m
}

#[test]
fn custom_module_with_closure_forward_and_parameters() {
    let m = affine(3);
    assert_eq!(m.type_name(), "Affine");
    assert_eq!(m.to_string(), "Affine()");
    let names: Vec<String> = m.named_parameters().map(|(n, _)| n).collect();
    assert_eq!(names, vec!["w", "b"]);
    // a registered floating parameter requires grad, as nn.Parameter
    assert!(m.parameter("w").unwrap().requires_grad());

    let x = t(&[1., 2., 3.], &[3]);
    let y = m.forward(&x).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![2.5, 4.5, 6.5]);
    y.sum().unwrap().backward().unwrap();
    assert_eq!(
        m.parameter("w").unwrap().grad().unwrap().to_vec::<f32>().unwrap(),
        vec![1., 2., 3.]
    );
    assert_eq!(m.parameter("b").unwrap().grad().unwrap().item().unwrap(), 3.0);

    // as a child of a built-in container
    let seq = nn::sequential(&[&m, &nn::relu().unwrap()]).unwrap();
    assert_eq!(seq.to_string(), "Sequential(\n  (0): Affine()\n  (1): ReLU()\n)");
    let names: Vec<String> = seq.named_parameters().map(|(n, _)| n).collect();
    assert_eq!(names, vec!["0.w", "0.b"]);
    let y = seq.forward(&t(&[-1., 0., 1.], &[3])).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![0., 0.5, 2.5]);
}

#[test]
fn closure_is_freed_exactly_once_when_the_module_dies() {
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let c = Counted(drops.clone());
    let m = Module::custom("Id", move |_, inputs| {
        let _keep = &c;
        Ok(inputs.to_vec())
    })
    .unwrap();
    let m2 = m.clone();
    drop(m);
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    assert_eq!(m2.forward(&t(&[1.], &[1])).unwrap().to_vec::<f32>().unwrap(), vec![1.]);
    drop(m2);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn panic_in_a_closure_forward_is_a_callback_error() {
    let m = Module::custom("Boom", |_, _| panic!("forward exploded")).unwrap();
    let e = m.forward(&t(&[1.], &[1])).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Callback);
    assert!(
        e.message().contains("panic in Rust callback: forward exploded"),
        "{}",
        e.message()
    );

    // an Err keeps its message; the module still works afterwards
    let m = Module::custom("Picky", |_, inputs| {
        if inputs.len() != 1 {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!("Picky wants 1 input, got {}", inputs.len()),
            ));
        }
        Ok(vec![inputs[0].clone()])
    })
    .unwrap();
    let a = t(&[1.], &[1]);
    let e = m.forward2(&a, &a).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Callback);
    assert!(e.message().contains("Picky wants 1 input, got 2"), "{}", e.message());
    assert_eq!(m.forward(&a).unwrap().to_vec::<f32>().unwrap(), vec![1.]);
}

#[test]
fn forward_hook_sees_the_output_and_pre_hook_replaces_the_input() {
    let lin = nn::linear(2, 1, false).unwrap();
    let mut w = lin.parameter("weight").unwrap();
    glia::no_grad(|| w.copy_(&t(&[1., 10.], &[1, 2]))).unwrap();

    let seen = Arc::new(Mutex::new(Vec::<(String, Vec<f32>, Vec<f32>)>::new()));
    let s = seen.clone();
    let id = lin
        .add_forward_hook(move |m, inputs, outputs| {
            s.lock()
                .unwrap()
                .push((m.type_name(), inputs[0].to_vec::<f32>()?, outputs[0].to_vec::<f32>()?));
            Ok(None)
        })
        .unwrap();
    let y = lin.forward(&t(&[3., 4.], &[1, 2])).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![43.]);
    assert_eq!(
        *seen.lock().unwrap(),
        vec![("Linear".to_string(), vec![3., 4.], vec![43.])]
    );

    // a pre-hook doubles the input, a second forward hook replaces the output
    lin.add_forward_pre_hook(|_, inputs| Ok(Some(vec![&inputs[0] * 2.0])))
        .unwrap();
    lin.add_forward_hook(|_, _, outputs| Ok(Some(vec![&outputs[0] + 1.0])))
        .unwrap();
    let y = lin.forward(&t(&[3., 4.], &[1, 2])).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![87.]);
    assert_eq!(seen.lock().unwrap()[1].2, vec![86.]);

    lin.remove_hook(id).unwrap();
    lin.forward(&t(&[3., 4.], &[1, 2])).unwrap();
    assert_eq!(seen.lock().unwrap().len(), 2);
    assert_eq!(lin.remove_hook(id).unwrap_err().code(), ErrorCode::NotFound);
}

#[test]
fn built_in_layers() {
    glia::manual_seed(0);
    let net = nn::sequential(&[
        &nn::conv2d(
            1,
            4,
            (3, 3),
            &nn::Conv2dOptions {
                padding: (1, 1),
                ..Default::default()
            },
        )
        .unwrap(),
        &nn::relu().unwrap(),
        &nn::max_pool2d((2, 2), None).unwrap(),
        &nn::flatten(1, -1).unwrap(),
        &nn::linear(4 * 4 * 4, 3, true).unwrap(),
    ])
    .unwrap();
    assert_eq!(
        net.get(0).unwrap().to_string(),
        "Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))"
    );
    assert_eq!(
        net.get(2).unwrap().to_string(),
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    );
    let x = Tensor::randn(&[2, 1, 8, 8]).unwrap();
    let logits = net.forward(&x).unwrap();
    assert_eq!(logits.shape(), vec![2, 3]);
    let names: Vec<String> = net.named_parameters().map(|(n, _)| n).collect();
    assert_eq!(names, vec!["0.weight", "0.bias", "4.weight", "4.bias"]);

    // CrossEntropyLoss of equal logits is ln(3)
    let ce = nn::cross_entropy_loss().unwrap();
    let target = Tensor::from_slice(&[0i64, 2], &[2]).unwrap();
    let loss = ce.forward2(&Tensor::zeros(&[2, 3]).unwrap(), &target).unwrap();
    assert!((loss.item().unwrap() - 3f64.ln()).abs() < 1e-6);
    let mse = nn::mse_loss().unwrap();
    assert_eq!(
        mse.forward2(&t(&[1., 3.], &[2]), &t(&[0., 0.], &[2]))
            .unwrap()
            .item()
            .unwrap(),
        5.0
    );

    // train / eval
    assert!(net.is_training());
    net.eval().unwrap();
    assert!(!net.get(0).unwrap().is_training());
}

#[test]
fn linear_regression_loss_falls() {
    glia::manual_seed(1);
    // y = 2x - 1
    let xs: Vec<f32> = (0..16).map(|i| i as f32 / 8.0 - 1.0).collect();
    let ys: Vec<f32> = xs.iter().map(|x| 2.0 * x - 1.0).collect();
    let x = t(&xs, &[16, 1]);
    let y = t(&ys, &[16, 1]);
    let model = nn::linear(1, 1, true).unwrap();
    let mut opt = Optimizer::sgd(
        &model.parameters(),
        &SgdOptions {
            lr: 0.1,
            momentum: 0.9,
            ..Default::default()
        },
    )
    .unwrap();
    let mut losses = Vec::new();
    for _ in 0..100 {
        opt.zero_grad().unwrap();
        let mut loss = model.forward(&x).unwrap().mse_loss(&y).unwrap();
        losses.push(loss.item().unwrap());
        loss.backward().unwrap();
        opt.step().unwrap();
    }
    assert!(losses[99] < losses[0] * 1e-3, "{} -> {}", losses[0], losses[99]);
    let w = model.parameter("weight").unwrap().item().unwrap();
    let b = model.parameter("bias").unwrap().item().unwrap();
    assert!((w - 2.0).abs() < 1e-2 && (b + 1.0).abs() < 1e-2, "w {} b {}", w, b);
}

#[test]
fn optimizers_and_schedulers() {
    let p = Tensor::from_slice(&[1f32], &[1])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let e = Optimizer::sgd(
        std::slice::from_ref(&p),
        &SgdOptions {
            lr: -1.0,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(e.message().contains("Invalid learning rate: -1.0"), "{}", e.message());

    assert_eq!(AdamOptions::default().betas, (0.9, 0.999));
    assert_eq!(AdamOptions::adamw().weight_decay, 0.01);
    // one Adam step moves a parameter by lr against the gradient's sign
    let mut opt = Optimizer::adam(
        std::slice::from_ref(&p),
        &AdamOptions {
            lr: 0.1,
            ..Default::default()
        },
    )
    .unwrap();
    (&p * 3.0).sum().unwrap().backward().unwrap();
    opt.step().unwrap();
    assert!((p.item().unwrap() - 0.9).abs() < 1e-6, "{}", p.item().unwrap());
    assert!(opt.state_dict().unwrap().contains("state.0.exp_avg").unwrap());

    let mut sched = LrScheduler::step_lr(&opt, 1, 0.5).unwrap();
    sched.step().unwrap();
    assert!((opt.lr(0).unwrap() - 0.05).abs() < 1e-12);
    assert!((sched.last_lr(0).unwrap() - 0.05).abs() < 1e-12);
}

#[test]
fn save_load_round_trip() {
    let dir = TempDir::new("ckpt");
    glia::manual_seed(2);
    let a = nn::linear(3, 2, true).unwrap();
    let b = nn::linear(3, 2, true).unwrap();
    let path = dir.0.join("model.safetensors");
    a.save(&path).unwrap();
    assert_ne!(
        a.parameter("weight").unwrap().to_vec::<f32>().unwrap(),
        b.parameter("weight").unwrap().to_vec::<f32>().unwrap()
    );
    b.load(&path, true).unwrap();
    for ((na, ta), (nb, tb)) in a.state_dict().unwrap().iter().zip(b.state_dict().unwrap().iter()) {
        assert_eq!(na, nb);
        assert_eq!(ta.to_vec::<f32>().unwrap(), tb.to_vec::<f32>().unwrap());
    }

    // a tensor dict in both formats, with metadata in safetensors
    let mut d = TensorDict::new().unwrap();
    d.set("x", &t(&[1., 2., 3.], &[3])).unwrap();
    d.set("n", &Tensor::from_slice(&[7i64], &[]).unwrap()).unwrap();
    d.set_metadata("epoch", "3").unwrap();
    for (name, fmt) in [("d.safetensors", Format::Safetensors), ("d.pt", Format::Torch)] {
        let p = dir.0.join(name);
        d.save(&p, fmt).unwrap();
        let back = TensorDict::load(&p, Format::Auto).unwrap();
        assert_eq!(back.keys(), vec!["x", "n"]);
        assert_eq!(back.get("x").unwrap().to_vec::<f32>().unwrap(), vec![1., 2., 3.]);
        assert_eq!(back.get("n").unwrap().item_i64().unwrap(), 7);
        if fmt == Format::Safetensors {
            assert_eq!(back.metadata("epoch").unwrap(), "3");
        }
    }

    // strict loading into a model with other shapes fails with torch's text, all-or-nothing
    let c = nn::linear(4, 2, true).unwrap();
    let before = c.parameter("bias").unwrap().to_vec::<f32>().unwrap();
    let e = c.load(&path, true).unwrap_err();
    assert!(e.message().contains("size mismatch for weight"), "{:?}", e);
    assert_eq!(c.parameter("bias").unwrap().to_vec::<f32>().unwrap(), before);
}

#[test]
fn loading_a_missing_file_is_an_io_error() {
    let dir = TempDir::new("missing");
    let path = dir.0.join("nope.safetensors");
    let e = TensorDict::load(&path, Format::Auto).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io, "{:?}", e);
    assert!(e.message().contains("nope.safetensors"), "{}", e.message());
    let e = nn::linear(1, 1, true).unwrap().load(&path, true).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io, "{:?}", e);
}

#[test]
fn module_misuse_errors() {
    let lin = nn::linear(3, 2, true).unwrap();
    // wrong input width: torch's matmul message
    let e = lin.forward(&Tensor::zeros(&[1, 4]).unwrap()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Shape);
    assert!(e.message().contains("1x4 and 3x2"), "{}", e.message());
    let e = lin.parameter("nope").unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert!(
        e.message().contains("Linear has no attribute `nope`"),
        "{}",
        e.message()
    );
    let e = lin
        .register_parameter("a.b", &Tensor::zeros(&[1]).unwrap())
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
}
