//! glia::distributed: stores, a process group of two ranks as two threads of
//! this process (each with its own store and group, on 127.0.0.1), the
//! collectives, DistributedDataParallel against one process training on the
//! whole batch, SyncBatchNorm, and errors with their exact codes and messages.
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use glia::distributed::{
    self, BuiltinCommHook, DdpOptions, DistributedDataParallel, ProcessGroup, ProcessGroupOptions, ReduceOp, Store,
};
use glia::nn::{self, Module};
use glia::optim::{Optimizer, SgdOptions};
use glia::{no_grad, Device, ErrorCode, Tensor};

/// A fresh directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);
impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("glia-rust-dist-{}-{}", name, std::process::id()));
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

/// Skips (returns true after saying so) where glia was built without Gloo.
fn no_gloo() -> bool {
    if distributed::is_gloo_available() {
        return false;
    }
    eprintln!("skipped: glia was built without Gloo (libgloo-dev): process groups not tested");
    true
}

/// Runs `body(rank)` for ranks 0 and 1 on two threads; returns their results in rank order.
fn run_two<T: Send + 'static>(body: impl Fn(i64) -> T + Send + Sync + 'static) -> Vec<T> {
    let body = Arc::new(body);
    let handles: Vec<_> = (0..2)
        .map(|r| {
            let b = Arc::clone(&body);
            thread::spawn(move || b(r))
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("a rank panicked"))
        .collect()
}

fn group_of(dir: &PathBuf, rank: i64) -> ProcessGroup {
    let store = Store::file(dir.join("store"), 2).unwrap();
    let o = ProcessGroupOptions {
        hostname: Some("127.0.0.1".into()),
        timeout: Duration::from_secs(60),
        ..Default::default()
    };
    ProcessGroup::new(&store, rank, 2, &o).unwrap()
}

fn f32s(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

#[test]
fn collectives_of_two_ranks() {
    if no_gloo() {
        return;
    }
    let dir = TempDir::new("collectives");
    let path = dir.0.clone();
    run_two(move |rank| {
        let g = group_of(&path, rank);
        assert_eq!((g.rank(), g.size()), (rank, 2));
        let r = rank as f32;
        let fresh = || Tensor::from_slice(&[r + 1., 10. * (r + 1.), -r], &[3]).unwrap();

        let mut t = fresh();
        g.all_reduce(&mut t, ReduceOp::Sum).unwrap();
        assert_eq!(f32s(&t), vec![3., 30., -1.]);
        let mut t = fresh();
        g.all_reduce(&mut t, ReduceOp::Avg).unwrap();
        assert_eq!(f32s(&t), vec![1.5, 15., -0.5]);
        let mut t = fresh();
        g.all_reduce(&mut t, ReduceOp::Max).unwrap();
        assert_eq!(f32s(&t), vec![2., 20., 0.]);
        let mut t = fresh();
        g.all_reduce(&mut t, ReduceOp::Min).unwrap();
        assert_eq!(f32s(&t), vec![1., 10., -1.]);
        let mut i = Tensor::from_slice(&[rank + 2, rank + 3], &[2]).unwrap();
        g.all_reduce(&mut i, ReduceOp::Product).unwrap();
        assert_eq!(i.to_vec::<i64>().unwrap(), vec![6, 12]);

        let mut b = Tensor::full(&[2], 7. + rank as f64).unwrap();
        g.broadcast(&mut b, 1).unwrap();
        assert_eq!(f32s(&b), vec![8., 8.]);

        let mut red = Tensor::from_slice(&[r, r + 1.], &[2]).unwrap();
        g.reduce(&mut red, 0, ReduceOp::Sum).unwrap();
        assert_eq!(f32s(&red), if rank == 0 { vec![1., 3.] } else { vec![1., 2.] });

        let mut gathered = vec![Tensor::zeros(&[2]).unwrap(), Tensor::zeros(&[2]).unwrap()];
        g.all_gather(&mut gathered, &Tensor::from_slice(&[r, r + 0.5], &[2]).unwrap())
            .unwrap();
        assert_eq!(f32s(&gathered[0]), vec![0., 0.5]);
        assert_eq!(f32s(&gathered[1]), vec![1., 1.5]);

        let mut out = Tensor::zeros(&[2]).unwrap();
        let inputs = [
            Tensor::full(&[2], 1. + rank as f64).unwrap(),
            Tensor::full(&[2], 10. * (1. + rank as f64)).unwrap(),
        ];
        g.reduce_scatter(&mut out, &inputs, ReduceOp::Sum).unwrap();
        assert_eq!(f32s(&out), if rank == 0 { vec![3., 3.] } else { vec![30., 30.] });

        g.barrier().unwrap();

        // async_op=True
        let mut a = Tensor::from_slice(&[r, 2. * r], &[2]).unwrap();
        let w = g.all_reduce_async(&mut a, ReduceOp::Sum).unwrap();
        w.wait(Some(Duration::from_secs(30))).unwrap();
        assert!(w.is_completed());
        assert_eq!(f32s(&a), vec![1., 2.]);
        let bw = g.barrier_async().unwrap();
        bw.wait(None).unwrap();
        assert!(bw.is_completed());

        // argument errors come back at once and change nothing
        let mut outs = vec![Tensor::zeros(&[2]).unwrap(), Tensor::zeros(&[2]).unwrap()];
        let e = g.all_gather(&mut outs, &Tensor::zeros(&[3]).unwrap()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Shape);
        assert_eq!(
            e.message(),
            "ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected [3], got [2])"
        );
        let mut ints = Tensor::from_slice(&[1i64], &[1]).unwrap();
        let e = g.all_reduce(&mut ints, ReduceOp::Avg).unwrap_err();
        assert_eq!(e.code(), ErrorCode::DType);
        g.barrier().unwrap();
    });
}

#[test]
fn stores_tcp_on_port_zero_file_and_prefix() {
    let server = Store::tcp("127.0.0.1", 0, true, Duration::from_secs(20)).unwrap();
    let port = server.port().unwrap();
    assert!(port > 0);
    let mut client = Store::tcp("127.0.0.1", port, false, Duration::from_secs(20)).unwrap();
    assert_eq!(client.port().unwrap(), port);

    server.set("k", b"v\0w").unwrap();
    assert_eq!(client.get("k").unwrap(), b"v\0w".to_vec());
    assert_eq!(client.add("n", 2).unwrap(), 2);
    assert_eq!(server.add("n", 3).unwrap(), 5);
    assert_eq!(client.get("n").unwrap(), b"5".to_vec());
    assert_eq!(client.compare_set("n", "4", "9").unwrap(), b"5".to_vec());
    assert_eq!(client.compare_set("n", "5", "9").unwrap(), b"9".to_vec());
    assert_eq!(client.compare_set("fresh", "", "x").unwrap(), b"x".to_vec());
    let big = vec![b'b'; 1000];
    client.set("big", &big).unwrap();
    assert_eq!(server.get("big").unwrap(), big);
    assert!(server.check(&["k", "n"]).unwrap());
    assert!(!server.check(&["k", "absent"]).unwrap());
    assert_eq!(server.num_keys().unwrap(), 4);
    assert!(client.delete_key("big").unwrap());
    assert!(!client.delete_key("big").unwrap());
    assert_eq!(server.num_keys().unwrap(), 3);

    let prefixed = Store::prefix("run1", &client).unwrap();
    prefixed.set("a", "1").unwrap();
    assert_eq!(server.get("run1/a").unwrap(), b"1".to_vec());
    prefixed.wait(&["a"], Some(Duration::from_secs(1))).unwrap();

    let e = client
        .wait(&["k", "never"], Some(Duration::from_millis(100)))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io);
    assert_eq!(
        e.message(),
        format!(
            "TCPStore: timed out after 100 ms waiting for keys [never] (server 127.0.0.1:{})",
            port
        )
    );
    client.set_timeout(Duration::from_millis(100)).unwrap();
    let e = client.get("never").unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io);
    assert_eq!(
        e.message(),
        format!(
            "TCPStore: timed out after 100 ms waiting for keys [never] (server 127.0.0.1:{})",
            port
        )
    );
    assert_eq!(client.add("k", 1).unwrap_err().code(), ErrorCode::InvalidArgument);

    let dir = TempDir::new("stores");
    let file = Store::file(dir.0.join("fs"), 1).unwrap();
    file.set("x", "y").unwrap();
    assert_eq!(file.get("x").unwrap(), b"y".to_vec());
    let e = file.wait(&["z"], Some(Duration::from_millis(50))).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io);
    assert_eq!(
        e.message(),
        format!(
            "FileStore: timed out after 50 ms waiting for keys [z] in '{}'",
            dir.0.join("fs").display()
        )
    );
    assert_eq!(file.port().unwrap_err().code(), ErrorCode::InvalidArgument);
    let e = Store::tcp("127.0.0.1", 0, false, Duration::from_secs(1)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
}

#[test]
fn process_group_over_a_tcp_store_with_its_queried_port() {
    if no_gloo() {
        return;
    }
    let server = Store::tcp("127.0.0.1", 0, true, Duration::from_secs(20)).unwrap();
    let port = server.port().unwrap();
    run_two(move |rank| {
        let s = if rank == 0 {
            server.clone()
        } else {
            Store::tcp("127.0.0.1", port, false, Duration::from_secs(20)).unwrap()
        };
        let o = ProcessGroupOptions {
            hostname: Some("127.0.0.1".into()),
            group_name: Some("tcp_group".into()),
            ..Default::default()
        };
        let g = ProcessGroup::new(&s, rank, 2, &o).unwrap();
        let mut t = Tensor::full(&[3], rank as f64 + 1.).unwrap();
        g.all_reduce(&mut t, ReduceOp::Min).unwrap();
        assert_eq!(f32s(&t), vec![1., 1., 1.]);
    });
}

#[test]
fn process_group_from_env_names_the_missing_variable() {
    if no_gloo() || std::env::var_os("MASTER_ADDR").is_some() {
        return;
    }
    let e = ProcessGroup::from_env(&ProcessGroupOptions::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert_eq!(
        e.message(),
        "glia_process_group_create_from_env: environment variable MASTER_ADDR expected, but not set"
    );
}

/// A Linear(3, 2) with fixed parameters, the same on every rank.
fn fixed_linear() -> Module {
    let m = nn::linear(3, 2, true).unwrap();
    no_grad(|| {
        m.parameter("weight")
            .unwrap()
            .copy_(&Tensor::from_slice(&[0.1f32, -0.2, 0.3, 0.4, 0.5, -0.6], &[2, 3]).unwrap())
            .unwrap();
        m.parameter("bias")
            .unwrap()
            .copy_(&Tensor::from_slice(&[0.05f32, -0.05], &[2]).unwrap())
            .unwrap();
    });
    m
}

const X: [f32; 24] = [
    0.1, 0.2, 0.3, -1., 0.5, 2., 0.7, 0.8, -0.9, 1., 1.1, 1.2, 1.3, -1.4, 1.5, 1.6, 1.7, 1.8, -1.9, 2., 2.1, 2.2, 2.3,
    -2.4,
];
const Y: [f32; 16] = [1., 0., 0., 1., 1., 1., -1., 0., 0.5, 0.5, 2., -1., 0., 0., 1., -2.];

/// Rows [start, start + n) of a row-major matrix of `width` columns.
fn rows(v: &[f32], width: usize, start: usize, n: usize) -> Tensor {
    Tensor::from_slice(&v[start * width..(start + n) * width], &[n as i64, width as i64]).unwrap()
}

fn sgd_steps(model: &Module, x: &Tensor, y: &Tensor, steps: usize) {
    let mut opt = Optimizer::sgd(
        &model.parameters(),
        &SgdOptions {
            lr: 0.1,
            ..Default::default()
        },
    )
    .unwrap();
    for _ in 0..steps {
        opt.zero_grad().unwrap();
        let mut loss = model.forward(x).unwrap().mse_loss(y).unwrap();
        loss.backward().unwrap();
        opt.step().unwrap();
    }
}

fn assert_close(a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= tol, "element {}: {} vs {}", i, x, y);
    }
}

#[test]
fn ddp_matches_one_process_training_on_the_whole_batch() {
    if no_gloo() {
        return;
    }
    let reference = fixed_linear();
    sgd_steps(&reference, &rows(&X, 3, 0, 8), &rows(&Y, 2, 0, 8), 3);
    let ref_w = f32s(&reference.parameter("weight").unwrap());
    let ref_b = f32s(&reference.parameter("bias").unwrap());

    let dir = TempDir::new("ddp");
    let path = dir.0.clone();
    let results = run_two(move |rank| {
        let g = group_of(&path, rank);
        let model = fixed_linear();
        if rank == 1 {
            // DDP broadcasts rank 0's parameters
            no_grad(|| model.parameter("weight").unwrap().fill_(5.).unwrap());
        }
        let o = DdpOptions {
            bucket_cap_mb: 1.0,
            ..Default::default()
        };
        let ddp = DistributedDataParallel::new(&model, &g, &o).unwrap();
        assert_eq!(ddp.type_name(), "DistributedDataParallel");
        assert_eq!(ddp.bucket_count().unwrap(), 1);
        assert_eq!(ddp.bucket_parameters(0).unwrap(), vec![0, 1]);
        let e = ddp.bucket_parameters(1).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert_eq!(
            e.message(),
            "glia_ddp_bucket_parameters: bucket_index 1 is out of range for 1 buckets"
        );
        let (r, s) = (rank as usize * 4, 4);
        sgd_steps(&ddp, &rows(&X, 3, r, s), &rows(&Y, 2, r, s), 3);
        let w = f32s(&model.parameter("weight").unwrap());
        let b = f32s(&model.parameter("bias").unwrap());

        // no_sync: local gradients only, different on the two ranks; synchronised again afterwards
        let (x, y) = (rows(&X, 3, r, s), rows(&Y, 2, r, s));
        let gathered_grads = || {
            let mut all = vec![Tensor::zeros(&[2, 3]).unwrap(), Tensor::zeros(&[2, 3]).unwrap()];
            let grad = model.parameter("weight").unwrap().grad().unwrap();
            g.all_gather(&mut all, &grad).unwrap();
            (f32s(&all[0]), f32s(&all[1]))
        };
        ddp.zero_grad().unwrap();
        assert!(ddp.require_backward_grad_sync().unwrap());
        ddp.no_sync(|| {
            // torch's no_sync restores the flag it found: a nested one leaves it off
            ddp.no_sync(|| ()).unwrap();
            assert!(!ddp.require_backward_grad_sync().unwrap());
            ddp.forward(&x).unwrap().mse_loss(&y).unwrap().backward().unwrap()
        })
        .unwrap();
        assert!(ddp.require_backward_grad_sync().unwrap());
        let (l0, l1) = gathered_grads();
        assert_ne!(l0, l1);
        ddp.zero_grad().unwrap();
        ddp.forward(&x).unwrap().mse_loss(&y).unwrap().backward().unwrap();
        let (s0, s1) = gathered_grads();
        assert_eq!(s0, s1);

        ddp.register_builtin_comm_hook(BuiltinCommHook::Fp16Compress).unwrap();
        let e = ddp.register_builtin_comm_hook(BuiltinCommHook::AllReduce).unwrap_err();
        assert_eq!(e.code(), ErrorCode::State);
        assert_eq!(
            e.message(),
            "register_comm_hook or register_builtin_comm_hook can only be called once."
        );
        (w, b)
    });
    assert_eq!(results[0], results[1]);
    assert_close(&results[0].0, &ref_w, 1e-5);
    assert_close(&results[0].1, &ref_b, 1e-5);
}

#[test]
fn ddp_with_a_rust_comm_hook() {
    if no_gloo() {
        return;
    }
    let reference = fixed_linear();
    sgd_steps(&reference, &rows(&X, 3, 0, 8), &rows(&Y, 2, 0, 8), 3);
    let ref_w = f32s(&reference.parameter("weight").unwrap());

    let dir = TempDir::new("hook");
    let path = dir.0.clone();
    let results = run_two(move |rank| {
        let g = group_of(&path, rank);
        let model = fixed_linear();
        let ddp = DistributedDataParallel::new(&model, &g, &DdpOptions::default()).unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let (hook_group, hook_calls) = (g.clone(), Arc::clone(&calls));
        ddp.register_comm_hook(move |bucket, index, count| {
            assert_eq!((index, count), (0, 1));
            hook_calls.fetch_add(1, Ordering::SeqCst);
            hook_group.all_reduce(bucket, ReduceOp::Avg)
        })
        .unwrap();
        let r = rank as usize * 4;
        sgd_steps(&ddp, &rows(&X, 3, r, 4), &rows(&Y, 2, r, 4), 3);
        // a hook's error fails the backward with GLIA_ERR_CALLBACK
        let ddp2 = DistributedDataParallel::new(&fixed_linear(), &g, &DdpOptions::default()).unwrap();
        ddp2.register_comm_hook(|_, _, _| Err(glia::Error::new(ErrorCode::Io, "hook says no")))
            .unwrap();
        let e = ddp2
            .forward(&rows(&X, 3, 0, 4))
            .unwrap()
            .sum()
            .unwrap()
            .backward()
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::Callback);
        assert!(e.message().contains("hook says no"), "{}", e.message());
        (calls.load(Ordering::SeqCst), f32s(&model.parameter("weight").unwrap()))
    });
    assert_eq!((results[0].0, results[1].0), (3, 3));
    assert_eq!(results[0].1, results[1].1);
    assert_close(&results[0].1, &ref_w, 1e-5);
}

#[test]
fn sync_batch_norm_uses_the_statistics_of_both_ranks() {
    if no_gloo() {
        return;
    }
    let dir = TempDir::new("syncbn");
    let path = dir.0.clone();
    run_two(move |rank| {
        let g = group_of(&path, rank);
        let bn = nn::sync_batch_norm(1, None, Some(&g)).unwrap();
        assert_eq!(bn.type_name(), "SyncBatchNorm");
        // rank 0: [0, 2], rank 1: [4, 6]; the mean of all four is 3, their biased variance 5
        let r = rank as f32;
        let x = Tensor::from_slice(&[4. * r, 4. * r + 2.], &[2, 1]).unwrap();
        let s = (5.0f64 + 1e-5).sqrt() as f32;
        assert_close(
            &f32s(&bn.forward(&x).unwrap()),
            &[(4. * r - 3.) / s, (4. * r - 1.) / s],
            1e-6,
        );
        // without a group it is BatchNorm of this rank's batch
        distributed::set_sync_batch_norm_process_group(&bn, None).unwrap();
        let s1 = (1.0f64 + 1e-5).sqrt() as f32;
        assert_close(&f32s(&bn.forward(&x).unwrap()), &[-1. / s1, 1. / s1], 1e-6);
    });
}

#[test]
fn data_parallel_without_devices_and_its_device_errors() {
    let lin = fixed_linear();
    let dp = nn::data_parallel(&lin, &[], None, 0).unwrap();
    assert_eq!(dp.type_name(), "DataParallel");
    let x = rows(&X, 3, 0, 4);
    assert_eq!(f32s(&dp.forward(&x).unwrap()), f32s(&lin.forward(&x).unwrap()));
    let e = nn::data_parallel(&lin, &[Device::Cpu], None, 0).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Device);
    assert_eq!(
        e.message(),
        "DataParallel: device_ids[0] is the CPU; DataParallel replicates over the devices of a backend (cuda or another loaded one), pass no device_ids to run on the CPU"
    );
}
