//! Optimizers and learning-rate schedulers (`torch.optim`).
use std::ptr::{self, NonNull};

use crate::dict::new_dict;
use crate::sys;
use crate::{check, Error, ErrorCode, Result, Tensor, TensorDict};

/// torch.optim.SGD's options. `Default` is glia's `glia_sgd_options_init` (torch's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SgdOptions {
    /// learning rate (default 0.001)
    pub lr: f64,
    /// default 0
    pub momentum: f64,
    /// default 0
    pub dampening: f64,
    /// default 0
    pub weight_decay: f64,
    /// default false
    pub nesterov: bool,
    /// default false
    pub maximize: bool,
}

impl Default for SgdOptions {
    fn default() -> Self {
        let mut o = std::mem::MaybeUninit::<sys::glia_sgd_options>::uninit();
        let o = unsafe {
            sys::glia_sgd_options_init(o.as_mut_ptr());
            o.assume_init()
        };
        SgdOptions {
            lr: o.lr,
            momentum: o.momentum,
            dampening: o.dampening,
            weight_decay: o.weight_decay,
            nesterov: o.nesterov != 0,
            maximize: o.maximize != 0,
        }
    }
}

/// torch.optim.Adam / AdamW's options. `Default` is Adam's defaults
/// (`glia_adam_options_init`); [`AdamOptions::adamw`] AdamW's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamOptions {
    /// learning rate (default 0.001)
    pub lr: f64,
    /// default (0.9, 0.999)
    pub betas: (f64, f64),
    /// default 1e-8
    pub eps: f64,
    /// default 0 (Adam), 0.01 (AdamW)
    pub weight_decay: f64,
    /// default false
    pub amsgrad: bool,
    /// default false
    pub maximize: bool,
}

impl AdamOptions {
    fn from_raw(o: &sys::glia_adam_options) -> AdamOptions {
        AdamOptions {
            lr: o.lr,
            betas: (o.betas[0], o.betas[1]),
            eps: o.eps,
            weight_decay: o.weight_decay,
            amsgrad: o.amsgrad != 0,
            maximize: o.maximize != 0,
        }
    }
    fn to_raw(self) -> sys::glia_adam_options {
        let mut o = std::mem::MaybeUninit::<sys::glia_adam_options>::uninit();
        let mut o = unsafe {
            sys::glia_adam_options_init(o.as_mut_ptr());
            o.assume_init()
        };
        o.lr = self.lr;
        o.betas = [self.betas.0, self.betas.1];
        o.eps = self.eps;
        o.weight_decay = self.weight_decay;
        o.amsgrad = self.amsgrad as i32;
        o.maximize = self.maximize as i32;
        o
    }
    /// AdamW's defaults (weight_decay 0.01).
    pub fn adamw() -> AdamOptions {
        let mut o = std::mem::MaybeUninit::<sys::glia_adamw_options>::uninit();
        let o = unsafe {
            sys::glia_adamw_options_init(o.as_mut_ptr());
            o.assume_init()
        };
        AdamOptions::from_raw(&o)
    }
}

impl Default for AdamOptions {
    fn default() -> Self {
        let mut o = std::mem::MaybeUninit::<sys::glia_adam_options>::uninit();
        let o = unsafe {
            sys::glia_adam_options_init(o.as_mut_ptr());
            o.assume_init()
        };
        AdamOptions::from_raw(&o)
    }
}

/// An optimizer (`glia_optimizer`). It retains its parameters. `Send`, not
/// `Sync` (`step` mutates the parameters; see the crate docs).
pub struct Optimizer {
    raw: NonNull<sys::glia_optimizer>,
}

unsafe impl Send for Optimizer {}

fn params_ptrs(params: &[Tensor]) -> Vec<*mut sys::glia_tensor> {
    params.iter().map(|t| t.as_ptr()).collect()
}

fn new_optimizer(f: impl FnOnce(*mut *mut sys::glia_optimizer) -> *mut sys::glia_error) -> Result<Optimizer> {
    let mut out = ptr::null_mut();
    check(f(&mut out))?;
    match NonNull::new(out) {
        Some(raw) => Ok(Optimizer { raw }),
        None => Err(Error::new(ErrorCode::Internal, "glia returned no optimizer")),
    }
}

impl Optimizer {
    /// torch.optim.SGD(params, ...); torch's messages for invalid options.
    pub fn sgd(params: &[Tensor], options: &SgdOptions) -> Result<Optimizer> {
        let mut o = std::mem::MaybeUninit::<sys::glia_sgd_options>::uninit();
        let mut o = unsafe {
            sys::glia_sgd_options_init(o.as_mut_ptr());
            o.assume_init()
        };
        o.lr = options.lr;
        o.momentum = options.momentum;
        o.dampening = options.dampening;
        o.weight_decay = options.weight_decay;
        o.nesterov = options.nesterov as i32;
        o.maximize = options.maximize as i32;
        let p = params_ptrs(params);
        new_optimizer(|out| unsafe { sys::glia_optim_sgd(p.as_ptr(), p.len() as i64, &o, out) })
    }
    /// torch.optim.Adam(params, ...).
    pub fn adam(params: &[Tensor], options: &AdamOptions) -> Result<Optimizer> {
        let o = options.to_raw();
        let p = params_ptrs(params);
        new_optimizer(|out| unsafe { sys::glia_optim_adam(p.as_ptr(), p.len() as i64, &o, out) })
    }
    /// torch.optim.AdamW(params, ...) (start from [`AdamOptions::adamw`]).
    pub fn adamw(params: &[Tensor], options: &AdamOptions) -> Result<Optimizer> {
        let o = options.to_raw();
        let p = params_ptrs(params);
        new_optimizer(|out| unsafe { sys::glia_optim_adamw(p.as_ptr(), p.len() as i64, &o, out) })
    }
    /// The handle (still owned by `self`).
    pub fn as_ptr(&self) -> *mut sys::glia_optimizer {
        self.raw.as_ptr()
    }
    /// step(): updates every parameter that has a grad.
    pub fn step(&mut self) -> Result<()> {
        check(unsafe { sys::glia_optimizer_step(self.as_ptr()) })
    }
    /// zero_grad(set_to_none=True).
    pub fn zero_grad(&mut self) -> Result<()> {
        check(unsafe { sys::glia_optimizer_zero_grad(self.as_ptr(), 1) })
    }
    /// The lr of parameter group `group`.
    pub fn lr(&self, group: usize) -> Result<f64> {
        let mut v = 0f64;
        check(unsafe { sys::glia_optimizer_get_lr(self.as_ptr(), group as i64, &mut v) })?;
        Ok(v)
    }
    /// Sets the lr of parameter group `group`.
    pub fn set_lr(&mut self, group: usize, lr: f64) -> Result<()> {
        check(unsafe { sys::glia_optimizer_set_lr(self.as_ptr(), group as i64, lr) })
    }
    /// torch's state_dict(), flattened (`state.<i>.<name>`, `param_groups.<g>.<option>`).
    pub fn state_dict(&self) -> Result<TensorDict> {
        new_dict(|o| unsafe { sys::glia_optimizer_state_dict(self.as_ptr(), o) })
    }
    /// load_state_dict (all-or-nothing).
    pub fn load_state_dict(&mut self, dict: &TensorDict) -> Result<()> {
        check(unsafe { sys::glia_optimizer_load_state_dict(self.as_ptr(), dict.as_ptr()) })
    }
}

impl Clone for Optimizer {
    fn clone(&self) -> Optimizer {
        check(unsafe { sys::glia_optimizer_retain(self.as_ptr()) }).expect("glia_optimizer_retain");
        Optimizer { raw: self.raw }
    }
}

impl Drop for Optimizer {
    fn drop(&mut self) {
        unsafe { sys::glia_error_free(sys::glia_optimizer_release(self.as_ptr())) };
    }
}

/// A learning-rate scheduler (`glia_lr_scheduler`); it retains its optimizer.
/// `Send`, not `Sync`.
pub struct LrScheduler {
    raw: NonNull<sys::glia_lr_scheduler>,
}

unsafe impl Send for LrScheduler {}

fn new_scheduler(f: impl FnOnce(*mut *mut sys::glia_lr_scheduler) -> *mut sys::glia_error) -> Result<LrScheduler> {
    let mut out = ptr::null_mut();
    check(f(&mut out))?;
    match NonNull::new(out) {
        Some(raw) => Ok(LrScheduler { raw }),
        None => Err(Error::new(ErrorCode::Internal, "glia returned no scheduler")),
    }
}

impl LrScheduler {
    /// StepLR(step_size, gamma).
    pub fn step_lr(optimizer: &Optimizer, step_size: i64, gamma: f64) -> Result<LrScheduler> {
        new_scheduler(|o| unsafe { sys::glia_lr_scheduler_step_lr(optimizer.as_ptr(), step_size, gamma, o) })
    }
    /// MultiStepLR(milestones, gamma).
    pub fn multi_step_lr(optimizer: &Optimizer, milestones: &[i64], gamma: f64) -> Result<LrScheduler> {
        new_scheduler(|o| unsafe {
            sys::glia_lr_scheduler_multi_step_lr(
                optimizer.as_ptr(),
                milestones.as_ptr(),
                milestones.len() as i64,
                gamma,
                o,
            )
        })
    }
    /// CosineAnnealingLR(t_max, eta_min).
    pub fn cosine_annealing_lr(optimizer: &Optimizer, t_max: i64, eta_min: f64) -> Result<LrScheduler> {
        new_scheduler(|o| unsafe { sys::glia_lr_scheduler_cosine_annealing_lr(optimizer.as_ptr(), t_max, eta_min, o) })
    }
    /// LinearLR(start_factor, end_factor, total_iters).
    pub fn linear_lr(
        optimizer: &Optimizer,
        start_factor: f64,
        end_factor: f64,
        total_iters: i64,
    ) -> Result<LrScheduler> {
        new_scheduler(|o| unsafe {
            sys::glia_lr_scheduler_linear_lr(optimizer.as_ptr(), start_factor, end_factor, total_iters, o)
        })
    }
    /// step(): the next epoch's lrs into the optimizer.
    pub fn step(&mut self) -> Result<()> {
        check(unsafe { sys::glia_lr_scheduler_step(self.raw.as_ptr()) })
    }
    /// `get_last_lr()[group]`.
    pub fn last_lr(&self, group: usize) -> Result<f64> {
        let mut v = 0f64;
        check(unsafe { sys::glia_lr_scheduler_get_last_lr(self.raw.as_ptr(), group as i64, &mut v) })?;
        Ok(v)
    }
}

impl Drop for LrScheduler {
    fn drop(&mut self) {
        unsafe { sys::glia_error_free(sys::glia_lr_scheduler_release(self.raw.as_ptr())) };
    }
}

impl std::fmt::Debug for Optimizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Optimizer({:p})", self.raw.as_ptr())
    }
}

impl std::fmt::Debug for LrScheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LrScheduler({:p})", self.raw.as_ptr())
    }
}
