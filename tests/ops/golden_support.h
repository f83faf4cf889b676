// The operator test harness: runs the golden fixtures of tests/golden/ops/
// (format: tests/golden/golden.py) through the C API.
//
// Each family's test file registers one adapter per op, which turns a case's
// JSON args and input handles into a call of glia_<op>, e.g.
//
//   GLIA_ADAPTER(relu) { return glia_relu(c.in[0], c.out()); }
//
// and runs its fixture file:
//
//   TEST(Activation, Golden) { run_cases("activation.json"); }
//   TEST(Activation, Errors) { run_errors("activation.json"); }
//
// For every case the harness checks each output's dtype, shape and values;
// for float64 cases of differentiable ops it also compares the gradients of
// sum_k sum(outs[k] * w[k]) with torch's, and runs a finite-difference
// gradcheck through the adapter (and a gradgradcheck for ops the registry
// marks GRAD2). An error case must fail with the code and contain torch's
// message, and leave no output behind.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "glia/glia.h"
#include "support/fixture.h"
#include "support/test_support.h"

namespace glia_ops_test {

using nlohmann::json;

// One call of an op: its args, its inputs (NULL for an absent optional
// input), and the outputs the adapter produces (owned by the harness).
struct Call {
  const json& args;
  std::vector<glia_tensor*> in;
  std::vector<glia_tensor*> outs;
  // The device the case runs on (NULL: the CPU), for factories that take no tensor to follow.
  const glia_device* device = nullptr;
  // The slot for a single output: `return glia_relu(c.in[0], c.out());`
  glia_tensor** out() {
    outs.assign(1, nullptr);
    return &outs[0];
  }
  // `n` output slots (an op with several results, e.g. max with indices).
  glia_tensor** out(size_t n) {
    outs.assign(n, nullptr);
    return outs.data();
  }
  // Args with defaults.
  double num(const char* key, double def) const;
  int64_t integer(const char* key, int64_t def) const;
  bool flag(const char* key, bool def) const;
  std::vector<int64_t> ints(const char* key) const;  // [] when absent
  bool has(const char* key) const { return args.contains(key) && !args[key].is_null(); }
  std::string str(const char* key, const char* def) const;
  // A torch Scalar argument: JSON integers become GLIA_SCALAR_INT, booleans
  // GLIA_SCALAR_BOOL, other numbers (and "inf"/"nan" strings) GLIA_SCALAR_FLOAT.
  glia_scalar scalar(const char* key) const;
};

using Adapter = std::function<glia_error*(Call&)>;

struct RegisterAdapter {
  RegisterAdapter(const char* op, Adapter a);
};

// Registered adapters by op name.
const std::vector<std::pair<std::string, Adapter>>& adapters();
const Adapter* find_adapter(const std::string& op);

#define GLIA_ADAPTER_CAT2(a, b) a##b
#define GLIA_ADAPTER_CAT(a, b) GLIA_ADAPTER_CAT2(a, b)
// Defines and registers the adapter of op `name`; the body sees `Call& c`.
#define GLIA_ADAPTER(name)                                                             \
  static glia_error* GLIA_ADAPTER_CAT(glia_adapter_, name)(::glia_ops_test::Call & c); \
  static ::glia_ops_test::RegisterAdapter GLIA_ADAPTER_CAT(glia_adapter_reg_, name)(   \
      #name, GLIA_ADAPTER_CAT(glia_adapter_, name));                                   \
  static glia_error* GLIA_ADAPTER_CAT(glia_adapter_, name)([[maybe_unused]] ::glia_ops_test::Call & c)

// Runs every case / every error case of tests/golden/ops/<file>.
void run_cases(const char* file);
void run_errors(const char* file);
// The cases of `file` whose op is in `ops`, on `device` only (named `label` in messages), compared with the
// fixture's outputs and (except for the ops in `forward_only`) gradients; an unsupported kernel is a failure.
// Returns the number of cases run.
int run_cases_on(const char* file, const glia_device* device, const char* label, const std::set<std::string>& ops,
                 const std::set<std::string>& forward_only);

// The whole fixture file.
json load_fixture(const std::string& file);

// ---- small helpers for hand-written tests (tests/support/fixture.h)
using glia_test::code_named;
using glia_test::decode;
using glia_test::decode_all;
using glia_test::default_tolerance;
using glia_test::dtype;
using glia_test::dtype_named;
using glia_test::expect_values;
using glia_test::Handles;
using glia_test::make;
using glia_test::ok;
using glia_test::shape;
using glia_test::values;

}  // namespace glia_ops_test
