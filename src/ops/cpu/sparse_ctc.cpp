// EmbeddingBag (forward, weight and per_sample_weights gradients) and the CTC
// loss (torch's CPU algorithm: log-space alpha and beta), meta parts first,
// CPU kernels below (Note [Op = meta + kernel + rule]).
#include "ops/sparse_ctc.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/dispatch.h"
#include "core/parallel.h"
#include "ops/cpu/loops.h"
#include "ops/iter.h"

namespace glia::ops {

// ---- embedding_bag

void embedding_bag(const Tensor& weight, const Tensor& indices, const Tensor& offsets, const Tensor& per_sample_weights,
                   BagMode mode, bool include_last_offset, int64_t padding_idx, Tensor* out, Tensor* max_indices) {
  const int64_t bags = std::max<int64_t>(0, offsets.size(0) - (include_last_offset ? 1 : 0));
  const int64_t dim = weight.size(1);
  *out = empty(Dims{bags, dim}, weight.dtype(), weight.device());
  if (mode == BagMode::Max) *max_indices = empty(Dims{bags, dim}, DType::Int64, weight.device());
  Tensor w = contiguous(weight);
  const bool has_psw = per_sample_weights.defined();
  Tensor psw = has_psw ? contiguous(per_sample_weights) : indices;  // a placeholder the kernel does not read
  const Tensor& mi = mode == BagMode::Max ? *max_indices : *out;    // likewise
  run_kernel(KernelId::embedding_bag, weight.device(), {&w, &indices, &offsets, &psw}, {out, &mi},
             {attr_i(static_cast<int64_t>(mode)), attr_i(include_last_offset), attr_i(padding_idx), attr_i(has_psw)});
}

Tensor embedding_bag_backward(const Tensor& grad, const Tensor& indices, const Tensor& offsets,
                              const Tensor& per_sample_weights, const Tensor& max_indices, int64_t num_weights,
                              BagMode mode, bool include_last_offset, int64_t padding_idx, bool scale_grad_by_freq) {
  Tensor out = empty(Dims{num_weights, grad.size(1)}, grad.dtype(), grad.device());
  Tensor g = contiguous(grad);
  const bool has_psw = per_sample_weights.defined();
  const Tensor& psw = has_psw ? per_sample_weights : indices;
  const Tensor& mi = mode == BagMode::Max ? max_indices : indices;
  run_kernel(KernelId::embedding_bag_backward, grad.device(), {&g, &indices, &offsets, &psw, &mi}, {&out},
             {attr_i(static_cast<int64_t>(mode)), attr_i(include_last_offset), attr_i(padding_idx), attr_i(has_psw),
              attr_i(scale_grad_by_freq)});
  return out;
}

Tensor embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                                 const Tensor& offsets, bool include_last_offset, int64_t padding_idx) {
  Tensor out = empty(Dims{indices.size(0)}, grad.dtype(), grad.device());
  Tensor g = contiguous(grad), w = contiguous(weight);
  run_kernel(KernelId::embedding_bag_per_sample_weights_backward, grad.device(), {&g, &w, &indices, &offsets}, {&out},
             {attr_i(include_last_offset), attr_i(padding_idx)});
  return out;
}

// ---- ctc_loss

namespace {
constexpr const char* kCtc = " (while checking arguments for ctc_loss_cpu)";
}  // namespace

void ctc_loss(const Tensor& log_probs, const Tensor& targets, IntSpan input_lengths, IntSpan target_lengths,
              int64_t blank, Tensor* nll, Tensor* log_alpha) {
  common_device("ctc_loss", log_probs, targets, false);
  const DType dt = log_probs.dtype();
  GLIA_CHECK(dt == DType::Float32 || dt == DType::Float64, DType, "\"ctc_loss_cpu\" not implemented for '",
             scalar_type_name(dt), "'");
  GLIA_CHECK(targets.dtype() == DType::Int64, DType, "ctc_loss: targets must be int64");
  GLIA_CHECK(log_probs.dim() == 3, Shape, "Expected 3-dimensional tensor, but got ", log_probs.dim(),
             "-dimensional tensor for argument #1 'log_probs'", kCtc);
  GLIA_CHECK(targets.dim() >= 1 && targets.dim() <= 2, Shape, "Expected 1 to 2 dimensions, but got ", targets.dim(),
             "-dimensional tensor for argument #2 'targets'", kCtc);
  const int64_t T = log_probs.size(0), B = log_probs.size(1), C = log_probs.size(2);
  GLIA_CHECK(blank >= 0 && blank < C, InvalidArgument, "blank must be in label range");
  GLIA_CHECK(static_cast<int64_t>(input_lengths.size()) == B, InvalidArgument,
             "input_lengths must be of size batch_size");
  GLIA_CHECK(static_cast<int64_t>(target_lengths.size()) == B, InvalidArgument,
             "target_lengths must be of size batch_size");
  int64_t max_target = 0, total = 0;
  for (int64_t b = 0; b < B; ++b) {
    GLIA_CHECK(target_lengths[b] >= 0, InvalidArgument,
               "Expected target_lengths to have value at least 0, but got value ", target_lengths[b], kCtc);
    total += target_lengths[b];
    max_target = std::max(max_target, target_lengths[b]);
  }
  if (targets.dim() == 1) {
    GLIA_CHECK(targets.size(0) == total, Shape, "Expected tensor to have size ", total,
               " at dimension 0, but got size ", targets.size(0), " for argument #2 'targets'", kCtc);
  } else {
    GLIA_CHECK(targets.size(0) == B, Shape, "Expected tensor to have size ", B, " at dimension 0, but got size ",
               targets.size(0), " for argument #2 'targets'", kCtc);
    GLIA_CHECK(targets.size(1) >= max_target, Shape, "Expected tensor to have size at least ", max_target,
               " at dimension 1, but got size ", targets.size(1), " for argument #2 'targets'", kCtc);
  }
  for (int64_t b = 0; b < B; ++b) {
    GLIA_CHECK(input_lengths[b] >= 0, InvalidArgument,
               "Expected input_lengths to have value at least 0, but got value ", input_lengths[b], kCtc);
    GLIA_CHECK(input_lengths[b] <= T, InvalidArgument, "Expected input_lengths to have value at most ", T,
               ", but got value ", input_lengths[b], kCtc);
  }
  *nll = empty(Dims{B}, dt, log_probs.device());
  *log_alpha = empty(Dims{B, T, 2 * max_target + 1}, dt, log_probs.device());
  if (B == 0) return;
  Tensor lp = contiguous(log_probs), tg = contiguous(targets);
  run_kernel(KernelId::ctc_loss, log_probs.device(), {&lp, &tg}, {nll, log_alpha},
             {attr_i(blank), attr_ints(input_lengths), attr_ints(target_lengths)});
}

Tensor ctc_loss_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets, IntSpan input_lengths,
                         IntSpan target_lengths, const Tensor& nll, const Tensor& log_alpha, int64_t blank,
                         bool zero_infinity) {
  Tensor out = empty(log_probs.shape(), log_probs.dtype(), log_probs.device());
  Tensor log_beta = empty(log_alpha.shape(), log_alpha.dtype(), log_alpha.device());
  if (out.numel() == 0) return out;
  Tensor g = contiguous(to_dtype(grad, log_probs.dtype())), lp = contiguous(log_probs), tg = contiguous(targets);
  run_kernel(KernelId::ctc_loss_backward, log_probs.device(), {&g, &lp, &tg, &nll, &log_alpha}, {&out, &log_beta},
             {attr_i(blank), attr_i(zero_infinity), attr_ints(input_lengths), attr_ints(target_lengths)});
  return out;
}

}  // namespace glia::ops

namespace glia::cpu {

namespace {

// ---- embedding_bag helpers

// The bags' index ranges: bag b covers [offsets[b], end(b)), end(b) the next offset or (for the last bag
// without include_last_offset) the number of indices.
struct Bags {
  const int64_t* off;
  int64_t n_off, n, count;
  int64_t begin(int64_t b) const { return std::min(off[b], n); }
  int64_t end(int64_t b) const {
    const int64_t e = b + 1 < n_off ? std::min(off[b + 1], n) : n;
    return std::max(e, begin(b));
  }
};

Bags bags_of(const Tensor& offsets, int64_t n, bool include_last_offset) {
  const int64_t n_off = offsets.numel();
  return Bags{offsets.data_ptr<int64_t>(), n_off, n, std::max<int64_t>(0, n_off - (include_last_offset ? 1 : 0))};
}

// torch's data checks of embedding_bag (check_arguments and the index loop), before anything is written.
void check_bags(const Bags& bags, const int64_t* idx, int64_t n, int64_t num_weights) {
  if (bags.n_off > 0) {
    GLIA_CHECK(bags.off[0] == 0, InvalidArgument,
               "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
               "However, got ",
               bags.off[0]);
    GLIA_CHECK(bags.off[bags.n_off - 1] <= n, InvalidArgument, "offsets[-1] can not be greater than input's length ", n,
               " but got offsets[-1] of ", bags.off[bags.n_off - 1]);
  }
  for (int64_t i = 0; i < n; ++i)
    GLIA_CHECK(idx[i] >= 0 && idx[i] < num_weights, InvalidArgument,
               "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be ", idx[i]);
}

// row += scale * src over dim elements (accumulation type C).
template <class T, class C>
inline void bag_axpy(C* __restrict acc, const T* __restrict src, C scale, int64_t dim) {
  for (int64_t d = 0; d < dim; ++d) acc[d] += static_cast<C>(src[d]) * scale;
}

// ---- ctc helpers (torch's log-space recursions)

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// log(exp(a) + exp(b) + exp(c)) as torch computes it (max subtracted; all -inf gives -inf).
template <class T>
inline T log_sum3(T a, T b, T c) {
  T m = std::max(a, std::max(b, c));
  if (m == static_cast<T>(kNegInf)) m = 0;
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}

// The label of state s of the extended target (blank, l1, blank, l2, ..., blank).
inline int64_t target_prime(const int64_t* tg, int64_t s, int64_t blank) { return s % 2 == 0 ? blank : tg[s / 2]; }

// Where batch element b's target starts in the targets' data (concatenated or padded [B, S]).
inline int64_t target_offset(const Tensor& targets, IntSpan target_lengths, int64_t b) {
  if (targets.dim() == 2) return b * targets.size(1);
  int64_t pos = 0;
  for (int64_t i = 0; i < b; ++i) pos += target_lengths[i];
  return pos;
}

void check_targets(const Tensor& targets, IntSpan target_lengths, int64_t num_labels) {
  const int64_t* tg = targets.data_ptr<int64_t>();
  for (size_t b = 0; b < target_lengths.size(); ++b) {
    const int64_t base = target_offset(targets, target_lengths, static_cast<int64_t>(b));
    for (int64_t s = 0; s < target_lengths[b]; ++s)
      GLIA_CHECK(tg[base + s] >= 0 && tg[base + s] < num_labels, InvalidArgument, "ctc_loss: target value ",
                 tg[base + s], " is out of the label range [0, ", num_labels, ")");
  }
}

}  // namespace

// in0 weight [N, D], in1 indices [n] int64, in2 offsets int64, in3 per_sample_weights [n] (has_psw);
// out0 [bags, D], out1 max_indices [bags, D] int64 (mode max).
void embedding_bag_kernel(const KernelArgs& k) {
  const Tensor &w = k.input(0), &indices = k.input(1), &out = k.output(0);
  const auto mode = static_cast<ops::BagMode>(k.attr(0).i);
  const bool include_last = k.attr(1).i != 0, has_psw = k.attr(3).i != 0;
  const int64_t pad = k.attr(2).i, n = indices.numel(), num = w.size(0), dim = w.size(1);
  const int64_t* idx = indices.data_ptr<int64_t>();
  const Bags bags = bags_of(k.input(2), n, include_last);
  check_bags(bags, idx, n, num);
  int64_t* mi = mode == ops::BagMode::Max ? k.output(1).data_ptr<int64_t>() : nullptr;
  dispatch_floating(w.dtype(), "embedding_bag", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    const T* pw = w.data_ptr<T>();
    const T* psw = has_psw ? k.input(3).data_ptr<T>() : nullptr;
    T* po = out.data_ptr<T>();
    parallel_for(0, bags.count, 1, [&](int64_t b0, int64_t b1) {
      std::vector<C> acc(static_cast<size_t>(dim));
      for (int64_t b = b0; b < b1; ++b) {
        T* row = po + b * dim;
        if (mode == ops::BagMode::Max) {
          int64_t* mrow = mi + b * dim;
          bool first = true;
          for (int64_t i = bags.begin(b); i < bags.end(b); ++i) {
            if (idx[i] == pad) continue;
            const T* src = pw + idx[i] * dim;
            for (int64_t d = 0; d < dim; ++d)
              if (first || static_cast<C>(src[d]) > static_cast<C>(row[d])) {
                row[d] = src[d];
                mrow[d] = idx[i];
              }
            first = false;
          }
          if (first)
            for (int64_t d = 0; d < dim; ++d) row[d] = T(0.0f), mrow[d] = -1;
          continue;
        }
        std::fill(acc.begin(), acc.end(), C(0));
        int64_t count = 0;
        for (int64_t i = bags.begin(b); i < bags.end(b); ++i) {
          if (idx[i] == pad) continue;
          bag_axpy<T, C>(acc.data(), pw + idx[i] * dim, psw ? static_cast<C>(psw[i]) : C(1), dim);
          ++count;
        }
        const C div = mode == ops::BagMode::Mean && count > 0 ? static_cast<C>(count) : C(1);
        for (int64_t d = 0; d < dim; ++d) row[d] = static_cast<T>(acc[d] / div);
      }
    });
  });
}

// in0 grad [bags, D], in1 indices, in2 offsets, in3 per_sample_weights (has_psw), in4 max_indices (mode max)
// -> out0 [N, D].
void embedding_bag_backward_kernel(const KernelArgs& k) {
  const Tensor &g = k.input(0), &indices = k.input(1), &out = k.output(0);
  const auto mode = static_cast<ops::BagMode>(k.attr(0).i);
  const bool include_last = k.attr(1).i != 0, has_psw = k.attr(3).i != 0, by_freq = k.attr(4).i != 0;
  const int64_t pad = k.attr(2).i, n = indices.numel(), num = out.size(0), dim = out.size(1);
  const int64_t* idx = indices.data_ptr<int64_t>();
  const Bags bags = bags_of(k.input(2), n, include_last);
  // Note [embedding_bag's scale_grad_by_freq]: torch 1.13's CPU backward (_embedding_bag_dense_backward_cpu_
  // sum_mean) divides the gradient of the g-th distinct index (in ascending order) by counts[sorted[g]],
  // sorted being all the indices in ascending order: the index's own count for the smallest ones, another
  // index's count after a repeated one (indices [1, 1, 3]: row 3 is divided by 2, the count of 1). glia
  // gives torch's values (its goldens); F.embedding's scale_grad_by_freq divides by the index's own count.
  std::vector<int64_t> divisor;
  if (by_freq) {
    std::vector<int64_t> counts(static_cast<size_t>(num), 0), sorted(idx, idx + n);
    for (int64_t i = 0; i < n; ++i) ++counts[idx[i]];
    std::sort(sorted.begin(), sorted.end());
    divisor.assign(static_cast<size_t>(num), 1);
    int64_t g = 0;
    for (int64_t i = 0; i < n; i += counts[sorted[i]]) divisor[sorted[i]] = counts[sorted[g++]];
  }
  dispatch_floating(g.dtype(), "embedding_bag_backward", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    const T* pg = g.data_ptr<T>();
    T* po = out.data_ptr<T>();
    std::fill(po, po + num * dim, T(0.0f));
    if (mode == ops::BagMode::Max) {
      const int64_t* mi = k.input(4).data_ptr<int64_t>();
      for (int64_t b = 0; b < bags.count; ++b)
        for (int64_t d = 0; d < dim; ++d) {
          const int64_t r = mi[b * dim + d];
          if (r >= 0)
            po[r * dim + d] = static_cast<T>(static_cast<C>(po[r * dim + d]) + static_cast<C>(pg[b * dim + d]));
        }
      return;
    }
    const T* psw = has_psw ? k.input(3).data_ptr<T>() : nullptr;
    for (int64_t b = 0; b < bags.count; ++b) {
      int64_t count = 0;
      for (int64_t i = bags.begin(b); i < bags.end(b); ++i) count += idx[i] != pad;
      const C bag_div = mode == ops::BagMode::Mean && count > 0 ? static_cast<C>(count) : C(1);
      const T* __restrict src = pg + b * dim;
      for (int64_t i = bags.begin(b); i < bags.end(b); ++i) {
        if (idx[i] == pad) continue;
        C scale = (psw ? static_cast<C>(psw[i]) : C(1)) / bag_div;
        if (by_freq) scale /= static_cast<C>(divisor[idx[i]]);
        T* __restrict dst = po + idx[i] * dim;
        for (int64_t d = 0; d < dim; ++d)
          dst[d] = static_cast<T>(static_cast<C>(dst[d]) + static_cast<C>(src[d]) * scale);
      }
    }
  });
}

// in0 grad [bags, D], in1 weight [N, D], in2 indices, in3 offsets -> out0 [n].
void embedding_bag_per_sample_weights_backward_kernel(const KernelArgs& k) {
  const Tensor &g = k.input(0), &w = k.input(1), &indices = k.input(2), &out = k.output(0);
  const bool include_last = k.attr(0).i != 0;
  const int64_t pad = k.attr(1).i, n = indices.numel(), dim = w.size(1);
  const int64_t* idx = indices.data_ptr<int64_t>();
  const Bags bags = bags_of(k.input(3), n, include_last);
  dispatch_floating(g.dtype(), "embedding_bag_per_sample_weights_backward", [&](auto tag) {
    using T = decltype(tag);
    using C = acc_t<T>;
    const T* pg = g.data_ptr<T>();
    const T* pw = w.data_ptr<T>();
    T* po = out.data_ptr<T>();
    std::fill(po, po + n, T(0.0f));
    for (int64_t b = 0; b < bags.count; ++b)
      for (int64_t i = bags.begin(b); i < bags.end(b); ++i) {
        if (idx[i] == pad) continue;
        const T* __restrict a = pg + b * dim;
        const T* __restrict r = pw + idx[i] * dim;
        C s = 0;
        for (int64_t d = 0; d < dim; ++d) s += static_cast<C>(a[d]) * static_cast<C>(r[d]);
        po[i] = static_cast<T>(s);
      }
  });
}

// in0 log_probs [T, B, C] contiguous, in1 targets int64 contiguous -> out0 nll [B], out1 log_alpha [B, T, S'].
void ctc_loss_kernel(const KernelArgs& k) {
  const Tensor &lp = k.input(0), &targets = k.input(1), &nll = k.output(0), &alpha = k.output(1);
  const int64_t blank = k.attr(0).i;
  const IntSpan il(k.attr(1).ints, static_cast<size_t>(k.attr(1).n_ints));
  const IntSpan tl(k.attr(2).ints, static_cast<size_t>(k.attr(2).n_ints));
  const int64_t T_ = lp.size(0), B = lp.size(1), C = lp.size(2), S = alpha.size(2);
  check_targets(targets, tl, C);
  dispatch_floating(lp.dtype(), "ctc_loss_cpu", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T neginf = static_cast<T>(kNegInf);
      const T* plp = lp.data_ptr<T>();
      T* pa = alpha.data_ptr<T>();
      T* pn = nll.data_ptr<T>();
      const int64_t* tg_all = targets.data_ptr<int64_t>();
      parallel_for(0, B, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t in_len = il[b], tg_len = tl[b];
          const int64_t* tg = tg_all + target_offset(targets, tl, b);
          auto lpa = [&](int64_t t, int64_t c) { return plp[(t * B + b) * C + c]; };
          T* a = pa + b * T_ * S;
          for (int64_t s = 0; s < S; ++s) a[s] = neginf;
          if (in_len == 0) {
            pn[b] = tg_len == 0 ? T(0) : -neginf;
            continue;
          }
          a[0] = lpa(0, blank);
          if (tg_len > 0) a[1] = lpa(0, target_prime(tg, 1, blank));
          for (int64_t t = 1; t < in_len; ++t) {
            const T* prev = a + (t - 1) * S;
            T* cur = a + t * S;
            for (int64_t s = 0; s < 2 * tg_len + 1; ++s) {
              const int64_t l = target_prime(tg, s, blank);
              const T la1 = prev[s];
              const T la2 = s > 0 ? prev[s - 1] : neginf;
              const T la3 = s > 1 && target_prime(tg, s - 2, blank) != l ? prev[s - 2] : neginf;
              cur[s] = log_sum3(la1, la2, la3) + lpa(t, l);
            }
          }
          const T* last = a + (in_len - 1) * S;
          if (tg_len == 0) {
            pn[b] = -last[0];
          } else {
            pn[b] = -log_sum3(last[2 * tg_len], last[2 * tg_len - 1], neginf);
          }
        }
      });
    }
  });
}

// in0 grad [B], in1 log_probs [T, B, C], in2 targets, in3 nll [B], in4 log_alpha [B, T, S']
// -> out0 grad [T, B, C], out1 log_beta [B, T, S'] (scratch).
void ctc_loss_backward_kernel(const KernelArgs& k) {
  const Tensor &go = k.input(0), &lp = k.input(1), &targets = k.input(2), &nll = k.input(3), &alpha = k.input(4);
  const Tensor &grad = k.output(0), &beta = k.output(1);
  const int64_t blank = k.attr(0).i;
  const bool zero_infinity = k.attr(1).i != 0;
  const IntSpan il(k.attr(2).ints, static_cast<size_t>(k.attr(2).n_ints));
  const IntSpan tl(k.attr(3).ints, static_cast<size_t>(k.attr(3).n_ints));
  const int64_t T_ = lp.size(0), B = lp.size(1), C = lp.size(2), S = alpha.size(2);
  dispatch_floating(lp.dtype(), "ctc_loss_backward_cpu", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T neginf = static_cast<T>(kNegInf);
      const T* plp = lp.data_ptr<T>();
      const T* pa_all = alpha.data_ptr<T>();
      const T* pn = nll.data_ptr<T>();
      const T* pgo = go.data_ptr<T>();
      T* pb_all = beta.data_ptr<T>();
      T* pg = grad.data_ptr<T>();
      const int64_t* tg_all = targets.data_ptr<int64_t>();
      parallel_for(0, B, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          auto at = [&](int64_t t, int64_t c) -> int64_t { return (t * B + b) * C + c; };
          const T nl = pn[b];
          if (zero_infinity && nl == -neginf) {
            for (int64_t t = 0; t < T_; ++t)
              for (int64_t c = 0; c < C; ++c) pg[at(t, c)] = 0;
            continue;
          }
          const int64_t in_len = il[b], tg_len = tl[b];
          const int64_t* tg = tg_all + target_offset(targets, tl, b);
          const T* a = pa_all + b * T_ * S;
          T* be = pb_all + b * T_ * S;
          for (int64_t t = 0; t < in_len; ++t)
            for (int64_t c = 0; c < C; ++c) pg[at(t, c)] = neginf;
          if (in_len > 0) {
            T* lastb = be + (in_len - 1) * S;
            for (int64_t s = 0; s < S; ++s) lastb[s] = neginf;
            const int64_t t = in_len - 1;
            lastb[2 * tg_len] = plp[at(t, blank)];
            pg[at(t, blank)] = a[t * S + 2 * tg_len] + lastb[2 * tg_len];
            if (tg_len > 0) {
              const int64_t l = target_prime(tg, 2 * tg_len - 1, blank);
              lastb[2 * tg_len - 1] = plp[at(t, l)];
              pg[at(t, l)] = a[t * S + 2 * tg_len - 1] + lastb[2 * tg_len - 1];
            }
          }
          for (int64_t t = in_len - 2; t >= 0; --t) {
            const T* next = be + (t + 1) * S;
            T* cur = be + t * S;
            for (int64_t s = 2 * tg_len; s >= 0; --s) {
              const int64_t l = target_prime(tg, s, blank);
              const T lb1 = next[s];
              const T lb2 = s < 2 * tg_len ? next[s + 1] : neginf;
              const T lb3 = s < 2 * tg_len - 1 && target_prime(tg, s + 2, blank) != l ? next[s + 2] : neginf;
              cur[s] = log_sum3(lb1, lb2, lb3) + plp[at(t, l)];
              const T ab = a[t * S + s] + cur[s];
              T& lcab = pg[at(t, l)];
              if (lcab == neginf) {
                lcab = ab;
              } else {
                const T m = std::max(lcab, ab);
                lcab = std::log(std::exp(lcab - m) + std::exp(ab - m)) + m;
              }
            }
          }
          const T gr = pgo[b];
          for (int64_t t = 0; t < in_len; ++t)
            for (int64_t c = 0; c < C; ++c) {
              T& r = pg[at(t, c)];
              const T l = plp[at(t, c)];
              r = (std::exp(l) - std::exp(r + nl - l)) * gr;
            }
          for (int64_t t = in_len; t < T_; ++t)
            for (int64_t c = 0; c < C; ++c) pg[at(t, c)] = 0;
        }
      });
    }
  });
}

}  // namespace glia::cpu
