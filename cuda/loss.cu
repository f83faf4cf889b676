// The losses on the GPU: kernels.def's pointwise_loss and pointwise_loss_backward (mse, l1, smooth_l1, huber,
// binary_cross_entropy, binary_cross_entropy_with_logits; weight and pos_weight), class_loss and
// class_loss_backward (nll_loss and cross_entropy over class indices: class weights, ignore_index,
// label_smoothing, torch's mean by the summed weights) and prob_cross_entropy and its backward (probability
// targets). What arrives is src/ops/cpu/loss.cpp's (the kernels.def comments): contiguous operands of one
// dtype, class weights and incoming gradients of the reduced losses in float64. The per-element formulas are
// cuda/loss_ops.h's, the CPU kernel's, in double as there; one thread per element or per position (a
// position's classes in class order, as the CPU, so a position's value has the CPU's bits).
//
// Note [Deterministic loss reductions]: a mean or sum is reduced in two passes whose order depends only on
// the element count n: n is split into nb <= kMaxParts chunks of one size (nb from n alone), block b sums
// its chunk (thread t the elements t, t + kThreads, ... in order, then a fixed tree) into part[b], and one
// block reduces part[0..nb) in a fixed tree and writes the result. No atomics on values, so two runs give the
// same bits (Note [Deterministic CUDA reductions] in reduce.cu). The CPU sums fixed chunks of kGrain in
// chunk order: the two agree to rounding, not bit for bit.
//
// Data checks (torch's messages, as the CPU's): binary_cross_entropy's input in [0, 1] and class targets in
// [0, C) or ignore_index. The kernel sets a flag in device memory (class targets: the lowest bad position,
// through atomicMin, so the error names the first bad target as the CPU's serial check does); the call reads
// it back once, after its kernels, and returns the error. Nothing is read out of bounds for a bad target.
// class_loss_backward gets targets its forward checked: a bad one is skipped there, not reported again.
#include <cmath>
#include <string>
#include <type_traits>

#include "common.h"
#include "kernel_call.h"
#include "launch.cuh"
#include "loss_ops.h"

namespace glia::cuda {

namespace {

struct Pair {
  double a, b;
};

constexpr int kMaxParts = 1024;
constexpr int64_t kPerThread = 8;  // elements per thread before another block is worth it

struct Split {
  unsigned nb;
  int64_t chunk;
};

// The chunks of n elements (Note [Deterministic loss reductions]): a function of n only.
Split split_of(int64_t n) {
  int64_t nb = (n + kThreads * kPerThread - 1) / (kThreads * kPerThread);
  if (nb < 1) nb = 1;
  if (nb > kMaxParts) nb = kMaxParts;
  return {static_cast<unsigned>(nb), (n + nb - 1) / nb};
}

// A fixed tree over kThreads values of shared memory; thread 0 gets the sums.
__device__ Pair block_sum(Pair v, double* sa, double* sb) {
  const int tid = static_cast<int>(threadIdx.x);
  sa[tid] = v.a;
  sb[tid] = v.b;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (tid < s) {
      sa[tid] += sa[tid + s];
      sb[tid] += sb[tid + s];
    }
    __syncthreads();
  }
  return {sa[0], sb[0]};
}

// f(i) for every i in [0, n) (f writes what it writes and returns the values to sum); with `part`, block b
// stores the sum of its chunk's values in part[b].
template <class F>
__global__ void __launch_bounds__(kThreads) positions_kernel(int64_t n, int64_t chunk, F f, Pair* part) {
  __shared__ double sa[kThreads], sb[kThreads];
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * chunk;
  const int64_t end = begin + chunk < n ? begin + chunk : n;
  Pair acc{0, 0};
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) {
    const Pair v = f(i);
    acc.a += v.a;
    acc.b += v.b;
  }
  if (!part) return;  // the same for the whole block
  const Pair s = block_sum(acc, sa, sb);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

// One block: the sums of part[0..nb) in a fixed order, handed to fin on thread 0.
template <class Fin>
__global__ void __launch_bounds__(kThreads) finish_kernel(const Pair* part, unsigned nb, Fin fin) {
  __shared__ double sa[kThreads], sb[kThreads];
  Pair acc{0, 0};
  for (unsigned k = threadIdx.x; k < nb; k += kThreads) {
    acc.a += part[k].a;
    acc.b += part[k].b;
  }
  const Pair s = block_sum(acc, sa, sb);
  if (threadIdx.x == 0) fin(s);
}

// ---- what the finishing block writes

template <class T>
struct PointwiseFinish {  // the CPU's s / n (mean) or s
  T* out;
  bool mean;
  int64_t n;
  __device__ void operator()(Pair s) const { *out = store_as<T>(mean ? s.a / static_cast<double>(n) : s.a); }
};
template <class T>
struct ClassFinish {  // mean: by the summed weights of the non-ignored targets
  T* out;
  bool mean;
  __device__ void operator()(Pair s) const { *out = store_as<T>(mean ? s.a / s.b : s.a); }
};
template <class T>
struct ProbFinish {  // mean: by the positions (NaN for none)
  T* out;
  bool mean;
  int64_t P;
  __device__ void operator()(Pair s) const {
    *out = store_as<T>(mean ? (P == 0 ? NAN : s.a / static_cast<double>(P)) : s.a);
  }
};
struct TotalFinish {  // the summed weights, for the backward's mean
  double* total;
  __device__ void operator()(Pair s) const { *total = s.b; }
};

// ---- accessors of cuda/loss_ops.h's templates

template <class T>
struct RowX {  // x at class c of one position
  const T* row;
  int64_t S;
  __host__ __device__ double operator()(int64_t c) const { return static_cast<double>(load_acc(row[c * S])); }
};
struct ClassW {  // class weights, 1 without
  const double* w;
  __host__ __device__ double operator()(int64_t c) const { return w ? w[c] : 1.0; }
};

// ---- pointwise losses

template <class T>
struct PointwiseValue {
  const T *x, *t, *w, *pw;
  T* out;  // reduction none: written; else nullptr and the values are summed
  int64_t kind;
  double param;
  int* bad;
  __device__ Pair operator()(int64_t i) const {
    const double xv = load_acc(x[i]), tv = load_acc(t[i]);
    if (kind == loss::kBce && !loss::bce_input_ok(xv)) *bad = 1;
    double v = loss::loss_value(kind, xv, tv, pw ? static_cast<double>(load_acc(pw[i])) : 1.0, param);
    if (w) v *= static_cast<double>(load_acc(w[i]));
    if (out) {
      out[i] = store_as<T>(v);
      return {0, 0};
    }
    return {v, 0};
  }
};

template <class T>
struct PointwiseGrad {
  const T *x, *t, *w, *pw, *g;  // g: reduction none, else nullptr
  const double* g0;             // the reduced loss's float64 gradient
  T *gi, *gt;
  int64_t kind;
  double param;
  bool mean;
  int64_t n;
  int* bad;
  __device__ Pair operator()(int64_t i) const {
    const double xv = load_acc(x[i]), tv = load_acc(t[i]);
    if (kind == loss::kBce && !loss::bce_input_ok(xv)) *bad = 1;
    double dx, dt;
    loss::loss_derivs(kind, xv, tv, pw ? static_cast<double>(load_acc(pw[i])) : 1.0, param, &dx, &dt);
    double s;
    if (g) {
      s = load_acc(g[i]);
    } else {
      s = *g0;
      if (mean) s /= static_cast<double>(n);
    }
    if (w) s *= static_cast<double>(load_acc(w[i]));
    if (gi) gi[i] = store_as<T>(dx * s);
    if (gt) gt[i] = store_as<T>(dt * s);
    return {0, 0};
  }
};

// ---- nll_loss / cross_entropy

template <class T>
struct ClassValue {
  const T* x;
  const int64_t* tg;
  const double* w;
  T* out;        // reduction none, else nullptr
  double* lsep;  // log_softmax: each position's log-sum-exp
  int64_t C, S, ignore_index;
  double ls;
  bool log_softmax;
  unsigned long long* bad;  // the lowest position of a bad target
  __device__ Pair operator()(int64_t pos) const {
    const int64_t i = pos / S, s = pos - i * S;
    const RowX<T> xv{x + i * C * S + s, S};
    const ClassW wv{w};
    double lse = 0;
    if (log_softmax) {
      lse = loss::row_logsumexp(C, xv);
      lsep[pos] = lse;
    }
    const int64_t t = tg[pos];
    double v = 0, wt = 0;
    if (t != ignore_index) {
      if (t < 0 || t >= C) {
        atomicMin(bad, static_cast<unsigned long long>(pos));
      } else {
        v = loss::class_value(C, t, xv, wv, log_softmax, lse, ls);
        wt = wv(t);
      }
    }
    if (out) out[pos] = store_as<T>(v);
    return {v, wt};
  }
};

struct TotalWeight {  // the mean's divisor, for the backward
  const int64_t* tg;
  const double* w;
  int64_t C, ignore_index;
  __device__ Pair operator()(int64_t pos) const {
    const int64_t t = tg[pos];
    if (t == ignore_index || t < 0 || t >= C) return {0, 0};
    return {0, w ? w[t] : 1.0};
  }
};

template <class T>
struct ClassGrad {
  const T* x;
  const int64_t* tg;
  const double* w;
  const double* lsep;
  const double* g;      // [P] (none) or the 0-dim gradient
  const double* total;  // mean: the summed weights
  T* gi;                // zeroed before
  int64_t C, S, ignore_index;
  double ls;
  bool log_softmax, none;
  __device__ Pair operator()(int64_t pos) const {
    const int64_t t = tg[pos];
    if (t == ignore_index || t < 0 || t >= C) return {0, 0};
    const int64_t i = pos / S, s = pos - i * S, base = i * C * S + s;
    double gs;
    if (none) {
      gs = g[pos];
    } else {
      gs = g[0];
      if (total) gs /= *total;
    }
    const ClassW wv{w};
    if (!log_softmax) {
      gi[base + t * S] = store_as<T>(-wv(t) * gs);
      return {0, 0};
    }
    double w_all = 0;
    for (int64_t c = 0; c < C; ++c) w_all += wv(c);
    const double wt = wv(t) * (1 - ls), lse = lsep[pos];
    for (int64_t c = 0; c < C; ++c) {
      const double pc = std::exp(static_cast<double>(load_acc(x[base + c * S])) - lse);
      gi[base + c * S] = store_as<T>(loss::class_grad(pc, c == t, wt, ls, C, w_all, wv(c)) * gs);
    }
    return {0, 0};
  }
};

// ---- cross_entropy with probability targets

template <class T>
struct ProbValue {
  const T* x;
  const double* tg;
  const double* w;
  T* out;
  int64_t C, S;
  double ls;
  __device__ Pair operator()(int64_t pos) const {
    const int64_t i = pos / S, s = pos - i * S, base = i * C * S + s;
    const RowX<T> xv{x + base, S};
    const ClassW wv{w};
    const double lse = loss::row_logsumexp(C, xv);
    double v = 0;
    for (int64_t c = 0; c < C; ++c) v -= wv(c) * loss::smoothed_prob(tg[base + c * S], ls, C) * (xv(c) - lse);
    if (out) {
      out[pos] = store_as<T>(v);
      return {0, 0};
    }
    return {v, 0};
  }
};

template <class T>
struct ProbGrad {
  const T* x;
  const double *tg, *w, *g;
  T* gi;
  double* gt;
  int64_t C, S, P;
  double ls;
  bool none, mean;
  __device__ Pair operator()(int64_t pos) const {
    const int64_t i = pos / S, s = pos - i * S, base = i * C * S + s;
    double gs;
    if (none) {
      gs = g[pos];
    } else {
      gs = g[0];
      if (mean) gs /= static_cast<double>(P);
    }
    const RowX<T> xv{x + base, S};
    const ClassW wv{w};
    const double lse = loss::row_logsumexp(C, xv);
    double wt_sum = 0;
    for (int64_t c = 0; c < C; ++c) wt_sum += wv(c) * loss::smoothed_prob(tg[base + c * S], ls, C);
    for (int64_t c = 0; c < C; ++c) {
      const int64_t kk = base + c * S;
      const double xc = xv(c), wc = wv(c);
      if (gi) gi[kk] = store_as<T>(gs * (std::exp(xc - lse) * wt_sum - wc * loss::smoothed_prob(tg[kk], ls, C)));
      if (gt) gt[kk] = -gs * (1 - ls) * wc * (xc - lse);
    }
    return {0, 0};
  }
};

// ---- host side

struct Ctx {
  int32_t dev;
  cudaStream_t stream;
};

glia_error* begin(const glia_kernel_call* call, int32_t dev, Ctx* c) {
  c->dev = dev;
  const cudaError_t st = cudaSetDevice(dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
  c->stream = call_stream(call, dev)->stream;
  return nullptr;
}

// Runs f over [0, n) (run_reduce: then fin gets the sum of f's values, in the two passes of Note
// [Deterministic loss reductions]; `part` holds kMaxParts Pairs).
template <class F>
void run_positions(const Ctx& c, int64_t n, const F& f) {
  const Split sp = split_of(n);
  positions_kernel<F><<<sp.nb, kThreads, 0, c.stream>>>(n, sp.chunk, f, nullptr);
}
template <class F, class Fin>
void run_reduce(const Ctx& c, int64_t n, const F& f, Pair* part, const Fin& fin) {
  const Split sp = split_of(n);
  positions_kernel<F><<<sp.nb, kThreads, 0, c.stream>>>(n, sp.chunk, f, part);
  finish_kernel<Fin><<<1, kThreads, 0, c.stream>>>(part, sp.nb, fin);
}

// Copies `bytes` of device memory to the host after the call's work (one synchronisation).
glia_error* read_back(const Ctx& c, void* dst, const void* src, size_t bytes, const char* what) {
  cudaError_t st = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, c.stream);
  if (st != cudaSuccess) return cuda_error(st, "cudaMemcpyAsync", std::string(what) + ": reading its check back");
  st = cudaStreamSynchronize(c.stream);
  if (st != cudaSuccess) return cuda_error(st, "cudaStreamSynchronize", what);
  return nullptr;
}

// Scratch layout: kMaxParts Pairs, then 16 bytes of flags / totals.
constexpr size_t kPartBytes = sizeof(Pair) * kMaxParts;
constexpr size_t kScratchBytes = kPartBytes + 16;

glia_error* internal(const char* what, const char* why) {
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": " + why);
}

glia_error* k_pointwise_loss(const glia_kernel_call* call) {
  const char* what = "pointwise_loss";
  const glia_kernel_tensor& xt = call->inputs[0];
  const int64_t kind = call->attrs[0].i, reduction = call->attrs[2].i, flags = call->attrs[3].i;
  const double param = call->attrs[1].f;
  const int64_t n = view_numel(xt);
  const bool none = reduction == loss::kNone;
  for (int k = 1; k < 4; ++k)
    if (call->inputs[k].dtype != xt.dtype) return internal(what, "operands of different dtypes");
  if (call->outputs[0].dtype != xt.dtype) return internal(what, "the output's dtype is not the input's");
  Ctx c;
  if (glia_error* e = begin(call, call->outputs[0].device_index, &c)) return e;
  if (none && n == 0) return nullptr;
  const bool check = kind == loss::kBce;
  Scratch scratch(c.dev);
  if (!none || check)
    if (glia_error* e = device_alloc(c.dev, kScratchBytes, &scratch.p)) return e;
  Pair* part = static_cast<Pair*>(scratch.p);
  int* bad = scratch.p ? reinterpret_cast<int*>(static_cast<char*>(scratch.p) + kPartBytes) : nullptr;
  if (check) {
    const cudaError_t st = cudaMemsetAsync(bad, 0, sizeof(int), c.stream);
    if (st != cudaSuccess) return cuda_error(st, "cudaMemsetAsync", what);
  }
  glia_error* e = dispatch<Set::kFloat>(xt.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    T* out = static_cast<T*>(call->outputs[0].data);
    const PointwiseValue<T> f{static_cast<const T*>(xt.data),
                              static_cast<const T*>(call->inputs[1].data),
                              (flags & 1) ? static_cast<const T*>(call->inputs[2].data) : nullptr,
                              (flags & 2) ? static_cast<const T*>(call->inputs[3].data) : nullptr,
                              none ? out : nullptr,
                              kind,
                              param,
                              bad};
    if (none)
      run_positions(c, n, f);
    else
      run_reduce(c, n, f, part, PointwiseFinish<T>{out, reduction == loss::kMean, n});
    return launched(what);
  });
  if (e || !check) return e;
  int flag = 0;
  if (glia_error* e2 = read_back(c, &flag, bad, sizeof flag, what)) return e2;
  if (flag) return make_error(GLIA_ERR_INVALID_ARGUMENT, "all elements of input should be between 0 and 1");
  return nullptr;
}

glia_error* k_pointwise_loss_backward(const glia_kernel_call* call) {
  const char* what = "pointwise_loss_backward";
  const glia_kernel_tensor& xt = call->inputs[0];
  const int64_t kind = call->attrs[0].i, reduction = call->attrs[2].i, flags = call->attrs[3].i;
  const double param = call->attrs[1].f;
  const int64_t n = view_numel(xt);
  const bool none = reduction == loss::kNone;
  for (int k = 1; k < 4; ++k)
    if (call->inputs[k].dtype != xt.dtype) return internal(what, "operands of different dtypes");
  if (call->inputs[4].dtype != (none ? xt.dtype : GLIA_FLOAT64))
    return internal(what, "the incoming gradient has an unexpected dtype");
  Ctx c;
  if (glia_error* e = begin(call, call->outputs[0].device_index, &c)) return e;
  if (n == 0 || !(flags & 12)) return nullptr;
  const bool check = kind == loss::kBce;
  Scratch scratch(c.dev);
  int* bad = nullptr;
  if (check) {
    if (glia_error* e = device_alloc(c.dev, sizeof(int), &scratch.p)) return e;
    bad = static_cast<int*>(scratch.p);
    const cudaError_t st = cudaMemsetAsync(bad, 0, sizeof(int), c.stream);
    if (st != cudaSuccess) return cuda_error(st, "cudaMemsetAsync", what);
  }
  glia_error* e = dispatch<Set::kFloat>(xt.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    const PointwiseGrad<T> f{static_cast<const T*>(xt.data),
                             static_cast<const T*>(call->inputs[1].data),
                             (flags & 1) ? static_cast<const T*>(call->inputs[2].data) : nullptr,
                             (flags & 2) ? static_cast<const T*>(call->inputs[3].data) : nullptr,
                             none ? static_cast<const T*>(call->inputs[4].data) : nullptr,
                             none ? nullptr : static_cast<const double*>(call->inputs[4].data),
                             (flags & 4) ? static_cast<T*>(call->outputs[0].data) : nullptr,
                             (flags & 8) ? static_cast<T*>(call->outputs[1].data) : nullptr,
                             kind,
                             param,
                             reduction == loss::kMean,
                             n,
                             bad};
    run_positions(c, n, f);
    return launched(what);
  });
  if (e || !check) return e;
  int flag = 0;
  if (glia_error* e2 = read_back(c, &flag, bad, sizeof flag, what)) return e2;
  if (flag) return make_error(GLIA_ERR_INVALID_ARGUMENT, "all elements of input should be between 0 and 1");
  return nullptr;
}

// The class kernels' attributes (ops::ClassAttrs in src/ops/cpu/loss.cpp).
struct ClassArgs {
  int64_t N, C, S, P, ignore_index, reduction;
  double ls;
  bool log_softmax;
  const double* w;
};

glia_error* class_args(const glia_kernel_call* call, const char* what, ClassArgs* a) {
  if (call->attrs[0].n_ints != 3) return internal(what, "ncs does not hold N, C, S");
  a->N = call->attrs[0].ints[0];
  a->C = call->attrs[0].ints[1];
  a->S = call->attrs[0].ints[2];
  a->P = a->N * a->S;
  a->ignore_index = call->attrs[1].i;
  a->reduction = call->attrs[2].i;
  a->ls = call->attrs[3].f;
  a->log_softmax = call->attrs[4].i != 0;
  a->w = nullptr;
  if (call->attrs[5].i) {
    if (call->inputs[2].dtype != GLIA_FLOAT64) return internal(what, "class weights that are not float64");
    a->w = static_cast<const double*>(call->inputs[2].data);
  }
  return nullptr;
}

glia_error* k_class_loss(const glia_kernel_call* call) {
  const char* what = "class_loss";
  ClassArgs a;
  if (glia_error* e = class_args(call, what, &a)) return e;
  const glia_kernel_tensor& xt = call->inputs[0];
  if (call->inputs[1].dtype != GLIA_INT64) return internal(what, "targets that are not int64");
  if (call->outputs[0].dtype != xt.dtype) return internal(what, "the loss's dtype is not the input's");
  if (a.log_softmax && call->outputs[1].dtype != GLIA_FLOAT64) return internal(what, "a log-sum-exp not float64");
  const bool none = a.reduction == loss::kNone;
  Ctx c;
  if (glia_error* e = begin(call, call->outputs[0].device_index, &c)) return e;
  if (none && a.P == 0) return nullptr;
  Scratch scratch(c.dev);
  if (glia_error* e = device_alloc(c.dev, kScratchBytes, &scratch.p)) return e;
  Pair* part = static_cast<Pair*>(scratch.p);
  auto* bad = reinterpret_cast<unsigned long long*>(static_cast<char*>(scratch.p) + kPartBytes);
  cudaError_t st = cudaMemsetAsync(bad, 0xff, sizeof *bad, c.stream);  // no bad position
  if (st != cudaSuccess) return cuda_error(st, "cudaMemsetAsync", what);
  const int64_t* tg = static_cast<const int64_t*>(call->inputs[1].data);
  glia_error* e = dispatch<Set::kFloat>(xt.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    T* out = static_cast<T*>(call->outputs[0].data);
    const ClassValue<T> f{static_cast<const T*>(xt.data),
                          tg,
                          a.w,
                          none ? out : nullptr,
                          a.log_softmax ? static_cast<double*>(call->outputs[1].data) : nullptr,
                          a.C,
                          a.S,
                          a.ignore_index,
                          a.ls,
                          a.log_softmax,
                          bad};
    if (none)
      run_positions(c, a.P, f);
    else
      run_reduce(c, a.P, f, part, ClassFinish<T>{out, a.reduction == loss::kMean});
    return launched(what);
  });
  if (e) return e;
  unsigned long long first = 0;
  if (glia_error* e2 = read_back(c, &first, bad, sizeof first, what)) return e2;
  if (first == ~0ull) return nullptr;
  int64_t t = 0;
  if (glia_error* e2 = read_back(c, &t, tg + first, sizeof t, what)) return e2;
  return make_error(GLIA_ERR_INVALID_ARGUMENT, "Target " + std::to_string(t) + " is out of bounds.");
}

glia_error* k_class_loss_backward(const glia_kernel_call* call) {
  const char* what = "class_loss_backward";
  ClassArgs a;
  if (glia_error* e = class_args(call, what, &a)) return e;
  const glia_kernel_tensor &xt = call->inputs[0], &gi = call->outputs[0];
  if (call->inputs[1].dtype != GLIA_INT64) return internal(what, "targets that are not int64");
  if (call->inputs[4].dtype != GLIA_FLOAT64) return internal(what, "an incoming gradient that is not float64");
  if (gi.dtype != xt.dtype) return internal(what, "the gradient's dtype is not the input's");
  const bool none = a.reduction == loss::kNone;
  Ctx c;
  if (glia_error* e = begin(call, gi.device_index, &c)) return e;
  const int64_t numel = view_numel(gi);
  if (numel == 0) return nullptr;
  cudaError_t st = cudaMemsetAsync(gi.data, 0, static_cast<size_t>(numel * dtype_size(gi.dtype)), c.stream);
  if (st != cudaSuccess) return cuda_error(st, "cudaMemsetAsync", what);
  if (a.P == 0) return nullptr;
  const int64_t* tg = static_cast<const int64_t*>(call->inputs[1].data);
  Scratch scratch(c.dev);
  double* total = nullptr;
  if (a.reduction == loss::kMean) {
    if (glia_error* e = device_alloc(c.dev, kScratchBytes, &scratch.p)) return e;
    total = reinterpret_cast<double*>(static_cast<char*>(scratch.p) + kPartBytes);
    run_reduce(c, a.P, TotalWeight{tg, a.w, a.C, a.ignore_index}, static_cast<Pair*>(scratch.p), TotalFinish{total});
    if (glia_error* e = launched(what)) return e;
  }
  return dispatch<Set::kFloat>(xt.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    const ClassGrad<T> f{static_cast<const T*>(xt.data),
                         tg,
                         a.w,
                         a.log_softmax ? static_cast<const double*>(call->inputs[3].data) : nullptr,
                         static_cast<const double*>(call->inputs[4].data),
                         total,
                         static_cast<T*>(gi.data),
                         a.C,
                         a.S,
                         a.ignore_index,
                         a.ls,
                         a.log_softmax,
                         none};
    run_positions(c, a.P, f);
    return launched(what);
  });
}

glia_error* k_prob_cross_entropy(const glia_kernel_call* call) {
  const char* what = "prob_cross_entropy";
  ClassArgs a;
  if (glia_error* e = class_args(call, what, &a)) return e;
  const glia_kernel_tensor& xt = call->inputs[0];
  if (call->inputs[1].dtype != GLIA_FLOAT64) return internal(what, "targets that are not float64");
  if (call->outputs[0].dtype != xt.dtype) return internal(what, "the loss's dtype is not the input's");
  const bool none = a.reduction == loss::kNone;
  Ctx c;
  if (glia_error* e = begin(call, call->outputs[0].device_index, &c)) return e;
  if (none && a.P == 0) return nullptr;
  Scratch scratch(c.dev);
  if (!none)
    if (glia_error* e = device_alloc(c.dev, kScratchBytes, &scratch.p)) return e;
  return dispatch<Set::kFloat>(xt.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    T* out = static_cast<T*>(call->outputs[0].data);
    const ProbValue<T> f{static_cast<const T*>(xt.data),
                         static_cast<const double*>(call->inputs[1].data),
                         a.w,
                         none ? out : nullptr,
                         a.C,
                         a.S,
                         a.ls};
    if (none)
      run_positions(c, a.P, f);
    else
      run_reduce(c, a.P, f, static_cast<Pair*>(scratch.p), ProbFinish<T>{out, a.reduction == loss::kMean, a.P});
    return launched(what);
  });
}

glia_error* k_prob_cross_entropy_backward(const glia_kernel_call* call) {
  const char* what = "prob_cross_entropy_backward";
  ClassArgs a;
  if (glia_error* e = class_args(call, what, &a)) return e;
  const glia_kernel_tensor& xt = call->inputs[0];
  const int64_t mask = call->attrs[6].i;
  if (call->inputs[1].dtype != GLIA_FLOAT64 || call->inputs[3].dtype != GLIA_FLOAT64)
    return internal(what, "targets or an incoming gradient that are not float64");
  if ((mask & 1) && call->outputs[0].dtype != xt.dtype)
    return internal(what, "the gradient's dtype is not the input's");
  if ((mask & 2) && call->outputs[1].dtype != GLIA_FLOAT64) return internal(what, "a target gradient not float64");
  Ctx c;
  if (glia_error* e = begin(call, call->outputs[0].device_index, &c)) return e;
  if (a.P == 0 || !(mask & 3)) return nullptr;
  return dispatch<Set::kFloat>(xt.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    const ProbGrad<T> f{static_cast<const T*>(xt.data),
                        static_cast<const double*>(call->inputs[1].data),
                        a.w,
                        static_cast<const double*>(call->inputs[3].data),
                        (mask & 1) ? static_cast<T*>(call->outputs[0].data) : nullptr,
                        (mask & 2) ? static_cast<double*>(call->outputs[1].data) : nullptr,
                        a.C,
                        a.S,
                        a.P,
                        a.ls,
                        a.reduction == loss::kNone,
                        a.reduction == loss::kMean};
    run_positions(c, a.P, f);
    return launched(what);
  });
}

}  // namespace

glia_kernel_fn embedding_kernel(Kid id);  // embedding.cu

glia_kernel_fn loss_kernel(Kid id) {
  switch (id) {
    case Kid::pointwise_loss:
      return &k_pointwise_loss;
    case Kid::pointwise_loss_backward:
      return &k_pointwise_loss_backward;
    case Kid::class_loss:
      return &k_class_loss;
    case Kid::class_loss_backward:
      return &k_class_loss_backward;
    case Kid::prob_cross_entropy:
      return &k_prob_cross_entropy;
    case Kid::prob_cross_entropy_backward:
      return &k_prob_cross_entropy_backward;
    default:
      return embedding_kernel(id);
  }
}

}  // namespace glia::cuda
