//! Autograd: gradients against hand-computed values, NoGrad, tensor hooks.
use glia::{ErrorCode, NoGradGuard, Tensor};

fn leaf(data: &[f32]) -> Tensor {
    Tensor::from_slice(data, &[data.len() as i64])
        .unwrap()
        .with_requires_grad(true)
        .unwrap()
}

#[test]
fn gradient_matches_hand_computed_value() {
    // y = sum(3 x^2 + x)  =>  dy/dx = 6x + 1
    let x = leaf(&[1., 2., 3.]);
    assert!(x.is_leaf() && x.requires_grad());
    let mut y = (&(&x * &x) * 3.0 + &x).sum().unwrap();
    assert!(!y.is_leaf());
    assert_eq!((&x * &x).grad_fn_name().unwrap(), "MulBackward0");
    assert_eq!(x.grad_fn_name().unwrap(), "");
    assert_eq!(y.item().unwrap(), 3. * 14. + 6.);
    y.backward().unwrap();
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), vec![7., 13., 19.]);

    // d/dW sum(W @ v) = ones(2) outer v
    let w = Tensor::from_slice(&[1f32, 2., 3., 4.], &[2, 2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let v = Tensor::from_slice(&[5f32, 7.], &[2, 1]).unwrap();
    w.matmul(&v).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(w.grad().unwrap().to_vec::<f32>().unwrap(), vec![5., 7., 5., 7.]);
}

#[test]
fn backward_twice_without_retain_graph_is_a_state_error() {
    let x = leaf(&[1., 2.]);
    let mut y = (&x * &x).sum().unwrap();
    y.backward_with(None, true).unwrap();
    y.backward().unwrap();
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), vec![4., 8.]);
    let e = y.backward().unwrap_err();
    assert_eq!(e.code(), ErrorCode::State);
    assert!(e.message().contains("second time"), "{}", e.message());
}

#[test]
fn no_grad_guard_restores_the_mode() {
    let x = leaf(&[1.]);
    assert!(glia::grad_mode_enabled());
    {
        let _g = NoGradGuard::new();
        assert!(!glia::grad_mode_enabled());
        assert!(!(&x * 2.0).requires_grad());
    }
    assert!(glia::grad_mode_enabled());
    assert!((&x * 2.0).requires_grad());
    let y = glia::no_grad(|| &x + &x);
    assert!(!y.requires_grad());
}

#[test]
fn tensor_hook_scales_the_gradient() {
    let mut x = leaf(&[1., 2., 3.]);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let id = x
        .register_hook(move |g| {
            seen2.lock().unwrap().extend(g.to_vec::<f32>()?);
            Ok(Some(g * 10.0))
        })
        .unwrap();
    (&x * &x).sum().unwrap().backward().unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![2., 4., 6.]);
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), vec![20., 40., 60.]);

    // removed: the gradient is no longer scaled
    x.remove_hook(id).unwrap();
    x.set_grad(None).unwrap();
    (&x * &x).sum().unwrap().backward().unwrap();
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), vec![2., 4., 6.]);
    assert_eq!(x.remove_hook(id).unwrap_err().code(), ErrorCode::NotFound);
}

#[test]
fn a_failing_or_panicking_hook_fails_backward_with_callback() {
    let mut x = leaf(&[1.]);
    x.register_hook(|_| Err(glia::Error::new(ErrorCode::Shape, "my hook refuses")))
        .unwrap();
    let e = (&x * 2.0).sum().unwrap().backward().unwrap_err();
    assert_eq!(e.code(), ErrorCode::Callback);
    assert!(e.message().contains("my hook refuses"), "{}", e.message());

    let mut z = leaf(&[1.]);
    z.register_hook(|_| panic!("hook exploded")).unwrap();
    let e = (&z * 2.0).sum().unwrap().backward().unwrap_err();
    assert_eq!(e.code(), ErrorCode::Callback);
    assert!(
        e.message().contains("panic in Rust callback: hook exploded"),
        "{}",
        e.message()
    );
}

#[test]
fn in_place_on_a_leaf_that_requires_grad_is_refused() {
    let mut x = leaf(&[1.]);
    let e = x.mul_scalar_(2.0).unwrap_err();
    assert!(e.message().contains("leaf Variable that requires grad"), "{:?}", e);
    // allowed under no_grad, as torch
    glia::no_grad(|| x.mul_scalar_(2.0)).unwrap();
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![2.]);
}
