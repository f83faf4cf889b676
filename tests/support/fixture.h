// Tensor fixtures shared by the GoogleTest suites that go through the C API.
// Golden files encode a tensor as {dtype, shape, values}: values row-major,
// floating values as JSON numbers (exact doubles) or "nan"/"inf"/"-inf"
// (tests/golden/golden.py: encode / T).
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
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

}  // namespace glia_test
