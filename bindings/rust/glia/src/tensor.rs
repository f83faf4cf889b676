//! Tensors: factories, data, ops, std operator traits and autograd.
use std::fmt;
use std::ops::{Add, Div, Mul, Neg, Sub};
use std::ptr::{self, NonNull};

use crate::sys;
use crate::{check, free_boxed, read_string, run_callback, Error, ErrorCode, Result};

/// Element types (`glia_dtype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// float32 (the default)
    F32,
    /// float64
    F64,
    /// float16
    F16,
    /// bfloat16
    BF16,
    /// int64
    I64,
    /// int32
    I32,
    /// uint8
    U8,
    /// bool
    Bool,
    /// int8 (since 0.2)
    I8,
    /// int16 (since 0.2)
    I16,
    /// A dtype this version of the binding does not know.
    Other(i32),
}

impl DType {
    /// From the C value.
    pub fn from_raw(d: sys::glia_dtype) -> DType {
        match d {
            sys::GLIA_FLOAT32 => DType::F32,
            sys::GLIA_FLOAT64 => DType::F64,
            sys::GLIA_FLOAT16 => DType::F16,
            sys::GLIA_BFLOAT16 => DType::BF16,
            sys::GLIA_INT64 => DType::I64,
            sys::GLIA_INT32 => DType::I32,
            sys::GLIA_UINT8 => DType::U8,
            sys::GLIA_BOOL => DType::Bool,
            sys::GLIA_INT8 => DType::I8,
            sys::GLIA_INT16 => DType::I16,
            other => DType::Other(other),
        }
    }

    /// The C value.
    pub fn to_raw(self) -> sys::glia_dtype {
        match self {
            DType::F32 => sys::GLIA_FLOAT32,
            DType::F64 => sys::GLIA_FLOAT64,
            DType::F16 => sys::GLIA_FLOAT16,
            DType::BF16 => sys::GLIA_BFLOAT16,
            DType::I64 => sys::GLIA_INT64,
            DType::I32 => sys::GLIA_INT32,
            DType::U8 => sys::GLIA_UINT8,
            DType::Bool => sys::GLIA_BOOL,
            DType::I8 => sys::GLIA_INT8,
            DType::I16 => sys::GLIA_INT16,
            DType::Other(d) => d,
        }
    }

    /// torch's name ("float32").
    pub fn name(self) -> String {
        let p = unsafe { sys::glia_dtype_name(self.to_raw()) };
        if p.is_null() {
            return format!("dtype({})", self.to_raw());
        }
        unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    /// Bytes per element (0 for an unknown dtype).
    pub fn size(self) -> usize {
        unsafe { sys::glia_dtype_size(self.to_raw()) }
    }
}

/// A device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Device {
    /// The CPU.
    Cpu,
    /// A CUDA device (-1: the current one); needs the CUDA backend.
    Cuda(i32),
}

impl Device {
    pub(crate) fn to_raw(self) -> sys::glia_device {
        match self {
            Device::Cpu => sys::glia_device {
                type_: sys::GLIA_CPU,
                index: 0,
            },
            Device::Cuda(i) => sys::glia_device {
                type_: sys::GLIA_CUDA,
                index: i,
            },
        }
    }
    pub(crate) fn from_raw(d: sys::glia_device) -> Device {
        if d.type_ == sys::GLIA_CUDA {
            Device::Cuda(d.index)
        } else {
            Device::Cpu
        }
    }
}

/// Rust element types that match a glia dtype byte for byte.
///
/// # Safety
/// `DTYPE` must have exactly the size and representation of `Self`, and every
/// bit pattern glia may store for `DTYPE` must be a valid `Self`.
pub unsafe trait Element: Copy {
    /// The matching dtype.
    const DTYPE: DType;
}
unsafe impl Element for f32 {
    const DTYPE: DType = DType::F32;
}
unsafe impl Element for f64 {
    const DTYPE: DType = DType::F64;
}
unsafe impl Element for i64 {
    const DTYPE: DType = DType::I64;
}
unsafe impl Element for i32 {
    const DTYPE: DType = DType::I32;
}
unsafe impl Element for u8 {
    const DTYPE: DType = DType::U8;
}
unsafe impl Element for i8 {
    const DTYPE: DType = DType::I8;
}
unsafe impl Element for i16 {
    const DTYPE: DType = DType::I16;
}

/// A tensor: one reference to a glia tensor handle. `Clone` adds a reference
/// to the same tensor (`glia_tensor_retain`), `Drop` releases it. See the
/// crate docs for ownership and threads.
pub struct Tensor {
    raw: NonNull<sys::glia_tensor>,
}

// Send: a handle may be used and released from any thread. Sync: `&self`
// methods only read the tensor, which the C contract allows concurrently;
// mutation takes `&mut self`. See the crate docs.
unsafe impl Send for Tensor {}
unsafe impl Sync for Tensor {}

pub(crate) fn new_tensor(f: impl FnOnce(*mut *mut sys::glia_tensor) -> *mut sys::glia_error) -> Result<Tensor> {
    let mut out: *mut sys::glia_tensor = ptr::null_mut();
    check(f(&mut out))?;
    match NonNull::new(out) {
        Some(raw) => Ok(Tensor { raw }),
        None => Err(Error::new(ErrorCode::Internal, "glia returned no tensor")),
    }
}

fn opts(dtype: DType, device: Device) -> sys::glia_tensor_options {
    let mut o = std::mem::MaybeUninit::<sys::glia_tensor_options>::uninit();
    let mut o = unsafe {
        sys::glia_tensor_options_init(o.as_mut_ptr());
        o.assume_init()
    };
    o.dtype = dtype.to_raw();
    o.device = device.to_raw();
    o
}

fn ptrs(ts: &[&Tensor]) -> Vec<*const sys::glia_tensor> {
    ts.iter().map(|t| t.as_ptr() as *const _).collect()
}

macro_rules! unary {
    ($($(#[$m:meta])* $name:ident => $f:ident;)*) => {$(
        $(#[$m])*
        pub fn $name(&self) -> Result<Tensor> {
            new_tensor(|o| unsafe { sys::$f(self.as_ptr(), o) })
        }
    )*};
}

macro_rules! binary {
    ($($(#[$m:meta])* $name:ident => $f:ident;)*) => {$(
        $(#[$m])*
        pub fn $name(&self, other: &Tensor) -> Result<Tensor> {
            new_tensor(|o| unsafe { sys::$f(self.as_ptr(), other.as_ptr(), o) })
        }
    )*};
}

macro_rules! compare_scalar {
    ($($(#[$m:meta])* $name:ident => $f:ident;)*) => {$(
        $(#[$m])*
        pub fn $name(&self, other: f64) -> Result<Tensor> {
            new_tensor(|o| unsafe { sys::$f(self.as_ptr(), sys::glia_scalar_float(other), o) })
        }
    )*};
}

impl Tensor {
    /// Takes over a handle (one reference).
    ///
    /// # Safety
    /// `raw` must be a live glia tensor handle whose reference the caller gives up.
    pub unsafe fn from_raw(raw: *mut sys::glia_tensor) -> Option<Tensor> {
        NonNull::new(raw).map(|raw| Tensor { raw })
    }

    /// A new reference to a borrowed handle (retains it).
    ///
    /// # Safety
    /// `raw` must be NULL or point to a glia handle (a stale one is reported, not UB).
    pub unsafe fn from_borrowed(raw: *const sys::glia_tensor) -> Result<Tensor> {
        check(sys::glia_tensor_retain(raw as *mut _))?;
        Ok(Tensor {
            raw: NonNull::new_unchecked(raw as *mut _),
        })
    }

    /// The handle (still owned by `self`).
    pub fn as_ptr(&self) -> *mut sys::glia_tensor {
        self.raw.as_ptr()
    }

    /// Gives up ownership of the reference and returns the handle.
    pub fn into_raw(self) -> *mut sys::glia_tensor {
        let p = self.raw.as_ptr();
        std::mem::forget(self);
        p
    }

    // ---- factories --------------------------------------------------------

    /// Zeros, float32 on the CPU.
    pub fn zeros(shape: &[i64]) -> Result<Tensor> {
        Tensor::zeros_opts(shape, DType::F32, Device::Cpu)
    }
    /// Zeros of `dtype` on `device`.
    pub fn zeros_opts(shape: &[i64], dtype: DType, device: Device) -> Result<Tensor> {
        let o = opts(dtype, device);
        new_tensor(|out| unsafe { sys::glia_tensor_zeros(shape.as_ptr(), shape.len() as i64, &o, out) })
    }
    /// Ones, float32 on the CPU.
    pub fn ones(shape: &[i64]) -> Result<Tensor> {
        Tensor::ones_opts(shape, DType::F32, Device::Cpu)
    }
    /// Ones of `dtype` on `device`.
    pub fn ones_opts(shape: &[i64], dtype: DType, device: Device) -> Result<Tensor> {
        let o = opts(dtype, device);
        new_tensor(|out| unsafe { sys::glia_tensor_ones(shape.as_ptr(), shape.len() as i64, &o, out) })
    }
    /// Every element `value`, float32 on the CPU.
    pub fn full(shape: &[i64], value: f64) -> Result<Tensor> {
        Tensor::full_opts(shape, value, DType::F32, Device::Cpu)
    }
    /// Every element `value`, of `dtype` on `device`.
    pub fn full_opts(shape: &[i64], value: f64, dtype: DType, device: Device) -> Result<Tensor> {
        let o = opts(dtype, device);
        new_tensor(|out| unsafe { sys::glia_tensor_full(shape.as_ptr(), shape.len() as i64, value, &o, out) })
    }
    /// A 0-dim float32 tensor.
    pub fn scalar(value: f64) -> Result<Tensor> {
        Tensor::full(&[], value)
    }
    /// `torch.arange(start, end, step)` (int64 for whole numbers, else float32).
    pub fn arange(start: f64, end: f64, step: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::glia_tensor_arange(start, end, step, ptr::null(), out) })
    }
    /// U[0, 1), float32, from this thread's generator.
    pub fn rand(shape: &[i64]) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::glia_tensor_rand(shape.as_ptr(), shape.len() as i64, ptr::null(), out) })
    }
    /// N(0, 1), float32, from this thread's generator.
    pub fn randn(shape: &[i64]) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::glia_tensor_randn(shape.as_ptr(), shape.len() as i64, ptr::null(), out) })
    }
    /// A CPU tensor holding a copy of `data` (row-major) with `shape`.
    pub fn from_slice<T: Element>(data: &[T], shape: &[i64]) -> Result<Tensor> {
        let nbytes = std::mem::size_of_val(data);
        new_tensor(|out| unsafe {
            sys::glia_tensor_from_data(
                data.as_ptr() as *const sys::c_void,
                nbytes,
                shape.as_ptr(),
                shape.len() as i64,
                T::DTYPE.to_raw(),
                out,
            )
        })
    }

    // ---- metadata and data ------------------------------------------------

    /// The sizes.
    pub fn shape(&self) -> Vec<i64> {
        let n = self.ndim();
        let mut v = vec![0i64; n];
        check(unsafe { sys::glia_tensor_shape(self.as_ptr(), n as i64, v.as_mut_ptr()) }).expect("glia_tensor_shape");
        v
    }
    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        let mut n = 0i64;
        check(unsafe { sys::glia_tensor_ndim(self.as_ptr(), &mut n) }).expect("glia_tensor_ndim");
        n as usize
    }
    /// The number of elements.
    pub fn numel(&self) -> i64 {
        let mut n = 0i64;
        check(unsafe { sys::glia_tensor_numel(self.as_ptr(), &mut n) }).expect("glia_tensor_numel");
        n
    }
    /// The element type.
    pub fn dtype(&self) -> DType {
        let mut d: sys::glia_dtype = 0;
        check(unsafe { sys::glia_tensor_dtype(self.as_ptr(), &mut d) }).expect("glia_tensor_dtype");
        DType::from_raw(d)
    }
    /// The device.
    pub fn device(&self) -> Device {
        let mut d = sys::glia_device { type_: 0, index: 0 };
        check(unsafe { sys::glia_tensor_device(self.as_ptr(), &mut d) }).expect("glia_tensor_device");
        Device::from_raw(d)
    }
    /// The elements in row-major order; `T` must be the tensor's dtype (else GLIA_ERR_DTYPE).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let d = self.dtype();
        if d != T::DTYPE {
            return Err(Error::new(
                ErrorCode::DType,
                format!(
                    "Tensor::to_vec: the tensor is {} but the element type asked for is {}",
                    d.name(),
                    T::DTYPE.name()
                ),
            ));
        }
        let n = self.numel() as usize;
        let mut v: Vec<T> = Vec::with_capacity(n);
        check(unsafe {
            sys::glia_tensor_copy_to_host(
                self.as_ptr(),
                v.as_mut_ptr() as *mut sys::c_void,
                n * std::mem::size_of::<T>(),
            )
        })?;
        unsafe { v.set_len(n) };
        Ok(v)
    }
    /// The single element as f64 (`.item()`); GLIA_ERR_SHAPE unless numel is 1.
    pub fn item(&self) -> Result<f64> {
        let mut v = 0f64;
        check(unsafe { sys::glia_tensor_item_double(self.as_ptr(), &mut v) })?;
        Ok(v)
    }
    /// The single element as i64.
    pub fn item_i64(&self) -> Result<i64> {
        let mut v = 0i64;
        check(unsafe { sys::glia_tensor_item_int64(self.as_ptr(), &mut v) })?;
        Ok(v)
    }
    /// A copy converted to `dtype` (this tensor itself when it already is).
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        let d = dtype.to_raw();
        new_tensor(|o| unsafe { sys::glia_tensor_to(self.as_ptr(), std::ptr::null(), &d, o) })
    }
    /// On `device` (this tensor itself when it already is).
    pub fn to_device(&self, device: Device) -> Result<Tensor> {
        let dev = device.to_raw();
        new_tensor(|o| unsafe { sys::glia_tensor_to(self.as_ptr(), &dev, std::ptr::null(), o) })
    }

    unary! {
        /// A copy with its own storage (torch's `.clone()`; `Clone` only adds a reference).
        deep_clone => glia_tensor_clone;
        /// A view sharing storage, outside any autograd graph.
        detach => glia_tensor_detach;
        /// Contiguous (this tensor itself when already contiguous).
        contiguous => glia_tensor_contiguous;
        /// -x
        neg => glia_neg;
        /// |x|
        abs => glia_abs;
        /// e^x
        exp => glia_exp;
        /// ln x
        log => glia_log;
        /// sqrt x
        sqrt => glia_sqrt;
        /// max(x, 0)
        relu => glia_relu;
        /// 1 / (1 + e^-x)
        sigmoid => glia_sigmoid;
        /// tanh x
        tanh => glia_tanh;
        /// x * sigmoid(x)
        silu => glia_silu;
        /// !x (bool result)
        logical_not => glia_logical_not;
    }

    binary! {
        /// a * b (broadcast)
        mul => glia_mul;
        /// torch.matmul
        matmul => glia_matmul;
        /// torch.mm (2-D)
        mm => glia_mm;
        /// a ** b
        pow => glia_pow;
        /// elementwise maximum
        maximum => glia_maximum;
        /// elementwise minimum
        minimum => glia_minimum;
        /// a == b (bool)
        eq => glia_eq;
        /// a != b
        ne => glia_ne;
        /// a < b
        lt => glia_lt;
        /// a <= b
        le => glia_le;
        /// a > b
        gt => glia_gt;
        /// a >= b
        ge => glia_ge;
    }

    compare_scalar! {
        /// a == s
        eq_scalar => glia_eq_scalar;
        /// a < s
        lt_scalar => glia_lt_scalar;
        /// a > s
        gt_scalar => glia_gt_scalar;
        /// a * s
        mul_scalar => glia_mul_scalar;
        /// a ** s
        pow_scalar => glia_pow_scalar;
    }

    /// a + b (broadcast, torch's type promotion).
    pub fn add(&self, other: &Tensor) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_add(self.as_ptr(), other.as_ptr(), 1.0, o) })
    }
    /// a - b.
    pub fn sub(&self, other: &Tensor) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_sub(self.as_ptr(), other.as_ptr(), 1.0, o) })
    }
    /// a / b (true division).
    pub fn div(&self, other: &Tensor) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_div(self.as_ptr(), other.as_ptr(), ptr::null(), o) })
    }
    /// a + s (a float scalar: an integer tensor becomes float32, as in torch).
    pub fn add_scalar(&self, s: f64) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_add_scalar(self.as_ptr(), sys::glia_scalar_float(s), 1.0, o) })
    }
    /// a - s.
    pub fn sub_scalar(&self, s: f64) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_sub_scalar(self.as_ptr(), sys::glia_scalar_float(s), 1.0, o) })
    }
    /// a / s.
    pub fn div_scalar(&self, s: f64) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_div_scalar(self.as_ptr(), sys::glia_scalar_float(s), ptr::null(), o) })
    }
    /// Clamps to [min, max] (either may be None, not both).
    pub fn clamp(&self, min: Option<f64>, max: Option<f64>) -> Result<Tensor> {
        let lo = min.map(sys::glia_scalar_float);
        let hi = max.map(sys::glia_scalar_float);
        let lp = lo.as_ref().map_or(ptr::null(), |s| s as *const _);
        let hp = hi.as_ref().map_or(ptr::null(), |s| s as *const _);
        new_tensor(|o| unsafe { sys::glia_clamp(self.as_ptr(), lp, hp, o) })
    }

    // ---- reductions ---------------------------------------------------------

    /// The sum of all elements.
    pub fn sum(&self) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_sum(self.as_ptr(), ptr::null(), 0, 0, o) })
    }
    /// The sum over `dims` (an empty list also reduces all, recorded as torch's `SumBackward1`).
    pub fn sum_dims(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_sum(self.as_ptr(), dims.as_ptr(), dims.len() as i64, keepdim as i32, o) })
    }
    /// The mean of all elements (floating only).
    pub fn mean(&self) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_mean(self.as_ptr(), ptr::null(), 0, 0, o) })
    }
    /// The mean over `dims` (an empty list also reduces all).
    pub fn mean_dims(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_mean(self.as_ptr(), dims.as_ptr(), dims.len() as i64, keepdim as i32, o) })
    }
    /// (values, indices) of the maximum along `dim`.
    pub fn max_dim(&self, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let mut v = ptr::null_mut();
        let mut i = ptr::null_mut();
        check(unsafe { sys::glia_max(self.as_ptr(), dim, keepdim as i32, &mut v, &mut i) })?;
        unsafe { Ok((Tensor::from_raw(v).unwrap(), Tensor::from_raw(i).unwrap())) }
    }
    /// The index of the maximum along `dim` (int64).
    pub fn argmax(&self, dim: i64, keepdim: bool) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_argmax(self.as_ptr(), &dim, keepdim as i32, o) })
    }
    /// softmax along `dim`.
    pub fn softmax(&self, dim: i64) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_softmax(self.as_ptr(), dim, o) })
    }
    /// log_softmax along `dim`.
    pub fn log_softmax(&self, dim: i64) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_log_softmax(self.as_ptr(), dim, o) })
    }
    /// F.mse_loss(self, target) with mean reduction.
    pub fn mse_loss(&self, target: &Tensor) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_mse_loss(self.as_ptr(), target.as_ptr(), sys::GLIA_REDUCTION_MEAN, o) })
    }
    /// F.cross_entropy(self, target) with torch's defaults (target: int64 class indices or probabilities).
    pub fn cross_entropy(&self, target: &Tensor) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_cross_entropy(self.as_ptr(), target.as_ptr(), ptr::null(), o) })
    }
    /// F.linear(self, weight, bias).
    pub fn linear(&self, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        let b = bias.map_or(ptr::null(), |b| b.as_ptr() as *const _);
        new_tensor(|o| unsafe { sys::glia_linear(self.as_ptr(), weight.as_ptr(), b, o) })
    }

    // ---- shapes -------------------------------------------------------------

    /// torch.reshape.
    pub fn reshape(&self, shape: &[i64]) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_reshape(self.as_ptr(), shape.as_ptr(), shape.len() as i64, o) })
    }
    /// Tensor.view.
    pub fn view(&self, shape: &[i64]) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_view(self.as_ptr(), shape.as_ptr(), shape.len() as i64, o) })
    }
    /// Swaps two dims (a view).
    pub fn transpose(&self, dim0: i64, dim1: i64) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_transpose(self.as_ptr(), dim0, dim1, o) })
    }
    /// Reorders dims (a view).
    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_permute(self.as_ptr(), dims.as_ptr(), dims.len() as i64, o) })
    }
    /// torch.flatten(start_dim, end_dim).
    pub fn flatten(&self, start_dim: i64, end_dim: i64) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_flatten(self.as_ptr(), start_dim, end_dim, o) })
    }
    /// Inserts a size-1 dim.
    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_unsqueeze(self.as_ptr(), dim, o) })
    }
    /// Removes every size-1 dim.
    pub fn squeeze(&self) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_squeeze(self.as_ptr(), ptr::null(), 0, o) })
    }
    /// `length` entries of `dim` from `start` (a view).
    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_narrow(self.as_ptr(), dim, start, length, o) })
    }
    /// a[..., index, ...] along `dim` (a view without that dim).
    pub fn select(&self, dim: i64, index: i64) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_select(self.as_ptr(), dim, index, o) })
    }
    /// torch.cat along `dim`.
    pub fn cat(tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
        let p = ptrs(tensors);
        new_tensor(|o| unsafe { sys::glia_cat(p.as_ptr(), p.len() as i64, dim, o) })
    }
    /// torch.stack along a new `dim`.
    pub fn stack(tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
        let p = ptrs(tensors);
        new_tensor(|o| unsafe { sys::glia_stack(p.as_ptr(), p.len() as i64, dim, o) })
    }

    // ---- in place (need &mut self: they mutate the tensor) -----------------

    /// self += alpha * other.
    pub fn add_(&mut self, other: &Tensor, alpha: f64) -> Result<()> {
        check(unsafe { sys::glia_add_(self.as_ptr(), other.as_ptr(), alpha) })
    }
    /// self -= alpha * other.
    pub fn sub_(&mut self, other: &Tensor, alpha: f64) -> Result<()> {
        check(unsafe { sys::glia_sub_(self.as_ptr(), other.as_ptr(), alpha) })
    }
    /// self *= other.
    pub fn mul_(&mut self, other: &Tensor) -> Result<()> {
        check(unsafe { sys::glia_mul_(self.as_ptr(), other.as_ptr()) })
    }
    /// self *= s.
    pub fn mul_scalar_(&mut self, s: f64) -> Result<()> {
        check(unsafe { sys::glia_mul_scalar_(self.as_ptr(), sys::glia_scalar_float(s)) })
    }
    /// self = 0.
    pub fn zero_(&mut self) -> Result<()> {
        check(unsafe { sys::glia_zero_(self.as_ptr()) })
    }
    /// self = value.
    pub fn fill_(&mut self, value: f64) -> Result<()> {
        check(unsafe { sys::glia_fill_(self.as_ptr(), sys::glia_scalar_float(value)) })
    }
    /// self = src (broadcast, converted).
    pub fn copy_(&mut self, src: &Tensor) -> Result<()> {
        check(unsafe { sys::glia_copy_(self.as_ptr(), src.as_ptr()) })
    }

    // ---- autograd -------------------------------------------------------------

    /// Whether gradients are recorded for this tensor.
    pub fn requires_grad(&self) -> bool {
        let mut f = 0i32;
        check(unsafe { sys::glia_tensor_requires_grad(self.as_ptr(), &mut f) }).expect("glia_tensor_requires_grad");
        f != 0
    }
    /// torch's `requires_grad_(flag)`.
    pub fn set_requires_grad(&mut self, flag: bool) -> Result<()> {
        check(unsafe { sys::glia_tensor_set_requires_grad(self.as_ptr(), flag as i32) })
    }
    /// `requires_grad_(flag)` for builder chains: `Tensor::randn(&[3])?.with_requires_grad(true)?`.
    pub fn with_requires_grad(mut self, flag: bool) -> Result<Tensor> {
        self.set_requires_grad(flag)?;
        Ok(self)
    }
    /// Whether the tensor has no grad_fn.
    pub fn is_leaf(&self) -> bool {
        let mut f = 0i32;
        check(unsafe { sys::glia_tensor_is_leaf(self.as_ptr(), &mut f) }).expect("glia_tensor_is_leaf");
        f != 0
    }
    /// `.grad`, if any.
    pub fn grad(&self) -> Option<Tensor> {
        let mut g = ptr::null_mut();
        check(unsafe { sys::glia_tensor_grad(self.as_ptr(), &mut g) }).expect("glia_tensor_grad");
        unsafe { Tensor::from_raw(g) }
    }
    /// Sets (or with None clears) `.grad`.
    pub fn set_grad(&mut self, grad: Option<&Tensor>) -> Result<()> {
        let g = grad.map_or(ptr::null_mut(), |g| g.as_ptr());
        check(unsafe { sys::glia_tensor_set_grad(self.as_ptr(), g) })
    }
    /// torch's `retain_grad()`.
    pub fn retain_grad(&mut self) -> Result<()> {
        check(unsafe { sys::glia_tensor_retain_grad(self.as_ptr()) })
    }
    /// The grad_fn's name ("MulBackward0"), "" for a leaf.
    pub fn grad_fn_name(&self) -> Result<String> {
        read_string(|b, c, l| unsafe { sys::glia_tensor_grad_fn_name(self.as_ptr(), b, c, l) })
    }
    /// `backward()` of a one-element tensor.
    pub fn backward(&mut self) -> Result<()> {
        check(unsafe { sys::glia_tensor_backward(self.as_ptr(), ptr::null(), 0) })
    }
    /// `backward(gradient, retain_graph)`.
    pub fn backward_with(&mut self, gradient: Option<&Tensor>, retain_graph: bool) -> Result<()> {
        let g = gradient.map_or(ptr::null(), |g| g.as_ptr() as *const _);
        check(unsafe { sys::glia_tensor_backward(self.as_ptr(), g, retain_graph as i32) })
    }
    /// torch's `register_hook`: `f` sees the gradient flowing into this tensor
    /// and may return a replacement. Returns the hook id.
    pub fn register_hook<F>(&mut self, f: F) -> Result<u64>
    where
        F: Fn(&Tensor) -> Result<Option<Tensor>> + Send + Sync + 'static,
    {
        let boxed: Box<Box<TensorHookFn>> = Box::new(Box::new(f));
        let ud = Box::into_raw(boxed) as *mut sys::c_void;
        let mut id = 0u64;
        // glia calls free_user_data even when registration fails
        check(unsafe {
            sys::glia_tensor_register_hook(
                self.as_ptr(),
                Some(tensor_hook_trampoline),
                ud,
                Some(free_boxed::<TensorHookFn>),
                &mut id,
            )
        })?;
        Ok(id)
    }
    /// Removes a hook by id (GLIA_ERR_NOT_FOUND for an unknown id).
    pub fn remove_hook(&mut self, id: u64) -> Result<()> {
        check(unsafe { sys::glia_tensor_remove_hook(self.as_ptr(), id) })
    }
}

type TensorHookFn = dyn Fn(&Tensor) -> Result<Option<Tensor>> + Send + Sync;

unsafe extern "C" fn tensor_hook_trampoline(
    ud: *mut sys::c_void,
    grad: *const sys::glia_tensor,
    out: *mut *mut sys::glia_tensor,
) -> *mut sys::glia_error {
    run_callback(|| {
        let f: &TensorHookFn = &**(ud as *const Box<TensorHookFn>);
        let g = Tensor::from_borrowed(grad)?;
        if let Some(r) = f(&g)? {
            *out = r.into_raw();
        }
        Ok(())
    })
}

impl Clone for Tensor {
    /// A new reference to the same tensor (`glia_tensor_retain`).
    fn clone(&self) -> Tensor {
        check(unsafe { sys::glia_tensor_retain(self.as_ptr()) }).expect("glia_tensor_retain");
        Tensor { raw: self.raw }
    }
}

impl Drop for Tensor {
    fn drop(&mut self) {
        let e = unsafe { sys::glia_tensor_release(self.as_ptr()) };
        unsafe { sys::glia_error_free(e) };
    }
}

impl fmt::Display for Tensor {
    /// torch's repr.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match read_string(|b, c, l| unsafe { sys::glia_tensor_to_string(self.as_ptr(), b, c, l) }) {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<tensor: {}>", e),
        }
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn or_panic(r: Result<Tensor>, op: &str) -> Tensor {
    match r {
        Ok(t) => t,
        Err(e) => panic!("glia: tensor {} failed: {}", op, e),
    }
}

macro_rules! binop {
    ($Trait:ident, $method:ident, $f:ident, $sym:expr, $scalar:ident) => {
        impl<'a, 'b> $Trait<&'b Tensor> for &'a Tensor {
            type Output = Tensor;
            fn $method(self, rhs: &'b Tensor) -> Tensor {
                or_panic(Tensor::$f(self, rhs), $sym)
            }
        }
        impl $Trait<Tensor> for Tensor {
            type Output = Tensor;
            fn $method(self, rhs: Tensor) -> Tensor {
                or_panic(Tensor::$f(&self, &rhs), $sym)
            }
        }
        impl<'b> $Trait<&'b Tensor> for Tensor {
            type Output = Tensor;
            fn $method(self, rhs: &'b Tensor) -> Tensor {
                or_panic(Tensor::$f(&self, rhs), $sym)
            }
        }
        impl<'a> $Trait<Tensor> for &'a Tensor {
            type Output = Tensor;
            fn $method(self, rhs: Tensor) -> Tensor {
                or_panic(Tensor::$f(self, &rhs), $sym)
            }
        }
        impl<'a> $Trait<f64> for &'a Tensor {
            type Output = Tensor;
            fn $method(self, rhs: f64) -> Tensor {
                or_panic(Tensor::$scalar(self, rhs), $sym)
            }
        }
        impl $Trait<f64> for Tensor {
            type Output = Tensor;
            fn $method(self, rhs: f64) -> Tensor {
                or_panic(Tensor::$scalar(&self, rhs), $sym)
            }
        }
    };
}

binop!(Add, add, add, "+", add_scalar);
binop!(Sub, sub, sub, "-", sub_scalar);
binop!(Mul, mul, mul, "*", mul_scalar);
binop!(Div, div, div, "/", div_scalar);

impl Neg for &Tensor {
    type Output = Tensor;
    fn neg(self) -> Tensor {
        or_panic(Tensor::neg(self), "neg")
    }
}

impl Neg for Tensor {
    type Output = Tensor;
    fn neg(self) -> Tensor {
        or_panic(Tensor::neg(&self), "neg")
    }
}
