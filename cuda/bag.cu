// EmbeddingBag and CTC loss on the GPU: kernels.def's embedding_bag, embedding_bag_backward,
// embedding_bag_per_sample_weights_backward, ctc_loss and ctc_loss_backward (src/ops/cpu/sparse_ctc.cpp). The
// bags: float32, float64, float16 and bfloat16 (16-bit floats accumulate in float and round on store, as the
// CPU does), int64 indices and offsets. CTC: float32 and float64.
//
// The indices and offsets are read back to the host once per call (one synchronisation): the CPU's checks
// and messages run there before anything is written (offsets[0] == 0, offsets[-1] <= n, each index in range:
// torch's texts), and the backward's tables are built there in the CPU's loop order.
//   - forward: one thread per (bag, column), the bag's rows in position order (the CPU's).
//   - backward (sum, mean): a gather, no atomics. The host lists, for each weight row, the (bag, position)
//     pairs that reach it in the CPU's loop order (bags ascending, positions ascending), with each bag's
//     non-padding count and (scale_grad_by_freq) the CPU's divisor of each row (Note [embedding_bag's
//     scale_grad_by_freq]); one thread per (row, column) adds its list in that order with the CPU's formula,
//     rounding after each addition: the CPU's bits.
//   - backward (max): one thread per column walks the bags in order, adding each bag's gradient to its maximum's
//     row: the CPU's order per element, no two threads on one element, no atomics.
//   - per_sample_weights backward: one thread per position, the dot product in column order; the position's bag
//     (the last one holding it in the CPU's loop) comes from the host.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common.h"
#include "kernel_call.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

glia_error* internal(const char* what, const char* msg) {
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": " + msg);
}

bool contiguous(const glia_kernel_tensor& t) {
  int64_t expect = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.sizes[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.sizes[d];
  }
  return true;
}

// The bags' index ranges (sparse_ctc.cpp's Bags): bag b covers [begin(b), end(b)).
struct Bags {
  const int64_t* off;
  int64_t n_off, n, count;
  __host__ __device__ int64_t begin(int64_t b) const { return off[b] < n ? off[b] : n; }
  __host__ __device__ int64_t end(int64_t b) const {
    const int64_t e = b + 1 < n_off ? (off[b + 1] < n ? off[b + 1] : n) : n;
    const int64_t s = begin(b);
    return e > s ? e : s;
  }
};

// The call's indices and offsets on the host, checked as the CPU checks them (check_bags), and the device's
// view of the bags.
struct HostBags {
  std::vector<int64_t> idx, off;
  Bags host, dev;
};

glia_error* read_bags(const glia_kernel_tensor& indices, const glia_kernel_tensor& offsets, bool include_last,
                      int64_t num_weights, bool check, cudaStream_t s, const char* what, HostBags* hb) {
  if (indices.dtype != GLIA_INT64 || offsets.dtype != GLIA_INT64) return internal(what, "indices that are not int64");
  if (!contiguous(indices) || !contiguous(offsets)) return internal(what, "indices that are not contiguous");
  const int64_t n = view_numel(indices), n_off = view_numel(offsets);
  hb->idx.resize(static_cast<size_t>(n));
  hb->off.resize(static_cast<size_t>(n_off));
  cudaError_t st = cudaSuccess;
  if (n > 0) st = cudaMemcpyAsync(hb->idx.data(), indices.data, n * sizeof(int64_t), cudaMemcpyDeviceToHost, s);
  if (st == cudaSuccess && n_off > 0)
    st = cudaMemcpyAsync(hb->off.data(), offsets.data, n_off * sizeof(int64_t), cudaMemcpyDeviceToHost, s);
  if (st == cudaSuccess) st = cudaStreamSynchronize(s);
  if (st != cudaSuccess) return cuda_error(st, "cudaMemcpyAsync", std::string(what) + ": reading the indices back");
  const int64_t count = n_off - (include_last ? 1 : 0) > 0 ? n_off - (include_last ? 1 : 0) : 0;
  hb->host = Bags{hb->off.data(), n_off, n, count};
  hb->dev = Bags{static_cast<const int64_t*>(offsets.data), n_off, n, count};
  if (!check) return nullptr;
  if (n_off > 0) {
    if (hb->off[0] != 0)
      return make_error(GLIA_ERR_INVALID_ARGUMENT,
                        "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                        "position 0. However, got " +
                            std::to_string(hb->off[0]));
    if (hb->off[n_off - 1] > n)
      return make_error(GLIA_ERR_INVALID_ARGUMENT, "offsets[-1] can not be greater than input's length " +
                                                       std::to_string(n) + " but got offsets[-1] of " +
                                                       std::to_string(hb->off[n_off - 1]));
  }
  for (int64_t v : hb->idx)
    if (v < 0 || v >= num_weights)
      return make_error(
          GLIA_ERR_INVALID_ARGUMENT,
          "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be " + std::to_string(v));
  return nullptr;
}

// Device copies of host tables (one allocation), freed when the call returns (stream-ordered reuse).
struct Upload {
  int32_t dev;
  void* p = nullptr;
  explicit Upload(int32_t d) : dev(d) {}
  Upload(const Upload&) = delete;
  Upload& operator=(const Upload&) = delete;
  ~Upload() {
    if (p) device_free(dev, p);
  }
  // Copies `v` to the device; a pageable source is staged before cudaMemcpyAsync returns, so `v` may die then.
  glia_error* put(const std::vector<int64_t>& v, cudaStream_t s, const char* what, const int64_t** out) {
    if (glia_error* e = device_alloc(dev, std::max<size_t>(v.size(), 1) * sizeof(int64_t), &p)) return e;
    const cudaError_t st =
        v.empty() ? cudaSuccess : cudaMemcpyAsync(p, v.data(), v.size() * sizeof(int64_t), cudaMemcpyHostToDevice, s);
    if (st != cudaSuccess) return cuda_error(st, "cudaMemcpyAsync", what);
    *out = static_cast<const int64_t*>(p);
    return nullptr;
  }
};

// ---- kernels

template <class T>
__global__ void __launch_bounds__(kThreads)
    bag_forward_kernel(int64_t total, int64_t dim, Bags bags, const T* __restrict w, const int64_t* __restrict idx,
                       const T* __restrict psw, int mode, int64_t pad, T* __restrict out, int64_t* __restrict mi) {
  using C = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; e < total; e += step) {
    const int64_t b = e / dim, d = e % dim;
    const int64_t i0 = bags.begin(b), i1 = bags.end(b);
    if (mode == 2) {
      bool first = true;
      T best = T{};
      int64_t bi = -1;
      for (int64_t i = i0; i < i1; ++i) {
        if (idx[i] == pad) continue;
        const T v = w[idx[i] * dim + d];
        if (first || load_acc(v) > load_acc(best)) {
          best = v;
          bi = idx[i];
        }
        first = false;
      }
      out[e] = first ? store_as<T>(C(0)) : best;
      mi[e] = first ? -1 : bi;
      continue;
    }
    C acc = C(0);
    int64_t count = 0;
    for (int64_t i = i0; i < i1; ++i) {
      if (idx[i] == pad) continue;
      acc += load_acc(w[idx[i] * dim + d]) * (psw ? load_acc(psw[i]) : C(1));
      ++count;
    }
    const C div = mode == 1 && count > 0 ? static_cast<C>(count) : C(1);
    out[e] = store_as<T>(acc / div);
  }
}

// Row r's list: entries [start[r], start[r + 1]) of (bag, position); bag_n[b] the bag's non-padding count.
template <class T>
__global__ void __launch_bounds__(kThreads)
    bag_backward_kernel(int64_t total, int64_t dim, const T* __restrict g, const T* __restrict psw, bool mean,
                        const int64_t* __restrict start, const int64_t* __restrict ent_bag,
                        const int64_t* __restrict ent_pos, const int64_t* __restrict bag_n,
                        const int64_t* __restrict divisor, T* __restrict out) {
  using C = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; e < total; e += step) {
    const int64_t r = e / dim, d = e % dim;
    T acc = store_as<T>(C(0));
    for (int64_t q = start[r]; q < start[r + 1]; ++q) {
      const int64_t b = ent_bag[q], i = ent_pos[q];
      const C bag_div = mean && bag_n[b] > 0 ? static_cast<C>(bag_n[b]) : C(1);
      C scale = (psw ? load_acc(psw[i]) : C(1)) / bag_div;
      if (divisor) scale /= static_cast<C>(divisor[r]);
      acc = store_as<T>(load_acc(acc) + load_acc(g[b * dim + d]) * scale);
    }
    out[e] = acc;
  }
}

// out zeroed before; one thread per column.
template <class T>
__global__ void __launch_bounds__(kThreads) bag_max_backward_kernel(int64_t dim, int64_t bags, const T* __restrict g,
                                                                    const int64_t* __restrict mi, T* __restrict out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t d = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; d < dim; d += step)
    for (int64_t b = 0; b < bags; ++b) {
      const int64_t r = mi[b * dim + d];
      if (r >= 0) out[r * dim + d] = store_as<T>(load_acc(out[r * dim + d]) + load_acc(g[b * dim + d]));
    }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    bag_psw_backward_kernel(int64_t n, int64_t dim, const T* __restrict g, const T* __restrict w,
                            const int64_t* __restrict idx, const int64_t* __restrict bag_of, int64_t pad,
                            T* __restrict out) {
  using C = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    const int64_t b = bag_of[i];
    if (b < 0 || idx[i] == pad) {
      out[i] = store_as<T>(C(0));
      continue;
    }
    const T* a = g + b * dim;
    const T* r = w + idx[i] * dim;
    C s = 0;
    for (int64_t d = 0; d < dim; ++d) s += load_acc(a[d]) * load_acc(r[d]);
    out[i] = store_as<T>(s);
  }
}

// ---- CTC (torch's CPU recursions, as sparse_ctc.cpp's kernels): one thread per batch element runs the
// alpha (forward) or beta (backward) recursion over time in the CPU's order, so the CPU's operations (CUDA's
// exp and log are a few ulp from glibc's); the backward's final formula is one thread per (t, b, c). The
// parallelism of the recursions is B threads: a block per batch element with the states across threads is
// future work. Per batch element: il[b], tl[b] and the target's offset toff[b] (a table from the host).

template <class T>
__device__ __forceinline__ T ctc_log_sum3(T a, T b, T c) {
  T m = a > b ? a : b;
  m = m > c ? m : c;
  if (m == -std::numeric_limits<T>::infinity()) m = 0;
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}

__device__ __forceinline__ int64_t ctc_prime(const int64_t* tg, int64_t s, int64_t blank) {
  return s % 2 == 0 ? blank : tg[s / 2];
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    ctc_alpha_kernel(int64_t B, int64_t T_, int64_t C, int64_t S, int64_t blank, const int64_t* __restrict il,
                     const int64_t* __restrict tl, const int64_t* __restrict toff, const T* __restrict lp,
                     const int64_t* __restrict targets, T* __restrict alpha, T* __restrict nll) {
  const T neginf = -std::numeric_limits<T>::infinity();
  const int64_t b = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (b >= B) return;
  const int64_t in_len = il[b], tg_len = tl[b];
  const int64_t* tg = targets + toff[b];
  auto lpa = [&](int64_t t, int64_t c) { return lp[(t * B + b) * C + c]; };
  T* a = alpha + b * T_ * S;
  for (int64_t s = 0; s < S; ++s) a[s] = neginf;
  if (in_len == 0) {
    nll[b] = tg_len == 0 ? T(0) : -neginf;
    return;
  }
  a[0] = lpa(0, blank);
  if (tg_len > 0) a[1] = lpa(0, ctc_prime(tg, 1, blank));
  for (int64_t t = 1; t < in_len; ++t) {
    const T* prev = a + (t - 1) * S;
    T* cur = a + t * S;
    for (int64_t s = 0; s < 2 * tg_len + 1; ++s) {
      const int64_t l = ctc_prime(tg, s, blank);
      const T la1 = prev[s];
      const T la2 = s > 0 ? prev[s - 1] : neginf;
      const T la3 = s > 1 && ctc_prime(tg, s - 2, blank) != l ? prev[s - 2] : neginf;
      cur[s] = ctc_log_sum3(la1, la2, la3) + lpa(t, l);
    }
  }
  const T* last = a + (in_len - 1) * S;
  nll[b] = tg_len == 0 ? -last[0] : -ctc_log_sum3(last[2 * tg_len], last[2 * tg_len - 1], neginf);
}

// grad [T, B, C] holds log(sum over the states of label c of alpha * beta) for t < il[b] (-inf where none)
// after this kernel; zero_infinity's rows are zeroed and skipped by ctc_grad_kernel.
template <class T>
__global__ void __launch_bounds__(kThreads)
    ctc_beta_kernel(int64_t B, int64_t T_, int64_t C, int64_t S, int64_t blank, bool zero_infinity,
                    const int64_t* __restrict il, const int64_t* __restrict tl, const int64_t* __restrict toff,
                    const T* __restrict lp, const int64_t* __restrict targets, const T* __restrict nll,
                    const T* __restrict alpha, T* __restrict beta, T* __restrict grad) {
  const T neginf = -std::numeric_limits<T>::infinity();
  const int64_t b = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (b >= B) return;
  auto at = [&](int64_t t, int64_t c) -> int64_t { return (t * B + b) * C + c; };
  if (zero_infinity && nll[b] == -neginf) return;
  const int64_t in_len = il[b], tg_len = tl[b];
  const int64_t* tg = targets + toff[b];
  const T* a = alpha + b * T_ * S;
  T* be = beta + b * T_ * S;
  for (int64_t t = 0; t < in_len; ++t)
    for (int64_t c = 0; c < C; ++c) grad[at(t, c)] = neginf;
  if (in_len > 0) {
    T* lastb = be + (in_len - 1) * S;
    for (int64_t s = 0; s < S; ++s) lastb[s] = neginf;
    const int64_t t = in_len - 1;
    lastb[2 * tg_len] = lp[at(t, blank)];
    grad[at(t, blank)] = a[t * S + 2 * tg_len] + lastb[2 * tg_len];
    if (tg_len > 0) {
      const int64_t l = ctc_prime(tg, 2 * tg_len - 1, blank);
      lastb[2 * tg_len - 1] = lp[at(t, l)];
      grad[at(t, l)] = a[t * S + 2 * tg_len - 1] + lastb[2 * tg_len - 1];
    }
  }
  for (int64_t t = in_len - 2; t >= 0; --t) {
    const T* next = be + (t + 1) * S;
    T* cur = be + t * S;
    for (int64_t s = 2 * tg_len; s >= 0; --s) {
      const int64_t l = ctc_prime(tg, s, blank);
      const T lb1 = next[s];
      const T lb2 = s < 2 * tg_len ? next[s + 1] : neginf;
      const T lb3 = s < 2 * tg_len - 1 && ctc_prime(tg, s + 2, blank) != l ? next[s + 2] : neginf;
      cur[s] = ctc_log_sum3(lb1, lb2, lb3) + lp[at(t, l)];
      const T ab = a[t * S + s] + cur[s];
      T& lcab = grad[at(t, l)];
      if (lcab == neginf) {
        lcab = ab;
      } else {
        const T m = lcab > ab ? lcab : ab;
        lcab = std::log(std::exp(lcab - m) + std::exp(ab - m)) + m;
      }
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    ctc_grad_kernel(int64_t total, int64_t B, int64_t C, bool zero_infinity, const int64_t* __restrict il,
                    const T* __restrict lp, const T* __restrict nll, const T* __restrict go, T* __restrict grad) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; e < total; e += step) {
    const int64_t t = e / (B * C), b = (e / C) % B;
    const T nl = nll[b];
    if ((zero_infinity && nl == std::numeric_limits<T>::infinity()) || t >= il[b]) {
      grad[e] = T(0);
      continue;
    }
    const T l = lp[e];
    grad[e] = (std::exp(l) - std::exp(grad[e] + nl - l)) * go[b];
  }
}

// ---- host side

glia_error* k_embedding_bag(const glia_kernel_call* call) {
  const char* what = "embedding_bag";
  const glia_kernel_tensor &w = call->inputs[0], &indices = call->inputs[1], &offsets = call->inputs[2],
                           &psw = call->inputs[3], &out = call->outputs[0], &mi = call->outputs[1];
  if (call->n_attrs < 4) return internal(what, "missing attributes");
  const int mode = static_cast<int>(call->attrs[0].i);
  const bool include_last = call->attrs[1].i != 0, has_psw = call->attrs[3].i != 0;
  const int64_t pad = call->attrs[2].i;
  if (w.ndim != 2 || out.ndim != 2 || !contiguous(w)) return internal(what, "a weight that is not 2-D contiguous");
  if (w.dtype != out.dtype || (has_psw && psw.dtype != w.dtype)) return internal(what, "operands of different dtypes");
  if (has_psw && !contiguous(psw)) return internal(what, "per_sample_weights that are not contiguous");
  if (mode == 2 && mi.dtype != GLIA_INT64) return internal(what, "max indices that are not int64");
  const int64_t num = w.sizes[0], dim = w.sizes[1];
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  HostBags hb;
  if (glia_error* e = read_bags(indices, offsets, include_last, num, true, s, what, &hb)) return e;
  const int64_t total = hb.host.count * dim;
  if (total == 0) return nullptr;
  glia_error* e = dispatch<Set::kFloat>(w.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    bag_forward_kernel<T><<<grid_for(total), kThreads, 0, s>>>(
        total, dim, hb.dev, static_cast<const T*>(w.data), static_cast<const int64_t*>(indices.data),
        has_psw ? static_cast<const T*>(psw.data) : nullptr, mode, pad, static_cast<T*>(out.data),
        mode == 2 ? static_cast<int64_t*>(mi.data) : nullptr);
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_embedding_bag_backward(const glia_kernel_call* call) {
  const char* what = "embedding_bag_backward";
  const glia_kernel_tensor &g = call->inputs[0], &indices = call->inputs[1], &offsets = call->inputs[2],
                           &psw = call->inputs[3], &mi = call->inputs[4], &out = call->outputs[0];
  if (call->n_attrs < 5) return internal(what, "missing attributes");
  const int mode = static_cast<int>(call->attrs[0].i);
  const bool include_last = call->attrs[1].i != 0, has_psw = call->attrs[3].i != 0, by_freq = call->attrs[4].i != 0;
  const int64_t pad = call->attrs[2].i;
  if (g.ndim != 2 || out.ndim != 2 || !contiguous(g)) return internal(what, "a gradient that is not 2-D contiguous");
  if (g.dtype != out.dtype || (has_psw && psw.dtype != g.dtype)) return internal(what, "operands of different dtypes");
  if (has_psw && !contiguous(psw)) return internal(what, "per_sample_weights that are not contiguous");
  const int64_t num = out.sizes[0], dim = out.sizes[1];
  const int64_t total = num * dim;
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  const size_t item = g.dtype == GLIA_FLOAT64 ? 8 : g.dtype == GLIA_FLOAT32 ? 4 : 2;
  if (mode == 2) {
    if (mi.dtype != GLIA_INT64 || !contiguous(mi)) return internal(what, "max indices that are not int64 contiguous");
    const cudaError_t st = cudaMemsetAsync(out.data, 0, static_cast<size_t>(total) * item, s);
    if (st != cudaSuccess) return cuda_error(st, "cudaMemsetAsync", what);
    const int64_t bags = g.sizes[0];
    if (bags == 0 || dim == 0) return nullptr;
    glia_error* e = dispatch<Set::kFloat>(g.dtype, what, [&](auto tag) -> glia_error* {
      using T = decltype(tag);
      bag_max_backward_kernel<T><<<grid_for(dim), kThreads, 0, s>>>(
          dim, bags, static_cast<const T*>(g.data), static_cast<const int64_t*>(mi.data), static_cast<T*>(out.data));
      return nullptr;
    });
    return e ? e : launched(what);
  }
  HostBags hb;
  if (glia_error* e = read_bags(indices, offsets, include_last, num, false, s, what, &hb)) return e;
  const std::vector<int64_t>& idx = hb.idx;
  const int64_t n = static_cast<int64_t>(idx.size()), bags = hb.host.count;
  for (int64_t v : idx)
    if (v < 0 || v >= num) return make_error(GLIA_ERR_INVALID_ARGUMENT, "index out of range in self");
  // One table: start [num + 1], entries' bags [m], positions [m], bags' counts [bags], divisors [num] (by_freq).
  std::vector<int64_t> per_row(static_cast<size_t>(num) + 1, 0), bag_n(static_cast<size_t>(bags), 0);
  for (int64_t b = 0; b < bags; ++b)
    for (int64_t i = hb.host.begin(b); i < hb.host.end(b); ++i)
      if (idx[i] != pad) ++per_row[static_cast<size_t>(idx[i]) + 1], ++bag_n[static_cast<size_t>(b)];
  for (int64_t r = 0; r < num; ++r) per_row[static_cast<size_t>(r) + 1] += per_row[static_cast<size_t>(r)];
  const int64_t m = per_row[static_cast<size_t>(num)];
  const size_t o_start = 0, o_bag = o_start + static_cast<size_t>(num) + 1, o_pos = o_bag + static_cast<size_t>(m),
               o_n = o_pos + static_cast<size_t>(m), o_div = o_n + static_cast<size_t>(bags);
  std::vector<int64_t> table(o_div + (by_freq ? static_cast<size_t>(num) : 0), 0);
  std::copy(per_row.begin(), per_row.end(), table.begin());
  std::copy(bag_n.begin(), bag_n.end(), table.begin() + static_cast<std::ptrdiff_t>(o_n));
  {
    std::vector<int64_t> fill(per_row.begin(), per_row.end() - 1);
    for (int64_t b = 0; b < bags; ++b)
      for (int64_t i = hb.host.begin(b); i < hb.host.end(b); ++i) {
        if (idx[i] == pad) continue;
        const size_t q = static_cast<size_t>(fill[static_cast<size_t>(idx[i])]++);
        table[o_bag + q] = b;
        table[o_pos + q] = i;
      }
  }
  if (by_freq) {  // Note [embedding_bag's scale_grad_by_freq] (sparse_ctc.cpp): torch 1.13's CPU divisors
    std::vector<int64_t> counts(static_cast<size_t>(num), 0), sorted(idx);
    for (int64_t v : idx) ++counts[static_cast<size_t>(v)];
    std::sort(sorted.begin(), sorted.end());
    int64_t* divisor = table.data() + o_div;
    std::fill(divisor, divisor + num, 1);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i += counts[static_cast<size_t>(sorted[static_cast<size_t>(i)])])
      divisor[sorted[static_cast<size_t>(i)]] = counts[static_cast<size_t>(sorted[static_cast<size_t>(k++)])];
  }
  Upload up(out.device_index);
  const int64_t* dt = nullptr;
  if (glia_error* e = up.put(table, s, what, &dt)) return e;
  glia_error* e = dispatch<Set::kFloat>(g.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    bag_backward_kernel<T><<<grid_for(total), kThreads, 0, s>>>(
        total, dim, static_cast<const T*>(g.data), has_psw ? static_cast<const T*>(psw.data) : nullptr, mode == 1,
        dt + o_start, dt + o_bag, dt + o_pos, dt + o_n, by_freq ? dt + o_div : nullptr, static_cast<T*>(out.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_embedding_bag_per_sample_weights_backward(const glia_kernel_call* call) {
  const char* what = "embedding_bag_per_sample_weights_backward";
  const glia_kernel_tensor &g = call->inputs[0], &w = call->inputs[1], &indices = call->inputs[2],
                           &offsets = call->inputs[3], &out = call->outputs[0];
  if (call->n_attrs < 2) return internal(what, "missing attributes");
  const bool include_last = call->attrs[0].i != 0;
  const int64_t pad = call->attrs[1].i;
  if (g.ndim != 2 || w.ndim != 2 || !contiguous(g) || !contiguous(w))
    return internal(what, "a gradient or weight that is not 2-D contiguous");
  if (g.dtype != w.dtype || g.dtype != out.dtype) return internal(what, "operands of different dtypes");
  const int64_t n = view_numel(out), dim = w.sizes[1], num = w.sizes[0];
  if (n == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  HostBags hb;
  if (glia_error* e = read_bags(indices, offsets, include_last, num, false, s, what, &hb)) return e;
  std::vector<int64_t> bag_of(static_cast<size_t>(n), -1);
  for (int64_t b = 0; b < hb.host.count; ++b)
    for (int64_t i = hb.host.begin(b); i < hb.host.end(b); ++i) {
      const int64_t v = hb.idx[static_cast<size_t>(i)];
      if (v != pad && (v < 0 || v >= num)) return make_error(GLIA_ERR_INVALID_ARGUMENT, "index out of range in self");
      bag_of[static_cast<size_t>(i)] = b;
    }
  Upload up(out.device_index);
  const int64_t* dt = nullptr;
  if (glia_error* e = up.put(bag_of, s, what, &dt)) return e;
  glia_error* e = dispatch<Set::kFloat>(g.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    bag_psw_backward_kernel<T><<<grid_for(n), kThreads, 0, s>>>(
        n, dim, static_cast<const T*>(g.data), static_cast<const T*>(w.data), static_cast<const int64_t*>(indices.data),
        dt, pad, static_cast<T*>(out.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

// The lengths (attributes) and the targets' offsets per batch element as one device table [il | tl | toff];
// the targets read back and checked as the CPU checks them (check_targets) when `check`.
glia_error* ctc_table(const glia_kernel_call* call, int a_il, const glia_kernel_tensor& targets, int64_t B, int64_t C,
                      bool check, cudaStream_t s, const char* what, Upload* up, const int64_t** dt) {
  if (call->n_attrs < a_il + 2) return internal(what, "missing attributes");
  const glia_kernel_attr &il = call->attrs[a_il], &tl = call->attrs[a_il + 1];
  if (il.n_ints != B || tl.n_ints != B || (B > 0 && (!il.ints || !tl.ints)))
    return internal(what, "lengths of the wrong size");
  if (targets.dtype != GLIA_INT64 || !contiguous(targets)) return internal(what, "targets that are not int64");
  std::vector<int64_t> table(static_cast<size_t>(3 * B));
  int64_t pos = 0;
  for (int64_t b = 0; b < B; ++b) {
    table[static_cast<size_t>(b)] = il.ints[b];
    table[static_cast<size_t>(B + b)] = tl.ints[b];
    table[static_cast<size_t>(2 * B + b)] = targets.ndim == 2 ? b * targets.sizes[1] : pos;
    pos += tl.ints[b];
  }
  if (check) {
    const int64_t n = view_numel(targets);
    std::vector<int64_t> tg(static_cast<size_t>(n));
    cudaError_t st = n > 0 ? cudaMemcpyAsync(tg.data(), targets.data, static_cast<size_t>(n) * sizeof(int64_t),
                                             cudaMemcpyDeviceToHost, s)
                           : cudaSuccess;
    if (st == cudaSuccess) st = cudaStreamSynchronize(s);
    if (st != cudaSuccess) return cuda_error(st, "cudaMemcpyAsync", std::string(what) + ": reading the targets back");
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < tl.ints[b]; ++k) {
        const int64_t at = table[static_cast<size_t>(2 * B + b)] + k;
        if (at < 0 || at >= n) return internal(what, "targets shorter than their lengths");
        const int64_t v = tg[static_cast<size_t>(at)];
        if (v < 0 || v >= C)
          return make_error(GLIA_ERR_INVALID_ARGUMENT, "ctc_loss: target value " + std::to_string(v) +
                                                           " is out of the label range [0, " + std::to_string(C) + ")");
      }
  }
  return up->put(table, s, what, dt);
}

template <class F>
glia_error* dispatch_ctc(glia_dtype t, const char* what, F&& f) {
  if (t == GLIA_FLOAT32) return f(float{});
  if (t == GLIA_FLOAT64) return f(double{});
  return dtype_error(what, t);
}

glia_error* k_ctc_loss(const glia_kernel_call* call) {
  const char* what = "ctc_loss";
  const glia_kernel_tensor &lp = call->inputs[0], &targets = call->inputs[1], &nll = call->outputs[0],
                           &alpha = call->outputs[1];
  if (call->n_attrs < 3) return internal(what, "missing attributes");
  if (lp.ndim != 3 || alpha.ndim != 3 || !contiguous(lp)) return internal(what, "log_probs that are not [T, B, C]");
  if (lp.dtype != nll.dtype || lp.dtype != alpha.dtype) return internal(what, "operands of different dtypes");
  const int64_t T_ = lp.sizes[0], B = lp.sizes[1], C = lp.sizes[2], S = alpha.sizes[2];
  const int64_t blank = call->attrs[0].i;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, nll.device_index, &s)) return e;
  Upload up(nll.device_index);
  const int64_t* dt = nullptr;
  if (glia_error* e = ctc_table(call, 1, targets, B, C, true, s, what, &up, &dt)) return e;
  if (B == 0) return nullptr;
  glia_error* e = dispatch_ctc(lp.dtype, "ctc_loss_cpu", [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    ctc_alpha_kernel<T><<<grid_for(B), kThreads, 0, s>>>(
        B, T_, C, S, blank, dt, dt + B, dt + 2 * B, static_cast<const T*>(lp.data),
        static_cast<const int64_t*>(targets.data), static_cast<T*>(alpha.data), static_cast<T*>(nll.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

glia_error* k_ctc_loss_backward(const glia_kernel_call* call) {
  const char* what = "ctc_loss_backward";
  const glia_kernel_tensor &go = call->inputs[0], &lp = call->inputs[1], &targets = call->inputs[2],
                           &nll = call->inputs[3], &alpha = call->inputs[4], &grad = call->outputs[0],
                           &beta = call->outputs[1];
  if (call->n_attrs < 4) return internal(what, "missing attributes");
  if (lp.ndim != 3 || alpha.ndim != 3 || beta.ndim != 3 || !contiguous(lp) || !contiguous(go) || !contiguous(nll))
    return internal(what, "operands of the wrong shape");
  if (lp.dtype != go.dtype || lp.dtype != nll.dtype || lp.dtype != alpha.dtype || lp.dtype != grad.dtype ||
      lp.dtype != beta.dtype)
    return internal(what, "operands of different dtypes");
  const int64_t T_ = lp.sizes[0], B = lp.sizes[1], C = lp.sizes[2], S = alpha.sizes[2];
  const int64_t blank = call->attrs[0].i;
  const bool zero_infinity = call->attrs[1].i != 0;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, grad.device_index, &s)) return e;
  Upload up(grad.device_index);
  const int64_t* dt = nullptr;
  if (glia_error* e = ctc_table(call, 2, targets, B, C, false, s, what, &up, &dt)) return e;
  const int64_t total = T_ * B * C;
  if (total == 0) return nullptr;
  glia_error* e = dispatch_ctc(lp.dtype, "ctc_loss_backward_cpu", [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    ctc_beta_kernel<T><<<grid_for(B), kThreads, 0, s>>>(
        B, T_, C, S, blank, zero_infinity, dt, dt + B, dt + 2 * B, static_cast<const T*>(lp.data),
        static_cast<const int64_t*>(targets.data), static_cast<const T*>(nll.data), static_cast<const T*>(alpha.data),
        static_cast<T*>(beta.data), static_cast<T*>(grad.data));
    ctc_grad_kernel<T><<<grid_for(total), kThreads, 0, s>>>(
        total, B, C, zero_infinity, dt, static_cast<const T*>(lp.data), static_cast<const T*>(nll.data),
        static_cast<const T*>(go.data), static_cast<T*>(grad.data));
    return nullptr;
  });
  return e ? e : launched(what);
}

}  // namespace

glia_kernel_fn bag_kernel(Kid id) {
  switch (id) {
    case Kid::embedding_bag:
      return &k_embedding_bag;
    case Kid::embedding_bag_backward:
      return &k_embedding_bag_backward;
    case Kid::embedding_bag_per_sample_weights_backward:
      return &k_embedding_bag_per_sample_weights_backward;
    case Kid::ctc_loss:
      return &k_ctc_loss;
    case Kid::ctc_loss_backward:
      return &k_ctc_loss_backward;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
