//! Modules (`torch.nn.Module`): built-in layers, containers, custom modules
//! written in Rust, hooks and state dicts.
use std::fmt;
use std::path::Path;
use std::ptr::{self, NonNull};

use crate::dict::{new_dict, path_cstring};
use crate::sys;
use crate::tensor::new_tensor;
use crate::{check, cstring, free_boxed, read_string, run_callback, Error, ErrorCode, Result, Tensor, TensorDict};

/// torch.nn.SyncBatchNorm and torch.nn.DataParallel (they live in [`crate::distributed`]).
pub use crate::distributed::{data_parallel, sync_batch_norm};
/// The generated module constructors (`ops_gen.rs`, scripts/gen_wrappers.py).
pub use crate::ops_gen::modules::*;

/// A module (`glia_module`): parameters, buffers and children in
/// registration order. `Clone` adds a reference to the same module, `Drop`
/// releases it. `Send` but not `Sync` (see the crate docs): `forward` and
/// `train` mutate through `&self`.
pub struct Module {
    raw: NonNull<sys::glia_module>,
}

unsafe impl Send for Module {}

fn new_module(f: impl FnOnce(*mut *mut sys::glia_module) -> *mut sys::glia_error) -> Result<Module> {
    let mut out = ptr::null_mut();
    check(f(&mut out))?;
    match NonNull::new(out) {
        Some(raw) => Ok(Module { raw }),
        None => Err(Error::new(ErrorCode::Internal, "glia returned no module")),
    }
}

/// A custom module's forward: `(self, inputs) -> outputs`.
pub type ForwardFn = dyn Fn(&Module, &[Tensor]) -> Result<Vec<Tensor>> + Send + Sync;
/// A forward pre-hook: `(module, inputs) -> Some(new inputs)` or `None` to keep them.
pub type ForwardPreHookFn = dyn Fn(&Module, &[Tensor]) -> Result<Option<Vec<Tensor>>> + Send + Sync;
/// A forward hook: `(module, inputs, outputs) -> Some(new outputs)` or `None` to keep them.
pub type ForwardHookFn = dyn Fn(&Module, &[Tensor], &[Tensor]) -> Result<Option<Vec<Tensor>>> + Send + Sync;

/// Borrowed handles of a callback as owned tensors (each retained).
unsafe fn borrowed_tensors(p: *const *const sys::glia_tensor, n: i64) -> Result<Vec<Tensor>> {
    let mut v = Vec::with_capacity(n.max(0) as usize);
    for i in 0..n.max(0) as usize {
        let t = *p.add(i);
        if t.is_null() {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!("the Rust binding got None at position {} where it expects tensors", i),
            ));
        }
        v.push(Tensor::from_borrowed(t)?);
    }
    Ok(v)
}

/// Hands `v` to glia as new references in `out[0..capacity)`.
unsafe fn write_tensors(v: Vec<Tensor>, out: *mut *mut sys::glia_tensor, capacity: i64, n_out: *mut i64) -> Result<()> {
    if v.len() as i64 > capacity {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "a Rust callback returned {} tensors but at most {} fit",
                v.len(),
                capacity
            ),
        ));
    }
    *n_out = v.len() as i64;
    for (i, t) in v.into_iter().enumerate() {
        *out.add(i) = t.into_raw();
    }
    Ok(())
}

unsafe extern "C" fn forward_trampoline(
    ud: *mut sys::c_void,
    this: *mut sys::glia_module,
    inputs: *const *const sys::glia_tensor,
    n_inputs: i64,
    outputs: *mut *mut sys::glia_tensor,
    capacity: i64,
    n_outputs: *mut i64,
) -> *mut sys::glia_error {
    run_callback(|| {
        let f: &ForwardFn = &**(ud as *const Box<ForwardFn>);
        let m = Module::from_borrowed(this)?;
        let ins = borrowed_tensors(inputs, n_inputs)?;
        let outs = f(&m, &ins)?;
        write_tensors(outs, outputs, capacity, n_outputs)
    })
}

unsafe extern "C" fn forward_pre_hook_trampoline(
    ud: *mut sys::c_void,
    module: *mut sys::glia_module,
    inputs: *const *const sys::glia_tensor,
    n_inputs: i64,
    replacement: *mut *mut sys::glia_tensor,
    capacity: i64,
    n_replacement: *mut i64,
) -> *mut sys::glia_error {
    run_callback(|| {
        let f: &ForwardPreHookFn = &**(ud as *const Box<ForwardPreHookFn>);
        let m = Module::from_borrowed(module)?;
        let ins = borrowed_tensors(inputs, n_inputs)?;
        match f(&m, &ins)? {
            Some(v) => write_tensors(v, replacement, capacity, n_replacement),
            None => Ok(()),
        }
    })
}

unsafe extern "C" fn forward_hook_trampoline(
    ud: *mut sys::c_void,
    module: *mut sys::glia_module,
    inputs: *const *const sys::glia_tensor,
    n_inputs: i64,
    outputs: *const *const sys::glia_tensor,
    n_outputs: i64,
    replacement: *mut *mut sys::glia_tensor,
    capacity: i64,
    n_replacement: *mut i64,
) -> *mut sys::glia_error {
    run_callback(|| {
        let f: &ForwardHookFn = &**(ud as *const Box<ForwardHookFn>);
        let m = Module::from_borrowed(module)?;
        let ins = borrowed_tensors(inputs, n_inputs)?;
        let outs = borrowed_tensors(outputs, n_outputs)?;
        match f(&m, &ins, &outs)? {
            Some(v) => write_tensors(v, replacement, capacity, n_replacement),
            None => Ok(()),
        }
    })
}

impl Module {
    /// Takes over a handle (one reference).
    ///
    /// # Safety
    /// `raw` must be a live glia module handle whose reference the caller gives up.
    pub unsafe fn from_raw(raw: *mut sys::glia_module) -> Option<Module> {
        NonNull::new(raw).map(|raw| Module { raw })
    }

    /// A new reference to a borrowed handle (retains it).
    ///
    /// # Safety
    /// `raw` must be NULL or point to a glia handle.
    pub unsafe fn from_borrowed(raw: *mut sys::glia_module) -> Result<Module> {
        check(sys::glia_module_retain(raw))?;
        Ok(Module {
            raw: NonNull::new_unchecked(raw),
        })
    }

    /// The handle (still owned by `self`).
    pub fn as_ptr(&self) -> *mut sys::glia_module {
        self.raw.as_ptr()
    }

    /// A module defined in Rust (a `torch.nn.Module` subclass named
    /// `type_name`) whose forward is `forward`. Register its parameters,
    /// buffers and children afterwards; `forward` receives the module itself
    /// to reach them (`m.parameter("weight")`). A panic in `forward` fails the
    /// call with GLIA_ERR_CALLBACK.
    pub fn custom<F>(type_name: &str, forward: F) -> Result<Module>
    where
        F: Fn(&Module, &[Tensor]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
    {
        let name = cstring(type_name)?;
        let boxed: Box<Box<ForwardFn>> = Box::new(Box::new(forward));
        let mut def = std::mem::MaybeUninit::<sys::glia_module_def>::uninit();
        let mut def = unsafe {
            sys::glia_module_def_init(def.as_mut_ptr());
            def.assume_init()
        };
        def.forward = Some(forward_trampoline);
        def.user_data = Box::into_raw(boxed) as *mut sys::c_void;
        def.free_user_data = Some(free_boxed::<ForwardFn>);
        // from here glia owns user_data (freed on failure too)
        new_module(|o| unsafe { sys::glia_module_create(name.as_ptr(), &def, o) })
    }

    // ---- calling --------------------------------------------------------------

    /// `module(x)` for a module with one input and one output.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        one(self.forward_n(&[x])?)
    }
    /// `module(a, b)` for two inputs and one output (losses: `(input, target)`).
    pub fn forward2(&self, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        one(self.forward_n(&[a, b])?)
    }
    /// `module(*inputs)`: every output.
    pub fn forward_n(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let ins: Vec<*const sys::glia_tensor> = inputs.iter().map(|t| t.as_ptr() as *const _).collect();
        let mut outs: Vec<*mut sys::glia_tensor> = vec![ptr::null_mut(); sys::GLIA_MODULE_MAX_OUTPUTS as usize];
        let mut n = 0i64;
        check(unsafe {
            sys::glia_module_forward(
                self.as_ptr(),
                ins.as_ptr(),
                ins.len() as i64,
                outs.as_mut_ptr(),
                outs.len() as i64,
                &mut n,
            )
        })?;
        Ok(outs[..n as usize]
            .iter()
            .filter_map(|&p| unsafe { Tensor::from_raw(p) })
            .collect())
    }

    // ---- the tree ---------------------------------------------------------------

    /// register_parameter (a floating tensor is made to require grad).
    pub fn register_parameter(&self, name: &str, tensor: &Tensor) -> Result<()> {
        let n = cstring(name)?;
        check(unsafe { sys::glia_module_register_parameter(self.as_ptr(), n.as_ptr(), tensor.as_ptr()) })
    }
    /// register_buffer(name, tensor, persistent).
    pub fn register_buffer(&self, name: &str, tensor: &Tensor, persistent: bool) -> Result<()> {
        let n = cstring(name)?;
        check(unsafe {
            sys::glia_module_register_buffer(self.as_ptr(), n.as_ptr(), tensor.as_ptr(), persistent as i32)
        })
    }
    /// add_module(name, child).
    pub fn add_module(&self, name: &str, child: &Module) -> Result<()> {
        let n = cstring(name)?;
        check(unsafe { sys::glia_module_add_module(self.as_ptr(), n.as_ptr(), child.as_ptr()) })
    }
    /// get_parameter by dotted path ("fc.weight").
    pub fn parameter(&self, path: &str) -> Result<Tensor> {
        let p = cstring(path)?;
        new_tensor(|o| unsafe { sys::glia_module_get_parameter(self.as_ptr(), p.as_ptr(), o) })
    }
    /// get_buffer by dotted path.
    pub fn buffer(&self, path: &str) -> Result<Tensor> {
        let p = cstring(path)?;
        new_tensor(|o| unsafe { sys::glia_module_get_buffer(self.as_ptr(), p.as_ptr(), o) })
    }
    /// get_submodule by dotted path ("" is the module itself).
    pub fn submodule(&self, path: &str) -> Result<Module> {
        let p = cstring(path)?;
        new_module(|o| unsafe { sys::glia_module_get_submodule(self.as_ptr(), p.as_ptr(), o) })
    }
    /// named_parameters(): (dotted name, parameter) pairs, recursively, each shared parameter once.
    pub fn named_parameters(&self) -> impl Iterator<Item = (String, Tensor)> {
        new_dict(|o| unsafe { sys::glia_module_named_parameters(self.as_ptr(), ptr::null(), 1, 1, o) })
            .expect("glia_module_named_parameters")
            .into_iter()
    }
    /// parameters(): the tensors of named_parameters().
    pub fn parameters(&self) -> Vec<Tensor> {
        self.named_parameters().map(|(_, t)| t).collect()
    }
    /// named_buffers(): (dotted name, buffer) pairs.
    pub fn named_buffers(&self) -> impl Iterator<Item = (String, Tensor)> {
        new_dict(|o| unsafe { sys::glia_module_named_buffers(self.as_ptr(), ptr::null(), 1, 1, o) })
            .expect("glia_module_named_buffers")
            .into_iter()
    }

    // ---- modes --------------------------------------------------------------------

    /// train(mode), recursively.
    pub fn train(&self, mode: bool) -> Result<()> {
        check(unsafe { sys::glia_module_train(self.as_ptr(), mode as i32) })
    }
    /// eval().
    pub fn eval(&self) -> Result<()> {
        self.train(false)
    }
    /// The training flag.
    pub fn is_training(&self) -> bool {
        let mut f = 0i32;
        check(unsafe { sys::glia_module_is_training(self.as_ptr(), &mut f) }).expect("glia_module_is_training");
        f != 0
    }
    /// zero_grad(set_to_none=True).
    pub fn zero_grad(&self) -> Result<()> {
        check(unsafe { sys::glia_module_zero_grad(self.as_ptr(), 1) })
    }
    /// The type name ("Linear").
    pub fn type_name(&self) -> String {
        read_string(|b, c, l| unsafe { sys::glia_module_type_name(self.as_ptr(), b, c, l) })
            .expect("glia_module_type_name")
    }

    // ---- hooks ----------------------------------------------------------------------

    /// register_forward_pre_hook: `f(module, inputs)` may return new inputs. Returns the hook id.
    pub fn add_forward_pre_hook<F>(&self, f: F) -> Result<u64>
    where
        F: Fn(&Module, &[Tensor]) -> Result<Option<Vec<Tensor>>> + Send + Sync + 'static,
    {
        let boxed: Box<Box<ForwardPreHookFn>> = Box::new(Box::new(f));
        let mut id = 0u64;
        check(unsafe {
            sys::glia_module_add_forward_pre_hook(
                self.as_ptr(),
                Some(forward_pre_hook_trampoline),
                Box::into_raw(boxed) as *mut sys::c_void,
                Some(free_boxed::<ForwardPreHookFn>),
                0,
                &mut id,
            )
        })?;
        Ok(id)
    }
    /// register_forward_hook: `f(module, inputs, outputs)` may return new outputs. Returns the hook id.
    pub fn add_forward_hook<F>(&self, f: F) -> Result<u64>
    where
        F: Fn(&Module, &[Tensor], &[Tensor]) -> Result<Option<Vec<Tensor>>> + Send + Sync + 'static,
    {
        let boxed: Box<Box<ForwardHookFn>> = Box::new(Box::new(f));
        let mut id = 0u64;
        check(unsafe {
            sys::glia_module_add_forward_hook(
                self.as_ptr(),
                Some(forward_hook_trampoline),
                Box::into_raw(boxed) as *mut sys::c_void,
                Some(free_boxed::<ForwardHookFn>),
                0,
                &mut id,
            )
        })?;
        Ok(id)
    }
    /// Removes a hook of any kind (GLIA_ERR_NOT_FOUND for an unknown id).
    pub fn remove_hook(&self, id: u64) -> Result<()> {
        check(unsafe { sys::glia_module_remove_hook(self.as_ptr(), id) })
    }

    // ---- state --------------------------------------------------------------------------

    /// state_dict(): parameters and persistent buffers by dotted name.
    pub fn state_dict(&self) -> Result<TensorDict> {
        new_dict(|o| unsafe { sys::glia_module_state_dict(self.as_ptr(), o) })
    }
    /// load_state_dict(dict, strict) (all-or-nothing; torch's messages).
    pub fn load_state_dict(&self, dict: &TensorDict, strict: bool) -> Result<()> {
        check(unsafe {
            sys::glia_module_load_state_dict(self.as_ptr(), dict.as_ptr(), strict as i32, 0, ptr::null_mut())
        })
    }
    /// Saves the state dict as safetensors (atomically).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let p = path_cstring(path.as_ref())?;
        check(unsafe { sys::glia_module_save(self.as_ptr(), p.as_ptr()) })
    }
    /// Loads a checkpoint into the module (all-or-nothing).
    pub fn load(&self, path: impl AsRef<Path>, strict: bool) -> Result<()> {
        let p = path_cstring(path.as_ref())?;
        check(unsafe { sys::glia_module_load(self.as_ptr(), p.as_ptr(), strict as i32, ptr::null_mut()) })
    }

    // ---- Sequential -------------------------------------------------------------------------

    /// Sequential.append (for a module made by [`sequential`]).
    pub fn push(&self, module: &Module) -> Result<()> {
        check(unsafe { sys::glia_nn_sequential_append(self.as_ptr(), module.as_ptr()) })
    }
    /// `seq[index]` of a Sequential.
    pub fn get(&self, index: i64) -> Result<Module> {
        new_module(|o| unsafe { sys::glia_nn_sequential_get(self.as_ptr(), index, o) })
    }
}

fn one(mut v: Vec<Tensor>) -> Result<Tensor> {
    if v.len() != 1 {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("expected one output, the module returned {}", v.len()),
        ));
    }
    Ok(v.pop().unwrap())
}

impl Clone for Module {
    fn clone(&self) -> Module {
        check(unsafe { sys::glia_module_retain(self.as_ptr()) }).expect("glia_module_retain");
        Module { raw: self.raw }
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        unsafe { sys::glia_error_free(sys::glia_module_release(self.as_ptr())) };
    }
}

impl fmt::Display for Module {
    /// torch's repr of the module tree.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match read_string(|b, c, l| unsafe { sys::glia_module_to_string(self.as_ptr(), b, c, l) }) {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<module: {}>", e),
        }
    }
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

// ---- built-in layers ------------------------------------------------------------------

/// torch.nn.Identity.
pub fn identity() -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_identity(ptr::null(), o) })
}
/// torch.nn.Linear(in_features, out_features, bias).
pub fn linear(in_features: i64, out_features: i64, bias: bool) -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_linear(in_features, out_features, bias as i32, ptr::null(), o) })
}

/// Keyword arguments of [`conv2d`] (torch's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Conv2dOptions {
    /// (height, width), default (1, 1)
    pub stride: (i64, i64),
    /// default (0, 0)
    pub padding: (i64, i64),
    /// default (1, 1)
    pub dilation: (i64, i64),
    /// default 1
    pub groups: i64,
    /// default true
    pub bias: bool,
}

impl Default for Conv2dOptions {
    fn default() -> Self {
        Conv2dOptions {
            stride: (1, 1),
            padding: (0, 0),
            dilation: (1, 1),
            groups: 1,
            bias: true,
        }
    }
}

/// torch.nn.Conv2d(in_channels, out_channels, kernel_size, ...).
pub fn conv2d(in_channels: i64, out_channels: i64, kernel_size: (i64, i64), options: &Conv2dOptions) -> Result<Module> {
    let mut o = std::mem::MaybeUninit::<sys::glia_nn_conv2d_options>::uninit();
    let mut o = unsafe {
        sys::glia_nn_conv2d_options_init(o.as_mut_ptr());
        o.assume_init()
    };
    o.stride = [options.stride.0, options.stride.1];
    o.padding = [options.padding.0, options.padding.1];
    o.dilation = [options.dilation.0, options.dilation.1];
    o.groups = options.groups;
    o.bias = options.bias as i32;
    new_module(|out| unsafe {
        sys::glia_nn_conv2d(
            in_channels,
            out_channels,
            kernel_size.0,
            kernel_size.1,
            &o,
            ptr::null(),
            out,
        )
    })
}

/// torch.nn.MaxPool2d(kernel_size, stride) (stride None: the kernel size).
pub fn max_pool2d(kernel_size: (i64, i64), stride: Option<(i64, i64)>) -> Result<Module> {
    let mut o = std::mem::MaybeUninit::<sys::glia_max_pool2d_options>::uninit();
    let mut o = unsafe {
        sys::glia_max_pool2d_options_init(o.as_mut_ptr());
        o.assume_init()
    };
    o.kernel_size = [kernel_size.0, kernel_size.1];
    if let Some(s) = stride {
        o.stride = [s.0, s.1];
    }
    new_module(|out| unsafe { sys::glia_nn_max_pool2d(&o, ptr::null(), out) })
}

/// torch.nn.AvgPool2d(kernel_size, stride).
pub fn avg_pool2d(kernel_size: (i64, i64), stride: Option<(i64, i64)>) -> Result<Module> {
    let mut o = std::mem::MaybeUninit::<sys::glia_avg_pool2d_options>::uninit();
    let mut o = unsafe {
        sys::glia_avg_pool2d_options_init(o.as_mut_ptr());
        o.assume_init()
    };
    o.kernel_size = [kernel_size.0, kernel_size.1];
    if let Some(s) = stride {
        o.stride = [s.0, s.1];
    }
    new_module(|out| unsafe { sys::glia_nn_avg_pool2d(&o, ptr::null(), out) })
}

/// torch.nn.ReLU.
pub fn relu() -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_relu(ptr::null(), o) })
}
/// torch.nn.Sigmoid.
pub fn sigmoid() -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_sigmoid(ptr::null(), o) })
}
/// torch.nn.Tanh.
pub fn tanh() -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_tanh(ptr::null(), o) })
}
/// torch.nn.SiLU.
pub fn silu() -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_silu(ptr::null(), o) })
}
/// torch.nn.GELU() (exact).
pub fn gelu() -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_gelu(ptr::null(), ptr::null(), o) })
}
/// torch.nn.LeakyReLU(negative_slope).
pub fn leaky_relu(negative_slope: f64) -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_leaky_relu(negative_slope, ptr::null(), o) })
}
/// torch.nn.Softmax(dim).
pub fn softmax(dim: i64) -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_softmax(dim, ptr::null(), o) })
}
/// torch.nn.LogSoftmax(dim).
pub fn log_softmax(dim: i64) -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_log_softmax(dim, ptr::null(), o) })
}
/// torch.nn.Dropout(p) (active in training mode only).
pub fn dropout(p: f64) -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_dropout(p, ptr::null(), o) })
}
/// torch.nn.Flatten(start_dim, end_dim) (torch's defaults: 1, -1).
pub fn flatten(start_dim: i64, end_dim: i64) -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_flatten(start_dim, end_dim, ptr::null(), o) })
}
/// torch.nn.BatchNorm1d(num_features) with torch's defaults.
pub fn batch_norm1d(num_features: i64) -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_batch_norm1d(num_features, ptr::null(), ptr::null(), o) })
}
/// torch.nn.BatchNorm2d(num_features) with torch's defaults.
pub fn batch_norm2d(num_features: i64) -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_batch_norm2d(num_features, ptr::null(), ptr::null(), o) })
}
/// torch.nn.LayerNorm(normalized_shape) (eps 1e-5, affine, bias).
pub fn layer_norm(normalized_shape: &[i64]) -> Result<Module> {
    new_module(|o| unsafe {
        sys::glia_nn_layer_norm(
            normalized_shape.as_ptr(),
            normalized_shape.len() as i64,
            1e-5,
            1,
            1,
            ptr::null(),
            o,
        )
    })
}
/// torch.nn.Embedding(num_embeddings, embedding_dim).
pub fn embedding(num_embeddings: i64, embedding_dim: i64) -> Result<Module> {
    new_module(|o| unsafe {
        sys::glia_nn_embedding(
            num_embeddings,
            embedding_dim,
            ptr::null(),
            ptr::null(),
            2.0,
            ptr::null(),
            o,
        )
    })
}
/// torch.nn.CrossEntropyLoss() with torch's defaults; forward `(input, target)`.
pub fn cross_entropy_loss() -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_cross_entropy_loss(ptr::null(), ptr::null(), o) })
}
/// torch.nn.MSELoss() (mean).
pub fn mse_loss() -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_mse_loss(sys::GLIA_REDUCTION_MEAN, ptr::null(), o) })
}
/// torch.nn.L1Loss() (mean).
pub fn l1_loss() -> Result<Module> {
    new_module(|o| unsafe { sys::glia_nn_l1_loss(sys::GLIA_REDUCTION_MEAN, ptr::null(), o) })
}
/// torch.nn.BCEWithLogitsLoss() (mean).
pub fn bce_with_logits_loss() -> Result<Module> {
    new_module(|o| unsafe {
        sys::glia_nn_bce_with_logits_loss(
            ptr::null_mut(),
            ptr::null_mut(),
            sys::GLIA_REDUCTION_MEAN,
            ptr::null(),
            o,
        )
    })
}
/// torch.nn.Sequential(*modules) (retains them; children "0", "1", ...).
pub fn sequential(modules: &[&Module]) -> Result<Module> {
    let p: Vec<*mut sys::glia_module> = modules.iter().map(|m| m.as_ptr()).collect();
    new_module(|o| unsafe { sys::glia_nn_sequential(p.as_ptr(), p.len() as i64, o) })
}
