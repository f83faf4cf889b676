//! Distributed training (`torch.distributed`, `docs/distributed.md`): key-value
//! [`Store`]s for rendezvous, [`ProcessGroup`]s with their collectives,
//! [`DistributedDataParallel`], [`sync_batch_norm`] and [`data_parallel`].
//!
//! ```no_run
//! use glia::distributed::{DdpOptions, DistributedDataParallel, ProcessGroup, ProcessGroupOptions, ReduceOp, Store};
//! # fn main() -> glia::Result<()> {
//! # let (rank, world_size) = (0, 2);
//! let store = Store::file("/tmp/run-42/store", world_size)?;
//! let group = ProcessGroup::new(&store, rank, world_size, &ProcessGroupOptions::default())?;
//! let mut t = glia::Tensor::ones(&[4])?;
//! group.all_reduce(&mut t, ReduceOp::Sum)?; // every rank: [2, 2, 2, 2]
//! let ddp = DistributedDataParallel::new(&glia::nn::linear(10, 1, true)?, &group, &DdpOptions::default())?;
//! # Ok(()) }
//! ```
//!
//! Stores, process groups and works are `Send + Sync`: glia serializes their
//! calls internally (a group queues its collectives on its own thread, in the
//! order they were called; every rank must call the same collectives in the
//! same order). Several ranks may live in one process, each with its own
//! store and group (the binding's tests run two ranks as two threads).
use std::ffi::CString;
use std::fmt;
use std::ops::Deref;
use std::os::raw::c_char;
use std::path::Path;
use std::ptr::{self, NonNull};
use std::time::Duration;

use crate::dict::path_cstring;
use crate::nn::Module;
use crate::sys;
use crate::{check, cstring, free_boxed, run_callback, Device, Error, ErrorCode, Result, Tensor};

/// `torch.distributed.is_gloo_available()`: whether this build of glia has
/// the Gloo backend (without it, creating a process group is
/// `GLIA_ERR_UNSUPPORTED`).
pub fn is_gloo_available() -> bool {
    let mut v = 0i32;
    check(unsafe { sys::glia_dist_is_gloo_available(&mut v) }).is_ok() && v != 0
}

fn millis(d: Duration) -> i64 {
    d.as_millis().min(i64::MAX as u128) as i64
}

// ---- stores ----------------------------------------------------------------------------

/// A key-value store for rendezvous (torch's `Store`): a file, TCP, prefix
/// or Redis store. `Clone` adds a reference to the same store.
pub struct Store {
    raw: NonNull<sys::glia_store>,
}

unsafe impl Send for Store {}
unsafe impl Sync for Store {}

fn new_store(f: impl FnOnce(*mut *mut sys::glia_store) -> *mut sys::glia_error) -> Result<Store> {
    let mut out = ptr::null_mut();
    check(f(&mut out))?;
    match NonNull::new(out) {
        Some(raw) => Ok(Store { raw }),
        None => Err(Error::new(ErrorCode::Internal, "glia returned no store")),
    }
}

/// Reads a value the C way: into a buffer, with the full length returned (a
/// second call when it did not fit).
fn read_value(f: impl Fn(*mut sys::c_void, usize, *mut usize) -> *mut sys::glia_error) -> Result<Vec<u8>> {
    let mut buf = vec![0u8; 64];
    let mut n = 0usize;
    check(f(buf.as_mut_ptr() as *mut sys::c_void, buf.len(), &mut n))?;
    if n > buf.len() {
        buf = vec![0u8; n];
        check(f(buf.as_mut_ptr() as *mut sys::c_void, buf.len(), &mut n))?;
    }
    buf.truncate(n);
    Ok(buf)
}

fn c_keys(keys: &[&str]) -> Result<(Vec<CString>, Vec<*const c_char>)> {
    let owned = keys.iter().map(|k| cstring(k)).collect::<Result<Vec<_>>>()?;
    let ptrs = owned.iter().map(|k| k.as_ptr()).collect();
    Ok((owned, ptrs))
}

impl Store {
    /// torch's `FileStore(path, num_workers)`: a file shared by the processes
    /// (the last of `num_workers` stores to be dropped removes it; -1: never).
    pub fn file(path: impl AsRef<Path>, num_workers: i64) -> Result<Store> {
        let p = path_cstring(path.as_ref())?;
        new_store(|o| unsafe { sys::glia_store_file_create(p.as_ptr(), num_workers, o) })
    }
    /// torch's `TCPStore(host, port, is_master, timeout)`: a server binds
    /// `port` (0: a free one, see [`Store::port`]); every store connects to
    /// it, retrying for `timeout`.
    pub fn tcp(host: &str, port: u16, is_server: bool, timeout: Duration) -> Result<Store> {
        let h = cstring(host)?;
        new_store(|o| unsafe {
            sys::glia_store_tcp_create(h.as_ptr(), i32::from(port), is_server as i32, millis(timeout), o)
        })
    }
    /// torch's `PrefixStore(prefix, store)`: keys become `"<prefix>/<key>"` in `store`.
    pub fn prefix(prefix: &str, store: &Store) -> Result<Store> {
        let p = cstring(prefix)?;
        new_store(|o| unsafe { sys::glia_store_prefix_create(p.as_ptr(), store.as_ptr(), o) })
    }
    /// A store in a Redis server at `host:port` (commands time out after `timeout`).
    pub fn redis(host: &str, port: u16, timeout: Duration) -> Result<Store> {
        let h = cstring(host)?;
        new_store(|o| unsafe { sys::glia_store_redis_create(h.as_ptr(), i32::from(port), millis(timeout), o) })
    }

    /// The handle (still owned by `self`).
    pub fn as_ptr(&self) -> *mut sys::glia_store {
        self.raw.as_ptr()
    }

    /// The port of a TCP store: the bound one for a server made with port 0
    /// (`TCPStore.port`); `GLIA_ERR_INVALID_ARGUMENT` for another kind of store.
    pub fn port(&self) -> Result<u16> {
        let mut p = 0i32;
        check(unsafe { sys::glia_store_tcp_port(self.as_ptr(), &mut p) })?;
        Ok(p as u16)
    }
    /// `set(key, value)`: any bytes.
    pub fn set(&self, key: &str, value: impl AsRef<[u8]>) -> Result<()> {
        let k = cstring(key)?;
        let v = value.as_ref();
        check(unsafe { sys::glia_store_set(self.as_ptr(), k.as_ptr(), v.as_ptr() as *const sys::c_void, v.len()) })
    }
    /// `get(key)`: waits up to the store's timeout for the key
    /// (`GLIA_ERR_IO` after it, naming the key).
    pub fn get(&self, key: &str) -> Result<Vec<u8>> {
        let k = cstring(key)?;
        read_value(|b, c, n| unsafe { sys::glia_store_get(self.as_ptr(), k.as_ptr(), b, c, n) })
    }
    /// `add(key, amount)`: the value is a decimal integer (absent: 0); stores
    /// and returns value + amount.
    pub fn add(&self, key: &str, amount: i64) -> Result<i64> {
        let k = cstring(key)?;
        let mut v = 0i64;
        check(unsafe { sys::glia_store_add(self.as_ptr(), k.as_ptr(), amount, &mut v) })?;
        Ok(v)
    }
    /// `compare_set(key, expected, desired)`: sets `desired` when the value is
    /// `expected` (or the key is absent and `expected` is empty); returns the
    /// value the key has afterwards.
    pub fn compare_set(&self, key: &str, expected: impl AsRef<[u8]>, desired: impl AsRef<[u8]>) -> Result<Vec<u8>> {
        let k = cstring(key)?;
        let (e, d) = (expected.as_ref(), desired.as_ref());
        read_value(|b, c, n| unsafe {
            sys::glia_store_compare_set(
                self.as_ptr(),
                k.as_ptr(),
                e.as_ptr() as *const sys::c_void,
                e.len(),
                d.as_ptr() as *const sys::c_void,
                d.len(),
                b,
                c,
                n,
            )
        })
    }
    /// `wait(keys, timeout)`: returns when every key exists (`None`: the
    /// store's timeout); `GLIA_ERR_IO` after it, naming the missing keys.
    pub fn wait(&self, keys: &[&str], timeout: Option<Duration>) -> Result<()> {
        let (_owned, k) = c_keys(keys)?;
        let ms = timeout.map_or(-1, millis);
        check(unsafe { sys::glia_store_wait(self.as_ptr(), k.as_ptr(), k.len() as i64, ms) })
    }
    /// `check(keys)`: whether every key exists now.
    pub fn check(&self, keys: &[&str]) -> Result<bool> {
        let (_owned, k) = c_keys(keys)?;
        let mut r = 0i32;
        check(unsafe { sys::glia_store_check(self.as_ptr(), k.as_ptr(), k.len() as i64, &mut r) })?;
        Ok(r != 0)
    }
    /// `delete_key(key)`: whether the key existed.
    pub fn delete_key(&self, key: &str) -> Result<bool> {
        let k = cstring(key)?;
        let mut r = 0i32;
        check(unsafe { sys::glia_store_delete_key(self.as_ptr(), k.as_ptr(), &mut r) })?;
        Ok(r != 0)
    }
    /// `num_keys()` (a prefix store counts its whole store's, as torch's).
    pub fn num_keys(&self) -> Result<i64> {
        let mut n = 0i64;
        check(unsafe { sys::glia_store_num_keys(self.as_ptr(), &mut n) })?;
        Ok(n)
    }
    /// `set_timeout(timeout)`: the timeout of `get` and `wait` (> 0).
    pub fn set_timeout(&mut self, timeout: Duration) -> Result<()> {
        check(unsafe { sys::glia_store_set_timeout(self.as_ptr(), millis(timeout)) })
    }
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Store({:p})", self.raw)
    }
}

impl Clone for Store {
    fn clone(&self) -> Store {
        check(unsafe { sys::glia_store_retain(self.as_ptr()) }).expect("glia_store_retain");
        Store { raw: self.raw }
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        unsafe { sys::glia_error_free(sys::glia_store_release(self.as_ptr())) };
    }
}

// ---- process groups ----------------------------------------------------------------------

/// `torch.distributed.ReduceOp`. `Avg` takes floating tensors only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The elementwise sum over the ranks.
    Sum,
    /// The elementwise mean over the ranks.
    Avg,
    /// The elementwise product.
    Product,
    /// The elementwise minimum.
    Min,
    /// The elementwise maximum.
    Max,
}

impl ReduceOp {
    /// The C value (`glia_reduce_op`).
    pub fn to_raw(self) -> sys::glia_reduce_op {
        match self {
            ReduceOp::Sum => sys::GLIA_REDUCE_SUM,
            ReduceOp::Avg => sys::GLIA_REDUCE_AVG,
            ReduceOp::Product => sys::GLIA_REDUCE_PRODUCT,
            ReduceOp::Min => sys::GLIA_REDUCE_MIN,
            ReduceOp::Max => sys::GLIA_REDUCE_MAX,
        }
    }
}

/// Process-group backends (torch's `Backend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// CPU tensors over TCP.
    Gloo,
    /// CUDA tensors (not built yet: `GLIA_ERR_UNSUPPORTED`).
    Nccl,
}

/// Options of a process group; `Default` is glia's (torch's, with a 5-minute timeout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessGroupOptions {
    /// The backend (Gloo).
    pub backend: Backend,
    /// Every collective's (and the rendezvous') timeout (5 minutes).
    pub timeout: Duration,
    /// The address this rank's sockets bind to (`None`: this host's name when
    /// it resolves to a bindable address, else 127.0.0.1).
    pub hostname: Option<String>,
    /// Or a network interface (`"lo"`, `"eth0"`; `None`: `GLOO_SOCKET_IFNAME`).
    pub iface: Option<String>,
    /// The rendezvous keys live under `"<group_name>/"` (`None`: `"default"`).
    pub group_name: Option<String>,
}

impl Default for ProcessGroupOptions {
    fn default() -> Self {
        let mut o = std::mem::MaybeUninit::<sys::glia_process_group_options>::uninit();
        let o = unsafe {
            sys::glia_process_group_options_init(o.as_mut_ptr());
            o.assume_init()
        };
        ProcessGroupOptions {
            backend: if o.backend == sys::GLIA_DIST_BACKEND_NCCL {
                Backend::Nccl
            } else {
                Backend::Gloo
            },
            timeout: Duration::from_millis(o.timeout_ms.max(0) as u64),
            hostname: None,
            iface: None,
            group_name: None,
        }
    }
}

fn optional_cstring(s: &Option<String>) -> Result<Option<CString>> {
    s.as_deref().map(cstring).transpose()
}

fn opt_ptr(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(ptr::null(), |c| c.as_ptr())
}

impl ProcessGroupOptions {
    fn with_c<R>(&self, f: impl FnOnce(&sys::glia_process_group_options) -> R) -> Result<R> {
        let (host, iface, name) = (
            optional_cstring(&self.hostname)?,
            optional_cstring(&self.iface)?,
            optional_cstring(&self.group_name)?,
        );
        let mut o = std::mem::MaybeUninit::<sys::glia_process_group_options>::uninit();
        let mut o = unsafe {
            sys::glia_process_group_options_init(o.as_mut_ptr());
            o.assume_init()
        };
        o.backend = match self.backend {
            Backend::Gloo => sys::GLIA_DIST_BACKEND_GLOO,
            Backend::Nccl => sys::GLIA_DIST_BACKEND_NCCL,
        };
        o.timeout_ms = millis(self.timeout);
        o.hostname = opt_ptr(&host);
        o.iface = opt_ptr(&iface);
        o.group_name = opt_ptr(&name);
        Ok(f(&o))
    }
}

/// A process group (torch's `ProcessGroup`). Every collective works in place,
/// as torch's; the plain form waits for it (`async_op=False`), the `_async`
/// form returns a [`Work`] (`async_op=True`): the tensors must not be used
/// until its [`Work::wait`] succeeds. `Clone` adds a reference to the same group.
pub struct ProcessGroup {
    raw: NonNull<sys::glia_process_group>,
}

unsafe impl Send for ProcessGroup {}
unsafe impl Sync for ProcessGroup {}

fn new_group(f: impl FnOnce(*mut *mut sys::glia_process_group) -> *mut sys::glia_error) -> Result<ProcessGroup> {
    let mut out = ptr::null_mut();
    check(f(&mut out))?;
    match NonNull::new(out) {
        Some(raw) => Ok(ProcessGroup { raw }),
        None => Err(Error::new(ErrorCode::Internal, "glia returned no process group")),
    }
}

/// The handle of a collective in flight (torch's `Work`).
pub struct Work {
    raw: NonNull<sys::glia_work>,
}

unsafe impl Send for Work {}
unsafe impl Sync for Work {}

impl Work {
    /// `Work.wait(timeout)`: waits until the collective completes and returns
    /// its error (`None`: as long as it runs; it has its own timeout).
    /// `GLIA_ERR_IO` when `timeout` passes first (the collective goes on).
    pub fn wait(&self, timeout: Option<Duration>) -> Result<()> {
        check(unsafe { sys::glia_work_wait(self.raw.as_ptr(), timeout.map_or(-1, millis)) })
    }
    /// `Work.is_completed()`: whether the collective finished (successfully or not).
    pub fn is_completed(&self) -> bool {
        let mut r = 0i32;
        check(unsafe { sys::glia_work_is_completed(self.raw.as_ptr(), &mut r) }).expect("glia_work_is_completed");
        r != 0
    }
}

impl fmt::Debug for Work {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Work({:p})", self.raw)
    }
}

impl Clone for Work {
    fn clone(&self) -> Work {
        check(unsafe { sys::glia_work_retain(self.raw.as_ptr()) }).expect("glia_work_retain");
        Work { raw: self.raw }
    }
}

impl Drop for Work {
    /// Releases the handle; the collective runs to its end regardless.
    fn drop(&mut self) {
        unsafe { sys::glia_error_free(sys::glia_work_release(self.raw.as_ptr())) };
    }
}

/// Runs a collective: `out` NULL waits for it, else returns its work.
fn launch(f: impl FnOnce(*mut *mut sys::glia_work) -> *mut sys::glia_error) -> Result<Work> {
    let mut out = ptr::null_mut();
    check(f(&mut out))?;
    match NonNull::new(out) {
        Some(raw) => Ok(Work { raw }),
        None => Err(Error::new(ErrorCode::Internal, "glia returned no work")),
    }
}

fn raw_tensors(ts: &[Tensor]) -> Vec<*mut sys::glia_tensor> {
    ts.iter().map(|t| t.as_ptr()).collect()
}

impl ProcessGroup {
    /// `init_process_group(backend, store=store, rank, world_size)`: waits for
    /// every rank up to the timeout and connects to each.
    pub fn new(store: &Store, rank: i64, world_size: i64, options: &ProcessGroupOptions) -> Result<ProcessGroup> {
        options.with_c(|o| {
            new_group(|out| unsafe { sys::glia_process_group_create(store.as_ptr(), rank, world_size, o, out) })
        })?
    }
    /// `init_process_group(backend, init_method="env://")`: reads
    /// `MASTER_ADDR`, `MASTER_PORT`, `RANK` and `WORLD_SIZE` (what `glia-run`
    /// sets); rank 0 serves a TCP store on `MASTER_PORT`.
    pub fn from_env(options: &ProcessGroupOptions) -> Result<ProcessGroup> {
        options.with_c(|o| new_group(|out| unsafe { sys::glia_process_group_create_from_env(o, out) }))?
    }

    /// The handle (still owned by `self`).
    pub fn as_ptr(&self) -> *mut sys::glia_process_group {
        self.raw.as_ptr()
    }
    /// `get_rank(group)`.
    pub fn rank(&self) -> i64 {
        let mut r = 0i64;
        check(unsafe { sys::glia_process_group_rank(self.as_ptr(), &mut r) }).expect("glia_process_group_rank");
        r
    }
    /// `get_world_size(group)`.
    pub fn size(&self) -> i64 {
        let mut n = 0i64;
        check(unsafe { sys::glia_process_group_size(self.as_ptr(), &mut n) }).expect("glia_process_group_size");
        n
    }

    /// `all_reduce(tensor, op)`, in place on every rank.
    pub fn all_reduce(&self, tensor: &mut Tensor, op: ReduceOp) -> Result<()> {
        check(unsafe {
            sys::glia_process_group_all_reduce(self.as_ptr(), tensor.as_ptr(), op.to_raw(), ptr::null_mut())
        })
    }
    /// `all_reduce(tensor, op, async_op=True)`.
    pub fn all_reduce_async(&self, tensor: &mut Tensor, op: ReduceOp) -> Result<Work> {
        launch(|w| unsafe { sys::glia_process_group_all_reduce(self.as_ptr(), tensor.as_ptr(), op.to_raw(), w) })
    }
    /// `broadcast(tensor, src=root)`: root's tensor is copied into every rank's.
    pub fn broadcast(&self, tensor: &mut Tensor, root: i64) -> Result<()> {
        check(unsafe { sys::glia_process_group_broadcast(self.as_ptr(), tensor.as_ptr(), root, ptr::null_mut()) })
    }
    /// `broadcast(tensor, src=root, async_op=True)`.
    pub fn broadcast_async(&self, tensor: &mut Tensor, root: i64) -> Result<Work> {
        launch(|w| unsafe { sys::glia_process_group_broadcast(self.as_ptr(), tensor.as_ptr(), root, w) })
    }
    /// `reduce(tensor, dst=root, op)`: root's tensor receives the reduction;
    /// the others' are unchanged.
    pub fn reduce(&self, tensor: &mut Tensor, root: i64, op: ReduceOp) -> Result<()> {
        check(unsafe {
            sys::glia_process_group_reduce(self.as_ptr(), tensor.as_ptr(), root, op.to_raw(), ptr::null_mut())
        })
    }
    /// `reduce(tensor, dst=root, op, async_op=True)`.
    pub fn reduce_async(&self, tensor: &mut Tensor, root: i64, op: ReduceOp) -> Result<Work> {
        launch(|w| unsafe { sys::glia_process_group_reduce(self.as_ptr(), tensor.as_ptr(), root, op.to_raw(), w) })
    }
    /// `all_gather(outputs, input)`: `outputs[r]` (world size of them, the
    /// input's shape and dtype) receives rank r's input.
    pub fn all_gather(&self, outputs: &mut [Tensor], input: &Tensor) -> Result<()> {
        let o = raw_tensors(outputs);
        check(unsafe {
            sys::glia_process_group_all_gather(
                self.as_ptr(),
                o.as_ptr(),
                o.len() as i64,
                input.as_ptr(),
                ptr::null_mut(),
            )
        })
    }
    /// `all_gather(outputs, input, async_op=True)`.
    pub fn all_gather_async(&self, outputs: &mut [Tensor], input: &Tensor) -> Result<Work> {
        let o = raw_tensors(outputs);
        launch(|w| unsafe {
            sys::glia_process_group_all_gather(self.as_ptr(), o.as_ptr(), o.len() as i64, input.as_ptr(), w)
        })
    }
    /// `reduce_scatter(output, inputs, op)`: `output` receives the reduction
    /// over the ranks of `inputs[rank]`.
    pub fn reduce_scatter(&self, output: &mut Tensor, inputs: &[Tensor], op: ReduceOp) -> Result<()> {
        let i = raw_tensors(inputs);
        check(unsafe {
            sys::glia_process_group_reduce_scatter(
                self.as_ptr(),
                output.as_ptr(),
                i.as_ptr(),
                i.len() as i64,
                op.to_raw(),
                ptr::null_mut(),
            )
        })
    }
    /// `reduce_scatter(output, inputs, op, async_op=True)`.
    pub fn reduce_scatter_async(&self, output: &mut Tensor, inputs: &[Tensor], op: ReduceOp) -> Result<Work> {
        let i = raw_tensors(inputs);
        launch(|w| unsafe {
            sys::glia_process_group_reduce_scatter(
                self.as_ptr(),
                output.as_ptr(),
                i.as_ptr(),
                i.len() as i64,
                op.to_raw(),
                w,
            )
        })
    }
    /// `barrier()`: returns when every rank has entered it.
    pub fn barrier(&self) -> Result<()> {
        check(unsafe { sys::glia_process_group_barrier(self.as_ptr(), ptr::null_mut()) })
    }
    /// `barrier(async_op=True)`.
    pub fn barrier_async(&self) -> Result<Work> {
        launch(|w| unsafe { sys::glia_process_group_barrier(self.as_ptr(), w) })
    }
}

impl fmt::Debug for ProcessGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProcessGroup({:p})", self.raw)
    }
}

impl Clone for ProcessGroup {
    fn clone(&self) -> ProcessGroup {
        check(unsafe { sys::glia_process_group_retain(self.as_ptr()) }).expect("glia_process_group_retain");
        ProcessGroup { raw: self.raw }
    }
}

impl Drop for ProcessGroup {
    /// Drops a reference; the last one waits for queued collectives and closes the connections.
    fn drop(&mut self) {
        unsafe { sys::glia_error_free(sys::glia_process_group_release(self.as_ptr())) };
    }
}

// ---- DistributedDataParallel ---------------------------------------------------------------

/// `DistributedDataParallel`'s keyword arguments; `Default` is torch's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DdpOptions {
    /// Bucket size in MiB (25); the first bucket closes at 1 MiB (torch's).
    pub bucket_cap_mb: f64,
    /// A parameter without a gradient is reduced as zero instead of failing backward (false).
    pub find_unused_parameters: bool,
    /// Rank 0's buffers are broadcast before every synchronised forward (true).
    pub broadcast_buffers: bool,
    /// Each `.grad` becomes a view of its bucket after the first synchronised backward (false).
    pub gradient_as_bucket_view: bool,
}

impl Default for DdpOptions {
    fn default() -> Self {
        let mut o = std::mem::MaybeUninit::<sys::glia_ddp_options>::uninit();
        let o = unsafe {
            sys::glia_ddp_options_init(o.as_mut_ptr());
            o.assume_init()
        };
        DdpOptions {
            bucket_cap_mb: o.bucket_cap_mb,
            find_unused_parameters: o.find_unused_parameters != 0,
            broadcast_buffers: o.broadcast_buffers != 0,
            gradient_as_bucket_view: o.gradient_as_bucket_view != 0,
        }
    }
}

/// DDP's built-in communication hooks (torch's `BuiltinCommHookType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BuiltinCommHook {
    /// The default average.
    AllReduce,
    /// torch's `fp16_compress_hook`: each bucket reduced in float16.
    Fp16Compress,
    /// torch's `bf16_compress_hook`: each bucket reduced in bfloat16.
    Bf16Compress,
}

/// A host communication hook: `(bucket, index, count)`; it must replace the
/// bucket's contents by their average over the group.
pub type CommHookFn = dyn Fn(&mut Tensor, i64, i64) -> Result<()> + Send + Sync;

unsafe extern "C" fn comm_hook_trampoline(
    ud: *mut sys::c_void,
    bucket: *mut sys::glia_tensor,
    index: i64,
    count: i64,
) -> *mut sys::glia_error {
    run_callback(|| {
        let f: &CommHookFn = &**(ud as *const Box<CommHookFn>);
        let mut b = Tensor::from_borrowed(bucket)?;
        f(&mut b, index, count)
    })
}

/// `torch.nn.parallel.DistributedDataParallel(module, process_group=group)`:
/// a module whose child `"module"` is yours (state-dict keys
/// `"module.<name>"`); it derefs to [`Module`] (`ddp.forward(&x)`). Rank 0's
/// parameters and buffers are broadcast to every rank at construction, and
/// backward averages the gradients over the group.
#[derive(Debug)]
pub struct DistributedDataParallel {
    module: Module,
}

impl Deref for DistributedDataParallel {
    type Target = Module;
    fn deref(&self) -> &Module {
        &self.module
    }
}

impl DistributedDataParallel {
    /// Wraps `module` (every rank calls it with the same model).
    pub fn new(module: &Module, group: &ProcessGroup, options: &DdpOptions) -> Result<DistributedDataParallel> {
        let mut o = std::mem::MaybeUninit::<sys::glia_ddp_options>::uninit();
        let mut o = unsafe {
            sys::glia_ddp_options_init(o.as_mut_ptr());
            o.assume_init()
        };
        o.bucket_cap_mb = options.bucket_cap_mb;
        o.find_unused_parameters = options.find_unused_parameters as i32;
        o.broadcast_buffers = options.broadcast_buffers as i32;
        o.gradient_as_bucket_view = options.gradient_as_bucket_view as i32;
        let mut out = ptr::null_mut();
        check(unsafe { sys::glia_nn_distributed_data_parallel(module.as_ptr(), group.as_ptr(), &o, &mut out) })?;
        match unsafe { Module::from_raw(out) } {
            Some(module) => Ok(DistributedDataParallel { module }),
            None => Err(Error::new(ErrorCode::Internal, "glia returned no module")),
        }
    }

    /// The DDP module itself (a [`Module`] of type `"DistributedDataParallel"`).
    pub fn module(&self) -> &Module {
        &self.module
    }
    /// The DDP module, for containers and optimizers that take a [`Module`].
    pub fn into_module(self) -> Module {
        self.module
    }

    /// torch's `require_backward_grad_sync` (false inside `no_sync`).
    pub fn require_backward_grad_sync(&self) -> Result<bool> {
        let mut flag: i32 = 1;
        check(unsafe { sys::glia_ddp_require_backward_grad_sync(self.module.as_ptr(), &mut flag) })?;
        Ok(flag != 0)
    }
    /// torch's `require_backward_grad_sync = flag` (`no_sync` sets false).
    pub fn set_require_backward_grad_sync(&self, flag: bool) -> Result<()> {
        check(unsafe { sys::glia_ddp_set_require_backward_grad_sync(self.module.as_ptr(), flag as i32) })
    }
    /// `with ddp.no_sync():` — runs `f` with gradient synchronisation off
    /// (backward only accumulates local gradients; the next synchronised
    /// backward averages them), then turns it back on, also when `f` panics.
    pub fn no_sync<R>(&self, f: impl FnOnce() -> R) -> Result<R> {
        let _guard = self.no_sync_guard()?;
        Ok(f())
    }
    /// [`no_sync`](Self::no_sync) as a guard: synchronisation is off until it is dropped.
    pub fn no_sync_guard(&self) -> Result<NoSyncGuard<'_>> {
        let previous = self.require_backward_grad_sync()?;
        self.set_require_backward_grad_sync(false)?;
        Ok(NoSyncGuard { ddp: self, previous })
    }
    /// torch's `_register_builtin_comm_hook` (at most one hook per DDP module:
    /// a second is `GLIA_ERR_STATE`).
    pub fn register_builtin_comm_hook(&self, hook: BuiltinCommHook) -> Result<()> {
        let h = match hook {
            BuiltinCommHook::AllReduce => sys::GLIA_DDP_COMM_HOOK_ALLREDUCE,
            BuiltinCommHook::Fp16Compress => sys::GLIA_DDP_COMM_HOOK_FP16_COMPRESS,
            BuiltinCommHook::Bf16Compress => sys::GLIA_DDP_COMM_HOOK_BF16_COMPRESS,
        };
        check(unsafe { sys::glia_ddp_register_builtin_comm_hook(self.module.as_ptr(), h) })
    }
    /// torch's `register_comm_hook(state, hook)` (the state is what `f`
    /// captures): `f(bucket, index, count)` gets this rank's gradients of
    /// bucket `index` (of `count`) as a 1-D tensor and must replace them by
    /// their average over the group (e.g. `group.all_reduce(bucket,
    /// ReduceOp::Avg)`). It runs on backward's thread, buckets in the same
    /// order on every rank; its `Err` (or a panic) fails the backward with
    /// `GLIA_ERR_CALLBACK`.
    pub fn register_comm_hook<F>(&self, f: F) -> Result<()>
    where
        F: Fn(&mut Tensor, i64, i64) -> Result<()> + Send + Sync + 'static,
    {
        let boxed: Box<Box<CommHookFn>> = Box::new(Box::new(f));
        // glia owns the box from here (freed when the module dies, or now on failure)
        check(unsafe {
            sys::glia_ddp_register_comm_hook(
                self.module.as_ptr(),
                Some(comm_hook_trampoline),
                Box::into_raw(boxed) as *mut sys::c_void,
                Some(free_boxed::<CommHookFn>),
            )
        })
    }
    /// The number of gradient buckets.
    pub fn bucket_count(&self) -> Result<i64> {
        let (mut count, mut buckets) = (0i64, 0i64);
        check(unsafe {
            sys::glia_ddp_bucket_parameters(self.module.as_ptr(), 0, ptr::null_mut(), 0, &mut count, &mut buckets)
        })?;
        Ok(buckets)
    }
    /// `GradBucket.parameters()` of bucket `index` (buckets in reduction
    /// order: the last parameters first), as indices into the parameters that
    /// require grad, in registration order.
    pub fn bucket_parameters(&self, index: i64) -> Result<Vec<i64>> {
        let mut count = 0i64;
        check(unsafe {
            sys::glia_ddp_bucket_parameters(
                self.module.as_ptr(),
                index,
                ptr::null_mut(),
                0,
                &mut count,
                ptr::null_mut(),
            )
        })?;
        let mut idx = vec![0i64; count.max(0) as usize];
        check(unsafe {
            sys::glia_ddp_bucket_parameters(
                self.module.as_ptr(),
                index,
                idx.as_mut_ptr(),
                idx.len() as i64,
                &mut count,
                ptr::null_mut(),
            )
        })?;
        idx.truncate(count.max(0) as usize);
        Ok(idx)
    }
}

/// Gradient synchronisation of a [`DistributedDataParallel`] is off while it
/// lives ([`DistributedDataParallel::no_sync_guard`]). Dropping it restores
/// the flag it found, as torch's `no_sync` does (a nested guard leaves it off).
pub struct NoSyncGuard<'a> {
    ddp: &'a DistributedDataParallel,
    previous: bool,
}

impl Drop for NoSyncGuard<'_> {
    fn drop(&mut self) {
        let _ = self.ddp.set_require_backward_grad_sync(self.previous);
    }
}

// ---- SyncBatchNorm ---------------------------------------------------------------------------

/// `torch.nn.SyncBatchNorm(num_features, eps, momentum, affine,
/// track_running_stats, process_group)`: `options` as [`crate::ops::batch_norm_options`]
/// (`None`: torch's defaults), `process_group` `None`: none (BatchNorm in
/// training too). In training with a group of more than one rank, every rank
/// normalises with the statistics of the batch of all ranks.
pub fn sync_batch_norm(
    num_features: i64,
    options: Option<&sys::glia_batch_norm_options>,
    process_group: Option<&ProcessGroup>,
) -> Result<Module> {
    let o = options.map_or(ptr::null(), |o| o as *const _);
    let g = process_group.map_or(ptr::null_mut(), |g| g.as_ptr());
    let mut out = ptr::null_mut();
    check(unsafe { sys::glia_nn_sync_batch_norm(num_features, o, g, ptr::null(), &mut out) })?;
    unsafe { Module::from_raw(out) }.ok_or_else(|| Error::new(ErrorCode::Internal, "glia returned no module"))
}

/// torch's `module.process_group = group` for a module made by
/// [`sync_batch_norm`] (`None`: none).
pub fn set_sync_batch_norm_process_group(module: &Module, process_group: Option<&ProcessGroup>) -> Result<()> {
    let g = process_group.map_or(ptr::null_mut(), |g| g.as_ptr());
    check(unsafe { sys::glia_nn_sync_batch_norm_set_process_group(module.as_ptr(), g) })
}

// ---- DataParallel ------------------------------------------------------------------------------

/// `torch.nn.DataParallel(module, device_ids, output_device, dim)`: one
/// process, several devices of one backend other than the CPU. Forward
/// scatters the inputs along `dim`, runs a replica per device and gathers the
/// outputs on `output_device` (`None`: `device_ids[0]`); backward sums the
/// replicas' gradients into `module`'s parameters. No `device_ids`: forward
/// calls `module` as it is. Errors: `GLIA_ERR_DEVICE` (a CPU entry, mixed
/// types, a device the backend does not have), `GLIA_ERR_INVALID_ARGUMENT`
/// (a repeated device).
pub fn data_parallel(
    module: &Module,
    device_ids: &[Device],
    output_device: Option<Device>,
    dim: i64,
) -> Result<Module> {
    let ids: Vec<sys::glia_device> = device_ids.iter().map(|d| d.to_raw()).collect();
    let out_dev = output_device.map(|d| d.to_raw());
    let mut out = ptr::null_mut();
    check(unsafe {
        sys::glia_nn_data_parallel(
            module.as_ptr(),
            if ids.is_empty() { ptr::null() } else { ids.as_ptr() },
            ids.len() as i64,
            out_dev.as_ref().map_or(ptr::null(), |d| d as *const _),
            dim,
            &mut out,
        )
    })?;
    unsafe { Module::from_raw(out) }.ok_or_else(|| Error::new(ErrorCode::Internal, "glia returned no module"))
}
