// embedding (lookup, max_norm renormalisation, backward scatter-add), dropout's
// noise and torchvision's normalize.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/parallel.h"
#include "core/random.h"
#include "ops/cpu/loops.h"
#include "ops/iter.h"
#include "ops/norm.h"

namespace glia::ops {

namespace {

template <class F>
void for_each_index(const Tensor& idx, F f) {
  Tensor c = contiguous(idx);
  const int64_t n = c.numel();
  if (c.dtype() == DType::Int64) {
    const int64_t* p = c.data_ptr<int64_t>();
    for (int64_t k = 0; k < n; ++k) f(k, p[k]);
  } else {
    const int32_t* p = c.data_ptr<int32_t>();
    for (int64_t k = 0; k < n; ++k) f(k, static_cast<int64_t>(p[k]));
  }
}

// The indices as int64, contiguous.
std::vector<int64_t> index_values(const Tensor& idx) {
  std::vector<int64_t> v(static_cast<size_t>(idx.numel()));
  for_each_index(idx, [&](int64_t k, int64_t i) { v[k] = i; });
  return v;
}

}  // namespace

// ---- embedding: the meta parts here, their kernels below (Note [Op = meta + kernel + rule]).

void check_embedding(const Tensor& weight, const Tensor& indices) {
  common_device("embedding", weight, indices, false);
  GLIA_CHECK(indices.dtype() == DType::Int64 || indices.dtype() == DType::Int32, DType,
             "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
             "torch.",
             scalar_type_name(indices.dtype()), "Tensor instead (while checking arguments for embedding)");
  GLIA_CHECK(weight.dim() == 2, Shape, "'weight' must be 2-D");
  // The indices' range is checked by the kernels ("index out of range in self").
}

Tensor embedding(const Tensor& weight, const Tensor& indices) {
  Dims shape = indices.shape();
  shape.push_back(weight.size(1));
  Tensor out = empty(shape, weight.dtype(), weight.device());
  if (indices.numel() == 0) return out;
  Tensor w = contiguous(weight), idx = contiguous(indices);
  run_kernel(KernelId::embedding, weight.device(), {&w, &idx}, {&out});
  return out;
}

void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm, double norm_type) {
  if (indices.numel() == 0) return;
  Tensor idx = contiguous(indices);
  run_kernel(KernelId::embedding_renorm, weight.device(), {&idx}, {&weight}, {attr_f(max_norm), attr_f(norm_type)});
}

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx) {
  const int64_t dim = grad.dim() == 0 ? 1 : grad.size(-1);
  Tensor out = empty(Dims{num_weights, dim}, grad.dtype(), grad.device());
  if (out.numel() == 0) return out;
  Tensor g = contiguous(grad), idx = contiguous(indices);
  run_kernel(KernelId::embedding_backward, grad.device(), {&g, &idx}, {&out}, {attr_i(padding_idx)});
  return out;
}

}  // namespace glia::ops

namespace glia::cpu {

namespace {
// The indices (in1 of embedding, in0 of embedding_renorm) as int64, checked against the weight's rows.
std::vector<int64_t> checked_indices(const Tensor& idx, int64_t num) {
  std::vector<int64_t> v = ops::index_values(idx);
  bool ok = true;
  for (int64_t i : v) ok &= (i >= 0) & (i < num);
  GLIA_CHECK(ok, InvalidArgument, "index out of range in self");
  return v;
}
}  // namespace

void embedding_kernel(const KernelArgs& k) {
  const Tensor &w = k.input(0), &out = k.output(0);
  const std::vector<int64_t> idx = checked_indices(k.input(1), w.size(0));
  const int64_t dim = w.size(1);
  const size_t row = static_cast<size_t>(dim) * w.impl()->itemsize();
  if (row == 0) return;
  const char* src = static_cast<const char*>(w.data());
  char* dst = static_cast<char*>(out.data());
  parallel_for(0, static_cast<int64_t>(idx.size()), std::max<int64_t>(1, ops::kGrain / std::max<int64_t>(1, dim)),
               [&](int64_t b, int64_t e) {
                 for (int64_t j = b; j < e; ++j) std::memcpy(dst + j * row, src + idx[j] * row, row);
               });
}

void embedding_renorm_kernel(const KernelArgs& k) {
  const Tensor& weight = k.output(0);
  const double max_norm = k.attr(0).f, norm_type = k.attr(1).f;
  std::vector<int64_t> idx = checked_indices(k.input(0), weight.size(0));
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  const int64_t dim = weight.size(1), s0 = weight.stride(0), s1 = weight.stride(1);
  dispatch_floating(weight.dtype(), "embedding_renorm_", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    T* base = weight.data_ptr<T>();
    for (int64_t i : idx) {
      T* r = base + i * s0;
      double norm = 0;
      if (std::isinf(norm_type) && norm_type > 0) {
        for (int64_t j = 0; j < dim; ++j)
          norm = std::max(norm, std::fabs(static_cast<double>(static_cast<C>(r[j * s1]))));
      } else if (norm_type == 0) {
        for (int64_t j = 0; j < dim; ++j) norm += static_cast<C>(r[j * s1]) != C(0) ? 1.0 : 0.0;
      } else if (norm_type == 1) {
        for (int64_t j = 0; j < dim; ++j) norm += std::fabs(static_cast<double>(static_cast<C>(r[j * s1])));
      } else if (norm_type == 2) {
        for (int64_t j = 0; j < dim; ++j) {
          double v = static_cast<double>(static_cast<C>(r[j * s1]));
          norm += v * v;
        }
        norm = std::sqrt(norm);
      } else {
        for (int64_t j = 0; j < dim; ++j)
          norm += std::pow(std::fabs(static_cast<double>(static_cast<C>(r[j * s1]))), norm_type);
        norm = std::pow(norm, 1.0 / norm_type);
      }
      if (norm > max_norm) {
        const C scale = static_cast<C>(max_norm / (norm + 1e-7));
        for (int64_t j = 0; j < dim; ++j) r[j * s1] = static_cast<T>(static_cast<C>(r[j * s1]) * scale);
      }
    }
  });
}

void embedding_backward_kernel(const KernelArgs& k) {
  const Tensor &g = k.input(0), &out = k.output(0);
  const int64_t padding_idx = k.attr(0).i;
  const int64_t num_weights = out.size(0), dim = out.size(1);
  const std::vector<int64_t> idx = ops::index_values(k.input(1));
  const int64_t k_count = static_cast<int64_t>(idx.size());
  dispatch_floating(g.dtype(), "embedding_backward", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    const T* pg = g.data_ptr<T>();
    T* po = out.data_ptr<T>();
    std::fill(po, po + num_weights * dim, T(0.0f));
    // Split over ranges of weight rows: each task adds the gradient rows that land in its range.
    const int64_t work = k_count * dim;
    const int64_t grain = work <= ops::kGrain ? num_weights : std::max<int64_t>(1, num_weights / 64);
    parallel_for(0, num_weights, grain, [&](int64_t r0, int64_t r1) {
      for (int64_t n = 0; n < k_count; ++n) {
        const int64_t i = idx[n];
        if (i < r0 || i >= r1 || i == padding_idx) continue;
        T* __restrict o = po + i * dim;
        const T* __restrict s = pg + n * dim;
        for (int64_t j = 0; j < dim; ++j) o[j] = static_cast<T>(static_cast<C>(o[j]) + static_cast<C>(s[j]));
      }
    });
  });
}

}  // namespace glia::cpu

namespace glia::ops {

// ---- dropout

Tensor dropout_noise(const Tensor& x, double p) {
  Tensor noise = empty(x.shape(), x.dtype(), Device{});
  const int64_t n = noise.numel();
  const double keep = 1.0 - p;
  dispatch_floating(x.dtype(), "dropout", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    // torch: bernoulli_(1 - p) then div_(1 - p) in x's dtype.
    const T scale = p >= 1 ? T(0.0f) : static_cast<T>(C(1) / static_cast<C>(keep));
    const T zero = T(0.0f);
    T* o = noise.data_ptr<T>();
    // One stream, in order: the mask depends only on the seed, not on the thread count.
    Generator& gen = thread_generator();
    for (int64_t i = 0; i < n; ++i) o[i] = gen.next_double() < keep ? scale : zero;
  });
  // Drawn on the host from glia's generator, so that a device gets the CPU's mask for the same seed.
  return to_device(noise, x.device());
}

// ---- normalize (torchvision)

Tensor normalize(const Tensor& x, std::span<const double> mean, std::span<const double> std, Tensor* std_out) {
  GLIA_CHECK(x.dim() >= 2, InvalidArgument, "Tensor is not a torch image.");
  GLIA_CHECK(is_floating(x.dtype()), DType, "Input tensor should be a float tensor. Got torch.", dtype_name(x.dtype()),
             ".");
  GLIA_CHECK(x.dim() >= 3, InvalidArgument,
             "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = torch.Size(",
             IntSpan(x.shape()), ")");
  const int64_t ch = x.size(-3);
  const int64_t lm = static_cast<int64_t>(mean.size()), ls = static_cast<int64_t>(std.size());
  // torchvision converts mean and std to x's dtype first: [L, 1, 1] tensors made on the
  // host from the arguments, then copied to x's device.
  Tensor m = empty(Dims{lm, 1, 1}, x.dtype(), Device{}), s = empty(Dims{ls, 1, 1}, x.dtype(), Device{});
  dispatch_floating(x.dtype(), "normalize", [&](auto tag) {
    using T = decltype(tag);
    T* pm = m.data_ptr<T>();
    T* ps = s.data_ptr<T>();
    bool zero = false;
    for (int64_t i = 0; i < ls; ++i) {
      ps[i] = convert<T>(std[i]);
      zero |= static_cast<acc_t<T>>(ps[i]) == acc_t<T>(0);
    }
    GLIA_CHECK(!zero, InvalidArgument, "std evaluated to zero after conversion to torch.", dtype_name(x.dtype()),
               ", leading to division by zero.");
    for (int64_t i = 0; i < lm; ++i) pm[i] = convert<T>(mean[i]);
  });
  // In place on a clone: the [L, 1, 1] operand must broadcast to x's shape.
  for (int64_t l : {lm, ls}) {
    if (l == 1 || l == ch) continue;
    if (ch == 1) {
      Dims b = x.shape();
      b[b.size() - 3] = l;
      fail(Code::Shape, "output with shape ", IntSpan(x.shape()), " doesn't match the broadcast shape ", IntSpan(b));
    }
    fail(Code::Shape, "The size of tensor a (", ch, ") must match the size of tensor b (", l,
         ") at non-singleton dimension ", x.dim() - 3);
  }
  const Device dev = x.device();
  m = to_device(m, dev);
  s = to_device(s, dev);
  Tensor xc = contiguous(x);
  Tensor out = empty(x.shape(), x.dtype(), dev);
  run_kernel(KernelId::normalize, dev, {&xc, &m, &s}, {&out});
  if (std_out) *std_out = s;
  return out;
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::kGrain;

void normalize_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &out = k.output(0);
  const int64_t ch = x.size(-3), lm = k.input(1).numel(), ls = k.input(2).numel();
  const int64_t hw = x.size(-1) * x.size(-2);
  const int64_t planes = hw == 0 ? 0 : x.numel() / hw;
  dispatch_floating(x.dtype(), "normalize", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    const T* pm = k.input(1).data_ptr<T>();
    const T* ps = k.input(2).data_ptr<T>();
    const T* px = x.data_ptr<T>();
    T* py = out.data_ptr<T>();
    parallel_for(0, planes, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, hw)), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const int64_t c = ch == 0 ? 0 : p % ch;
        const C mc = static_cast<C>(pm[lm == 1 ? 0 : c]), sc = static_cast<C>(ps[ls == 1 ? 0 : c]);
        const T* __restrict xr = px + p * hw;
        T* __restrict yr = py + p * hw;
        for (int64_t i = 0; i < hw; ++i)
          yr[i] = static_cast<T>(static_cast<C>(static_cast<T>(static_cast<C>(xr[i]) - mc)) / sc);
      }
    });
  });
}

}  // namespace glia::cpu
