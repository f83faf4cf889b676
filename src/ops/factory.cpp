#include "ops/factory.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/random.h"
#include "core/scalar.h"
#include "ops/iter.h"

namespace glia::ops {

namespace {

// A tensor computed on the host (filled by `fill`) and copied to `device`.
template <class Fill>
Tensor host_then(IntSpan shape, DType dtype, Device device, Fill&& fill) {
  Tensor t = empty(shape, dtype, Device{});
  fill(t);
  return device.is_cpu() ? t : to_device(t, device);
}

// Integer types take torch's route through int64 (Scalar::to<uint8_t>(-3.0) is 253).
template <class T>
T from_double(double v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(static_cast<int64_t>(v));
  else
    return convert<T, double>(v);
}

}  // namespace

Tensor eye(int64_t n, int64_t m, DType dtype, Device device) {
  GLIA_CHECK(n >= 0, InvalidArgument, "n must be greater or equal to 0, got ", n);
  GLIA_CHECK(m >= 0, InvalidArgument, "m must be greater or equal to 0, got ", m);
  if (dtype == DType::BFloat16) not_implemented_for("eye", dtype);  // torch 1.13's CPU kernel lacks it
  const int64_t shape[] = {n, m};
  Tensor t = zeros(shape, dtype, device);
  const int64_t k = std::min(n, m);
  if (k > 0) {
    const int64_t len[] = {k}, stride[] = {m + 1};
    fill(make_view(t, len, stride, t.offset()), 1.0);  // the fill kernel, on t's device
  }
  return t;
}

Tensor linspace(double start, double end, int64_t steps, DType dtype, Device device) {
  GLIA_CHECK(steps >= 0, InvalidArgument, "number of steps must be non-negative");
  if (dtype == DType::Bool) not_implemented_for("linspace_cpu", dtype);
  // torch converts start and end to the dtype as Scalars (whole numbers as Python ints: -3 wraps to uint8's 253).
  Scalar::from_fill_value(start).check_fits(dtype);
  Scalar::from_fill_value(end).check_fits(dtype);
  const int64_t shape[] = {steps};
  return host_then(shape, dtype, device, [&](Tensor& t) {
    dispatch_all(dtype, [&](auto tag) {
      using T = decltype(tag);
      T* p = t.data_ptr<T>();
      if (steps == 1) p[0] = from_double<T>(start);
      if (steps <= 1) return;
      // torch's linspace kernel: the first half counts up from start, the second down from end, with the
      // step in the element type (double for integers).
      using C = std::conditional_t<std::is_integral_v<T>, double,
                                   std::conditional_t<std::is_same_v<T, double>, double, float>>;
      const C s = static_cast<C>(from_double<T>(start)), e = static_cast<C>(from_double<T>(end));
      const C step = (e - s) / static_cast<C>(steps - 1);
      const int64_t halfway = steps / 2;
      for (int64_t i = 0; i < steps; ++i) {
        C v = i < halfway ? s + step * static_cast<C>(i) : e - step * static_cast<C>(steps - i - 1);
        p[i] = from_double<T>(static_cast<double>(v));
      }
    });
  });
}

Tensor logspace(double start, double end, int64_t steps, double base, DType dtype, Device device) {
  GLIA_CHECK(steps >= 0, InvalidArgument, "number of steps must be non-negative");
  if (dtype == DType::Bool || dtype == DType::Float16) not_implemented_for("logspace_cpu", dtype);
  // torch converts start and end to the dtype as Scalars (whole numbers as Python ints: -3 wraps to uint8's 253).
  Scalar::from_fill_value(start).check_fits(dtype);
  Scalar::from_fill_value(end).check_fits(dtype);
  const int64_t shape[] = {steps};
  return host_then(shape, dtype, device, [&](Tensor& t) {
    dispatch_all(dtype, [&](auto tag) {
      using T = decltype(tag);
      T* p = t.data_ptr<T>();
      if (steps == 1) p[0] = from_double<T>(std::pow(base, static_cast<double>(from_double<T>(start))));
      if (steps <= 1) return;
      // torch's logspace: the exponent's step in double, start and end in the element type.
      const T s = from_double<T>(start), e = from_double<T>(end);
      const double step =
          static_cast<double>(static_cast<double>(e) - static_cast<double>(s)) / static_cast<double>(steps - 1);
      const int64_t halfway = steps / 2;
      for (int64_t i = 0; i < steps; ++i) {
        double x = i < halfway ? static_cast<double>(s) + step * static_cast<double>(i)
                               : static_cast<double>(e) - step * static_cast<double>(steps - i - 1);
        p[i] = from_double<T>(std::pow(base, x));
      }
    });
  });
}

namespace {

// torch's check of random_(from, to)'s bounds for the result's dtype.
void check_random_bounds(int64_t from, int64_t to, DType dtype) {
  GLIA_CHECK(from < to, InvalidArgument, "random_ expects 'from' to be less than 'to', but got from=", from,
             " >= to=", to);
  int64_t lo = 0, hi = 0;
  const char* name = nullptr;
  switch (dtype) {
    case DType::Int64:
      return;
    case DType::Int32:
      lo = INT32_MIN, hi = INT32_MAX, name = "int";
      break;
    case DType::Int16:
      lo = INT16_MIN, hi = INT16_MAX, name = "short int";
      break;
    case DType::Int8:
      lo = INT8_MIN, hi = INT8_MAX, name = "signed char";
      break;
    case DType::UInt8:
      lo = 0, hi = 255, name = "unsigned char";
      break;
    case DType::Bool:
      lo = 0, hi = 1, name = "bool";
      break;
    case DType::Float32:
      lo = -(int64_t{1} << 24), hi = int64_t{1} << 24, name = "float";
      break;
    case DType::Float64:
      lo = -(int64_t{1} << 53), hi = int64_t{1} << 53, name = "double";
      break;
    case DType::Float16:
      lo = -(int64_t{1} << 11), hi = int64_t{1} << 11, name = "c10::Half";
      break;
    case DType::BFloat16:
      lo = -(int64_t{1} << 8), hi = int64_t{1} << 8, name = "c10::BFloat16";
      break;
  }
  GLIA_CHECK(from >= lo && from <= hi, InvalidArgument, "from is out of bounds for ", name);
  GLIA_CHECK(to - 1 >= lo && to - 1 <= hi, InvalidArgument, "to - 1 is out of bounds for ", name);
}

}  // namespace

Tensor randint(int64_t low, int64_t high, IntSpan shape, DType dtype, Device device) {
  check_shape("randint", shape);
  check_random_bounds(low, high, dtype);
  return host_then(shape, dtype, device, [&](Tensor& t) {
    Generator& g = thread_generator();
    const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    dispatch_all(dtype, [&](auto tag) {
      using T = decltype(tag);
      T* p = t.data_ptr<T>();
      for (int64_t i = 0; i < t.numel(); ++i) {
        int64_t v = static_cast<int64_t>(static_cast<uint64_t>(low) + g.next_u64() % range);
        p[i] = convert<T, int64_t>(v);
      }
    });
  });
}

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, bool upper, DType dtype, Device device) {
  GLIA_CHECK(row >= 0, InvalidArgument, "row must be non-negative, got", row);
  GLIA_CHECK(col >= 0, InvalidArgument, "col must be non-negative, got", col);
  const char* op = upper ? "triu_indices" : "tril_indices";
  if (dtype != DType::Int64 && dtype != DType::Int32) not_implemented_for(op, dtype);
  // Kept columns of row i: [0, i + offset] (tril) or [i + offset, col) (triu), clamped.
  auto range = [&](int64_t i, int64_t& lo, int64_t& hi) {
    const int64_t edge = std::clamp<int64_t>(offset, -row - 1, col + 1) + i;
    lo = upper ? std::clamp<int64_t>(edge, 0, col) : 0;
    hi = upper ? col : std::clamp<int64_t>(edge + 1, 0, col);
  };
  int64_t n = 0;
  for (int64_t i = 0, lo, hi; i < row; ++i) {
    range(i, lo, hi);
    n += hi - lo;
  }
  const int64_t shape[] = {2, n};
  return host_then(shape, dtype, device, [&](Tensor& t) {
    dispatch_all(dtype, [&](auto tag) {
      using T = decltype(tag);
      T* p = t.data_ptr<T>();
      int64_t k = 0;
      for (int64_t i = 0, lo, hi; i < row; ++i) {
        range(i, lo, hi);
        for (int64_t j = lo; j < hi; ++j, ++k) {
          p[k] = convert<T, int64_t>(i);
          p[n + k] = convert<T, int64_t>(j);
        }
      }
    });
  });
}

Tensor empty_like(const Tensor& t, DType dtype, Device device) {
  const int64_t nd = t.dim();
  // Dense and non-overlapping: the strides, sorted, are those of a contiguous tensor of the permuted shape.
  Dims perm(static_cast<size_t>(nd), 0);
  std::iota(perm.begin(), perm.end(), int64_t{0});
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    return t.strides()[static_cast<size_t>(a)] > t.strides()[static_cast<size_t>(b)];
  });
  bool dense = !t.is_contiguous();
  int64_t expected = 1;
  for (int64_t i = nd - 1; dense && i >= 0; --i) {
    const int64_t d = perm[static_cast<size_t>(i)];
    const int64_t size = t.shape()[static_cast<size_t>(d)];
    if (size != 1 && t.strides()[static_cast<size_t>(d)] != expected) dense = false;
    expected *= size;
  }
  if (!dense || t.numel() == 0) return empty(t.shape(), dtype, device);
  Dims pshape(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < nd; ++i)
    pshape[static_cast<size_t>(i)] = t.shape()[static_cast<size_t>(perm[static_cast<size_t>(i)])];
  Tensor base = empty(pshape, dtype, device);
  Dims st(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < nd; ++i)
    st[static_cast<size_t>(perm[static_cast<size_t>(i)])] = base.strides()[static_cast<size_t>(i)];
  return make_view(base, t.shape(), st, base.offset());
}

}  // namespace glia::ops
