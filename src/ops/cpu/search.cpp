// torch.searchsorted / bucketize / isin / unique / unique_consecutive / histc: meta parts (glia::ops, torch
// 1.13's checks and messages; they never read tensor data except the one count unique needs and histc's
// data range when min == max, copied to the host) and CPU kernels (glia::cpu). Note [Op = meta + kernel +
// rule] in core/dispatch.h. None of these ops is differentiable in torch.
#include "ops/search.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/dispatch.h"
#include "core/sort_math.h"
#include "ops/cpu/loops.h"
#include "ops/factory.h"
#include "ops/index.h"
#include "ops/iter.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace glia::ops {

namespace {

bool dims_match_before_last(const Tensor& b, const Tensor& v) {
  if (b.dim() != v.dim()) return false;
  for (int64_t d = 0; d + 1 < b.dim(); ++d)
    if (b.size(d) != v.size(d)) return false;
  return true;
}

// The one element of a 1-element tensor on the host, as int64.
int64_t host_int64(const Tensor& t) { return item_int64(t); }

}  // namespace

Tensor searchsorted(const Tensor& seq, const Tensor& values, bool out_int32, bool right,
                    std::optional<std::string_view> side, const Tensor* sorter) {
  if (side) {
    GLIA_CHECK(*side == "left" || *side == "right", InvalidArgument,
               "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
    GLIA_CHECK(!right || *side == "right", InvalidArgument,
               "torch.searchsorted(): side and right can't be set to opposites, got side of ", *side,
               " while right was True");
  }
  const Device dev = common_device("searchsorted", seq, values, false);
  if (sorter) {
    common_device("searchsorted", seq, *sorter, false);
    GLIA_CHECK(sorter->shape() == seq.shape(), Shape,
               "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor ",
               seq.shape(), "and got sorter tensor ", sorter->shape());
    GLIA_CHECK(sorter->dtype() == DType::Int64, DType,
               "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ",
               scalar_type_name(sorter->dtype()));
  }
  GLIA_CHECK(seq.dim() != 0, Shape,
             "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  GLIA_CHECK(seq.dim() == 1 || dims_match_before_last(seq, values), Shape,
             "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
             "tensor and input value tensor must match, but we got boundaries tensor ",
             seq.shape(), " and input value tensor ", values.shape());
  const bool is_right = side ? *side == "right" : right;
  const DType common = result_type(seq, values);
  if (common == DType::Bool) not_implemented_for("searchsorted_out_cpu", common);
  Tensor out = empty(values.shape(), out_int32 ? DType::Int32 : DType::Int64, dev);
  if (values.numel() == 0) return out;
  // A sorter only reorders each row: searching the gathered rows gives the same positions.
  Tensor s = sorter ? gather(seq, seq.dim() - 1, *sorter) : seq;
  const int64_t m = seq.size(-1);
  const int64_t rb = seq.numel() == 0 ? 1 : seq.numel() / std::max<int64_t>(m, 1);
  Tensor b = contiguous(to_dtype(s, common));
  b = reshape(b, Dims{seq.dim() == 1 ? 1 : rb, m});
  Tensor v = contiguous(to_dtype(values, common));
  const int64_t n = values.dim() == 0 ? 1 : values.size(-1);
  Tensor v2 = reshape(v, Dims{values.numel() / n, n});
  Tensor o2 = reshape(out, Dims{values.numel() / n, n});
  run_kernel(KernelId::searchsorted, dev, {&b, &v2}, {&o2}, {attr_i(is_right)});
  return out;
}

Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right) {
  GLIA_CHECK(boundaries.dim() == 1, Shape, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(),
             ")");
  return searchsorted(boundaries, input, out_int32, right, std::nullopt, nullptr);
}

Tensor isin(const Tensor& elements, const Tensor& test_elements, bool /*assume_unique*/, bool invert) {
  for (const Tensor* t : {&elements, &test_elements})
    GLIA_CHECK(t->dtype() != DType::Bool, DType,
               "Unsupported input type encountered for isin(): ", scalar_type_name(t->dtype()));
  const Device dev = common_device("isin", elements, test_elements, false);
  const DType common = result_type(elements, test_elements);
  Tensor out = empty(elements.shape(), DType::Bool, dev);
  if (elements.numel() == 0) return out;
  // Sort the test elements once (NaN last), then one binary search per element.
  Tensor t = to_dtype(test_elements, common);
  Tensor sorted = contiguous(sort(reshape(t, Dims{t.numel()}), 0, false, false).first);
  Tensor e = contiguous(to_dtype(elements, common));
  run_kernel(KernelId::isin_sorted, dev, {&e, &sorted}, {&out}, {attr_i(invert)});
  return out;
}

namespace {

// values, inverse (ids of the runs of x, flat) and counts of the runs of a contiguous 1-D x.
std::tuple<Tensor, Tensor, Tensor> runs_of(const Tensor& x) {
  const Device dev = x.device();
  const int64_t n = x.numel();
  Tensor ids = empty(Dims{n}, DType::Int64, dev);
  if (n == 0) return {empty(Dims{0}, x.dtype(), dev), ids, empty(Dims{0}, DType::Int64, dev)};
  run_kernel(KernelId::unique_consecutive_ids, dev, {&x}, {&ids});
  const int64_t runs = host_int64(narrow(ids, 0, n - 1, 1)) + 1;
  Tensor values = empty(Dims{runs}, x.dtype(), dev);
  Tensor counts = empty(Dims{runs}, DType::Int64, dev);
  run_kernel(KernelId::unique_consecutive_fill, dev, {&x, &ids}, {&values, &counts});
  return {values, ids, counts};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& input, bool /*sorted*/) {
  Tensor flat = contiguous(reshape(input, Dims{input.numel()}));
  auto [sorted, order] = sort(flat, 0, false, true);
  auto [values, ids, counts] = runs_of(contiguous(sorted));
  // inverse[order[i]] = ids[i]: the run of the i-th smallest element is that element's.
  Tensor inverse = empty(Dims{input.numel()}, DType::Int64, input.device());
  if (input.numel() > 0) scatter_(inverse, 0, order, ids, false);
  return {values, reshape(inverse, input.shape()), counts};
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& input) {
  Tensor flat = contiguous(reshape(input, Dims{input.numel()}));
  auto [values, ids, counts] = runs_of(flat);
  return {values, reshape(ids, input.shape()), counts};
}

namespace {

std::string fmt_edge(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

Tensor histc(const Tensor& input, int64_t bins, double min, double max) {
  if (input.dtype() != DType::Float32 && input.dtype() != DType::Float64)
    not_implemented_for("histogram_cpu", input.dtype());
  GLIA_CHECK(bins > 0, InvalidArgument, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  double lo = min, hi = max;
  if (lo == hi && input.numel() > 0) {
    auto [mn, mx] = aminmax(input, std::nullopt, false);
    lo = item_double(mn);
    hi = item_double(mx);
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  GLIA_CHECK(std::isfinite(lo) && std::isfinite(hi), InvalidArgument, "torch.histc: range of [", fmt_edge(lo), ", ",
             fmt_edge(hi), "] is not finite");
  GLIA_CHECK(lo < hi, InvalidArgument, "torch.histc: max must be larger than min");
  Tensor out = zeros(Dims{bins}, input.dtype(), input.device());
  if (input.numel() == 0) return out;
  Tensor edges = linspace(lo, hi, bins + 1, input.dtype(), input.device());
  Tensor x = contiguous(input);
  run_kernel(KernelId::histc, input.device(), {&x, &edges}, {&out});
  return out;
}

}  // namespace glia::ops

namespace glia::cpu {

using ops::kGrain;

void searchsorted_kernel(const KernelArgs& k) {
  const Tensor &bt = k.input(0), &vt = k.input(1), &ot = k.output(0);
  const bool right = k.attr(0).i != 0;
  const int64_t m = bt.size(1), rb = bt.size(0), n = vt.size(1), rows = vt.size(0);
  const bool i32 = ot.dtype() == DType::Int32;
  dispatch_all(vt.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* b = bt.data_ptr<T>();
    const T* v = vt.data_ptr<T>();
    void* o = ot.data();
    parallel_for(0, rows * n, kGrain / 16, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const int64_t r = i / n;
        const T* row = b + (rb == 1 ? 0 : r) * m;
        const int64_t pos = sorting::search_bound<A>([row](int64_t j) { return static_cast<A>(row[j]); }, m,
                                                     static_cast<A>(v[i]), right);
        if (i32)
          static_cast<int32_t*>(o)[i] = static_cast<int32_t>(pos);
        else
          static_cast<int64_t*>(o)[i] = pos;
      }
    });
  });
}

void isin_sorted_kernel(const KernelArgs& k) {
  const Tensor &et = k.input(0), &st = k.input(1), &ot = k.output(0);
  const bool invert = k.attr(0).i != 0;
  const int64_t n = et.numel(), m = st.numel();
  bool* o = ot.data_ptr<bool>();
  dispatch_all(et.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* e = et.data_ptr<T>();
    const T* s = st.data_ptr<T>();
    parallel_for(0, n, kGrain / 16, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const A x = static_cast<A>(e[i]);
        const int64_t p = sorting::lower_bound_nan<A>([s](int64_t j) { return static_cast<A>(s[j]); }, m, x);
        const bool found = p != m && static_cast<A>(s[p]) == x;
        o[i] = found != invert;
      }
    });
  });
}

void unique_consecutive_ids_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &it = k.output(0);
  const int64_t n = xt.numel();
  int64_t* ids = it.data_ptr<int64_t>();
  dispatch_all(xt.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* x = xt.data_ptr<T>();
    int64_t id = 0;
    if (n > 0) ids[0] = 0;
    for (int64_t i = 1; i < n; ++i) {
      id += !(static_cast<A>(x[i]) == static_cast<A>(x[i - 1]));
      ids[i] = id;
    }
  });
}

void unique_consecutive_fill_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &it = k.input(1), &vt = k.output(0), &ct = k.output(1);
  const int64_t n = xt.numel(), runs = vt.numel();
  const int64_t* ids = it.data_ptr<int64_t>();
  int64_t* counts = ct.data_ptr<int64_t>();
  std::fill(counts, counts + runs, int64_t(0));
  dispatch_all(xt.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = xt.data_ptr<T>();
    T* v = vt.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = ids[i];
      if (counts[r]++ == 0) v[r] = x[i];
    }
  });
}

void histc_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &et = k.input(1), &ht = k.output(0);
  const int64_t n = xt.numel(), edges = et.numel();
  dispatch_floating(xt.dtype(), "histc", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* x = xt.data_ptr<T>();
      const T* e = et.data_ptr<T>();
      T* h = ht.data_ptr<T>();
      const T left = e[0], right = e[edges - 1];
      for (int64_t i = 0; i < n; ++i) {
        const int64_t pos = sorting::histc_bin<T>(x[i], left, right, edges);  // torch's position by division
        if (pos >= 0) h[pos] += T(1);
      }
    }
  });
}

}  // namespace glia::cpu
