//! Tensor dicts: ordered name -> tensor maps (state dicts) and checkpoint files.
use std::path::Path;
use std::ptr::{self, NonNull};

use crate::sys;
use crate::tensor::new_tensor;
use crate::{check, cstring, read_string, Error, ErrorCode, Result, Tensor};

/// Checkpoint file formats (`glia_format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Loading: by content. Saving: safetensors.
    Auto,
    /// safetensors (glia's default).
    Safetensors,
    /// torch.save's zip format.
    Torch,
}

impl Format {
    fn to_raw(self) -> sys::glia_format {
        match self {
            Format::Auto => sys::GLIA_FORMAT_AUTO,
            Format::Safetensors => sys::GLIA_FORMAT_SAFETENSORS,
            Format::Torch => sys::GLIA_FORMAT_TORCH,
        }
    }
}

pub(crate) fn path_cstring(path: &Path) -> Result<std::ffi::CString> {
    match path.to_str() {
        Some(s) => cstring(s),
        None => Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("path {:?} is not UTF-8", path),
        )),
    }
}

/// An ordered name -> tensor map (`glia_tensor_dict`). `Clone` adds a
/// reference to the same dict, `Drop` releases it.
pub struct TensorDict {
    raw: NonNull<sys::glia_tensor_dict>,
}

// Send: handles are thread-agnostic. Sync: `&self` methods only read; `set`,
// `remove` and `set_metadata` take `&mut self`.
unsafe impl Send for TensorDict {}
unsafe impl Sync for TensorDict {}

pub(crate) fn new_dict(f: impl FnOnce(*mut *mut sys::glia_tensor_dict) -> *mut sys::glia_error) -> Result<TensorDict> {
    let mut out = ptr::null_mut();
    check(f(&mut out))?;
    match NonNull::new(out) {
        Some(raw) => Ok(TensorDict { raw }),
        None => Err(Error::new(ErrorCode::Internal, "glia returned no dict")),
    }
}

impl TensorDict {
    /// An empty dict.
    pub fn new() -> Result<TensorDict> {
        new_dict(|o| unsafe { sys::glia_tensor_dict_create(o) })
    }
    /// The handle (still owned by `self`).
    pub fn as_ptr(&self) -> *mut sys::glia_tensor_dict {
        self.raw.as_ptr()
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        let mut n = 0i64;
        check(unsafe { sys::glia_tensor_dict_size(self.as_ptr(), &mut n) }).expect("glia_tensor_dict_size");
        n as usize
    }
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The tensor of `key` (GLIA_ERR_NOT_FOUND when absent).
    pub fn get(&self, key: &str) -> Result<Tensor> {
        let k = cstring(key)?;
        new_tensor(|o| unsafe { sys::glia_tensor_dict_get(self.as_ptr(), k.as_ptr(), o) })
    }
    /// Whether `key` is present.
    pub fn contains(&self, key: &str) -> Result<bool> {
        let k = cstring(key)?;
        let mut f = 0i32;
        check(unsafe { sys::glia_tensor_dict_contains(self.as_ptr(), k.as_ptr(), &mut f) })?;
        Ok(f != 0)
    }
    /// Inserts or replaces (the dict retains the tensor).
    pub fn set(&mut self, key: &str, tensor: &Tensor) -> Result<()> {
        let k = cstring(key)?;
        check(unsafe { sys::glia_tensor_dict_set(self.as_ptr(), k.as_ptr(), tensor.as_ptr()) })
    }
    /// Removes `key`.
    pub fn remove(&mut self, key: &str) -> Result<()> {
        let k = cstring(key)?;
        check(unsafe { sys::glia_tensor_dict_remove(self.as_ptr(), k.as_ptr()) })
    }
    /// Sets a string metadata entry (safetensors' `__metadata__`).
    pub fn set_metadata(&mut self, key: &str, value: &str) -> Result<()> {
        let k = cstring(key)?;
        let v = cstring(value)?;
        check(unsafe { sys::glia_tensor_dict_set_metadata(self.as_ptr(), k.as_ptr(), v.as_ptr()) })
    }
    /// A metadata value.
    pub fn metadata(&self, key: &str) -> Result<String> {
        let k = cstring(key)?;
        read_string(|b, c, l| unsafe { sys::glia_tensor_dict_get_metadata(self.as_ptr(), k.as_ptr(), b, c, l) })
    }
    /// The key of entry `i`.
    pub fn key_at(&self, i: usize) -> Result<String> {
        read_string(|b, c, l| unsafe { sys::glia_tensor_dict_key_at(self.as_ptr(), i as i64, b, c, l) })
    }
    /// The tensor of entry `i`.
    pub fn value_at(&self, i: usize) -> Result<Tensor> {
        new_tensor(|o| unsafe { sys::glia_tensor_dict_value_at(self.as_ptr(), i as i64, o) })
    }
    /// The keys in order.
    pub fn keys(&self) -> Vec<String> {
        (0..self.len())
            .map(|i| self.key_at(i).expect("glia_tensor_dict_key_at"))
            .collect()
    }
    /// (key, tensor) pairs in order.
    pub fn iter(&self) -> Iter {
        Iter {
            dict: self.clone(),
            index: 0,
            len: self.len(),
        }
    }
    /// Writes the dict to `path` (atomically).
    pub fn save(&self, path: impl AsRef<Path>, format: Format) -> Result<()> {
        let p = path_cstring(path.as_ref())?;
        check(unsafe { sys::glia_tensor_dict_save(self.as_ptr(), p.as_ptr(), format.to_raw()) })
    }
    /// Reads a checkpoint (safetensors or a torch.save file).
    pub fn load(path: impl AsRef<Path>, format: Format) -> Result<TensorDict> {
        let p = path_cstring(path.as_ref())?;
        new_dict(|o| unsafe { sys::glia_tensor_dict_load(p.as_ptr(), format.to_raw(), o) })
    }
}

/// Iterator over a dict's (key, tensor) pairs; holds its own reference to the dict.
pub struct Iter {
    dict: TensorDict,
    index: usize,
    len: usize,
}

impl Iterator for Iter {
    type Item = (String, Tensor);
    fn next(&mut self) -> Option<(String, Tensor)> {
        if self.index >= self.len {
            return None;
        }
        let i = self.index;
        self.index += 1;
        let k = self.dict.key_at(i).ok()?;
        let v = self.dict.value_at(i).ok()?;
        Some((k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.index;
        (n, Some(n))
    }
}

impl IntoIterator for TensorDict {
    type Item = (String, Tensor);
    type IntoIter = Iter;
    fn into_iter(self) -> Iter {
        let len = self.len();
        Iter {
            dict: self,
            index: 0,
            len,
        }
    }
}

impl IntoIterator for &TensorDict {
    type Item = (String, Tensor);
    type IntoIter = Iter;
    fn into_iter(self) -> Iter {
        self.iter()
    }
}

impl Clone for TensorDict {
    fn clone(&self) -> TensorDict {
        check(unsafe { sys::glia_tensor_dict_retain(self.as_ptr()) }).expect("glia_tensor_dict_retain");
        TensorDict { raw: self.raw }
    }
}

impl Drop for TensorDict {
    fn drop(&mut self) {
        unsafe { sys::glia_error_free(sys::glia_tensor_dict_release(self.as_ptr())) };
    }
}

impl std::fmt::Debug for TensorDict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter().map(|(k, v)| (k, v.shape()))).finish()
    }
}
