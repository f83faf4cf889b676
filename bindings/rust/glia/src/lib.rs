//! Safe Rust API of glia, an embeddable neural-network engine with PyTorch's
//! `torch.nn` semantics, over its C ABI (`glia-sys`, `include/glia/glia.h`).
//!
//! ```no_run
//! use glia::{nn, optim, Tensor};
//! # fn main() -> glia::Result<()> {
//! let model = nn::sequential(&[&nn::linear(2, 8, true)?, &nn::tanh()?, &nn::linear(8, 1, true)?])?;
//! let mut opt = optim::Optimizer::adam(&model.parameters(), &optim::AdamOptions { lr: 0.05, ..Default::default() })?;
//! let x = Tensor::from_slice(&[0f32, 0., 0., 1., 1., 0., 1., 1.], &[4, 2])?;
//! let y = Tensor::from_slice(&[0f32, 1., 1., 0.], &[4, 1])?;
//! for _ in 0..200 {
//!     opt.zero_grad()?;
//!     let mut loss = model.forward(&x)?.mse_loss(&y)?;
//!     loss.backward()?;
//!     opt.step()?;
//! }
//! # Ok(()) }
//! ```
//!
//! # Ownership
//!
//! Every wrapper ([`Tensor`], [`nn::Module`], [`optim::Optimizer`],
//! [`optim::LrScheduler`], [`TensorDict`]) owns one reference to a
//! reference-counted glia handle. `Clone` is `glia_<type>_retain` (a second
//! reference to the *same* object, as `Rc::clone`, not a copy of the data:
//! use [`Tensor::deep_clone`] for that) and `Drop` is `glia_<type>_release`.
//! Containers retain what they hold: a module keeps its parameters alive, an
//! optimizer its parameters, a scheduler its optimizer.
//!
//! # Errors
//!
//! Every fallible call returns [`Result<T>`](Result) with a [`Error`] that
//! carries glia's [`ErrorCode`] (mirroring `enum glia_error_code`) and its
//! message, e.g. `GLIA_ERR_SHAPE: The size of tensor a (3) must match the size
//! of tensor b (2) at non-singleton dimension 1`. The std operator traits
//! (`&a + &b`, `-&a`, ...) cannot return a `Result`: they panic with glia's
//! message on error; call the methods ([`Tensor::add`], ...) to handle errors.
//! Accessors of a live handle that cannot fail (shape, dtype, numel...) return
//! plain values.
//!
//! # Callbacks
//!
//! Closures become glia callbacks (tensor hooks, module forward pre-hooks and
//! forward hooks, custom module forwards). Each is boxed
//! (`Box<Box<dyn Fn ...>>`) and handed to glia as `user_data`, with a
//! `free_user_data` that drops the box exactly once when glia ends the
//! registration. A closure's `Err` is returned to glia as
//! `glia_error_new(code, message)`; a panic never unwinds across the C ABI: it
//! is caught with `catch_unwind` and reported as `GLIA_ERR_CALLBACK` whose
//! message starts with "panic in Rust callback: ". The glia call that ran the
//! callback then fails with [`ErrorCode::Callback`] carrying that message.
//! Closures must be `Send + Sync + 'static`: glia may run them on whichever
//! thread runs the call (backward, forward), and the object they are attached
//! to may be used from several threads.
//!
//! # Threads (`Send` / `Sync`)
//!
//! The C contract (`docs/c-api.md`, Threads; the comment at the top of
//! `glia.h`): handles are checked tokens that any thread may use; distinct
//! handles may be used concurrently; *reading* one object from several
//! threads is safe; a call that *mutates* an object needs the caller's
//! serialization; release functions may run on any thread. Grad mode and the
//! random generator are per thread.
//!
//! * Every handle type is **`Send`**: nothing in a handle is tied to the thread
//!   that made it, and `Drop` (a release) may run on any thread.
//! * [`Tensor`] and [`TensorDict`] are **`Sync`**: their `&self` methods only
//!   read the object (an op reads its inputs and makes a new tensor), which the
//!   contract allows from many threads at once, and every method that mutates
//!   the object itself (in-place ops, `set_requires_grad`, `set_grad`,
//!   `register_hook`, `backward`, which frees the graph and accumulates into
//!   the leaves' grads, `TensorDict::set`) takes `&mut self`.
//! * [`nn::Module`], [`optim::Optimizer`] and [`optim::LrScheduler`] are
//!   **`Send` but not `Sync`**: their everyday methods mutate through `&self`
//!   (a forward updates BatchNorm's running statistics and runs hooks, `step`
//!   updates parameters, `train` sets flags), so one value must not be shared
//!   between threads; move it, or put it in a `Mutex`.
//! * [`NoGradGuard`] is neither: grad mode is per thread, so the guard must
//!   restore it on the thread that set it.
//!
//! What the type system cannot see: a `clone()` is the *same* glia object, and
//! objects are shared by design (a module and its optimizer hold the same
//! parameter tensors; `detach` views share storage). The contract asks the
//! caller to serialize mutation of one object, so do not mutate an object
//! (train, step, in-place ops) on one thread while another thread uses a
//! clone or a container of it.
#![warn(missing_docs)]

use std::ffi::{CStr, CString};
use std::fmt;
use std::os::raw::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub use glia_sys as sys;

mod dict;
pub mod distributed;
pub mod nn;
pub mod optim;
mod ops_gen;
mod tensor;

/// The generated wrappers of glia.h's regular ops (`ops_gen.rs`, written by
/// `scripts/gen_wrappers.py`): the ops whose first argument is not a tensor,
/// [`Scalar`] and the enums of their arguments. The ops on a tensor are
/// methods of [`Tensor`]; the generated module constructors are in [`nn`].
pub mod ops {
    pub use crate::ops_gen::free::*;
    pub use crate::ops_gen::*;
}

pub use dict::{Format, Iter as TensorDictIter, TensorDict};
pub use ops_gen::Scalar;
pub use tensor::{DType, Device, Element, Tensor};

/// glia's error codes (`enum glia_error_code`), less `GLIA_OK`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `GLIA_ERR_INVALID_ARGUMENT`
    InvalidArgument,
    /// `GLIA_ERR_INVALID_HANDLE`
    InvalidHandle,
    /// `GLIA_ERR_SHAPE`
    Shape,
    /// `GLIA_ERR_DTYPE`
    DType,
    /// `GLIA_ERR_DEVICE`
    Device,
    /// `GLIA_ERR_OUT_OF_MEMORY`
    OutOfMemory,
    /// `GLIA_ERR_IO`
    Io,
    /// `GLIA_ERR_FORMAT`
    Format,
    /// `GLIA_ERR_NOT_FOUND`
    NotFound,
    /// `GLIA_ERR_STATE`
    State,
    /// `GLIA_ERR_CALLBACK`
    Callback,
    /// `GLIA_ERR_UNSUPPORTED`
    Unsupported,
    /// `GLIA_ERR_INTERNAL`
    Internal,
    /// A code this version of the binding does not know (the C enum only grows).
    Other(i32),
}

impl ErrorCode {
    /// The code of a C `glia_error_code` value.
    pub fn from_raw(code: sys::glia_error_code) -> ErrorCode {
        match code {
            sys::GLIA_ERR_INVALID_ARGUMENT => ErrorCode::InvalidArgument,
            sys::GLIA_ERR_INVALID_HANDLE => ErrorCode::InvalidHandle,
            sys::GLIA_ERR_SHAPE => ErrorCode::Shape,
            sys::GLIA_ERR_DTYPE => ErrorCode::DType,
            sys::GLIA_ERR_DEVICE => ErrorCode::Device,
            sys::GLIA_ERR_OUT_OF_MEMORY => ErrorCode::OutOfMemory,
            sys::GLIA_ERR_IO => ErrorCode::Io,
            sys::GLIA_ERR_FORMAT => ErrorCode::Format,
            sys::GLIA_ERR_NOT_FOUND => ErrorCode::NotFound,
            sys::GLIA_ERR_STATE => ErrorCode::State,
            sys::GLIA_ERR_CALLBACK => ErrorCode::Callback,
            sys::GLIA_ERR_UNSUPPORTED => ErrorCode::Unsupported,
            sys::GLIA_ERR_INTERNAL => ErrorCode::Internal,
            other => ErrorCode::Other(other),
        }
    }

    /// The C value.
    pub fn to_raw(self) -> sys::glia_error_code {
        match self {
            ErrorCode::InvalidArgument => sys::GLIA_ERR_INVALID_ARGUMENT,
            ErrorCode::InvalidHandle => sys::GLIA_ERR_INVALID_HANDLE,
            ErrorCode::Shape => sys::GLIA_ERR_SHAPE,
            ErrorCode::DType => sys::GLIA_ERR_DTYPE,
            ErrorCode::Device => sys::GLIA_ERR_DEVICE,
            ErrorCode::OutOfMemory => sys::GLIA_ERR_OUT_OF_MEMORY,
            ErrorCode::Io => sys::GLIA_ERR_IO,
            ErrorCode::Format => sys::GLIA_ERR_FORMAT,
            ErrorCode::NotFound => sys::GLIA_ERR_NOT_FOUND,
            ErrorCode::State => sys::GLIA_ERR_STATE,
            ErrorCode::Callback => sys::GLIA_ERR_CALLBACK,
            ErrorCode::Unsupported => sys::GLIA_ERR_UNSUPPORTED,
            ErrorCode::Internal => sys::GLIA_ERR_INTERNAL,
            ErrorCode::Other(c) => c,
        }
    }

    /// glia's static name of the code, e.g. `"GLIA_ERR_SHAPE"`.
    pub fn name(self) -> String {
        let p = unsafe { sys::glia_error_code_name(self.to_raw()) };
        if p.is_null() {
            return format!("glia error {}", self.to_raw());
        }
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// An error returned by glia (or by a Rust callback): a code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    message: String,
}

impl Error {
    /// A new error, e.g. for a closure that must fail a glia call.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }

    /// The code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The message (glia's text: the function, the argument, what was expected and what was given).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Takes over a `glia_error *` (freeing it); `None` for NULL.
    ///
    /// # Safety
    /// `e` must be NULL or an error glia returned that nobody else frees.
    pub unsafe fn from_raw(e: *mut sys::glia_error) -> Option<Error> {
        if e.is_null() {
            return None;
        }
        let code = ErrorCode::from_raw(sys::glia_error_code(e));
        let message = CStr::from_ptr(sys::glia_error_message(e))
            .to_string_lossy()
            .into_owned();
        sys::glia_error_free(e);
        Some(Error { code, message })
    }

    /// A new `glia_error *` (made with `glia_error_new`) for returning from a callback.
    pub fn into_raw(self) -> *mut sys::glia_error {
        let msg = CString::new(self.message.replace('\0', "\\0")).unwrap_or_default();
        unsafe { sys::glia_error_new(self.code.to_raw(), msg.as_ptr()) }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.name(), self.message)
    }
}

impl std::error::Error for Error {}

/// `std::result::Result` with glia's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Turns a returned `glia_error *` into a `Result`.
pub(crate) fn check(e: *mut sys::glia_error) -> Result<()> {
    match unsafe { Error::from_raw(e) } {
        None => Ok(()),
        Some(err) => Err(err),
    }
}

/// A C string for an argument; an interior NUL is GLIA_ERR_INVALID_ARGUMENT.
pub(crate) fn cstring(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| {
        Error::new(
            ErrorCode::InvalidArgument,
            format!("string {:?} contains a NUL byte", s),
        )
    })
}

/// Reads an snprintf-style string result: size first, then fill.
pub(crate) fn read_string(f: impl Fn(*mut c_char, usize, *mut usize) -> *mut sys::glia_error) -> Result<String> {
    let mut len = 0usize;
    check(f(std::ptr::null_mut(), 0, &mut len))?;
    let mut buf = vec![0u8; len + 1];
    check(f(buf.as_mut_ptr() as *mut c_char, buf.len(), &mut len))?;
    buf.truncate(len.min(buf.len() - 1));
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Runs a closure for a C callback: `Ok` gives NULL, `Err` a `glia_error_new`
/// error, and a panic is caught (it must not unwind into C) and reported as
/// GLIA_ERR_CALLBACK.
pub(crate) fn run_callback(f: impl FnOnce() -> Result<()>) -> *mut sys::glia_error {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => std::ptr::null_mut(),
        Ok(Err(e)) => e.into_raw(),
        Err(payload) => {
            let what = if let Some(s) = payload.downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "(non-string payload)".to_string()
            };
            Error::new(ErrorCode::Callback, format!("panic in Rust callback: {}", what)).into_raw()
        }
    }
}

/// `free_user_data` for a `Box<Box<T>>` handed to glia as `user_data`
/// (a panic in the closure's destructor is caught, never unwound into C).
pub(crate) unsafe extern "C" fn free_boxed<T: ?Sized>(p: *mut sys::c_void) {
    if !p.is_null() {
        let b = Box::from_raw(p as *mut Box<T>);
        let _ = catch_unwind(AssertUnwindSafe(move || drop(b)));
    }
}

/// Turns grad mode off on this thread until dropped (`torch.no_grad()`), then
/// restores the previous mode. Not `Send`: grad mode is per thread.
pub struct NoGradGuard {
    previous: bool,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl NoGradGuard {
    /// Turns grad mode off.
    pub fn new() -> NoGradGuard {
        let previous = grad_mode_enabled();
        unsafe { sys::glia_grad_mode_set(0) };
        NoGradGuard {
            previous,
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Default for NoGradGuard {
    fn default() -> Self {
        NoGradGuard::new()
    }
}

impl Drop for NoGradGuard {
    fn drop(&mut self) {
        unsafe { sys::glia_grad_mode_set(self.previous as i32) };
    }
}

/// Runs `f` with grad mode off (`with torch.no_grad():`).
pub fn no_grad<R>(f: impl FnOnce() -> R) -> R {
    let _guard = NoGradGuard::new();
    f()
}

/// Whether this thread records autograd graphs.
pub fn grad_mode_enabled() -> bool {
    unsafe { sys::glia_grad_mode_enabled() != 0 }
}

/// Seeds every thread's random generator (`torch.manual_seed`).
pub fn manual_seed(seed: u64) {
    unsafe { sys::glia_manual_seed(seed) }
}

/// The version of the loaded library, "MAJOR.MINOR.PATCH".
pub fn version() -> String {
    unsafe { CStr::from_ptr(sys::glia_version_string()) }
        .to_string_lossy()
        .into_owned()
}

/// Sets the number of threads glia's kernels use.
pub fn set_num_threads(n: i32) -> Result<()> {
    check(unsafe { sys::glia_set_num_threads(n) })
}
