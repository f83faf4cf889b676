// Reductions (no autograd) over one dim, several dims or all of them.
#pragma once

#include <optional>

#include "ops/iter.h"

namespace glia::ops {

// Wraps a possibly negative dim into [0, ndim); Error(InvalidArgument) with torch's text.
int64_t wrap_dim(int64_t dim, int64_t ndim);
// Dims to reduce as a mask over t's dims (empty `dims` means all); duplicates are an error.
SmallVector<bool, 8> reduce_mask(const char* op, IntSpan dims, int64_t ndim);
// Shape after reducing `mask` (kept as 1 when keepdim).
Dims reduced_shape(IntSpan shape, const SmallVector<bool, 8>& mask, bool keepdim);

// Generic reduction: for each output element, acc = init; acc = step(acc, x) over the
// reduced elements (x converted to Acc), result = finish(acc, count).
template <class In, class Out, class Acc, class Step, class Finish>
void reduce_loop(const Tensor& in, const Tensor& out_keepdim, const SmallVector<bool, 8>& mask, Acc init, Step step,
                 Finish finish) {
  int64_t nd = in.dim();
  Dims kshape, kstride, rshape, rstride;
  for (int64_t d = 0; d < nd; ++d) {
    if (mask[d]) {
      rshape.push_back(in.shape()[d]);
      rstride.push_back(in.strides()[d]);
    } else {
      kshape.push_back(in.shape()[d]);
      kstride.push_back(in.strides()[d]);
    }
  }
  int64_t n_out = 1, n_red = 1;
  for (int64_t s : kshape) n_out *= s;
  for (int64_t s : rshape) n_red *= s;
  const In* base = in.data_ptr<In>();
  Out* o = out_keepdim.data_ptr<Out>();  // contiguous, same order as kept dims
  bool inner_contig = !rshape.empty() && rstride.back() == 1;
  auto body = [&](int64_t b, int64_t e) {
    Dims ridx(rshape.size(), 0);
    for (int64_t i = b; i < e; ++i) {
      const In* p = base;
      int64_t rem = i;
      for (int64_t d = kshape.ssize() - 1; d >= 0; --d) {
        p += (rem % kshape[d]) * kstride[d];
        rem /= kshape[d];
      }
      Acc acc = init;
      if (rshape.empty()) {
        acc = step(acc, static_cast<Acc>(static_cast<acc_t<In>>(*p)));
      } else {
        int64_t inner = rshape.back();
        int64_t rows = inner ? n_red / inner : 0;
        std::fill(ridx.begin(), ridx.end(), 0);
        for (int64_t r = 0; r < rows; ++r) {
          const In* q = p;
          for (int64_t d = 0; d + 1 < rshape.ssize(); ++d) q += ridx[d] * rstride[d];
          if (inner_contig)
            for (int64_t k = 0; k < inner; ++k) acc = step(acc, static_cast<Acc>(static_cast<acc_t<In>>(q[k])));
          else
            for (int64_t k = 0; k < inner; ++k)
              acc = step(acc, static_cast<Acc>(static_cast<acc_t<In>>(q[k * rstride.back()])));
          for (int64_t d = rshape.ssize() - 2; d >= 0; --d) {
            if (++ridx[d] < rshape[d]) break;
            ridx[d] = 0;
          }
        }
      }
      o[i] = static_cast<Out>(finish(acc, n_red));
    }
  };
  int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(n_red, 1));
  parallel_for(0, n_out, grain, body);
}

// torch.sum(t, dims, keepdim, dtype): integral inputs sum in int64.
Tensor sum(const Tensor& t, IntSpan dims, bool keepdim, std::optional<DType> dtype = std::nullopt);

}  // namespace glia::ops
