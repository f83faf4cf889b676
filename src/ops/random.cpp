// Random sampling (issue 20): torch 1.13's checks and messages (in torch's order), then the draws on the
// host (Note [Random draws on the host] in ops/random.h) and one copy to the tensors' device.
#include "ops/random.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "core/dispatch.h"
#include "core/dtype.h"
#include "core/random.h"
#include "ops/elementwise.h"
#include "ops/iter.h"
#include "ops/random_math.h"
#include "ops/shape.h"

namespace glia::ops {

uint64_t draw_seed(const uint64_t* seed) { return seed ? *seed : thread_generator().next_u64(); }

namespace {

void random_fill_host(const Tensor& t, RandomKind kind, double a, double b, int64_t lo, uint64_t range, uint64_t seed);

// Overwrites self with the samples: drawn into a contiguous host tensor, then one copy into self (any
// strides, any device).
void fill(const Tensor& self, RandomKind kind, double a, double b, int64_t lo, uint64_t range, uint64_t seed) {
  if (self.numel() == 0) return;
  const bool direct = self.is_contiguous() && self.device().is_cpu();
  Tensor t = direct ? self : empty(self.shape(), self.dtype(), Device{});
  random_fill_host(t, kind, a, b, lo, range, seed);
  if (!direct) copy_(self, t);
}

// A contiguous host copy of t (t itself when it is one).
Tensor host(const Tensor& t) { return contiguous(t.device().is_cpu() ? t : to_device(t, Device{})); }

void floating_only(const Tensor& self, const char* kernel) {
  if (!is_floating(self.dtype())) not_implemented_for(kernel, self.dtype());
}

// The largest integer the dtype holds exactly (floating: 2^digits) and torch's name of its C++ type.
int64_t dtype_max(DType t, const char** name) {
  switch (t) {
    case DType::Bool:
      *name = "bool";
      return 1;
    case DType::UInt8:
      *name = "unsigned char";
      return 255;
    case DType::Int8:
      *name = "signed char";
      return INT8_MAX;
    case DType::Int16:
      *name = "short int";
      return INT16_MAX;
    case DType::Int32:
      *name = "int";
      return INT32_MAX;
    case DType::Int64:
      *name = "long int";
      return INT64_MAX;
    case DType::Float16:
      *name = "c10::Half";
      return int64_t{1} << 11;
    case DType::BFloat16:
      *name = "c10::BFloat16";
      return int64_t{1} << 8;
    case DType::Float32:
      *name = "float";
      return int64_t{1} << 24;
    default:
      *name = "double";
      return int64_t{1} << 53;
  }
}

int64_t dtype_min(DType t) {
  switch (t) {
    case DType::Int8:
      return INT8_MIN;
    case DType::Int16:
      return INT16_MIN;
    case DType::Int32:
      return INT32_MIN;
    case DType::Int64:
      return INT64_MIN;
    case DType::Float16:
      return -(int64_t{1} << 11);
    case DType::BFloat16:
      return -(int64_t{1} << 8);
    case DType::Float32:
      return -(int64_t{1} << 24);
    case DType::Float64:
      return -(int64_t{1} << 53);
    default:
      return 0;
  }
}

void bernoulli_host(const Tensor& p, const Tensor& out, uint64_t seed);
void poisson_host(const Tensor& rates, const Tensor& out, uint64_t seed);
void multinomial_host(const Tensor& p, const Tensor& out, bool replacement, uint64_t seed);

}  // namespace

void uniform_(const Tensor& self, double from, double to, uint64_t seed) {
  floating_only(self, "check_uniform_bounds");
  GLIA_CHECK(from <= to, InvalidArgument, "uniform_ expects to return a [from, to) range, but found from=", from,
             " > to=", to);
  fill(self, RandomKind::Uniform, from, to, 0, 0, seed);
}

void normal_(const Tensor& self, double mean, double std, uint64_t seed) {
  GLIA_CHECK(std >= 0.0, InvalidArgument, "normal expects std >= 0.0, but found std ", std);
  floating_only(self, "normal_kernel_cpu");
  fill(self, RandomKind::Normal, mean, std, 0, 0, seed);
}

void cauchy_(const Tensor& self, double median, double sigma, uint64_t seed) {
  floating_only(self, "cauchy_cpu");
  fill(self, RandomKind::Cauchy, median, sigma, 0, 0, seed);
}

void exponential_(const Tensor& self, double lambd, uint64_t seed) {
  GLIA_CHECK(lambd >= 0.0, InvalidArgument, "exponential_ expects lambda >= 0.0, but found lambda=", lambd);
  floating_only(self, "exponential_cpu");
  fill(self, RandomKind::Exponential, lambd, 0, 0, 0, seed);
}

void geometric_(const Tensor& self, double p, uint64_t seed) {
  GLIA_CHECK(p > 0 && p < 1, InvalidArgument, "geometric_ expects p to be in (0, 1), but got p=", p);
  if (self.dtype() == DType::Bool) not_implemented_for("geometric_cpu", self.dtype());
  fill(self, RandomKind::Geometric, p, 0, 0, 0, seed);
}

void log_normal_(const Tensor& self, double mean, double std, uint64_t seed) {
  GLIA_CHECK(std > 0.0, InvalidArgument, "log_normal_ expects std > 0.0, but found std=", std);
  floating_only(self, "log_normal_cpu");
  fill(self, RandomKind::LogNormal, mean, std, 0, 0, seed);
}

void bernoulli_(const Tensor& self, double p, uint64_t seed) {
  GLIA_CHECK(p >= 0 && p <= 1, InvalidArgument, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  if (self.dtype() == DType::Float16) not_implemented_for("bernoulli_scalar_cpu_", self.dtype());
  fill(self, RandomKind::Bernoulli, p, 0, 0, 0, seed);
}

void random_(const Tensor& self, int64_t from, std::optional<int64_t> to, uint64_t seed) {
  const DType t = self.dtype();
  const char* name = nullptr;
  const int64_t top = dtype_max(t, &name);
  uint64_t range = 0;
  if (to) {
    GLIA_CHECK(from < *to, InvalidArgument, "random_ expects 'from' to be less than 'to', but got from=", from,
               " >= to=", *to);
    if (!is_floating(t)) {  // torch only warns for floating dtypes
      GLIA_CHECK(from >= dtype_min(t) && from <= top, InvalidArgument, "from is out of bounds for ", name);
      GLIA_CHECK(*to - 1 >= dtype_min(t) && *to - 1 <= top, InvalidArgument, "to - 1 is out of bounds for ", name);
    }
    range = static_cast<uint64_t>(*to) - static_cast<uint64_t>(from);
  } else {
    if (!is_floating(t))
      GLIA_CHECK(from >= dtype_min(t) && from <= top, InvalidArgument, "from is out of bounds for ", name);
    GLIA_CHECK(from <= top, InvalidArgument,
               "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got "
               "from=",
               from, " > to_inc=", top);
    range = static_cast<uint64_t>(top) - static_cast<uint64_t>(from) + 1;  // 0: all 2^64 values
  }
  fill(self, RandomKind::Random, 0, 0, from, range, seed);
}

void bernoulli_(const Tensor& self, const Tensor& p, uint64_t seed) {
  if (self.dtype() == DType::Float16) not_implemented_for("bernoulli_tensor_cpu_self_", self.dtype());
  if (p.dtype() != DType::Float32 && p.dtype() != DType::Float64 && p.dtype() != DType::BFloat16)
    not_implemented_for("bernoulli_tensor_cpu_p_", p.dtype());
  const Device dev = common_device("bernoulli_", self, p, false);
  Tensor pe = expand(p, self.shape());
  if (self.numel() == 0) return;
  Tensor pc = host(to_dtype(pe, DType::Float64));
  const bool direct = self.is_contiguous() && dev.is_cpu();
  Tensor t = direct ? self : empty(self.shape(), self.dtype(), Device{});
  bernoulli_host(pc, t, seed);
  if (!direct) copy_(self, t);
}

Tensor bernoulli(const Tensor& p, uint64_t seed) {
  Tensor out = empty(p.shape(), p.dtype(), p.device());
  bernoulli_(out, p, seed);
  return out;
}

Tensor poisson(const Tensor& rates, uint64_t seed) {
  const DType t = rates.dtype();
  if (t != DType::Float32 && t != DType::Float64 && t != DType::BFloat16) not_implemented_for("poisson_cpu", t);
  if (rates.numel() == 0) return empty(rates.shape(), t, rates.device());
  Tensor h = empty(rates.shape(), t, Device{});
  poisson_host(host(rates), h, seed);
  return rates.device().is_cpu() ? h : to_device(h, rates.device());
}

Tensor multinomial(const Tensor& probs, int64_t n, bool replacement, uint64_t seed) {
  GLIA_CHECK(probs.dim() > 0 && probs.dim() <= 2, Shape, "prob_dist must be 1 or 2 dim");
  GLIA_CHECK(is_floating(probs.dtype()), DType,
             "multinomial only supports floating-point dtypes for input, got: ", scalar_type_name(probs.dtype()));
  GLIA_CHECK(n > 0, InvalidArgument, "cannot sample n_sample <= 0 samples");
  const int64_t cats = probs.size(-1);
  GLIA_CHECK(replacement || n <= cats, InvalidArgument,
             "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  GLIA_CHECK(cats <= (int64_t{1} << 24), InvalidArgument, "number of categories cannot exceed 2^24");
  if (probs.dtype() == DType::Float16) fail(Code::DType, "multinomial is not implemented for half on CPU");
  const int64_t rows = probs.dim() == 1 ? 1 : probs.size(0);
  Tensor out = probs.dim() == 1 ? empty(Dims{n}, DType::Int64, Device{}) : empty(Dims{rows, n}, DType::Int64, Device{});
  if (out.numel() > 0) multinomial_host(host(to_dtype(probs, DType::Float64)), out, replacement, seed);
  return probs.device().is_cpu() ? out : to_device(out, probs.device());
}

namespace {

// u in (0, 1).
inline double open_uniform(Generator& g) {
  double u;
  do u = g.next_double();
  while (u == 0.0);
  return u;
}

void random_fill_host(const Tensor& ot, RandomKind kind, double a, double b, int64_t lo, uint64_t range,
                      uint64_t seed) {
  Generator g(seed);
  const int64_t n = ot.numel();
  // One stream, in order: the values depend only on the seed (Note [Random draws on the host]).
  dispatch_all(ot.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = ot.data_ptr<T>();
    auto each = [&](auto draw) {
      for (int64_t i = 0; i < n; ++i) o[i] = convert<T, double>(draw());
    };
    switch (kind) {
      case RandomKind::Uniform:
        if constexpr (std::is_same_v<T, double>) {
          each([&] { return rnd::uniform(g.next_double(), a, b); });
        } else {
          // float: torch's 24-bit draw, computed in float and kept below `to`.
          const float fa = static_cast<float>(a), fb = static_cast<float>(b);
          // A value that rounds up to `to` in T (float16, bfloat16) is drawn again (a few times: a range
          // narrower than T's spacing may hold no value below `to`).
          for (int64_t i = 0; i < n; ++i) {
            T v = static_cast<T>(fa + (fb - fa) * g.next_float());
            for (int tries = 0; tries < 32 && static_cast<float>(v) >= fb && fb > fa; ++tries)
              v = static_cast<T>(fa + (fb - fa) * g.next_float());
            o[i] = v;
          }
        }
        break;
      case RandomKind::Normal:
        each([&] { return a + b * g.next_normal(); });
        break;
      case RandomKind::Cauchy:
        each([&] { return rnd::cauchy(g.next_double(), a, b); });
        break;
      case RandomKind::Exponential:
        each([&] { return rnd::exponential(g.next_double(), a); });
        break;
      case RandomKind::Geometric:
        each([&] { return rnd::geometric(open_uniform(g), a); });
        break;
      case RandomKind::LogNormal:
        each([&] { return std::exp(a + b * g.next_normal()); });
        break;
      case RandomKind::Random:
        for (int64_t i = 0; i < n; ++i) {
          const uint64_t x = g.next_u64();
          o[i] = convert<T, int64_t>(static_cast<int64_t>(static_cast<uint64_t>(lo) + (range ? x % range : x)));
        }
        break;
      case RandomKind::Bernoulli:
        for (int64_t i = 0; i < n; ++i) o[i] = convert<T, int64_t>(g.next_double() < a ? 1 : 0);
        break;
    }
  });
}

void bernoulli_host(const Tensor& pt, const Tensor& ot, uint64_t seed) {
  const int64_t n = ot.numel();
  const double* p = pt.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i)  // all checked before any write: a bad p changes nothing
    GLIA_CHECK(p[i] >= 0 && p[i] <= 1, InvalidArgument,
               "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
               "If so, please report an enhancement request to PyTorch.)");
  Generator g(seed);
  dispatch_all(ot.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = ot.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = convert<T, int64_t>(g.next_double() < p[i] ? 1 : 0);
  });
}

void poisson_host(const Tensor& rt, const Tensor& ot, uint64_t seed) {
  const int64_t n = ot.numel();
  Generator g(seed);
  dispatch_floating(ot.dtype(), "poisson", [&](auto tag) {
    using T = decltype(tag);
    const T* r = rt.data_ptr<T>();
    T* o = ot.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i)
      GLIA_CHECK(static_cast<double>(r[i]) >= 0, InvalidArgument,
                 "invalid Poisson rate, expected rate to be non-negative");
    for (int64_t i = 0; i < n; ++i)
      o[i] = convert<T, double>(rnd::poisson(static_cast<double>(r[i]), [&] { return g.next_double(); }));
  });
}

void multinomial_host(const Tensor& pt, const Tensor& ot, bool replacement, uint64_t seed) {
  const int64_t cats = pt.size(-1), n = ot.size(-1);
  const int64_t nrows = ot.numel() / n;
  const double* p = pt.data_ptr<double>();
  int64_t* o = ot.data_ptr<int64_t>();
  // torch's checks, every row before any draw.
  for (int64_t r = 0; r < nrows; ++r) {
    const double* row = p + r * cats;
    double sum = 0;
    for (int64_t c = 0; c < cats; ++c) {
      const double v = row[c];
      if (replacement) {
        GLIA_CHECK(!(v < 0) && !std::isnan(v), InvalidArgument,
                   "invalid multinomial distribution (encountering probability entry < 0)");
        GLIA_CHECK(std::isfinite(v), InvalidArgument,
                   "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      } else {
        GLIA_CHECK(v >= 0 && v < std::numeric_limits<double>::infinity(), InvalidArgument,
                   "probability tensor contains either `inf`, `nan` or element < 0");
      }
      sum += v;
    }
    GLIA_CHECK(sum > 0, InvalidArgument, "invalid multinomial distribution (sum of probabilities <= 0)");
  }
  Generator g(seed);
  std::vector<double> work(static_cast<size_t>(cats));
  std::vector<int64_t> idx(static_cast<size_t>(cats));
  for (int64_t r = 0; r < nrows; ++r) {
    const double* row = p + r * cats;
    int64_t* orow = o + r * n;
    if (replacement) {
      // Inverse of the cumulative distribution: the first category whose running sum exceeds u * total
      // (a category of probability 0 is never chosen).
      double acc = 0;
      for (int64_t c = 0; c < cats; ++c) work[static_cast<size_t>(c)] = acc += row[c];
      for (int64_t s = 0; s < n; ++s) {
        const double x = g.next_double() * acc;
        auto it = std::upper_bound(work.begin(), work.end(), x);
        int64_t c = std::min<int64_t>(it - work.begin(), cats - 1);
        while (c > 0 && row[c] == 0) --c;  // rounding at the top end
        orow[s] = c;
      }
    } else {
      // torch's exponential race: the n largest p / q, q ~ Exp(1) (categories of probability 0 last).
      for (int64_t c = 0; c < cats; ++c) work[static_cast<size_t>(c)] = row[c] / -std::log(open_uniform(g));
      std::iota(idx.begin(), idx.end(), int64_t{0});
      std::partial_sort(idx.begin(), idx.begin() + n, idx.end(), [&](int64_t x, int64_t y) {
        const double wx = work[static_cast<size_t>(x)], wy = work[static_cast<size_t>(y)];
        return wx > wy || (wx == wy && x < y);
      });
      for (int64_t s = 0; s < n; ++s) orow[s] = idx[static_cast<size_t>(s)];
    }
  }
}

}  // namespace

}  // namespace glia::ops
