//! The generated wrappers (`src/ops_gen.rs`, scripts/gen_wrappers.py): a sample of every argument
//! shape -- unary, binary, scalars of each kind, optional values, i64 slices, enums, strings, tensor
//! lists, several outputs, in-place ops, module constructors -- against values computed here, and
//! errors as `glia::Error` with the C code.
use glia::ops::{self, QuantileInterpolation, Reduction};
use glia::{nn, DType, ErrorCode, Scalar, Tensor};

fn t(data: &[f32], shape: &[i64]) -> Tensor {
    Tensor::from_slice(data, shape).unwrap()
}

fn close(got: &[f32], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{:?} vs {:?}", got, want);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (*g as f64 - w).abs() <= 1e-5 * (1.0 + w.abs()),
            "at {}: got {}, want {}",
            i,
            g,
            w
        );
    }
}

const X: [f32; 5] = [-1.5, -0.25, 0.0, 0.5, 2.0];

fn map(f: fn(f64) -> f64) -> Vec<f64> {
    X.iter().map(|v| f(*v as f64)).collect()
}

#[test]
fn unary_ops_compute_the_math() {
    let x = t(&X, &[5]);
    close(&x.sinh().unwrap().to_vec::<f32>().unwrap(), &map(f64::sinh));
    close(&x.cosh().unwrap().to_vec::<f32>().unwrap(), &map(f64::cosh));
    close(&x.atan().unwrap().to_vec::<f32>().unwrap(), &map(f64::atan));
    close(&x.expm1().unwrap().to_vec::<f32>().unwrap(), &map(f64::exp_m1));
    close(&x.floor().unwrap().to_vec::<f32>().unwrap(), &map(f64::floor));
    close(
        &x.hardtanh(-0.5, 1.0).unwrap().to_vec::<f32>().unwrap(),
        &[-0.5, -0.25, 0.0, 0.5, 1.0],
    );
}

#[test]
fn binary_ops_and_scalar_operands() {
    let a = t(&[1., -2., 3.], &[3]);
    let b = t(&[2., 2., -4.], &[3]);
    close(
        &a.atan2(&b).unwrap().to_vec::<f32>().unwrap(),
        &[1f64.atan2(2.), (-2f64).atan2(2.), 3f64.atan2(-4.)],
    );
    close(&a.hypot(&b).unwrap().to_vec::<f32>().unwrap(), &[5f64.sqrt(), 8f64.sqrt(), 5.]);
    close(
        &a.logaddexp(&b).unwrap().to_vec::<f32>().unwrap(),
        &[
            (1f64.exp() + 2f64.exp()).ln(),
            ((-2f64).exp() + 2f64.exp()).ln(),
            (3f64.exp() + (-4f64).exp()).ln(),
        ],
    );
    // A float scalar gives float32; an int scalar keeps an int64 tensor integral (torch's promotion).
    let e = Tensor::from_slice(&[0i64, 1, 3], &[3]).unwrap();
    let pf = ops::scalar_pow(2.0, &e).unwrap();
    assert_eq!(pf.dtype(), DType::F32);
    assert_eq!(pf.to_vec::<f32>().unwrap(), vec![1., 2., 8.]);
    let pi = ops::scalar_pow(2, &e).unwrap();
    assert_eq!(pi.dtype(), DType::I64);
    assert_eq!(pi.to_vec::<i64>().unwrap(), vec![1, 2, 8]);
    assert_eq!(Scalar::from(true), Scalar::Bool(true));
}

#[test]
fn reductions_over_dim_slices() {
    let x = t(&[1., 2., 3., 4., 6., 8.], &[2, 3]);
    close(
        &x.logsumexp(&[1], false).unwrap().to_vec::<f32>().unwrap(),
        &[
            (1f64.exp() + 2f64.exp() + 3f64.exp()).ln(),
            (4f64.exp() + 6f64.exp() + 8f64.exp()).ln(),
        ],
    );
    let p = x.prod(&[0], true).unwrap();
    assert_eq!(p.shape(), vec![1, 3]);
    assert_eq!(p.to_vec::<f32>().unwrap(), vec![4., 12., 24.]);
    assert_eq!(x.prod(&[], false).unwrap().item().unwrap(), 1152.0); // an empty slice: every dim
    let (var, mean) = x.var_mean(&[1], 1.0, false).unwrap();
    close(&var.to_vec::<f32>().unwrap(), &[1., 4.]);
    close(&mean.to_vec::<f32>().unwrap(), &[2., 6.]);
    assert_eq!(x.flip(&[1]).unwrap().to_vec::<f32>().unwrap(), vec![3., 2., 1., 8., 6., 4.]);
    assert_eq!(x.roll(&[1], &[1]).unwrap().to_vec::<f32>().unwrap(), vec![3., 1., 2., 8., 4., 6.]);
}

#[test]
fn several_outputs_are_tuples() {
    let x = t(&[3., 1., 2., 5.], &[4]);
    let (values, indices) = x.sort(0, true, false).unwrap();
    assert_eq!(values.to_vec::<f32>().unwrap(), vec![5., 3., 2., 1.]);
    assert_eq!(indices.to_vec::<i64>().unwrap(), vec![3, 0, 2, 1]);
    let (top, top_i) = x.topk(2, 0, false, true).unwrap();
    assert_eq!(top.to_vec::<f32>().unwrap(), vec![1., 2.]);
    assert_eq!(top_i.to_vec::<i64>().unwrap(), vec![1, 2]);
    let (mn, mx) = x.aminmax(None, false).unwrap();
    assert_eq!((mn.item().unwrap(), mx.item().unwrap()), (1.0, 5.0));
    let (kv, ki) = x.kthvalue(2, 0, false).unwrap();
    assert_eq!((kv.item().unwrap(), ki.item_i64().unwrap()), (2.0, 2));
    // Optional outputs are Options: unique always asks for inverse and counts.
    let (u, inverse, counts) = t(&[2., 1., 2.], &[3]).unique(true, None).unwrap();
    assert_eq!(u.to_vec::<f32>().unwrap(), vec![1., 2.]);
    assert_eq!(inverse.unwrap().to_vec::<i64>().unwrap(), vec![1, 0, 1]);
    assert_eq!(counts.unwrap().to_vec::<i64>().unwrap(), vec![1, 2]);
}

#[test]
fn optional_values_enums_and_strings() {
    let x = t(&[4., 1., 3., 2.], &[2, 2]);
    assert_eq!(x.argmin(None, false).unwrap().item_i64().unwrap(), 1);
    assert_eq!(x.argmin(Some(1), false).unwrap().to_vec::<i64>().unwrap(), vec![1, 1]);
    let c = x.cumsum(1, Some(DType::F64)).unwrap();
    assert_eq!(c.dtype(), DType::F64);
    assert_eq!(c.to_vec::<f64>().unwrap(), vec![4., 5., 3., 5.]);
    assert_eq!(x.cumsum(0, None).unwrap().dtype(), DType::F32);
    let q = t(&[0.5], &[1]);
    let lin = x.quantile(&q, None, false, QuantileInterpolation::Linear).unwrap();
    close(&lin.to_vec::<f32>().unwrap(), &[2.5]);
    let low = x.quantile(&q, None, false, QuantileInterpolation::Lower).unwrap();
    close(&low.to_vec::<f32>().unwrap(), &[2.0]);
    let input = t(&[0., 2., 5.], &[3]);
    let target = t(&[0.5, 0., 0.], &[3]);
    // huber: 0.5 d^2 where |d| <= delta, else delta (|d| - delta / 2); delta = 1.
    let h = input.huber_loss(&target, Reduction::Sum, 1.0).unwrap();
    close(&[h.item().unwrap() as f32], &[0.125 + 1.5 + 4.5]);
    assert_eq!(input.huber_loss(&target, Reduction::None, 1.0).unwrap().shape(), vec![3]);
    let seq = t(&[1., 3., 5., 7.], &[4]);
    let vals = t(&[3., 6.], &[2]);
    let left = seq.searchsorted(&vals, false, false, None, None).unwrap();
    assert_eq!(left.to_vec::<i64>().unwrap(), vec![1, 3]);
    let right = seq.searchsorted(&vals, false, false, Some("right"), None).unwrap();
    assert_eq!(right.to_vec::<i64>().unwrap(), vec![2, 3]);
}

#[test]
fn tensor_lists_and_free_functions() {
    let a = t(&[1., 2., 3., 4.], &[2, 2]);
    let b = t(&[5., 6., 7., 8.], &[2, 2]);
    assert_eq!(
        ops::einsum("ij,jk->ik", &[&a, &b]).unwrap().to_vec::<f32>().unwrap(),
        a.matmul(&b).unwrap().to_vec::<f32>().unwrap()
    );
    let d = ops::block_diag(&[&t(&[1.], &[1, 1]), &t(&[2., 3.], &[1, 2])]).unwrap();
    assert_eq!(d.shape(), vec![2, 3]);
    assert_eq!(d.to_vec::<f32>().unwrap(), vec![1., 0., 0., 0., 2., 3.]);
}

#[test]
fn in_place_ops_take_mut_self() {
    let mut x = t(&X, &[5]);
    x.add_scalar_(1.5, 2.0).unwrap(); // x += 2 * 1.5
    close(&x.to_vec::<f32>().unwrap(), &[1.5, 2.75, 3., 3.5, 5.]);
    x.clamp_(None, Some(Scalar::Float(3.0))).unwrap();
    close(&x.to_vec::<f32>().unwrap(), &[1.5, 2.75, 3., 3., 3.]);
    let mut y = t(&X, &[5]);
    y.relu_().unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![0., 0., 0., 0.5, 2.]);
    y.nn_init_constant_(7.0).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![7.0; 5]);
}

#[test]
fn module_constructors() {
    let m = nn::hardtanh(-0.5, 0.5, false).unwrap();
    assert_eq!(m.forward(&t(&X, &[5])).unwrap().to_vec::<f32>().unwrap(), vec![-0.5, -0.25, 0., 0.5, 0.5]);
    let g = nn::glu(-1).unwrap();
    let out = g.forward(&t(&[1., 2., 0., 0.], &[1, 4])).unwrap();
    close(&out.to_vec::<f32>().unwrap(), &[0.5, 1.0]);
    assert!(g.forward(&t(&[1., 2., 3.], &[1, 3])).is_err());
}

#[test]
fn options_structs_start_from_torchs_defaults() {
    let v: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let x = t(&v, &[1, 1, 4, 4]);
    let w = Tensor::ones(&[1, 1, 2, 2]).unwrap();
    let defaults = ops::conv2d_options();
    assert_eq!((defaults.stride, defaults.groups), ([1, 1], 1));
    assert_eq!(x.conv2d(&w, None, None).unwrap().shape(), vec![1, 1, 3, 3]);
    let mut strided = ops::conv2d_options();
    strided.stride = [2, 2];
    let y = x.conv2d(&w, None, Some(&strided)).unwrap(); // sums of the 2x2 blocks
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![10., 18., 42., 50.]);
    let mut pool = ops::max_pool2d_options();
    pool.kernel_size = [2, 2];
    let (m, idx) = x.max_pool2d(Some(&pool)).unwrap();
    assert_eq!(m.to_vec::<f32>().unwrap(), vec![5., 7., 13., 15.]);
    assert_eq!(idx.unwrap().to_vec::<i64>().unwrap(), vec![5, 7, 13, 15]);
    let mut avg = ops::avg_pool1d_options();
    avg.kernel_size = 2;
    let out = nn::avg_pool1d(Some(&avg)).unwrap().forward(&t(&[0., 1., 2., 3.], &[1, 1, 4])).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![0.5, 2.5]);
}

#[test]
fn factories_take_tensor_options() {
    let i = Tensor::from_slice(&[1i64, 2, 3], &[3]).unwrap();
    let z = i.zeros_like(None).unwrap(); // None: i's dtype
    assert_eq!(z.dtype(), DType::I64);
    assert_eq!(z.to_vec::<i64>().unwrap(), vec![0, 0, 0]);
    let mut o = ops::tensor_options();
    o.dtype = DType::F64.to_raw();
    assert_eq!(i.ones_like(Some(&o)).unwrap().dtype(), DType::F64);
    let e = ops::eye(2, 3, Some(&o)).unwrap();
    assert_eq!(e.shape(), vec![2, 3]);
    assert_eq!(e.to_vec::<f64>().unwrap(), vec![1., 0., 0., 0., 1., 0.]);
}

#[test]
fn errors_carry_the_c_code_and_message() {
    let a = t(&[1., 2.], &[2]);
    let b = t(&[1., 2., 3.], &[3]);
    let err = a.atan2(&b).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Shape);
    assert!(err.message().contains("must match the size"), "{}", err.message());
    // An interior NUL in a string argument is refused before the C call.
    let err = ops::einsum("i\0", &[&a]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    let err = t(&X, &[5]).topk(9, 0, true, true).unwrap_err();
    assert_ne!(err.message(), "");
}
