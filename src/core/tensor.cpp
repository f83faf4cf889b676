#include "core/tensor.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/backend.h"
#include "core/checked.h"
#include "core/dispatch.h"
#include "core/random.h"
#include "core/scalar.h"

// Note [No allocation on the hot path]: a small op (W1: add of one element,
// W2: a tiny autograd step) costs a few hundred nanoseconds, and one malloc
// and free pair is a tenth of that. So the per-op path allocates only the
// output's storage (from the caching allocator's bins, core/allocator.cpp)
// and its TensorImpl, plus one Node when autograd records the op (its saved
// tensors and sizes are members, not further allocations): shapes, strides
// and dim lists are SmallVectors, the op is reached by direct calls (no
// string lookup, no std::function), and handles are slots of a registry
// (capi/handles.h). A change that adds a heap allocation per op shows up in
// W1/W2 of scripts/bench.sh.

namespace glia {

const char* scalar_type_name(DType t) {
  static const char* const names[] = {"Float", "Double", "Half", "BFloat16", "Long",
                                      "Int",   "Byte",   "Bool", "Char",     "Short"};
  auto i = static_cast<size_t>(t);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::Float32:
      return "float32";
    case DType::Float64:
      return "float64";
    case DType::Float16:
      return "float16";
    case DType::BFloat16:
      return "bfloat16";
    case DType::Int64:
      return "int64";
    case DType::Int32:
      return "int32";
    case DType::UInt8:
      return "uint8";
    case DType::Bool:
      return "bool";
    case DType::Int8:
      return "int8";
    case DType::Int16:
      return "int16";
  }
  return "unknown";
}

namespace {
bool compute_contiguous(IntSpan shape, IntSpan strides) {
  int64_t expected = 1;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    if (shape[i] == 0) return true;
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}
}  // namespace

namespace {
// The element count of a shape, and whether a size is negative or the count overflows: one
// branch-free pass (every op's output goes through it), the error decided off the hot path.
inline int64_t numel_or_flag(IntSpan shape, bool& bad) {
  int64_t n = 1;
  for (int64_t s : shape) bad |= (s < 0) | __builtin_mul_overflow(n, s, &n);
  return n;
}

[[noreturn]] __attribute__((cold, noinline)) void bad_shape(IntSpan shape) {
  for (int64_t s : shape) GLIA_CHECK(s >= 0, Shape, "Trying to create tensor with negative dimension ", s, ": ", shape);
  fail(Code::Shape, "Storage size calculation overflowed with sizes=", shape);
}
}  // namespace

TensorImpl::TensorImpl(Ref<Storage> storage, int64_t offset, IntSpan shape, IntSpan strides, DType dtype)
    : storage_(std::move(storage)), offset_(offset), shape_(shape), strides_(strides), dtype_(dtype) {
  // Note [Checked sizes]: no geometry with a negative size or an element count past int64 exists.
  bool bad = false;
  const int64_t n = numel_or_flag(shape, bad);
  if (__builtin_expect(bad, 0)) bad_shape(shape);
  numel_ = n;
  contiguous_ = compute_contiguous(shape, strides);
  is_inference = inference_mode_enabled();
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::set_data(const TensorImpl& src) {
  if (&src == this) return;
  storage_ = src.storage_;
  offset_ = src.offset_;
  shape_ = src.shape_;
  strides_ = src.strides_;
  numel_ = src.numel_;
  dtype_ = src.dtype_;
  contiguous_ = src.contiguous_;
}

namespace {
thread_local bool t_inference = false;  // trivially destructible TLS (dlclose-safe)
}  // namespace

bool inference_mode_enabled() { return t_inference; }
void set_inference_mode_flag(bool enabled) { t_inference = enabled; }

Dims contiguous_strides(IntSpan shape) {
  Dims st(shape.size());
  int64_t acc = 1;
  bool overflow = false;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    st[i] = acc;
    overflow |= __builtin_mul_overflow(acc, shape[i] > 1 ? shape[i] : 1, &acc);
  }
  // Sizes whose product overflows even with the zeros left out have no strides (Note [Checked sizes]).
  GLIA_CHECK(!overflow, Shape, "Storage size calculation overflowed with sizes=", shape);
  return st;
}

int64_t checked_numel(IntSpan shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    GLIA_CHECK(!__builtin_mul_overflow(n, s, &n), Shape, "shape ", shape, " has more than 2^63 elements");
  }
  return n;
}

void check_shape(const char* what, IntSpan shape) {
  GLIA_CHECK(shape.size() <= 64, InvalidArgument, what, ": at most 64 dimensions are supported, got ", shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    GLIA_CHECK(shape[i] >= 0, InvalidArgument, what, ": negative dimension ", shape[i], " at index ", i, " of shape ",
               shape);
  }
  int64_t n = checked_numel(shape);
  int64_t bytes;
  GLIA_CHECK(!__builtin_mul_overflow(n, int64_t(8), &bytes), Shape, what, ": shape ", shape, " is too large");
}

static void check_device(const char* what, Device device) {
  if (!device.is_cpu()) backend_of(device, what);
}

namespace {
// empty() for a device other than the CPU: out of line, so the CPU path compiles as it did
// before devices existed (W1).
__attribute__((cold, noinline)) Tensor empty_on_device(IntSpan shape, DType dtype, Device device) {
  check_device("empty", device);
  bool bad = false;
  int64_t nbytes = 0;
  const int64_t n = numel_or_flag(shape, bad);
  bad |= __builtin_mul_overflow(n, static_cast<int64_t>(itemsize(dtype)), &nbytes);
  if (bad) bad_shape(shape);
  Dims strides = contiguous_strides(shape);
  // Not make_ref: a second instantiation site would take it out of line in empty()'s CPU path.
  Ref<Storage> storage = Storage::allocate(static_cast<size_t>(nbytes), device);
  return Tensor(Ref<TensorImpl>::adopt(new TensorImpl(std::move(storage), 0, shape, strides, dtype)));
}
}  // namespace

Tensor empty(IntSpan shape, DType dtype, Device device) {
  if (__builtin_expect(!device.is_cpu(), 0)) return empty_on_device(shape, dtype, device);
  // torch's computeStorageNbytes message (Note [Checked sizes]).
  bool bad = false;
  int64_t nbytes = 0;
  const int64_t n = numel_or_flag(shape, bad);
  bad |= __builtin_mul_overflow(n, static_cast<int64_t>(itemsize(dtype)), &nbytes);
  if (__builtin_expect(bad, 0)) bad_shape(shape);
  Dims strides = contiguous_strides(shape);  // checks the product of the nonzero sizes too
  Ref<Storage> storage = Storage::allocate(static_cast<size_t>(nbytes));
  // Not make_ref: its shared instantiation is not inlined here, which cost W1 about 50 instructions.
  return Tensor(Ref<TensorImpl>::adopt(new TensorImpl(std::move(storage), 0, shape, strides, dtype)));
}

Tensor zeros(IntSpan shape, DType dtype, Device device) {
  Tensor t = empty(shape, dtype, device);
  if (!device.is_cpu())
    fill(t, 0.0);
  else if (t.numel())
    std::memset(t.data(), 0, static_cast<size_t>(t.numel()) * itemsize(dtype));
  return t;
}

Tensor ones(IntSpan shape, DType dtype, Device device) { return full(shape, 1.0, dtype, device); }

Tensor full(IntSpan shape, double value, DType dtype, Device device) {
  Scalar::from_fill_value(value).check_fits(dtype);
  Tensor t = empty(shape, dtype, device);
  fill(t, value);
  return t;
}

Tensor arange(double start, double end, double step, DType dtype, Device device) {
  if (!device.is_cpu()) {
    check_device("arange", device);
    return to_device(arange(start, end, step, dtype, Device{}), device);
  }
  GLIA_CHECK(std::isfinite(start) && std::isfinite(end), InvalidArgument, "arange: unsupported range: ", start, " -> ",
             end);
  GLIA_CHECK(step != 0 && std::isfinite(step), InvalidArgument, "arange: step must be nonzero");
  GLIA_CHECK((step > 0 && end >= start) || (step < 0 && end <= start), InvalidArgument,
             "arange: upper bound and larger bound inconsistent with step sign");
  double len = std::ceil((end - start) / step);
  GLIA_CHECK(len < 9.0e18, Shape, "arange: the range ", start, " -> ", end, " with step ", step,
             " has too many elements");
  int64_t n = static_cast<int64_t>(len);
  Tensor t = empty({&n, 1}, dtype, device);
  dispatch_all(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = convert<T, double>(start + static_cast<double>(i) * step);
  });
  return t;
}

Tensor rand(IntSpan shape, DType dtype, Device device) {
  if (!device.is_cpu()) {
    check_device("rand", device);
    return to_device(rand(shape, dtype, Device{}), device);
  }
  Tensor t = empty(shape, dtype, device);
  Generator& g = thread_generator();
  dispatch_floating(dtype, "rand", [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data_ptr<T>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      // As many random bits as the type's mantissa holds, so that rounding never yields 1.
      if constexpr (std::is_same_v<T, double>)
        p[i] = g.next_double();
      else if constexpr (std::is_same_v<T, Half>)
        p[i] = Half(static_cast<float>(g.next_u64() >> 53) * (1.0f / 2048.0f));
      else if constexpr (std::is_same_v<T, BFloat16>)
        p[i] = BFloat16(static_cast<float>(g.next_u64() >> 56) * (1.0f / 256.0f));
      else
        p[i] = g.next_float();
    }
  });
  return t;
}

Tensor randn(IntSpan shape, DType dtype, Device device) {
  if (!device.is_cpu()) {
    check_device("randn", device);
    return to_device(randn(shape, dtype, Device{}), device);
  }
  Tensor t = empty(shape, dtype, device);
  Generator& g = thread_generator();
  dispatch_floating(dtype, "randn", [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data_ptr<T>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = convert<T, double>(g.next_normal());
  });
  return t;
}

Tensor from_blob(void* data, IntSpan shape, IntSpan strides, DType dtype, Device device, BlobDeleter deleter,
                 void* context) {
  // Note [Blob deleter runs once]: from here on every failure path must hand
  // the blob back through the deleter, and success hands it to the Storage.
  try {
    check_shape("from_blob", shape);
    check_device("from_blob", device);
    int64_t n = checked_numel(shape);
    Dims st = strides.empty() && !shape.empty() ? contiguous_strides(shape) : Dims(strides);
    GLIA_CHECK(st.size() == shape.size(), InvalidArgument, "from_blob: strides has ", st.size(), " entries, shape has ",
               shape.size());
    Checked extent(n ? 1 : 0, "from_blob");  // elements spanned
    for (size_t i = 0; i < shape.size(); ++i) {
      GLIA_CHECK(st[i] >= 0, InvalidArgument, "from_blob: negative stride ", st[i], " at index ", i);
      if (shape[i] > 0) extent = extent + Checked(shape[i] - 1) * st[i];
    }
    const int64_t item = static_cast<int64_t>(itemsize(dtype));
    const int64_t nbytes = (extent * item).value();
    // No address space holds more than 2^57 bytes (x86-64 with 5-level paging; aarch64 has 52 bits):
    // a larger span means strides that do not describe the caller's memory.
    GLIA_CHECK(nbytes <= (int64_t{1} << 57), InvalidArgument, "from_blob: shape ", shape, " with strides ", st,
               " spans ", nbytes, " bytes, more than any address space holds");
    GLIA_CHECK(data || n == 0, InvalidArgument, "from_blob: data is NULL for a tensor of ", n, " elements");
    // Kernels load whole elements: a misaligned one is UB (and a fault on strict-alignment CPUs).
    GLIA_CHECK(reinterpret_cast<uintptr_t>(data) % static_cast<uintptr_t>(item) == 0, InvalidArgument,
               "from_blob: data ", data, " is not aligned to the ", item, "-byte elements of ", dtype_name(dtype),
               " (copy it with glia_tensor_from_data instead)");
    Ref<Storage> storage = Storage::wrap(data, static_cast<size_t>(nbytes), device, deleter, context);
    deleter = nullptr;  // owned by the storage now
    return Tensor(make_ref<TensorImpl>(std::move(storage), 0, shape, st, dtype));
  } catch (...) {
    if (deleter) deleter(context, data);
    throw;
  }
}

namespace {
[[noreturn]] __attribute__((cold, noinline)) void bad_view(const Tensor& base, IntSpan shape, IntSpan strides,
                                                           int64_t offset) {
  Checked last(offset, "view");
  bool empty_view = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    GLIA_CHECK(shape[i] >= 0, Shape, "Trying to create tensor with negative dimension ", shape[i], ": ", shape);
    GLIA_CHECK(strides[i] >= 0, Shape, "view: negative stride ", strides[i], " at dimension ", i);
    empty_view |= shape[i] == 0;
  }
  const int64_t item = static_cast<int64_t>(base.impl()->itemsize());
  const int64_t have = static_cast<int64_t>(base.impl()->storage()->nbytes());
  int64_t need = 0;
  if (!empty_view) {
    for (size_t i = 0; i < shape.size(); ++i) last = last + Checked(shape[i] - 1) * strides[i];
    need = ((last + 1) * item).value();
  }
  fail(Code::Shape, "setStorage: sizes ", shape, ", strides ", strides, ", storage offset ", offset, ", and itemsize ",
       item, " requiring a storage size of ", need, " are out of bounds for storage of size ", have);
}
}  // namespace

Tensor make_view(const Tensor& base, IntSpan shape, IntSpan strides, int64_t offset) {
  // Note [Checked sizes]: a view never reaches outside its storage (torch's setStorage check). One
  // branch-free pass; bad_view works out the message. An empty view needs no storage, so overflow
  // of its span does not matter; a negative size, stride or offset always does.
  bool negative = offset < 0, overflow = false, empty_view = false;
  int64_t last = offset, end, need;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t span;
    negative |= (shape[i] < 0) | (strides[i] < 0);
    overflow |= __builtin_mul_overflow(shape[i] > 0 ? shape[i] - 1 : 0, strides[i], &span) |
                __builtin_add_overflow(last, span, &last);
    empty_view |= shape[i] == 0;
  }
  overflow |= __builtin_add_overflow(last, 1, &end) |
              __builtin_mul_overflow(end, static_cast<int64_t>(base.impl()->itemsize()), &need);
  const bool outside = overflow || need > static_cast<int64_t>(base.impl()->storage()->nbytes());
  if (__builtin_expect(negative || (!empty_view && outside), 0)) bad_view(base, shape, strides, offset);
  Tensor v(make_ref<TensorImpl>(base.impl()->storage(), offset, shape, strides, base.dtype()));
  v.impl()->is_inference |= base.impl()->is_inference;
  return v;
}

namespace {

// Calls f(dst_ptr, src_ptr, n, dst_inner_stride, src_inner_stride) for each
// innermost row of two same-shape strided tensors (strides in bytes).
template <class F>
void for_each_row(const Tensor& dst, const Tensor& src, F&& f) {
  int64_t nd = dst.dim();
  char* dp = static_cast<char*>(dst.data());
  const char* sp = static_cast<const char*>(src.data());
  if (nd == 0) {
    f(dp, sp, 1, 0, 0);
    return;
  }
  int64_t dsz = static_cast<int64_t>(itemsize(dst.dtype()));
  int64_t ssz = static_cast<int64_t>(itemsize(src.dtype()));
  const Dims& shape = dst.shape();
  int64_t inner = shape[nd - 1];
  int64_t dis = dst.strides()[nd - 1] * dsz, sis = src.strides()[nd - 1] * ssz;
  Dims idx(static_cast<size_t>(nd), 0);
  int64_t rows = dst.numel() / (inner ? inner : 1);
  if (dst.numel() == 0) return;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t doff = 0, soff = 0;
    for (int64_t d = 0; d < nd - 1; ++d) {
      doff += idx[d] * dst.strides()[d] * dsz;
      soff += idx[d] * src.strides()[d] * ssz;
    }
    f(dp + doff, sp + soff, inner, dis, sis);
    for (int64_t d = nd - 2; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

namespace {
// The CPU copy: dst <- src, equal shapes, any dtypes and strides.
void copy_cpu(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    std::memmove(dst.data(), src.data(), static_cast<size_t>(dst.numel()) * itemsize(dst.dtype()));
    return;
  }
  dispatch_all(dst.dtype(), [&](auto dtag) {
    using D = decltype(dtag);
    dispatch_all(src.dtype(), [&](auto stag) {
      using S = decltype(stag);
      auto row = [](char* d, const char* s, int64_t n, int64_t ds, int64_t ss) {
        for (int64_t i = 0; i < n; ++i) {
          S v;
          std::memcpy(&v, s + i * ss, sizeof(S));
          D w = convert<D, S>(v);
          std::memcpy(d + i * ds, &w, sizeof(D));
        }
      };
      if (dst.is_contiguous() && src.is_contiguous())
        row(static_cast<char*>(dst.data()), static_cast<const char*>(src.data()), dst.numel(), sizeof(D), sizeof(S));
      else
        for_each_row(dst, src, row);
    });
  });
}

// A CPU tensor with src's geometry over a host copy of the bytes src's view spans.
Tensor host_span_copy(const Tensor& src) {
  int64_t extent = 1;  // elements from the first to the last one the view reaches
  for (int64_t d = 0; d < src.dim(); ++d) extent += (src.shape()[d] - 1) * src.strides()[d];
  const size_t nbytes = static_cast<size_t>(extent) * itemsize(src.dtype());
  Tensor buf = empty({&extent, 1}, src.dtype(), Device{});
  copy_bytes(Device{}, buf.impl()->data(), src.device(), src.impl()->data(), nbytes);
  return make_view(buf, src.shape(), src.strides(), 0);
}

// Note [Non-blocking copies]: torch's copy_(src, non_blocking=True) and .to(..., non_blocking=True).
// A copy between the host and a device returns before it completes only when its host side is pinned
// memory (Storage::pinned, from a backend's host_alloc_pinned); from or to ordinary host memory it is
// blocking, whatever was asked, as the backend ABI requires. A copy between two devices is always
// ordered on the devices' current streams (copy_bytes), non-blocking or not. Every host-side step of a
// copy (a dtype conversion or a gather on the CPU, a scatter into a non-contiguous host view) works on
// an ordinary temporary, so it makes the transfer before it blocking: no host code ever reads the
// result of a transfer still in flight. What stays in flight is the caller's to wait for (an event or
// a stream synchronisation) before the host reads a pinned destination or writes a pinned source.
bool async_ok(const Tensor& dst, const Tensor& src) {
  return (!dst.device().is_cpu() || dst.impl()->storage()->pinned()) &&
         (!src.device().is_cpu() || src.impl()->storage()->pinned());
}

// dst <- src when one of them is off the CPU.
__attribute__((cold, noinline)) void copy_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dst.device() == src.device()) {
    run_kernel(KernelId::copy, dst.device(), {&src}, {&dst});
    return;
  }
  // Across devices the backends move contiguous bytes: convert and compact on the source's
  // device, copy, and scatter into dst's geometry on its device when it is not contiguous.
  Tensor s = src;
  if (s.dtype() != dst.dtype() || !s.is_contiguous()) {
    if (!src.device().is_cpu() && !backend_kernel(src.device().type, static_cast<uint32_t>(KernelId::copy))) {
      // A device without a copy kernel: bring the bytes the view spans to the host as they are,
      // and gather (and convert) there.
      s = host_span_copy(src);
      if (dst.device().is_cpu()) {
        copy_cpu(dst, s);
        return;
      }
      Tensor h = empty(src.shape(), dst.dtype(), Device{});
      copy_cpu(h, s);
      s = h;
    } else {
      s = empty(src.shape(), dst.dtype(), src.device());
      copy_into(s, src);
    }
  }
  const size_t nbytes = static_cast<size_t>(dst.numel()) * itemsize(dst.dtype());
  if (dst.is_contiguous()) {
    copy_bytes(dst.device(), dst.impl()->data(), s.device(), s.impl()->data(), nbytes,
               non_blocking && async_ok(dst, s));
    return;
  }
  Tensor d = empty(dst.shape(), dst.dtype(), dst.device());
  copy_bytes(d.device(), d.impl()->data(), s.device(), s.impl()->data(), nbytes, non_blocking && async_ok(d, s));
  copy_into(dst, d);
}
}  // namespace

namespace cpu {
void copy_kernel(const KernelArgs& k) { copy_cpu(k.output(0), k.input(0)); }
}  // namespace cpu

void copy_into(const Tensor& dst, const Tensor& src, bool non_blocking) {
  GLIA_CHECK(dst.shape() == src.shape(), Shape, "copy: shape ", src.shape(), " does not match ", dst.shape());
  if (dst.numel() == 0) return;
  if (__builtin_expect(!dst.device().is_cpu() || !src.device().is_cpu(), 0)) {
    copy_device(dst, src, non_blocking);
    return;
  }
  copy_cpu(dst, src);
}

// Note [Host reads of device memory]: host code reaches tensor elements only
// through Tensor::data()/data_ptr(), which refuse a tensor that is not in host
// memory. So an op that has no kernel for a device, or a copy that was
// forgotten, is an error naming the device instead of a read of a device
// address (a crash on CUDA, and on the test device, whose memory is mapped
// PROT_NONE outside its kernels, a crash by design for code that bypasses
// this check).
void Tensor::host_access_failed() const {
  fail(Code::Unsupported, "tensor data on ", device(),
       " was read by host code: this operation has no kernel for that device yet (copy the tensor to the CPU "
       "first)");
}

Tensor to_device(const Tensor& t, Device device) {
  if (t.device() == device) return t;
  Tensor out = empty(t.shape(), t.dtype(), device);
  copy_into(out, t);
  return out;
}

Tensor contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  return clone(t);
}

Tensor clone(const Tensor& t) {
  Tensor out = empty(t.shape(), t.dtype(), t.device());
  copy_into(out, t);
  return out;
}

Tensor to_dtype(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out = empty(t.shape(), dtype, t.device());
  copy_into(out, t);
  return out;
}

namespace cpu {
// value: .s "bool", "int" (.i) or "float" (.f), as Scalar keeps them.
void fill_kernel(const KernelArgs& k) {
  const Tensor& t = k.output(0);
  const Attr& a = k.attr(0);
  if (t.numel() == 0) return;
  dispatch_all(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T v = a.s && a.s[0] == 'i'   ? convert<T, int64_t>(a.i)
          : a.s && a.s[0] == 'b' ? convert<T, bool>(a.i != 0)
                                 : convert<T, double>(a.f);
    if (t.is_contiguous()) {
      T* p = t.data_ptr<T>();
      for (int64_t i = 0; i < t.numel(); ++i) p[i] = v;
    } else {
      for_each_row(t, t, [&](char* d, const char*, int64_t n, int64_t ds, int64_t) {
        for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * ds, &v, sizeof(T));
      });
    }
  });
}
}  // namespace cpu

void fill(const Tensor& t, double value) {
  if (t.numel() == 0) return;
  run_kernel(KernelId::fill, t.device(), {}, {&t}, {Attr{0, value, nullptr, 0, "float"}});
}

double item_double(const Tensor& t) {
  GLIA_CHECK(t.numel() == 1, Shape, "a Tensor with ", t.numel(), " elements cannot be converted to Scalar");
  if (!t.device().is_cpu()) return item_double(to_device(t, Device{}));
  return dispatch_all(t.dtype(), [&](auto tag) -> double {
    using T = decltype(tag);
    return convert<double, T>(*t.data_ptr<T>());
  });
}

int64_t item_int64(const Tensor& t) {
  GLIA_CHECK(t.numel() == 1, Shape, "a Tensor with ", t.numel(), " elements cannot be converted to Scalar");
  if (!t.device().is_cpu()) return item_int64(to_device(t, Device{}));
  return dispatch_all(t.dtype(), [&](auto tag) -> int64_t {
    using T = decltype(tag);
    return convert<int64_t, T>(*t.data_ptr<T>());
  });
}

}  // namespace glia
