// Tensor fixtures shared by the GoogleTest suites that go through the C API.
// Golden files encode a tensor as {dtype, shape, values}: values row-major,
// floating values as JSON numbers (exact doubles) or "nan"/"inf"/"-inf"
// (tests/golden/golden.py: encode / T).
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "glia/glia.h"
#include "support/test_support.h"

namespace glia_test {

using json = nlohmann::json;

// Owns handles; releases them in reverse order.
struct Handles {
  std::vector<glia_tensor*> hs;
  glia_tensor* add(glia_tensor* t) {
    if (t) hs.push_back(t);
    return t;
  }
  ~Handles();
};

glia_dtype dtype_named(const std::string& name);
enum glia_error_code code_named(const std::string& name);
// A JSON value as a double ("nan", "inf", "-inf", booleans included).
double decode(const json& v);
std::vector<double> decode_all(const json& vs);
// Expects e == NULL (frees it otherwise, reporting `what`).
void ok(glia_error* e, const char* what);
// float64 1e-10, float32 1e-5, float16 1e-3, bfloat16 1e-2, exact otherwise.
double default_tolerance(glia_dtype d);
// |got - want| <= tol * (1 + |want|) per element (NaN matches NaN).
void expect_values(const std::vector<double>& got, const std::vector<double>& want, double tol, const std::string& what,
                   bool check_zero_sign = false);

// A float64 tensor with these values (row-major), converted to `dtype`.
glia_tensor* make(Handles& h, const std::vector<double>& values, const std::vector<int64_t>& shape,
                  glia_dtype dtype = GLIA_FLOAT64);
// Elements as doubles, row-major.
std::vector<double> values(glia_tensor* t);
std::vector<int64_t> shape(const glia_tensor* t);
glia_dtype dtype(const glia_tensor* t);

// A tensor from its JSON encoding {dtype, shape, values} (null gives NULL).
glia_tensor* tensor_from_json(Handles& h, const json& t);
// Shape and values of `got` against an encoded tensor; tol < 0: the dtype's default.
void expect_tensor(glia_tensor* got, const json& want, double tol, const std::string& what);
// A JSON file under tests/ (e.g. "golden/modules/linear.json").
json load_json(const std::string& relative);

// Sample statistics (std with n - 1).
struct Stats {
  double mean = 0, std = 0, min = 0, max = 0;
};
Stats stats(const std::vector<double>& v);

// ---- other handles: modules, optimizers, schedulers, tensor dicts ----------------

// Owns one reference to a glia object; releases it at scope exit.
template <class T, glia_error* (*Release)(T*)>
class Owned {
 public:
  Owned() = default;
  explicit Owned(T* p) : p_(p) {}
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { glia_error_free(Release(p_)); }
  T* get() const { return p_; }
  T** out() { return &p_; }
  // Gives up ownership.
  T* release() { return std::exchange(p_, nullptr); }
  operator T*() const { return p_; }

 private:
  T* p_ = nullptr;
};
using ModuleHandle = Owned<glia_module, glia_module_release>;
using OptHandle = Owned<glia_optimizer, glia_optimizer_release>;
using SchedHandle = Owned<glia_lr_scheduler, glia_lr_scheduler_release>;
using DictHandle = Owned<glia_tensor_dict, glia_tensor_dict_release>;

// The message of a failed call (frees the error; `code` gets its code); "" on success.
std::string error_text(glia_error* e, enum glia_error_code* code = nullptr);
// glia_module_to_string: torch's repr.
std::string module_repr(const glia_module* m);
std::string grad_fn_name(const glia_tensor* t);
std::vector<std::string> dict_keys(glia_tensor_dict* d);
std::vector<std::string> state_dict_keys(glia_module* m);
// New references (owned by h) to a module's parameter / buffer at `path`, and a tensor's grad.
glia_tensor* parameter(Handles& h, glia_module* m, const std::string& path);
glia_tensor* buffer(Handles& h, glia_module* m, const std::string& path);
glia_tensor* grad_of(Handles& h, glia_tensor* t);
// dst <- the encoded tensor, without recording autograd.
void assign(Handles& h, glia_tensor* dst, const json& src);
// module(inputs) with one output (owned by h).
glia_tensor* call(Handles& h, glia_module* m, std::vector<const glia_tensor*> inputs);

}  // namespace glia_test
