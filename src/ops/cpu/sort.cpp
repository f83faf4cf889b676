// Sorting and selection along one dim: sort, topk, kthvalue, median / nanmedian,
// mode. Meta parts (glia::ops) and CPU kernels (glia::cpu), Note [Op = meta +
// kernel + rule] in core/dispatch.h. The kernels get rows (Note [Canonical
// layout] in ops/reduce.h: the dim last, contiguous) and order values as torch
// does: NaN is larger than every number (last ascending, first descending).
// sort is O(n log n) (std::stable_sort / std::sort on the index row), topk
// O(n log k) (partial sort), kthvalue and median O(n) on average (nth_element).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "core/dispatch.h"
#include "core/sort_math.h"
#include "ops/cpu/loops.h"
#include "ops/index.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace glia::ops {

namespace {

struct Rows {
  Canonical c;
  int64_t dim;  // wrapped (0 for a 0-dim input)
  int64_t n;    // the dim's size (1 for a 0-dim input)
};

Rows rows_of(const Tensor& t, int64_t dim) {
  Rows r;
  r.dim = wrap_dim(dim, t.dim());
  int64_t ds[1] = {r.dim};
  auto mask = reduce_mask("sort", t.dim() == 0 ? IntSpan{} : IntSpan(ds), t.dim());
  r.c = canonical(t, mask);
  r.n = t.dim() == 0 ? 1 : t.shape()[r.dim];
  return r;
}

// The shape of a canonical output with `m` elements per row (kept dims, then m).
Dims row_shape(const Tensor& t, const Rows& r, int64_t m) {
  Dims s;
  for (size_t i = 0; i + 1 < r.c.perm.size(); ++i) s.push_back(t.shape()[r.c.perm[i]]);
  if (t.dim() > 0) s.push_back(m);
  return s;
}

// Back from rows of m elements to t's layout with the dim of size m.
Tensor unrow(const Tensor& rows, const Tensor& t, const Rows& r, int64_t m) {
  if (t.dim() == 0) return rows;
  Dims shape = t.shape();
  shape[r.dim] = m;
  return from_canonical(rows, shape, r.c.perm);
}

// One value and index per row (kthvalue, median, mode): outputs of the reduced shape.
std::pair<Tensor, Tensor> select_meta(KernelId id, const char* op, const Tensor& t, int64_t dim, bool keepdim,
                                      std::initializer_list<Attr> attrs) {
  Rows r = rows_of(t, dim);
  if (t.dim() > 0)
    GLIA_CHECK(t.shape()[r.dim] != 0, InvalidArgument, op, "(): Expected reduction dim ", r.dim,
               " to have non-zero size.");
  SmallVector<bool, 8> mask(static_cast<size_t>(t.dim()), false);
  if (t.dim() > 0) mask[r.dim] = true;
  Dims oshape = reduced_shape(t.shape(), mask, keepdim);
  Tensor values = empty(oshape, t.dtype(), t.device());
  Tensor indices = empty(oshape, DType::Int64, t.device());
  const Tensor& x = r.c.x;
  if (x.numel() != 0) run_kernel(id, t.device(), {&x}, {&values, &indices}, attrs);
  return {values, indices};
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending, bool stable) {
  Rows r = rows_of(t, dim);
  const Tensor& x = r.c.x;
  Tensor values = empty(x.shape(), t.dtype(), t.device());
  Tensor indices = empty(x.shape(), DType::Int64, t.device());
  run_kernel(KernelId::sort, t.device(), {&x}, {&values, &indices}, {attr_i(descending), attr_i(stable)});
  return {unrow(values, t, r, r.n), unrow(indices, t, r, r.n)};
}

std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted) {
  Rows r = rows_of(t, dim);
  GLIA_CHECK(k >= 0 && k <= r.n, InvalidArgument, "selected index k out of range");
  if (t.dtype() == DType::Bool) not_implemented_for("topk_cpu", t.dtype());
  const Tensor& x = r.c.x;
  Dims s = row_shape(t, r, k);
  Tensor values = empty(s, t.dtype(), t.device());
  Tensor indices = empty(s, DType::Int64, t.device());
  if (values.numel() != 0)
    run_kernel(KernelId::topk, t.device(), {&x}, {&values, &indices}, {attr_i(k), attr_i(largest), attr_i(sorted)});
  return {unrow(values, t, r, k), unrow(indices, t, r, k)};
}

std::pair<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, t.dim());
  int64_t n = t.dim() == 0 ? 1 : t.shape()[d];
  if (t.dim() > 0)
    GLIA_CHECK(n != 0, InvalidArgument, "kthvalue(): Expected reduction dim ", d, " to have non-zero size.");
  GLIA_CHECK(k >= 1 && k <= n, InvalidArgument, "kthvalue(): selected number k out of range for dimension ", d);
  if (t.dtype() == DType::Bool) not_implemented_for("kthvalue_cpu", t.dtype());
  return select_meta(KernelId::kthvalue, "kthvalue", t, d, keepdim, {attr_i(k)});
}

std::pair<Tensor, Tensor> median_dim(const Tensor& t, int64_t dim, bool keepdim, bool ignore_nan) {
  if (t.dtype() == DType::Bool) not_implemented_for("median_cpu", t.dtype());  // torch names median_cpu for both
  return select_meta(KernelId::median, ignore_nan ? "nanmedian" : "median", t, dim, keepdim, {attr_i(ignore_nan)});
}

Tensor median_all(const Tensor& t, bool ignore_nan) {
  if (t.dtype() == DType::Bool) not_implemented_for("median_cpu", t.dtype());  // torch names median_cpu for both
  if (t.numel() == 0) return full({}, std::numeric_limits<double>::quiet_NaN(), t.dtype(), t.device());
  int64_t shape[1] = {t.numel()};
  return median_dim(reshape(t, shape), 0, false, ignore_nan).first;
}

std::pair<Tensor, Tensor> mode(const Tensor& t, int64_t dim, bool keepdim) {
  return select_meta(KernelId::mode, "mode", t, dim, keepdim, {});
}

Tensor select_backward_scatter(const Tensor& grad, const Tensor& indices, IntSpan shape, int64_t dim, bool accumulate) {
  const Device dev = common_device("select_backward", grad, indices);
  if (shape.empty()) return contiguous(grad);
  Tensor out = zeros(shape, grad.dtype(), dev);
  scatter_(out, wrap_dim(dim, static_cast<int64_t>(shape.size())), indices, grad, accumulate);
  return out;
}

}  // namespace glia::ops

namespace glia::cpu {

using ops::kGrain;

namespace {

using sorting::less_nan;  // torch's order: a < b, NaN above every number (core/sort_math.h)

// Runs f(first_row, end_row, scratch) in parallel over the rows of n elements; scratch holds n
// int64 indices (one allocation per parallel chunk, not per row).
template <class F>
void for_rows_with_scratch(int64_t rows, int64_t n, F&& f) {
  int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1));
  parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
    std::vector<int64_t> scratch(static_cast<size_t>(n));
    f(b, e, scratch.data());
  });
}

}  // namespace

void sort_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &vt = k.output(0), &it = k.output(1);
  const bool descending = k.attr(0).i != 0, stable = k.attr(1).i != 0;
  const int64_t n = xt.dim() == 0 ? 1 : xt.shape()[xt.dim() - 1];
  const int64_t rows = n ? xt.numel() / n : 0;
  dispatch_all(xt.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* x = xt.data_ptr<T>();
    T* v = vt.data_ptr<T>();
    int64_t* ix = it.data_ptr<int64_t>();
    int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1));
    parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const T* row = x + r * n;
        int64_t* idx = ix + r * n;  // sorted in place: the output row is the work space
        std::iota(idx, idx + n, int64_t(0));
        auto asc = [row](int64_t a, int64_t c) { return less_nan<A>(static_cast<A>(row[a]), static_cast<A>(row[c])); };
        auto desc = [row](int64_t a, int64_t c) { return less_nan<A>(static_cast<A>(row[c]), static_cast<A>(row[a])); };
        if (stable) {
          if (descending)
            std::stable_sort(idx, idx + n, desc);
          else
            std::stable_sort(idx, idx + n, asc);
        } else {
          if (descending)
            std::sort(idx, idx + n, desc);
          else
            std::sort(idx, idx + n, asc);
        }
        T* vrow = v + r * n;
        for (int64_t j = 0; j < n; ++j) vrow[j] = row[idx[j]];
      }
    });
  });
}

void topk_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &vt = k.output(0), &it = k.output(1);
  const int64_t kk = k.attr(0).i;
  const bool largest = k.attr(1).i != 0;
  const int64_t n = xt.dim() == 0 ? 1 : xt.shape()[xt.dim() - 1];
  const int64_t rows = n ? xt.numel() / n : 0;
  dispatch_all(xt.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* x = xt.data_ptr<T>();
    T* v = vt.data_ptr<T>();
    int64_t* ix = it.data_ptr<int64_t>();
    for_rows_with_scratch(rows, n, [&](int64_t b, int64_t e, int64_t* idx) {
      for (int64_t r = b; r < e; ++r) {
        const T* row = x + r * n;
        std::iota(idx, idx + n, int64_t(0));
        // Ties: the lower index first (torch leaves their order unspecified).
        auto cmp = [row, largest](int64_t a, int64_t c) {
          A va = static_cast<A>(row[a]), vc = static_cast<A>(row[c]);
          if (largest ? less_nan<A>(vc, va) : less_nan<A>(va, vc)) return true;
          if (largest ? less_nan<A>(va, vc) : less_nan<A>(vc, va)) return false;
          return a < c;
        };
        std::partial_sort(idx, idx + kk, idx + n, cmp);
        for (int64_t j = 0; j < kk; ++j) {
          v[r * kk + j] = row[idx[j]];
          ix[r * kk + j] = idx[j];
        }
      }
    });
  });
}

namespace {

// The element of rank `rank` (0-based, ascending, NaN largest; ties by index) of each row.
template <class Rank>
void rank_select(const KernelArgs& k, Rank rank_of) {
  const Tensor &xt = k.input(0), &vt = k.output(0), &it = k.output(1);
  const int64_t n = xt.dim() == 0 ? 1 : xt.shape()[xt.dim() - 1];
  const int64_t rows = n ? xt.numel() / n : 0;
  dispatch_all(xt.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* x = xt.data_ptr<T>();
    T* v = vt.data_ptr<T>();
    int64_t* ix = it.data_ptr<int64_t>();
    for_rows_with_scratch(rows, n, [&](int64_t b, int64_t e, int64_t* idx) {
      for (int64_t r = b; r < e; ++r) {
        const T* row = x + r * n;
        int64_t nans = 0, first_nan = -1;
        if constexpr (std::is_floating_point_v<A>)
          for (int64_t j = 0; j < n; ++j)
            if (static_cast<A>(row[j]) != static_cast<A>(row[j])) {
              if (first_nan < 0) first_nan = j;
              ++nans;
            }
        int64_t rank = rank_of(n, nans);
        if (rank < 0) {  // the result is NaN (median of a row with a NaN, nanmedian of an all-NaN row)
          v[r] = row[first_nan];
          ix[r] = first_nan;
          continue;
        }
        std::iota(idx, idx + n, int64_t(0));
        auto cmp = [row](int64_t a, int64_t c) {
          A va = static_cast<A>(row[a]), vc = static_cast<A>(row[c]);
          if (less_nan<A>(va, vc)) return true;
          if (less_nan<A>(vc, va)) return false;
          return a < c;
        };
        std::nth_element(idx, idx + rank, idx + n, cmp);
        v[r] = row[idx[rank]];
        ix[r] = idx[rank];
      }
    });
  });
}

}  // namespace

void kthvalue_kernel(const KernelArgs& k) {
  const int64_t kk = k.attr(0).i;
  rank_select(k, [kk](int64_t, int64_t) { return kk - 1; });
}

void median_kernel(const KernelArgs& k) {
  const bool ignore_nan = k.attr(0).i != 0;
  rank_select(k, [ignore_nan](int64_t n, int64_t nans) { return sorting::median_rank(n, nans, ignore_nan); });
}

// torch.mode: the smallest of the most frequent values; its index is the last one holding it.
void mode_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &vt = k.output(0), &it = k.output(1);
  const int64_t n = xt.dim() == 0 ? 1 : xt.shape()[xt.dim() - 1];
  const int64_t rows = n ? xt.numel() / n : 0;
  dispatch_all(xt.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* x = xt.data_ptr<T>();
    T* v = vt.data_ptr<T>();
    int64_t* ix = it.data_ptr<int64_t>();
    for_rows_with_scratch(rows, n, [&](int64_t b, int64_t e, int64_t* idx) {
      for (int64_t r = b; r < e; ++r) {
        const T* row = x + r * n;
        std::iota(idx, idx + n, int64_t(0));
        auto val = [row](int64_t j) { return static_cast<A>(row[j]); };
        std::sort(idx, idx + n, [&](int64_t a, int64_t c) {
          if (less_nan<A>(val(a), val(c))) return true;
          if (less_nan<A>(val(c), val(a))) return false;
          return a < c;
        });
        int64_t best_begin = 0, best_len = 0;
        for (int64_t s = 0; s < n;) {
          int64_t t = s + 1;
          while (t < n && !less_nan<A>(val(idx[s]), val(idx[t]))) ++t;
          if (t - s > best_len) {
            best_len = t - s;
            best_begin = s;
          }
          s = t;
        }
        int64_t last = idx[best_begin + best_len - 1];  // ties are in index order
        v[r] = row[last];
        ix[r] = last;
      }
    });
  });
}

}  // namespace glia::cpu
