// Reductions (no autograd) over one dim, several dims or all of them.
#pragma once

#include <memory>
#include <optional>

#include "ops/iter.h"

namespace glia::ops {

// Wraps a possibly negative dim into [0, ndim); Error(InvalidArgument) with torch's text.
int64_t wrap_dim(int64_t dim, int64_t ndim);
// Dims to reduce as a mask over t's dims (empty `dims` means all); duplicates are an error.
SmallVector<bool, 8> reduce_mask(const char* op, IntSpan dims, int64_t ndim);
// Shape after reducing `mask` (kept as 1 when keepdim).
Dims reduced_shape(IntSpan shape, const SmallVector<bool, 8>& mask, bool keepdim);

namespace detail {

// Kept and reduced dims (outermost first) with adjacent dims of one group coalesced
// where their strides allow, and size-1 dims dropped.
struct ReduceGeometry {
  Dims kshape, kstride, rshape, rstride;
  int64_t n_out = 1, n_red = 1;
};
ReduceGeometry reduce_geometry(const Tensor& in, const SmallVector<bool, 8>& mask);

// Advances a multi-index over `shape` (innermost last) and returns the offset change.
inline int64_t odometer_offset(const Dims& shape, const Dims& stride, Dims& idx, int64_t last) {
  int64_t off = 0;
  for (int64_t d = last; d >= 0; --d) {
    if (++idx[d] < shape[d]) return off + stride[d];
    off -= stride[d] * (shape[d] - 1);
    idx[d] = 0;
  }
  return off;
}

struct NoCombine {};

}  // namespace detail

// Generic reduction: for each output element, acc = init; acc = step(acc, x) over the
// reduced elements (x converted to Acc), result = finish(acc, count). With `combine`
// (merges two partial accumulators: a + b for sums, the step itself for max/min), a
// contiguous inner reduction runs on 32 independent partial accumulators (vectorises).
// Reductions over outer dims (output contiguous, reduced dims strided) accumulate whole
// rows into a block of outputs instead of striding per output.
template <class In, class Out, class Acc, class Step, class Finish, class Combine = detail::NoCombine>
void reduce_loop(const Tensor& in, const Tensor& out_keepdim, const SmallVector<bool, 8>& mask, Acc init, Step step,
                 Finish finish, Combine combine = {}) {
  constexpr bool kLanes = !std::is_same_v<Combine, detail::NoCombine>;
  constexpr int kLaneN = 32;  // independent partial accumulators (GCC vectorises a loop of 32, not of 8)
  detail::ReduceGeometry g = detail::reduce_geometry(in, mask);
  const int64_t n_out = g.n_out, n_red = g.n_red;
  const In* base = in.data_ptr<In>();
  Out* o = out_keepdim.data_ptr<Out>();  // contiguous, same order as kept dims
  if (n_out == 0) return;
  auto load = [](In v) { return static_cast<Acc>(static_cast<acc_t<In>>(v)); };
  const int64_t nk = g.kshape.ssize(), nr = g.rshape.ssize();
  if (n_red == 0 || nr == 0) {
    // Nothing to reduce (empty) or every reduced dim has size 1: one element per output.
    auto body = [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        if (n_red == 0) {
          o[i] = static_cast<Out>(finish(init, 0));
          continue;
        }
        const In* p = base;
        int64_t rem = i;
        for (int64_t d = nk - 1; d >= 0; --d) {
          p += (rem % g.kshape[d]) * g.kstride[d];
          rem /= g.kshape[d];
        }
        o[i] = static_cast<Out>(finish(step(init, load(*p)), 1));
      }
    };
    parallel_for(0, n_out, kGrain, body);
    return;
  }
  if (nk > 0 && g.kstride[nk - 1] == 1 && g.rstride[nr - 1] != 1) {
    // Outer reduction: rows of L contiguous outputs, accumulated row by row in blocks.
    constexpr int64_t kBlock = 1024;
    const int64_t L = g.kshape[nk - 1];
    const int64_t n_blocks = (L + kBlock - 1) / kBlock;
    const int64_t tasks = (n_out / L) * n_blocks;
    if constexpr (kLanes) {
      // Tall and narrow (column sums of [N, C] with small C): split the rows into fixed chunks
      // reduced in parallel, merged in chunk order (the result does not depend on threads).
      const int64_t rows_per_chunk = std::max<int64_t>(1, 2 * kGrain / L);
      if (tasks == 1 && nr == 1 && n_red >= 2 * rows_per_chunk) {
        const int64_t n_chunks = (n_red + rows_per_chunk - 1) / rows_per_chunk;
        std::unique_ptr<Acc[]> part(new Acc[static_cast<size_t>(n_chunks * L)]);  // not vector<bool>
        for (int64_t k = 0; k < n_chunks * L; ++k) part[k] = init;
        const int64_t rs = g.rstride[0];
        const In* p = base;  // tasks == 1: a single row of at most kBlock outputs
        parallel_for(0, n_chunks, 1, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            Acc* __restrict acc = part.get() + c * L;
            const int64_t r_end = std::min(n_red, (c + 1) * rows_per_chunk);
            for (int64_t r = c * rows_per_chunk; r < r_end; ++r) {
              const In* __restrict row = p + r * rs;
              for (int64_t j = 0; j < L; ++j) acc[j] = step(acc[j], load(row[j]));
            }
          }
        });
        for (int64_t j = 0; j < L; ++j) {
          Acc a = part[j];
          for (int64_t c = 1; c < n_chunks; ++c) a = combine(a, part[c * L + j]);
          o[j] = static_cast<Out>(finish(a, n_red));
        }
        return;
      }
    }
    int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(n_red * std::min(L, kBlock), 1));
    parallel_for(0, tasks, grain, [&](int64_t b, int64_t e) {
      Acc acc[kBlock];
      Dims ridx(static_cast<size_t>(nr), 0);
      for (int64_t task = b; task < e; ++task) {
        int64_t outer = task / n_blocks, j0 = (task % n_blocks) * kBlock;
        int64_t len = std::min(kBlock, L - j0);
        const In* p = base + j0;
        int64_t rem = outer;
        for (int64_t d = nk - 2; d >= 0; --d) {
          p += (rem % g.kshape[d]) * g.kstride[d];
          rem /= g.kshape[d];
        }
        for (int64_t j = 0; j < len; ++j) acc[j] = init;
        std::fill(ridx.begin(), ridx.end(), 0);
        const In* q = p;
        for (int64_t r = 0; r < n_red; ++r) {
          const In* __restrict row = q;
          for (int64_t j = 0; j < len; ++j) acc[j] = step(acc[j], load(row[j]));
          q += detail::odometer_offset(g.rshape, g.rstride, ridx, nr - 1);
        }
        Out* out_row = o + outer * L + j0;
        for (int64_t j = 0; j < len; ++j) out_row[j] = static_cast<Out>(finish(acc[j], n_red));
      }
    });
    return;
  }
  const bool inner_contig = g.rstride[nr - 1] == 1;
  const int64_t inner = g.rshape[nr - 1];
  const int64_t rows = n_red / inner;
  if constexpr (kLanes) {
    // Few outputs over long contiguous runs (x.sum(), loss.mean()): split each run into fixed
    // chunks reduced in parallel, merged in chunk order (the result does not depend on threads).
    constexpr int64_t kChunk = 2 * kGrain;
    if (nr == 1 && inner_contig && n_out < 8 && n_red >= 2 * kChunk) {
      const int64_t n_chunks = (n_red + kChunk - 1) / kChunk;
      std::unique_ptr<Acc[]> part(new Acc[static_cast<size_t>(n_chunks)]);  // not vector<bool>: no shared words
      for (int64_t i = 0; i < n_out; ++i) {
        const In* p = base;
        int64_t rem = i;
        for (int64_t d = nk - 1; d >= 0; --d) {
          p += (rem % g.kshape[d]) * g.kstride[d];
          rem /= g.kshape[d];
        }
        parallel_for(0, n_chunks, 1, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            const In* __restrict row = p + c * kChunk;
            const int64_t len = std::min(kChunk, n_red - c * kChunk);
            Acc lane[kLaneN];
            for (int u = 0; u < kLaneN; ++u) lane[u] = init;
            int64_t k = 0;
            for (; k + kLaneN <= len; k += kLaneN)
              for (int u = 0; u < kLaneN; ++u) lane[u] = step(lane[u], load(row[k + u]));
            for (; k < len; ++k) lane[0] = step(lane[0], load(row[k]));
            Acc acc = lane[0];
            for (int u = 1; u < kLaneN; ++u) acc = combine(acc, lane[u]);
            part[c] = acc;
          }
        });
        Acc acc = part[0];
        for (int64_t c = 1; c < n_chunks; ++c) acc = combine(acc, part[c]);
        o[i] = static_cast<Out>(finish(acc, n_red));
      }
      return;
    }
  }
  auto body = [&](int64_t b, int64_t e) {
    Dims ridx(static_cast<size_t>(nr), 0);
    for (int64_t i = b; i < e; ++i) {
      const In* p = base;
      int64_t rem = i;
      for (int64_t d = nk - 1; d >= 0; --d) {
        p += (rem % g.kshape[d]) * g.kstride[d];
        rem /= g.kshape[d];
      }
      std::fill(ridx.begin(), ridx.end(), 0);
      Acc acc = init;
      if constexpr (kLanes) {
        if (inner_contig && inner >= 2 * kLaneN) {
          Acc lane[kLaneN];
          for (int u = 0; u < kLaneN; ++u) lane[u] = init;
          const In* q = p;
          for (int64_t r = 0; r < rows; ++r) {
            const In* __restrict row = q;
            int64_t k = 0;
            for (; k + kLaneN <= inner; k += kLaneN)
              for (int u = 0; u < kLaneN; ++u) lane[u] = step(lane[u], load(row[k + u]));
            for (; k < inner; ++k) lane[0] = step(lane[0], load(row[k]));
            q += detail::odometer_offset(g.rshape, g.rstride, ridx, nr - 2);
          }
          acc = lane[0];
          for (int u = 1; u < kLaneN; ++u) acc = combine(acc, lane[u]);
          o[i] = static_cast<Out>(finish(acc, n_red));
          continue;
        }
      }
      const In* q = p;
      const int64_t is = g.rstride[nr - 1];
      for (int64_t r = 0; r < rows; ++r) {
        if (inner_contig)
          for (int64_t k = 0; k < inner; ++k) acc = step(acc, load(q[k]));
        else
          for (int64_t k = 0; k < inner; ++k) acc = step(acc, load(q[k * is]));
        q += detail::odometer_offset(g.rshape, g.rstride, ridx, nr - 2);
      }
      o[i] = static_cast<Out>(finish(acc, n_red));
    }
  };
  int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(n_red, 1));
  parallel_for(0, n_out, grain, body);
}

// torch.sum(t, dims, keepdim, dtype): integral inputs sum in int64.
Tensor sum(const Tensor& t, IntSpan dims, bool keepdim, std::optional<DType> dtype = std::nullopt);

// Note [Canonical layout]: kernels that need a whole reduced slice at once
// (max with indices, var, logsumexp, norms and their backwards) see the input
// as a contiguous [n_out, n_red] matrix: kept dims first, reduced dims last.
// It is a view when the input already is laid out so, else a copy.
struct Canonical {
  Tensor x;       // contiguous, shape = t.shape() permuted by perm
  Dims perm;      // kept dims then reduced dims
  int64_t n_out;  // product of kept sizes
  int64_t n_red;  // product of reduced sizes
};
Canonical canonical(const Tensor& t, const SmallVector<bool, 8>& mask);
// Undoes canonical(): `g` is contiguous [n_out, n_red] data in the permuted order;
// the result has the original shape (contiguous).
Tensor from_canonical(const Tensor& g, IntSpan shape, IntSpan perm);
// Torch's error for reducing an empty dim without identity ("max(): Expected reduction dim 0 to have non-zero size.").
void check_nonempty_reduction(const char* op, const Tensor& t, const SmallVector<bool, 8>& mask, bool dims_given);

// torch.mean (floating only).
Tensor mean(const Tensor& t, IntSpan dims, bool keepdim);
// torch.prod (integral and bool inputs give int64).
Tensor prod(const Tensor& t, IntSpan dims, bool keepdim);
// torch.amax / amin (NaN propagates).
Tensor amax(const Tensor& t, IntSpan dims, bool keepdim);
Tensor amin(const Tensor& t, IntSpan dims, bool keepdim);
// torch.max(t, dim) / min(t, dim): values and int64 indices (first occurrence; NaN wins).
std::pair<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> min_dim(const Tensor& t, int64_t dim, bool keepdim);
// torch.argmax / argmin; no dim: over the flattened input.
Tensor argmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim);
Tensor argmin(const Tensor& t, std::optional<int64_t> dim, bool keepdim);
// torch.var / std with `correction` (divisor max(0, N - correction)).
Tensor var(const Tensor& t, IntSpan dims, double correction, bool keepdim);
Tensor std_dev(const Tensor& t, IntSpan dims, double correction, bool keepdim);
// torch.logsumexp (integral inputs give float32).
Tensor logsumexp(const Tensor& t, IntSpan dims, bool keepdim);
// torch.linalg.vector_norm(t, ord=p, dim=dims, keepdim).
Tensor vector_norm(const Tensor& t, double p, IntSpan dims, bool keepdim);

// Backward kernels (no graph).
// amax/amin: grad split evenly among the elements equal to the result.
Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntSpan dims, bool keepdim);
// max/min with dim: grad to the index.
Tensor index_reduce_backward(const Tensor& grad, const Tensor& indices, IntSpan shape, int64_t dim, bool keepdim);
Tensor prod_backward(const Tensor& grad, const Tensor& self, IntSpan dims, bool keepdim);
Tensor norm_backward(const Tensor& grad, const Tensor& self, const Tensor& norm, double p, IntSpan dims, bool keepdim);

// softmax / log_softmax over `dim` (floating only) and their backwards from the output.
Tensor softmax(const Tensor& t, int64_t dim, bool log);
Tensor softmax_backward(const Tensor& grad, const Tensor& out, int64_t dim, bool log);

}  // namespace glia::ops
