//! Tensors: values, shapes, dtypes, operators and errors.
use glia::{DType, Device, ErrorCode, Tensor};

fn t(data: &[f32], shape: &[i64]) -> Tensor {
    Tensor::from_slice(data, shape).unwrap()
}

#[test]
fn values_shapes_and_dtypes() {
    let a = t(&[1., 2., 3., 4., 5., 6.], &[2, 3]);
    assert_eq!(a.shape(), vec![2, 3]);
    assert_eq!(a.ndim(), 2);
    assert_eq!(a.numel(), 6);
    assert_eq!(a.dtype(), DType::F32);
    assert_eq!(a.device(), Device::Cpu);
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![1., 2., 3., 4., 5., 6.]);

    let z = Tensor::zeros_opts(&[3], DType::F64, Device::Cpu).unwrap();
    assert_eq!(z.dtype(), DType::F64);
    assert_eq!(z.to_vec::<f64>().unwrap(), vec![0.0; 3]);
    assert_eq!(Tensor::ones(&[2, 2]).unwrap().to_vec::<f32>().unwrap(), vec![1.0; 4]);
    assert_eq!(
        Tensor::full(&[2], 2.5).unwrap().to_vec::<f32>().unwrap(),
        vec![2.5, 2.5]
    );

    let r = Tensor::arange(0.0, 5.0, 1.0).unwrap();
    assert_eq!(r.dtype(), DType::I64);
    assert_eq!(r.to_vec::<i64>().unwrap(), vec![0, 1, 2, 3, 4]);

    let i = Tensor::from_slice(&[7i32, -1], &[2]).unwrap();
    assert_eq!(
        i.to_dtype(DType::F32).unwrap().to_vec::<f32>().unwrap(),
        vec![7.0, -1.0]
    );
    // float -> int truncates toward zero, as torch
    assert_eq!(
        t(&[1.7, -1.7], &[2])
            .to_dtype(DType::I64)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        vec![1, -1]
    );

    assert_eq!(Tensor::scalar(3.5).unwrap().item().unwrap(), 3.5);
    assert_eq!(DType::BF16.name(), "bfloat16");
    assert_eq!(DType::F16.size(), 2);
}

#[test]
fn operators_and_ops() {
    let a = t(&[1., 2., 3., 4.], &[2, 2]);
    let b = t(&[10., 20.], &[2]);
    assert_eq!((&a + &b).to_vec::<f32>().unwrap(), vec![11., 22., 13., 24.]);
    assert_eq!((&a - &b).to_vec::<f32>().unwrap(), vec![-9., -18., -7., -16.]);
    assert_eq!((&a * &b).to_vec::<f32>().unwrap(), vec![10., 40., 30., 80.]);
    assert_eq!((&b / &a).to_vec::<f32>().unwrap(), vec![10., 10., 10. / 3., 5.]);
    assert_eq!((-&a).to_vec::<f32>().unwrap(), vec![-1., -2., -3., -4.]);
    assert_eq!((a.clone() * 2.0 + 1.0).to_vec::<f32>().unwrap(), vec![3., 5., 7., 9.]);
    // owned operands
    let c = a.clone() + b.clone();
    assert_eq!(c.to_vec::<f32>().unwrap(), vec![11., 22., 13., 24.]);

    let m = a.matmul(&a).unwrap();
    assert_eq!(m.to_vec::<f32>().unwrap(), vec![7., 10., 15., 22.]);
    assert_eq!(
        a.transpose(0, 1)
            .unwrap()
            .contiguous()
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![1., 3., 2., 4.]
    );
    assert_eq!(a.sum().unwrap().item().unwrap(), 10.0);
    assert_eq!(a.sum_dims(&[1], false).unwrap().to_vec::<f32>().unwrap(), vec![3., 7.]);
    assert_eq!(a.mean().unwrap().item().unwrap(), 2.5);
    assert_eq!(a.reshape(&[4]).unwrap().shape(), vec![4]);
    assert_eq!(a.unsqueeze(0).unwrap().shape(), vec![1, 2, 2]);
    assert_eq!(a.argmax(1, false).unwrap().to_vec::<i64>().unwrap(), vec![1, 1]);
    let (v, i) = a.max_dim(0, false).unwrap();
    assert_eq!(v.to_vec::<f32>().unwrap(), vec![3., 4.]);
    assert_eq!(i.to_vec::<i64>().unwrap(), vec![1, 1]);
    assert_eq!(
        t(&[-1., 0.5], &[2]).relu().unwrap().to_vec::<f32>().unwrap(),
        vec![0., 0.5]
    );
    let s = t(&[0., 0.], &[2]).softmax(0).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(s, vec![0.5, 0.5]);
    let cat = Tensor::cat(&[&b, &b], 0).unwrap();
    assert_eq!(cat.to_vec::<f32>().unwrap(), vec![10., 20., 10., 20.]);
    assert_eq!(Tensor::stack(&[&b, &b], 0).unwrap().shape(), vec![2, 2]);
    assert_eq!(
        a.gt_scalar(2.5)
            .unwrap()
            .to_dtype(DType::U8)
            .unwrap()
            .to_vec::<u8>()
            .unwrap(),
        vec![0, 0, 1, 1]
    );
    assert_eq!(
        a.clamp(Some(2.0), Some(3.0)).unwrap().to_vec::<f32>().unwrap(),
        vec![2., 2., 3., 3.]
    );
    assert_eq!(format!("{}", b), "tensor([10., 20.])");
}

#[test]
fn int8_and_int16() {
    let a = Tensor::from_slice(&[-128i8, 127, 5], &[3]).unwrap();
    assert_eq!(a.dtype(), DType::I8);
    assert_eq!(a.dtype().name(), "int8");
    assert_eq!(DType::I16.size(), 2);
    assert_eq!(a.to_vec::<i8>().unwrap(), vec![-128, 127, 5]);
    let b = Tensor::from_slice(&[1u8, 2, 3], &[3]).unwrap();
    let s = Tensor::add(&a, &b).unwrap(); // torch: int8 + uint8 -> int16
    assert_eq!(s.dtype(), DType::I16);
    assert_eq!(s.to_vec::<i16>().unwrap(), vec![-127, 129, 8]);
    let w = a.to_dtype(DType::I16).unwrap();
    assert_eq!(w.to_vec::<i16>().unwrap(), vec![-128, 127, 5]);
    assert_eq!(format!("{}", a), "tensor([-128,  127,    5], dtype=torch.int8)");
    assert!(a.to_vec::<i16>().is_err());
}

#[test]
fn clone_shares_and_deep_clone_copies() {
    let a = t(&[1., 2.], &[2]);
    let mut shared = a.clone();
    let deep = a.deep_clone().unwrap();
    shared.fill_(5.0).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![5., 5.]);
    assert_eq!(deep.to_vec::<f32>().unwrap(), vec![1., 2.]);
    let mut z = a.clone();
    z.zero_().unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![0., 0.]);
}

#[test]
fn shape_mismatch_is_an_error_with_torchs_message() {
    let a = t(&[1., 2., 3.], &[3]);
    let b = t(&[1., 2.], &[2]);
    let e = a.add(&b).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Shape);
    assert!(
        e.message()
            .contains("The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
        "{}",
        e.message()
    );
    assert!(e.to_string().starts_with("GLIA_ERR_SHAPE: "), "{}", e);

    let e = t(&[1., 2., 3., 4., 5., 6.], &[2, 3])
        .matmul(&t(&[1., 2., 3., 4.], &[2, 2]))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Shape);
}

#[test]
#[should_panic(expected = "The size of tensor a (3) must match the size of tensor b (2)")]
fn operator_traits_panic_with_glias_message() {
    let _ = &t(&[1., 2., 3.], &[3]) + &t(&[1., 2.], &[2]);
}

#[test]
fn data_errors() {
    // wrong byte count for the shape
    let e = Tensor::from_slice(&[1f32, 2., 3.], &[2, 2]).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(e.message().contains("nbytes"), "{}", e.message());
    // reading as the wrong element type
    let e = t(&[1.], &[1]).to_vec::<f64>().unwrap_err();
    assert_eq!(e.code(), ErrorCode::DType);
    assert!(e.message().contains("float32"), "{}", e.message());
    // item() of a non-scalar
    let e = t(&[1., 2.], &[2]).item().unwrap_err();
    assert_eq!(e.code(), ErrorCode::Shape);
    // negative size
    assert_eq!(Tensor::zeros(&[-1]).unwrap_err().code(), ErrorCode::InvalidArgument);
    // a Rust string with a NUL never reaches C
    let d = glia::TensorDict::new().unwrap();
    assert_eq!(d.get("a\0b").unwrap_err().code(), ErrorCode::InvalidArgument);
    assert_eq!(d.get("missing").unwrap_err().code(), ErrorCode::NotFound);
}

#[test]
fn send_and_sync_where_the_contract_allows() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Tensor>();
    send_sync::<glia::TensorDict>();
    send::<glia::nn::Module>();
    send::<glia::optim::Optimizer>();
    send::<glia::optim::LrScheduler>();

    // reading one tensor from several threads at once, releasing clones on other threads
    let a = std::sync::Arc::new(t(&[1., 2., 3.], &[3]));
    let handles: Vec<_> = (0..4)
        .map(|k| {
            let a = a.clone();
            std::thread::spawn(move || {
                let s = (&*a * (k as f64)).sum().unwrap().item().unwrap();
                let moved = (*a).clone();
                drop(moved);
                s
            })
        })
        .collect();
    let sums: Vec<f64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(sums, vec![0., 6., 12., 18.]);
}
