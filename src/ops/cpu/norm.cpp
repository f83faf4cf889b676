// Batch, layer and group normalisation: fused kernels over contiguous rows.
// Meta parts (glia::ops: torch's checks and messages, outputs allocated on the
// input's device) and CPU kernels (glia::cpu, below); Note [Op = meta + kernel
// + rule] in core/dispatch.h.
//
// Statistics are two-pass (mean, then the sum of squared deviations) with
// float64 accumulators in several independent lanes (so the loops vectorise
// without reassociation flags); elementwise work runs in acc_t<T> (float for
// float32 and the 16-bit floats) with torch's per-group scale/shift form
// y = x * scale + shift (layer norm: (x - mean) * scale, see centre_scale_row). Work is split over channels (batch
// norm), rows (layer norm) or (sample, group) pairs (group norm) above kGrain elements.
#include "ops/norm.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/dispatch.h"
#include "core/norm_math.h"
#include "core/parallel.h"
#include "ops/cpu/loops.h"
#include "ops/iter.h"
#include "ops/reduce.h"

namespace glia::ops {

namespace {

void check_floating(const Tensor& x, const char* kernel) {
  if (!is_floating(x.dtype())) not_implemented_for(kernel, x.dtype());
}

void check_same_dtype(const Tensor& p, DType want) {
  if (!p.defined()) return;
  GLIA_CHECK(p.dtype() == want, DType, "expected scalar type ", scalar_type_name(want), " but found ",
             scalar_type_name(p.dtype()));
}

// The parameters of a normalisation live on the input's device (torch's check
// on CUDA; no wrapped-scalar exception: they are not TensorIterator operands).
void check_devices(const char* op, const Tensor& x, std::initializer_list<const Tensor*> params) {
  for (const Tensor* p : params)
    if (p->defined() && p->device() != x.device()) fail_devices(op, x.device(), p->device());
}

// An optional kernel input: the tensor, contiguous, or (absent) the stand-in `x`
// that the kernel does not read (Note [Optional kernel arguments] in core/kernels.def).
Tensor optional_in(const Tensor& t, const Tensor& x) { return t.defined() ? contiguous(t) : x; }

// The backward kernels' mask attribute and output slots: an output not asked
// for holds one that is (Note [Optional kernel arguments]).
int64_t mask_bits(GradMask m) { return (m[0] ? 1 : 0) | (m[1] ? 2 : 0) | (m[2] ? 4 : 0); }
const Tensor& first_wanted(const NormGrads& r, GradMask m) { return m[0] ? r.input : m[1] ? r.weight : r.bias; }

// [N, C, S] view sizes of a batch/group norm input.
struct NCS {
  int64_t n, c, s;
};
NCS ncs(const Tensor& x) {
  NCS r{x.size(0), x.size(1), 1};
  for (int64_t d = 2; d < x.dim(); ++d) r.s *= x.size(d);
  return r;
}

}  // namespace

// ---- batch norm

NormOut batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                   const Tensor& running_var, bool training, double momentum, double eps) {
  check_floating(x, "batch_norm");
  wrap_dim(1, x.dim());  // the channel dim must exist (torch's "Dimension out of range" otherwise)
  const NCS d = ncs(x);
  GLIA_CHECK(!training || d.n * d.s != 1, InvalidArgument,
             "Expected more than 1 value per channel when training, got input size ", IntSpan(x.shape()));
  struct Named {
    const Tensor* t;
    const char* name;
  };
  const Named params[] = {
      {&weight, "weight"}, {&bias, "bias"}, {&running_mean, "running_mean"}, {&running_var, "running_var"}};
  for (const Named& p : params)
    if (p.t->defined())
      GLIA_CHECK(p.t->numel() == d.c, Shape, p.name, " should contain ", d.c, " elements not ", p.t->numel());
  GLIA_CHECK(training || (running_mean.defined() && running_var.defined()), InvalidArgument,
             running_mean.defined() ? "running_var" : "running_mean", " must be defined in evaluation mode");
  // Parameters share x's dtype, or (torch's mixed type) are all float32 for a bfloat16 x
  // (float16 too in glia), with torch's checks in torch's order.
  bool mixed = false;
  for (const Named& p : params) mixed |= p.t->defined() && p.t->dtype() != x.dtype();
  if (mixed) {
    for (const Named& p : params)
      GLIA_CHECK(!p.t->defined() || p.t->dtype() == DType::Float32, DType,
                 "mixed dtype (CPU): expect parameter to have scalar type of Float");
    GLIA_CHECK(x.dtype() == DType::BFloat16 || x.dtype() == DType::Float16, DType,
               "mixed dtype (CPU): expect input to have scalar type of BFloat16");
  }
  check_devices("batch_norm", x, {&weight, &bias, &running_mean, &running_var});

  const Device dev = x.device();
  Tensor xc = contiguous(x);
  NormOut r{empty(x.shape(), x.dtype(), dev), empty(Dims{d.c}, DType::Float64, dev),
            empty(Dims{d.c}, DType::Float64, dev)};
  Tensor w = optional_in(weight, xc), b = optional_in(bias, xc);
  // The running statistics are updated in place by the kernel: a non-contiguous
  // one through a contiguous copy written back afterwards.
  Tensor rm = optional_in(running_mean, xc), rv = optional_in(running_var, xc);
  const int64_t flags = (weight.defined() ? 1 : 0) | (bias.defined() ? 2 : 0) | (running_mean.defined() ? 4 : 0) |
                        (running_var.defined() ? 8 : 0);
  run_kernel(KernelId::batch_norm, dev, {&xc, &w, &b, &rm, &rv}, {&r.out, &r.mean, &r.rstd},
             {attr_i(training), attr_f(momentum), attr_f(eps), attr_i(flags)});
  if (training && d.n * d.s > 0) {
    if (running_mean.defined() && !running_mean.is_contiguous()) copy_into(running_mean, rm);
    if (running_var.defined() && !running_var.is_contiguous()) copy_into(running_var, rv);
  }
  return r;
}

namespace {

// The meta part the three norm backwards share: the operands first, then the wanted outputs (the
// order the allocator serves best: the converted gradient is a temporary; parameter gradients are
// float64 of `param_shape`), then kernel `id` with attributes (attr0, has weight, mask).
NormGrads norm_backward_meta(KernelId id, const char* op, const Tensor& dy, const Tensor& x, const Tensor& weight,
                             const Tensor& mean, const Tensor& rstd, IntSpan param_shape, int64_t attr0,
                             GradMask mask) {
  check_devices(op, x, {&dy, &weight, &mean, &rstd});
  const Device dev = x.device();
  NormGrads r;
  if (!mask[0] && !mask[1] && !mask[2]) return r;
  Tensor xc = contiguous(x), gc = contiguous(to_dtype(dy, x.dtype()));
  if (mask[0]) r.input = empty(x.shape(), x.dtype(), dev);
  if (mask[1]) r.weight = empty(param_shape, DType::Float64, dev);
  if (mask[2]) r.bias = empty(param_shape, DType::Float64, dev);
  Tensor w = optional_in(weight, xc);
  const Tensor& any = first_wanted(r, mask);
  run_kernel(id, dev, {&gc, &xc, &w, &mean, &rstd},
             {mask[0] ? &r.input : &any, mask[1] ? &r.weight : &any, mask[2] ? &r.bias : &any},
             {attr_i(attr0), attr_i(weight.defined()), attr_i(mask_bits(mask))});
  return r;
}

}  // namespace

NormGrads batch_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& mean,
                              const Tensor& rstd, bool training, GradMask mask) {
  return norm_backward_meta(KernelId::batch_norm_backward, "batch_norm_backward", dy, x, weight, mean, rstd,
                            Dims{x.size(1)}, training, mask);
}

// ---- layer norm

NormOut layer_norm(const Tensor& x, IntSpan normalized_shape, const Tensor& weight, const Tensor& bias, double eps) {
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  GLIA_CHECK(nd >= 1, InvalidArgument,
             "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
             "normalized_shape = ",
             normalized_shape);
  auto same = [&](const Tensor& t) {
    return IntSpan(t.shape()).size() == normalized_shape.size() &&
           std::equal(normalized_shape.begin(), normalized_shape.end(), t.shape().begin());
  };
  GLIA_CHECK(!weight.defined() || same(weight), Shape,
             "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
             IntSpan(weight.defined() ? weight.shape() : Dims{}), " and normalized_shape = ", normalized_shape);
  GLIA_CHECK(!bias.defined() || same(bias), Shape,
             "Expected bias to be of same shape as normalized_shape, but got bias of shape ",
             IntSpan(bias.defined() ? bias.shape() : Dims{}), " and normalized_shape = ", normalized_shape);
  bool ok = x.dim() >= nd;
  for (int64_t i = 0; ok && i < nd; ++i) ok = x.size(x.dim() - nd + i) == normalized_shape[i];
  GLIA_CHECK(
      ok, Shape, "Given normalized_shape=", normalized_shape, ", expected input with shape [*",
      [&] {
        std::string s;
        for (int64_t v : normalized_shape) s += ", " + std::to_string(v);
        return s;
      }(),
      "], but got input of size", IntSpan(x.shape()));
  check_floating(x, "LayerNormKernelImpl");
  check_same_dtype(weight, x.dtype());
  check_same_dtype(bias, x.dtype());
  check_devices("layer_norm", x, {&weight, &bias});

  int64_t n = 1;
  for (int64_t v : normalized_shape) n *= v;
  int64_t rows = 1;
  for (int64_t i = 0; i < x.dim() - nd; ++i) rows *= x.size(i);
  const Device dev = x.device();
  Tensor xc = contiguous(x);
  NormOut r{empty(x.shape(), x.dtype(), dev), empty(Dims{rows}, DType::Float64, dev),
            empty(Dims{rows}, DType::Float64, dev)};
  Tensor w = optional_in(weight, xc), b = optional_in(bias, xc);
  const int64_t flags = (weight.defined() ? 1 : 0) | (bias.defined() ? 2 : 0);
  run_kernel(KernelId::layer_norm, dev, {&xc, &w, &b}, {&r.out, &r.mean, &r.rstd},
             {attr_i(n), attr_f(eps), attr_i(flags)});
  return r;
}

NormGrads layer_norm_backward(const Tensor& dy, const Tensor& x, IntSpan normalized_shape, const Tensor& mean,
                              const Tensor& rstd, const Tensor& weight, GradMask mask) {
  int64_t n = 1;
  for (int64_t v : normalized_shape) n *= v;
  return norm_backward_meta(KernelId::layer_norm_backward, "layer_norm_backward", dy, x, weight, mean, rstd,
                            normalized_shape, n, mask);
}

// ---- group norm

NormOut group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  wrap_dim(1, x.dim());  // the channel dim must exist (torch's "Dimension out of range" otherwise)
  GLIA_CHECK(num_groups > 0, InvalidArgument, "group_norm: num_groups must be positive, got ", num_groups);
  const NCS d = ncs(x);
  GLIA_CHECK(d.c % num_groups == 0, Shape,
             "Expected number of channels in input to be divisible by num_groups, but got input of shape ",
             IntSpan(x.shape()), " and num_groups=", num_groups);
  GLIA_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == d.c), Shape,
             "Expected weight to be a vector of size equal to the number of channels in input, but got weight of "
             "shape ",
             IntSpan(weight.defined() ? weight.shape() : Dims{}), " and input of shape ", IntSpan(x.shape()));
  GLIA_CHECK(!bias.defined() || (bias.dim() == 1 && bias.numel() == d.c), Shape,
             "Expected bias to be a vector of size equal to the number of channels in input, but got bias of shape ",
             IntSpan(bias.defined() ? bias.shape() : Dims{}), " and input of shape ", IntSpan(x.shape()));
  check_floating(x, "GroupNormKernelImpl");
  check_same_dtype(weight, x.dtype());
  check_same_dtype(bias, x.dtype());
  check_devices("group_norm", x, {&weight, &bias});

  const Device dev = x.device();
  Tensor xc = contiguous(x);
  NormOut r{empty(x.shape(), x.dtype(), dev), empty(Dims{d.n, num_groups}, DType::Float64, dev),
            empty(Dims{d.n, num_groups}, DType::Float64, dev)};
  Tensor w = optional_in(weight, xc), b = optional_in(bias, xc);
  const int64_t flags = (weight.defined() ? 1 : 0) | (bias.defined() ? 2 : 0);
  run_kernel(KernelId::group_norm, dev, {&xc, &w, &b}, {&r.out, &r.mean, &r.rstd},
             {attr_i(num_groups), attr_f(eps), attr_i(flags)});
  return r;
}

NormGrads group_norm_backward(const Tensor& dy, const Tensor& x, int64_t num_groups, const Tensor& mean,
                              const Tensor& rstd, const Tensor& weight, GradMask mask) {
  return norm_backward_meta(KernelId::group_norm_backward, "group_norm_backward", dy, x, weight, mean, rstd,
                            Dims{x.size(1)}, num_groups, mask);
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::kGrain;

namespace {

constexpr int kLanes = 8;
constexpr int64_t kColBlock = 64;  // channels per block of the [N, C] batch-norm path

// Sum of p[0..n) as double.
template <class T>
inline double sum_row(const T* __restrict p, int64_t n) {
  using C = acc_t<T>;
  double acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += static_cast<double>(static_cast<C>(p[i + k]));
  double s = 0;
  for (; i < n; ++i) s += static_cast<double>(static_cast<C>(p[i]));
  for (int k = 0; k < kLanes; ++k) s += acc[k];
  return s;
}

// Sum of (p[i] - mean)^2 over p[0..n).
template <class T>
inline double sq_dev_row(const T* __restrict p, int64_t n, double mean) {
  using C = acc_t<T>;
  double acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) {
      double d = static_cast<double>(static_cast<C>(p[i + k])) - mean;
      acc[k] += d * d;
    }
  double s = 0;
  for (; i < n; ++i) {
    double d = static_cast<double>(static_cast<C>(p[i])) - mean;
    s += d * d;
  }
  for (int k = 0; k < kLanes; ++k) s += acc[k];
  return s;
}

// Sums of dy and of (x - mean) * dy over a row.
template <class T>
inline void grad_sums_row(const T* __restrict dy, const T* __restrict x, int64_t n, double mean, double& s_dy,
                          double& s_dot) {
  using C = acc_t<T>;
  double a[kLanes] = {}, b[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) {
      double g = static_cast<double>(static_cast<C>(dy[i + k]));
      a[k] += g;
      b[k] += (static_cast<double>(static_cast<C>(x[i + k])) - mean) * g;
    }
  for (; i < n; ++i) {
    double g = static_cast<double>(static_cast<C>(dy[i]));
    s_dy += g;
    s_dot += (static_cast<double>(static_cast<C>(x[i])) - mean) * g;
  }
  for (int k = 0; k < kLanes; ++k) {
    s_dy += a[k];
    s_dot += b[k];
  }
}

// ds = sum(dy * w * x), db = sum(dy * w) over a row.
template <class T>
inline void weighted_sums_row(const T* __restrict dy, const T* __restrict x, const double* __restrict w, int64_t n,
                              double& ds, double& db) {
  using C = acc_t<T>;
  double a[kLanes] = {}, b[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) {
      double gw = static_cast<double>(static_cast<C>(dy[i + k])) * w[i + k];
      a[k] += gw * static_cast<double>(static_cast<C>(x[i + k]));
      b[k] += gw;
    }
  for (; i < n; ++i) {
    double gw = static_cast<double>(static_cast<C>(dy[i])) * w[i];
    ds += gw * static_cast<double>(static_cast<C>(x[i]));
    db += gw;
  }
  for (int k = 0; k < kLanes; ++k) {
    ds += a[k];
    db += b[k];
  }
}

// y = x * scale + shift over a row.
template <class T>
inline void affine_row(const T* __restrict x, T* __restrict y, int64_t n, acc_t<T> scale, acc_t<T> shift) {
  using C = acc_t<T>;
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(static_cast<C>(x[i]) * scale + shift);
}

// y = (x - centre) * scale over a row: layer norm subtracts the mean before scaling, so that a row
// whose mean is large next to its spread keeps its digits (x * scale + shift would cancel two large
// terms: a 1-element row of 7.24 came out 1e-3 off in float32).
template <class T>
inline void centre_scale_row(const T* __restrict x, T* __restrict y, int64_t n, acc_t<T> centre, acc_t<T> scale) {
  using C = acc_t<T>;
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>((static_cast<C>(x[i]) - centre) * scale);
}

// Items of `per_item` elements each per parallel task.
inline int64_t grain_for(int64_t per_item) { return std::max<int64_t>(1, kGrain / std::max<int64_t>(1, per_item)); }

// A contiguous floating tensor's values as float64 (torch's conversion).
std::vector<double> f64_values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  if (v.empty()) return v;
  dispatch_floating(t.dtype(), "batch_norm", [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data_ptr<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = convert<double, T>(p[i]);
  });
  return v;
}

// running = momentum * stat * factor + (1 - momentum) * running, in place in running's dtype.
void update_running(const Tensor& running, const double* stat, double momentum, double factor) {
  dispatch_floating(running.dtype(), "batch_norm", [&](auto tag) {
    using T = decltype(tag);
    T* p = running.data_ptr<T>();
    for (int64_t c = 0; c < running.numel(); ++c)
      p[c] = convert<T, double>(norm::running_update(convert<double, T>(p[c]), stat[c], momentum, factor));
  });
}

// Copies v into a float64 output of v's size.
void write_f64(const Tensor& out, const std::vector<double>& v) {
  std::copy(v.begin(), v.end(), out.data_ptr<double>());
}

// [N, C, S] sizes of a batch/group norm input.
struct NCS {
  int64_t n, c, s;
};
NCS ncs(const Tensor& x) {
  NCS r{x.size(0), x.size(1), 1};
  for (int64_t d = 2; d < x.dim(); ++d) r.s *= x.size(d);
  return r;
}

}  // namespace

// ---- batch norm

void batch_norm_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &out = k.output(0);
  const bool training = k.attr(0).i != 0;
  const double momentum = k.attr(1).f, eps = k.attr(2).f;
  const int64_t flags = k.attr(3).i;
  const NCS d = ncs(x);
  double* mean = k.output(1).data_ptr<double>();
  double* rstd = k.output(2).data_ptr<double>();
  std::vector<double> var(static_cast<size_t>(d.c));
  const int64_t count = d.n * d.s;
  const bool use_batch = training;
  if (!use_batch) {
    std::vector<double> rm = f64_values(k.input(3)), rv = f64_values(k.input(4));
    for (int64_t c = 0; c < d.c; ++c) {
      mean[c] = rm[c];
      rstd[c] = norm::rstd_of(rv[c], eps);
    }
  }
  std::vector<double> w, b;
  if (flags & 1) w = f64_values(k.input(1));
  if (flags & 2) b = f64_values(k.input(2));
  dispatch_floating(x.dtype(), "batch_norm", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    const T* px = x.data_ptr<T>();
    T* py = out.data_ptr<T>();
    if (d.s == 1) {
      // [N, C]: the channels are columns; walk the rows, vectorised across a block of channels.
      const int64_t blocks = (d.c + kColBlock - 1) / kColBlock;
      parallel_for(0, blocks, grain_for(d.n * kColBlock), [&](int64_t b0, int64_t b1) {
        for (int64_t blk = b0; blk < b1; ++blk) {
          const int64_t c0 = blk * kColBlock, nb = std::min(kColBlock, d.c - c0);
          if (use_batch) {
            double sm[kColBlock] = {}, sq[kColBlock] = {}, mu[kColBlock];
            if constexpr (std::is_same_v<T, double>) {
              // Two passes: robust for any spread of values.
              for (int64_t n = 0; n < d.n; ++n) {
                const T* __restrict r = px + n * d.c + c0;
                for (int64_t j = 0; j < nb; ++j) sm[j] += r[j];
              }
              for (int64_t j = 0; j < nb; ++j) mu[j] = count > 0 ? sm[j] / static_cast<double>(count) : NAN;
              for (int64_t n = 0; n < d.n; ++n) {
                const T* __restrict r = px + n * d.c + c0;
                for (int64_t j = 0; j < nb; ++j) {
                  double dv = r[j] - mu[j];
                  sq[j] += dv * dv;
                }
              }
            } else {
              // One pass over float data: float64 sums of (x - k) and (x - k)^2, shifted by the
              // first row's value k (the cancellation left is far below float precision).
              double k[kColBlock];
              for (int64_t j = 0; j < nb; ++j) k[j] = count > 0 ? static_cast<double>(static_cast<C>(px[c0 + j])) : 0;
              for (int64_t n = 0; n < d.n; ++n) {
                const T* __restrict r = px + n * d.c + c0;
                for (int64_t j = 0; j < nb; ++j) {
                  double dv = static_cast<double>(static_cast<C>(r[j])) - k[j];
                  sm[j] += dv;
                  sq[j] += dv * dv;
                }
              }
              for (int64_t j = 0; j < nb; ++j) {
                const double inv = 1.0 / static_cast<double>(count);
                mu[j] = count > 0 ? k[j] + sm[j] * inv : NAN;
                sq[j] = std::max(0.0, sq[j] - sm[j] * sm[j] * inv);
              }
            }
            for (int64_t j = 0; j < nb; ++j) {
              mean[c0 + j] = mu[j];
              var[c0 + j] = count > 0 ? sq[j] / static_cast<double>(count) : NAN;
              rstd[c0 + j] = norm::rstd_of(var[c0 + j], eps);
            }
          }
          C al[kColBlock], be[kColBlock];
          for (int64_t j = 0; j < nb; ++j) {
            const int64_t c = c0 + j;
            const norm::Affine af =
                norm::batch_norm_affine(mean[c], rstd[c], w.empty() ? 1.0 : w[c], b.empty() ? 0.0 : b[c]);
            al[j] = static_cast<C>(af.scale);
            be[j] = static_cast<C>(af.shift);
          }
          for (int64_t n = 0; n < d.n; ++n) {
            const T* __restrict r = px + n * d.c + c0;
            T* __restrict o = py + n * d.c + c0;
            for (int64_t j = 0; j < nb; ++j) o[j] = static_cast<T>(static_cast<C>(r[j]) * al[j] + be[j]);
          }
        }
      });
      return;
    }
    parallel_for(0, d.c, grain_for(count), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        if (use_batch) {
          double s = 0;
          for (int64_t n = 0; n < d.n; ++n) s += sum_row(px + (n * d.c + c) * d.s, d.s);
          double m = count > 0 ? s / static_cast<double>(count) : NAN;
          double q = 0;
          for (int64_t n = 0; n < d.n; ++n) q += sq_dev_row(px + (n * d.c + c) * d.s, d.s, m);
          mean[c] = m;
          var[c] = count > 0 ? q / static_cast<double>(count) : NAN;
          rstd[c] = norm::rstd_of(var[c], eps);
        }
        const norm::Affine af =
            norm::batch_norm_affine(mean[c], rstd[c], w.empty() ? 1.0 : w[c], b.empty() ? 0.0 : b[c]);
        for (int64_t n = 0; n < d.n; ++n) {
          int64_t off = (n * d.c + c) * d.s;
          affine_row<T>(px + off, py + off, d.s, static_cast<C>(af.scale), static_cast<C>(af.shift));
        }
      }
    });
  });
  if (training && count > 0) {
    // torch: running = momentum * batch + (1 - momentum) * running, unbiased variance.
    if (flags & 4) update_running(k.input(3), mean, momentum, 1.0);
    if (flags & 8)
      update_running(k.input(4), var.data(), momentum, static_cast<double>(count) / static_cast<double>(count - 1));
  }
}

void batch_norm_backward_kernel(const KernelArgs& k) {
  const Tensor &pgt = k.input(0), &x = k.input(1);
  const bool training = k.attr(0).i != 0;
  const int64_t mask = k.attr(2).i;
  const NCS d = ncs(x);
  const int64_t count = d.n * d.s;
  std::vector<double> w;
  if (k.attr(1).i) w = f64_values(k.input(2));
  const double* mean = k.input(3).data_ptr<double>();
  const double* rstd = k.input(4).data_ptr<double>();
  std::vector<double> dw(d.c), db(d.c);
  dispatch_floating(x.dtype(), "batch_norm_backward", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    const T* px = x.data_ptr<T>();
    const T* pg = pgt.data_ptr<T>();
    T* pdx = (mask & 1) ? k.output(0).data_ptr<T>() : nullptr;
    // dx = (dy - mean(dy) - (x - mean) * rstd^2 * mean((x - mean) dy)) * rstd * w  (training)
    // dx = dy * rstd * w                                                        (eval)
    // as dx = dy * a + x * bx + cst per channel.
    auto coeffs = [&](int64_t c, double s_dy, double s_dot, C& ca, C& cb, C& cc) {
      const norm::Coeffs q =
          norm::batch_norm_backward_coeffs(training, count, mean[c], rstd[c], w.empty() ? 1.0 : w[c], s_dy, s_dot);
      ca = static_cast<C>(q.a);
      cb = static_cast<C>(q.b);
      cc = static_cast<C>(q.c);
    };
    if (d.s == 1) {
      const int64_t blocks = (d.c + kColBlock - 1) / kColBlock;
      parallel_for(0, blocks, grain_for(d.n * kColBlock), [&](int64_t b0, int64_t b1) {
        for (int64_t blk = b0; blk < b1; ++blk) {
          const int64_t c0 = blk * kColBlock, nb = std::min(kColBlock, d.c - c0);
          double sdy[kColBlock] = {}, sdot[kColBlock] = {}, mu[kColBlock];
          for (int64_t j = 0; j < nb; ++j) mu[j] = mean[c0 + j];
          for (int64_t n = 0; n < d.n; ++n) {
            const T* __restrict g = pg + n * d.c + c0;
            const T* __restrict xx = px + n * d.c + c0;
            for (int64_t j = 0; j < nb; ++j) {
              double gv = static_cast<double>(static_cast<C>(g[j]));
              sdy[j] += gv;
              sdot[j] += (static_cast<double>(static_cast<C>(xx[j])) - mu[j]) * gv;
            }
          }
          C ca[kColBlock], cb[kColBlock], cc[kColBlock];
          for (int64_t j = 0; j < nb; ++j) {
            dw[c0 + j] = sdot[j] * rstd[c0 + j];
            db[c0 + j] = sdy[j];
            coeffs(c0 + j, sdy[j], sdot[j], ca[j], cb[j], cc[j]);
          }
          if (!pdx) continue;
          for (int64_t n = 0; n < d.n; ++n) {
            const T* __restrict g = pg + n * d.c + c0;
            const T* __restrict xx = px + n * d.c + c0;
            T* __restrict o = pdx + n * d.c + c0;
            for (int64_t j = 0; j < nb; ++j)
              o[j] = static_cast<T>(static_cast<C>(g[j]) * ca[j] + static_cast<C>(xx[j]) * cb[j] + cc[j]);
          }
        }
      });
      return;
    }
    parallel_for(0, d.c, grain_for(count), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        double s_dy = 0, s_dot = 0;
        for (int64_t n = 0; n < d.n; ++n) {
          int64_t off = (n * d.c + c) * d.s;
          grad_sums_row(pg + off, px + off, d.s, mean[c], s_dy, s_dot);
        }
        dw[c] = s_dot * rstd[c];
        db[c] = s_dy;
        if (!pdx) continue;
        C ca, cb, cc;
        coeffs(c, s_dy, s_dot, ca, cb, cc);
        for (int64_t n = 0; n < d.n; ++n) {
          int64_t off = (n * d.c + c) * d.s;
          const T* __restrict g = pg + off;
          const T* __restrict xx = px + off;
          T* __restrict o = pdx + off;
          for (int64_t i = 0; i < d.s; ++i)
            o[i] = static_cast<T>(static_cast<C>(g[i]) * ca + static_cast<C>(xx[i]) * cb + cc);
        }
      }
    });
  });
  if (mask & 2) write_f64(k.output(1), dw);
  if (mask & 4) write_f64(k.output(2), db);
}

// ---- layer norm

void layer_norm_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &out = k.output(0);
  const int64_t n = k.attr(0).i, flags = k.attr(2).i;
  const double eps = k.attr(1).f;
  const int64_t m = n == 0 ? 0 : x.numel() / n;
  const int64_t rows = k.output(1).numel();
  double* mean = k.output(1).data_ptr<double>();
  double* rstd = k.output(2).data_ptr<double>();
  if (m == 0) {
    for (int64_t i = 0; i < rows; ++i) mean[i] = NAN, rstd[i] = NAN;
    return;
  }
  dispatch_floating(x.dtype(), "LayerNormKernelImpl", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    const T* px = x.data_ptr<T>();
    T* py = out.data_ptr<T>();
    const T* pw = (flags & 1) ? k.input(1).data_ptr<T>() : nullptr;
    const T* pb = (flags & 2) ? k.input(2).data_ptr<T>() : nullptr;
    parallel_for(0, m, grain_for(n), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* __restrict xr = px + r * n;
        T* __restrict yr = py + r * n;
        double mu = sum_row(xr, n) / static_cast<double>(n);
        double var = sq_dev_row(xr, n, mu) / static_cast<double>(n);
        double rs = norm::rstd_of(var, eps);
        mean[r] = mu;
        rstd[r] = rs;
        const C scale = static_cast<C>(rs), centre = static_cast<C>(mu);
        if (!pw && !pb) {
          centre_scale_row<T>(xr, yr, n, centre, scale);
        } else {
          if (pw && pb) {
            for (int64_t i = 0; i < n; ++i)
              yr[i] = static_cast<T>((static_cast<C>(xr[i]) - centre) * scale * static_cast<C>(pw[i]) +
                                     static_cast<C>(pb[i]));
          } else if (pw) {
            for (int64_t i = 0; i < n; ++i)
              yr[i] = static_cast<T>((static_cast<C>(xr[i]) - centre) * scale * static_cast<C>(pw[i]));
          } else {
            for (int64_t i = 0; i < n; ++i)
              yr[i] = static_cast<T>((static_cast<C>(xr[i]) - centre) * scale + static_cast<C>(pb[i]));
          }
        }
      }
    });
  });
}

void layer_norm_backward_kernel(const KernelArgs& k) {
  const Tensor &dy = k.input(0), &x = k.input(1);
  const int64_t n = k.attr(0).i, mask = k.attr(2).i;
  const int64_t m = n == 0 ? 0 : x.numel() / n;
  std::vector<double> w;
  if (k.attr(1).i) w = f64_values(k.input(2));
  const double* mean = k.input(3).data_ptr<double>();
  const double* rstd = k.input(4).data_ptr<double>();
  std::vector<double> dw(static_cast<size_t>(n)), db(static_cast<size_t>(n));
  if (m > 0)
    dispatch_floating(x.dtype(), "LayerNormBackwardKernelImpl", [&](auto tag) {
      using T = decltype(tag);
      using C = acc_t<T>;
      const T* px = x.data_ptr<T>();
      const T* pg = dy.data_ptr<T>();
      if ((mask & 1)) {
        T* pdx = k.output(0).data_ptr<T>();
        parallel_for(0, m, grain_for(n), [&](int64_t r0, int64_t r1) {
          for (int64_t row = r0; row < r1; ++row) {
            const T* __restrict xr = px + row * n;
            const T* __restrict gr = pg + row * n;
            T* __restrict dr = pdx + row * n;
            // ds = sum(dy * w * x), db = sum(dy * w)
            double ds = 0, dbs = 0;
            if (w.empty())
              grad_sums_row(gr, xr, n, 0.0, dbs, ds);
            else
              weighted_sums_row(gr, xr, w.data(), n, ds, dbs);
            const norm::Coeffs q = norm::layer_norm_backward_coeffs(mean[row], rstd[row], ds, dbs, n);
            const C ca = static_cast<C>(q.a), cb = static_cast<C>(q.b), cc = static_cast<C>(q.c);
            if (w.empty()) {
              for (int64_t i = 0; i < n; ++i)
                dr[i] = static_cast<T>(ca * static_cast<C>(gr[i]) + cb * static_cast<C>(xr[i]) + cc);
            } else {
              for (int64_t i = 0; i < n; ++i)
                dr[i] =
                    static_cast<T>(ca * static_cast<C>(gr[i]) * static_cast<C>(w[i]) + cb * static_cast<C>(xr[i]) + cc);
            }
          }
        });
      }
      if ((mask & 6)) {
        // Column sums over rows: dgamma[j] = sum_i dy * (x - mean_i) * rstd_i, dbeta[j] = sum_i dy.
        // Rows are cut into chunks (their number depends on the size only, so results do not
        // depend on the thread count), columns into blocks; chunk partials are added in order.
        constexpr int64_t kBlock = 256;
        const int64_t blocks = (n + kBlock - 1) / kBlock;
        const int64_t chunks = std::clamp<int64_t>(m * n / (4 * kGrain), 1, std::min<int64_t>(m, 32));
        std::vector<double> part(static_cast<size_t>(chunks > 1 ? 2 * chunks * n : 0));
        parallel_for(0, chunks * blocks, grain_for(m / chunks * kBlock), [&](int64_t t0, int64_t t1) {
          for (int64_t t = t0; t < t1; ++t) {
            const int64_t chunk = t / blocks, blk = t % blocks;
            const int64_t j0 = blk * kBlock, j1 = std::min(n, j0 + kBlock);
            const int64_t r0 = chunk * m / chunks, r1 = (chunk + 1) * m / chunks;
            double* __restrict gw = chunks > 1 ? part.data() + 2 * chunk * n : dw.data();
            double* __restrict gb = chunks > 1 ? gw + n : db.data();
            for (int64_t row = r0; row < r1; ++row) {
              const T* __restrict xr = px + row * n;
              const T* __restrict gr = pg + row * n;
              const double mu = mean[row], rs = rstd[row];
              for (int64_t j = j0; j < j1; ++j) {
                double g = static_cast<double>(static_cast<C>(gr[j]));
                gw[j] += g * (static_cast<double>(static_cast<C>(xr[j])) - mu) * rs;
                gb[j] += g;
              }
            }
          }
        });
        for (int64_t chunk = 0; chunk < chunks && chunks > 1; ++chunk) {
          const double* pw = part.data() + 2 * chunk * n;
          for (int64_t j = 0; j < n; ++j) {
            dw[j] += pw[j];
            db[j] += pw[n + j];
          }
        }
      }
    });
  if (mask & 2) write_f64(k.output(1), dw);
  if (mask & 4) write_f64(k.output(2), db);
}

// ---- group norm

void group_norm_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &out = k.output(0);
  const int64_t g = k.attr(0).i, flags = k.attr(2).i;
  const double eps = k.attr(1).f;
  const NCS d = ncs(x);
  const int64_t dpg = d.c / g, len = dpg * d.s;
  double* mean = k.output(1).data_ptr<double>();
  double* rstd = k.output(2).data_ptr<double>();
  std::vector<double> w, b;
  if (flags & 1) w = f64_values(k.input(1));
  if (flags & 2) b = f64_values(k.input(2));
  dispatch_floating(x.dtype(), "GroupNormKernelImpl", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    const T* px = x.data_ptr<T>();
    T* py = out.data_ptr<T>();
    parallel_for(0, d.n * g, grain_for(len), [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const T* xr = px + i * len;
        T* yr = py + i * len;
        double mu = len > 0 ? sum_row(xr, len) / static_cast<double>(len) : NAN;
        double var = len > 0 ? sq_dev_row(xr, len, mu) / static_cast<double>(len) : NAN;
        double rs = norm::rstd_of(var, eps);
        mean[i] = mu;
        rstd[i] = rs;
        const int64_t g_idx = i % g;
        for (int64_t k = 0; k < dpg; ++k) {
          const int64_t c = g_idx * dpg + k;
          const norm::Affine af = norm::group_norm_affine(mu, rs, w.empty() ? 1.0 : w[c], b.empty() ? 0.0 : b[c]);
          affine_row<T>(xr + k * d.s, yr + k * d.s, d.s, static_cast<C>(af.scale), static_cast<C>(af.shift));
        }
      }
    });
  });
}

void group_norm_backward_kernel(const KernelArgs& k) {
  const Tensor &dy = k.input(0), &x = k.input(1);
  const int64_t g = k.attr(0).i, mask = k.attr(2).i;
  const NCS d = ncs(x);
  const int64_t dpg = d.c / g, len = dpg * d.s;
  std::vector<double> w;
  if (k.attr(1).i) w = f64_values(k.input(2));
  const double* mean = k.input(3).data_ptr<double>();
  const double* rstd = k.input(4).data_ptr<double>();
  // Per (n, c): ds = sum(dy * x), db = sum(dy) over the spatial dims.
  std::vector<double> ds(static_cast<size_t>(d.n * d.c)), dbv(static_cast<size_t>(d.n * d.c));
  dispatch_floating(x.dtype(), "GroupNormBackwardKernelImpl", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    const T* px = x.data_ptr<T>();
    const T* pg = dy.data_ptr<T>();
    T* pdx = (mask & 1) ? k.output(0).data_ptr<T>() : nullptr;
    parallel_for(0, d.n * g, grain_for(len), [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const int64_t nn = i / g, gi = i % g;
        double ds_g = 0, db_g = 0;
        for (int64_t k = 0; k < dpg; ++k) {
          const int64_t c = gi * dpg + k;
          const int64_t off = (nn * d.c + c) * d.s;
          double s_dy = 0, s_dot = 0;
          grad_sums_row(pg + off, px + off, d.s, 0.0, s_dy, s_dot);
          ds[nn * d.c + c] = s_dot;
          dbv[nn * d.c + c] = s_dy;
          const double wc = w.empty() ? 1.0 : w[c];
          ds_g += s_dot * wc;
          db_g += s_dy * wc;
        }
        if (!pdx) continue;
        const double rs = rstd[i], mu = mean[i];
        const norm::Coeffs q = norm::group_norm_backward_coeffs(mu, rs, ds_g, db_g, len);
        const double c2 = q.b, c3 = q.c;
        for (int64_t k = 0; k < dpg; ++k) {
          const int64_t c = gi * dpg + k;
          const int64_t off = (nn * d.c + c) * d.s;
          const C c1 = static_cast<C>(rs * (w.empty() ? 1.0 : w[c]));
          const C cb = static_cast<C>(c2), cc = static_cast<C>(c3);
          const T* __restrict gr = pg + off;
          const T* __restrict xr = px + off;
          T* __restrict o = pdx + off;
          for (int64_t j = 0; j < d.s; ++j)
            o[j] = static_cast<T>(c1 * static_cast<C>(gr[j]) + cb * static_cast<C>(xr[j]) + cc);
        }
      }
    });
  });
  if ((mask & 6)) {
    std::vector<double> dw(static_cast<size_t>(d.c)), db(static_cast<size_t>(d.c));
    for (int64_t nn = 0; nn < d.n; ++nn)
      for (int64_t c = 0; c < d.c; ++c) {
        const int64_t i = nn * g + c / dpg;
        dw[c] += (ds[nn * d.c + c] - dbv[nn * d.c + c] * mean[i]) * rstd[i];
        db[c] += dbv[nn * d.c + c];
      }
    if (mask & 2) write_f64(k.output(1), dw);
    if (mask & 4) write_f64(k.output(2), db);
  }
}

}  // namespace glia::cpu
