// The state-dict values of the LR schedulers (lr_scheduler.cpp, lr_scheduler_extra.cpp): scalars and
// vectors written as float64/int64 CPU tensors, and the checked readers of a loaded dict's entries.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "optim/optimizer.h"

namespace glia::optim::sched_state {

inline Tensor f64_scalar(double v) { return full({}, v, DType::Float64, Device{}); }
inline Tensor i64_scalar(int64_t v) { return full({}, static_cast<double>(v), DType::Int64, Device{}); }
inline Tensor f64_vector(const std::vector<double>& v) {
  const auto n = static_cast<int64_t>(v.size());
  Tensor t = empty(IntSpan(&n, 1), DType::Float64, Device{});
  for (size_t i = 0; i < v.size(); ++i) t.data_ptr<double>()[i] = v[i];
  return t;
}
inline std::vector<double> f64_values(const Tensor& t) {
  Tensor c = contiguous(to_dtype(t, DType::Float64));
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}
inline const Tensor& entry(const nn::TensorDict& d, const std::string& key) {
  const Tensor* t = d.find(key);
  GLIA_CHECK(t && t->defined(), InvalidArgument, "loaded scheduler state dict is missing \"", key, "\"");
  GLIA_CHECK(t->device().is_cpu(), InvalidArgument, "loaded scheduler state dict's \"", key, "\" is not on the CPU");
  return *t;
}
inline double scalar_entry(const nn::TensorDict& d, const std::string& key) {
  const Tensor& t = entry(d, key);
  GLIA_CHECK(t.numel() == 1, InvalidArgument, "loaded scheduler state dict's \"", key, "\" has ", t.numel(),
             " values, expected 1");
  return f64_values(t)[0];
}
inline int64_t int_entry(const nn::TensorDict& d, const std::string& key) {
  double v = scalar_entry(d, key);
  GLIA_CHECK(v == std::floor(v) && std::fabs(v) < 9.0e15, InvalidArgument, "loaded scheduler state dict's \"", key,
             "\" must be an integer, got ", py_float(v));
  return static_cast<int64_t>(v);
}

}  // namespace glia::optim::sched_state
