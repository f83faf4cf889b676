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

// ---- embedding

void check_embedding(const Tensor& weight, const Tensor& indices) {
  GLIA_CHECK(indices.dtype() == DType::Int64 || indices.dtype() == DType::Int32, DType,
             "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
             "torch.",
             scalar_type_name(indices.dtype()), "Tensor instead (while checking arguments for embedding)");
  GLIA_CHECK(weight.dim() == 2, Shape, "'weight' must be 2-D");
  const int64_t num = weight.size(0);
  bool ok = true;
  for_each_index(indices, [&](int64_t, int64_t i) { ok &= (i >= 0) & (i < num); });
  GLIA_CHECK(ok, InvalidArgument, "index out of range in self");
}

Tensor embedding(const Tensor& weight, const Tensor& indices) {
  Dims shape = indices.shape();
  const int64_t dim = weight.size(1);
  shape.push_back(dim);
  Tensor out = empty(shape, weight.dtype());
  Tensor w = contiguous(weight);
  std::vector<int64_t> idx = index_values(indices);
  const size_t row = static_cast<size_t>(dim) * w.impl()->itemsize();
  if (row == 0) return out;
  const char* src = static_cast<const char*>(w.data());
  char* dst = static_cast<char*>(out.data());
  parallel_for(0, static_cast<int64_t>(idx.size()), std::max<int64_t>(1, kGrain / std::max<int64_t>(1, dim)),
               [&](int64_t b, int64_t e) {
                 for (int64_t k = b; k < e; ++k) std::memcpy(dst + k * row, src + idx[k] * row, row);
               });
  return out;
}

void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm, double norm_type) {
  std::vector<int64_t> idx = index_values(indices);
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

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx) {
  const int64_t dim = grad.dim() == 0 ? 1 : grad.size(-1);
  Tensor out = zeros(Dims{num_weights, dim}, grad.dtype());
  if (dim == 0 || num_weights == 0) return out;
  Tensor g = contiguous(grad);
  std::vector<int64_t> idx = index_values(indices);
  const int64_t k_count = static_cast<int64_t>(idx.size());
  dispatch_floating(grad.dtype(), "embedding_backward", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    const T* pg = g.data_ptr<T>();
    T* po = out.data_ptr<T>();
    // Split over ranges of weight rows: each task adds the gradient rows that land in its range.
    const int64_t work = k_count * dim;
    const int64_t grain = work <= kGrain ? num_weights : std::max<int64_t>(1, num_weights / 64);
    parallel_for(0, num_weights, grain, [&](int64_t r0, int64_t r1) {
      for (int64_t k = 0; k < k_count; ++k) {
        const int64_t i = idx[k];
        if (i < r0 || i >= r1 || i == padding_idx) continue;
        T* __restrict o = po + i * dim;
        const T* __restrict s = pg + k * dim;
        for (int64_t j = 0; j < dim; ++j) o[j] = static_cast<T>(static_cast<C>(o[j]) + static_cast<C>(s[j]));
      }
    });
  });
  return out;
}

// ---- dropout

Tensor dropout_noise(const Tensor& x, double p) {
  Tensor noise = empty(x.shape(), x.dtype());
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
  return noise;
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
  Tensor m = empty(Dims{lm, 1, 1}, x.dtype()), s = empty(Dims{ls, 1, 1}, x.dtype());
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
