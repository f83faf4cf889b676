// The operators of the C API (glia_add ... glia_sum, glia_add_ / glia_mul_)
// against torch 1.13's golden fixtures (tests/golden/gen_ops.py): values and
// dtypes with broadcasting, type promotion, non-contiguous and zero-size
// operands, gradients of sum(out * w) for float64 cases, and error codes and
// messages; then argument checking.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

using nlohmann::json;

const glia_device kCpu = {GLIA_CPU, 0};

glia_dtype dtype_named(const std::string& name) {
  for (int d = GLIA_FLOAT32; d <= GLIA_BOOL; ++d)
    if (name == glia_dtype_name(static_cast<glia_dtype>(d))) return static_cast<glia_dtype>(d);
  ADD_FAILURE() << "unknown dtype " << name;
  return GLIA_FLOAT32;
}

enum glia_error_code code_named(const std::string& name) {
  for (int c = GLIA_ERR_INVALID_ARGUMENT; c <= GLIA_ERR_INTERNAL; ++c)
    if (name == glia_error_code_name(static_cast<enum glia_error_code>(c))) return static_cast<enum glia_error_code>(c);
  ADD_FAILURE() << "unknown error code " << name;
  return GLIA_ERR_INTERNAL;
}

double decode(const json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s == "nan") return NAN;
    return s == "inf" ? INFINITY : -INFINITY;
  }
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  return v.get<double>();
}

std::vector<double> decode_all(const json& vs) {
  std::vector<double> out;
  for (const json& v : vs) out.push_back(decode(v));
  return out;
}

// Owns the tensor handles of one test case.
struct Handles {
  std::vector<glia_tensor*> hs;
  glia_tensor* add(glia_tensor* t) {
    hs.push_back(t);
    return t;
  }
  ~Handles() {
    for (auto it = hs.rbegin(); it != hs.rend(); ++it) glia_error_free(glia_tensor_release(*it));
  }
};

glia_tensor* from_doubles(Handles& h, const std::vector<double>& v, const std::vector<int64_t>& shape) {
  glia_tensor* t = nullptr;
  glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(double), shape.data(),
                                        static_cast<int64_t>(shape.size()), GLIA_FLOAT64, &t);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return h.add(t);
}

// An operand as the fixture describes it (see gen_ops.py): built in float64,
// converted to its dtype, and viewed transposed when asked.
glia_tensor* operand(Handles& h, const json& in) {
  std::vector<int64_t> shape = in["shape"].get<std::vector<int64_t>>();
  bool transposed = in["transposed"].get<bool>();
  std::vector<int64_t> base_shape = shape;
  if (transposed) std::swap(base_shape[0], base_shape[1]);
  glia_tensor* f64 = from_doubles(h, decode_all(in["values"]), base_shape);
  glia_tensor* t = nullptr;
  glia_error* e = glia_tensor_to(f64, kCpu, dtype_named(in["dtype"]), &t);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  h.add(t);
  if (!transposed) return t;
  EXPECT_EQ(shape.size(), 2u);
  void* data = nullptr;
  EXPECT_EQ(glia_tensor_data(t, &data), nullptr);
  int64_t strides[2] = {1, shape[0]};
  glia_tensor* v = nullptr;
  e = glia_tensor_from_blob(data, shape.data(), strides, 2, dtype_named(in["dtype"]), kCpu, nullptr, nullptr, &v);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  int32_t contiguous = 1;
  EXPECT_EQ(glia_tensor_is_contiguous(v, &contiguous), nullptr);
  EXPECT_EQ(contiguous, shape[0] > 1 && shape[1] > 1 ? 0 : 1);
  return h.add(v);
}

glia_error* call(const json& c, const std::vector<glia_tensor*>& in, glia_tensor** out) {
  const std::string op = c["op"];
  const json& args = c["args"];
  if (op == "add") return glia_add(in[0], in[1], args.value("alpha", 1.0), out);
  if (op == "sub") return glia_sub(in[0], in[1], args.value("alpha", 1.0), out);
  if (op == "mul") return glia_mul(in[0], in[1], out);
  if (op == "div") {
    std::string mode = args.contains("rounding_mode") && !args["rounding_mode"].is_null() ? args["rounding_mode"] : "";
    return glia_div(in[0], in[1], mode.empty() ? nullptr : mode.c_str(), out);
  }
  if (op == "neg") return glia_neg(in[0], out);
  if (op == "sum") {
    int32_t keepdim = args.value("keepdim", false) ? 1 : 0;
    if (!args.contains("dims")) return glia_sum(in[0], nullptr, 0, keepdim, out);
    std::vector<int64_t> dims = args["dims"].get<std::vector<int64_t>>();
    return glia_sum(in[0], dims.data(), static_cast<int64_t>(dims.size()), keepdim, out);
  }
  ADD_FAILURE() << "unknown op " << op;
  return nullptr;
}

std::vector<int64_t> shape_of(const glia_tensor* t) {
  int64_t nd = 0;
  EXPECT_EQ(glia_tensor_ndim(t, &nd), nullptr);
  std::vector<int64_t> v(static_cast<size_t>(nd));
  EXPECT_EQ(glia_tensor_shape(t, nd, v.data()), nullptr);
  return v;
}

glia_dtype dtype_of(const glia_tensor* t) {
  glia_dtype d = GLIA_FLOAT32;
  EXPECT_EQ(glia_tensor_dtype(t, &d), nullptr);
  return d;
}

// The elements as doubles (row-major), whatever the dtype.
std::vector<double> host(Handles& h, glia_tensor* t) {
  glia_tensor* f64 = nullptr;
  glia_error* e = glia_tensor_to(t, kCpu, GLIA_FLOAT64, &f64);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  h.add(f64);
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_numel(f64, &n), nullptr);
  std::vector<double> v(static_cast<size_t>(n));
  e = glia_tensor_copy_to_host(f64, v.data(), v.size() * sizeof(double));
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return v;
}

// Relative tolerance per dtype: the fixtures' inputs are exact in every dtype,
// so single operations agree to rounding; float32 sums may round differently.
double tolerance(glia_dtype d) {
  switch (d) {
    case GLIA_FLOAT64:
      return 1e-12;
    case GLIA_FLOAT32:
      return 1e-6;
    case GLIA_FLOAT16:
      return 1e-3;
    case GLIA_BFLOAT16:
      return 1e-2;
    default:
      return 0;
  }
}

// check_zero_sign: outputs must match torch's signed zeros (division, floor of -0); gradients need not, as
// glia reduces a broadcast gradient before scaling it by -alpha where torch scales first.
void expect_values(const std::vector<double>& got, const std::vector<double>& want, double tol, const char* what,
                   bool check_zero_sign = true) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i << ": " << got[i] << " vs nan";
    } else if (std::isinf(want[i]) || tol == 0) {
      EXPECT_EQ(got[i], want[i]) << what << " element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " element " << i;
    }
    if (check_zero_sign && want[i] == 0 && got[i] == 0 && tol != 0)
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << what << " element " << i << ": sign of zero";
  }
}

json load(const char* name) {
  return json::parse(glia_test::read_file(glia_test::data_path(std::string("golden/ops/") + name)));
}

void run_cases(const json& fixture) {
  ASSERT_GT(fixture["cases"].size(), 0u);
  for (const json& c : fixture["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    Handles h;
    std::vector<glia_tensor*> in;
    for (const json& i : c["inputs"]) in.push_back(operand(h, i));
    bool with_grads = c.contains("grads");
    if (with_grads)
      for (glia_tensor* t : in) GLIA_OK_(glia_tensor_set_requires_grad(t, 1));
    glia_tensor* out = nullptr;
    GLIA_OK_(call(c, in, &out));
    h.add(out);
    glia_dtype od = dtype_named(c["out"]["dtype"]);
    EXPECT_EQ(dtype_of(out), od);
    EXPECT_EQ(shape_of(out), c["out"]["shape"].get<std::vector<int64_t>>());
    expect_values(host(h, out), decode_all(c["out"]["values"]), tolerance(od), "output");
    if (!with_grads) continue;
    glia_tensor* w = from_doubles(h, decode_all(c["w"]), c["out"]["shape"].get<std::vector<int64_t>>());
    glia_tensor *prod = nullptr, *loss = nullptr;
    GLIA_OK_(glia_mul(out, w, &prod));
    h.add(prod);
    GLIA_OK_(glia_sum(prod, nullptr, 0, 0, &loss));
    h.add(loss);
    GLIA_OK_(glia_tensor_backward(loss, nullptr, 0));
    for (size_t k = 0; k < in.size(); ++k) {
      glia_tensor* g = nullptr;
      GLIA_OK_(glia_tensor_grad(in[k], &g));
      ASSERT_NE(g, nullptr) << "input " << k << " has no grad";
      h.add(g);
      EXPECT_EQ(shape_of(g), shape_of(in[k]));
      EXPECT_EQ(dtype_of(g), GLIA_FLOAT64);
      std::string what = "grad of input " + std::to_string(k);
      expect_values(host(h, g), decode_all(c["grads"][k]), 1e-12, what.c_str(), false);
    }
  }
}

void run_errors(const json& fixture) {
  ASSERT_GT(fixture["errors"].size(), 0u);
  for (const json& c : fixture["errors"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    Handles h;
    std::vector<glia_tensor*> in;
    for (const json& i : c["inputs"]) in.push_back(operand(h, i));
    glia_tensor* out = nullptr;
    glia_error* e = call(c, in, &out);
    ASSERT_NE(e, nullptr) << "unexpectedly succeeded";
    EXPECT_EQ(out, nullptr);
    glia_test::ErrorInfo info = glia_test::take(e);
    EXPECT_EQ(info.code, code_named(c["code"])) << info.message;
    std::string want = c["message"];
    EXPECT_NE(info.message.find(want), std::string::npos) << "glia: " << info.message << "\ntorch: " << want;
  }
}

TEST(OpsGolden, Binary) { run_cases(load("binary.json")); }
TEST(OpsGolden, BinaryErrors) { run_errors(load("binary.json")); }
TEST(OpsGolden, Reduce) { run_cases(load("reduce.json")); }
TEST(OpsGolden, ReduceErrors) { run_errors(load("reduce.json")); }

// ------------------------------------------------------------------ the rest

glia_tensor* vec(Handles& h, std::vector<double> v) { return from_doubles(h, v, {static_cast<int64_t>(v.size())}); }

glia_tensor* typed(Handles& h, std::vector<double> v, glia_dtype d) {
  glia_tensor* t = nullptr;
  EXPECT_EQ(glia_tensor_to(vec(h, v), kCpu, d, &t), nullptr);
  return h.add(t);
}

TEST(Ops, ShapeMismatchMessage) {
  Handles h;
  const int64_t s23[] = {2, 3}, s24[] = {2, 4};
  glia_tensor *a = nullptr, *b = nullptr, *out = nullptr;
  GLIA_OK_(glia_tensor_zeros(s23, 2, nullptr, &a));
  h.add(a);
  GLIA_OK_(glia_tensor_zeros(s24, 2, nullptr, &b));
  h.add(b);
  glia_test::ErrorInfo info = glia_test::take(glia_add(a, b, 1.0, &out));
  EXPECT_EQ(info.code, GLIA_ERR_SHAPE);
  EXPECT_NE(
      info.message.find("The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
      std::string::npos)
      << info.message;
  EXPECT_EQ(out, nullptr);
}

TEST(Ops, InvalidHandlesAndArguments) {
  Handles h;
  glia_tensor* a = vec(h, {1, 2});
  glia_tensor* out = nullptr;
  glia_test::ErrorInfo info = glia_test::take(glia_add(nullptr, a, 1.0, &out));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_HANDLE);
  EXPECT_NE(info.message.find("glia_add: argument 'a' is NULL"), std::string::npos) << info.message;
  info = glia_test::take(glia_mul(a, nullptr, &out));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_HANDLE);
  EXPECT_NE(info.message.find("glia_mul: argument 'b'"), std::string::npos) << info.message;
  info = glia_test::take(glia_sub(a, a, 1.0, nullptr));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("glia_sub: argument 'out' is NULL"), std::string::npos) << info.message;
  info = glia_test::take(glia_neg(a, nullptr));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("glia_neg: argument 'out'"), std::string::npos) << info.message;
  info = glia_test::take(glia_sum(a, nullptr, 1, 0, &out));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("glia_sum: argument 'dims' is NULL"), std::string::npos) << info.message;
  info = glia_test::take(glia_sum(a, nullptr, -1, 0, &out));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("'n_dims'"), std::string::npos) << info.message;
  info = glia_test::take(glia_add_(nullptr, a, 1.0));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_HANDLE);
  EXPECT_NE(info.message.find("glia_add_: argument 'self'"), std::string::npos) << info.message;
  info = glia_test::take(glia_mul_(a, nullptr));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_HANDLE);
  EXPECT_NE(info.message.find("glia_mul_: argument 'other'"), std::string::npos) << info.message;
  EXPECT_EQ(out, nullptr);

  glia_tensor* dead = nullptr;
  GLIA_OK_(glia_tensor_zeros(nullptr, 0, nullptr, &dead));
  GLIA_OK_(glia_tensor_release(dead));
  info = glia_test::take(glia_div(a, dead, nullptr, &out));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_HANDLE);
  EXPECT_NE(info.message.find("glia_div: argument 'b' is not a live glia_"), std::string::npos) << info.message;
  EXPECT_EQ(out, nullptr);
}

TEST(Ops, InplaceAddAndMul) {
  Handles h;
  glia_tensor* x = vec(h, {1, 2, 3});
  GLIA_OK_(glia_add_(x, vec(h, {10, 20, 30}), 0.5));
  EXPECT_EQ(host(h, x), std::vector<double>({6, 12, 18}));
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_tensor_full(nullptr, 0, 2.0, nullptr, &s));
  h.add(s);
  GLIA_OK_(glia_mul_(x, s));  // float32 0-dim into float64: fine
  EXPECT_EQ(host(h, x), std::vector<double>({12, 24, 36}));
  EXPECT_EQ(dtype_of(x), GLIA_FLOAT64);

  // Broadcasting may not grow self; a float result may not go into an integer tensor.
  const int64_t s23[] = {2, 3};
  glia_tensor* big = nullptr;
  GLIA_OK_(glia_tensor_ones(s23, 2, nullptr, &big));
  h.add(big);
  glia_test::ErrorInfo info = glia_test::take(glia_add_(x, big, 1.0));
  EXPECT_EQ(info.code, GLIA_ERR_SHAPE);
  EXPECT_NE(info.message.find("output with shape [3] doesn't match the broadcast shape [2, 3]"), std::string::npos)
      << info.message;
  glia_tensor* ints = typed(h, {1, 2, 3}, GLIA_INT64);
  info = glia_test::take(glia_mul_(ints, x));
  EXPECT_EQ(info.code, GLIA_ERR_DTYPE);
  EXPECT_NE(info.message.find("can't be cast to the desired output type"), std::string::npos) << info.message;
  EXPECT_EQ(host(h, ints), std::vector<double>({1, 2, 3}));
  GLIA_OK_(glia_add_(ints, typed(h, {1, 1, 1}, GLIA_UINT8), 2.0));
  EXPECT_EQ(host(h, ints), std::vector<double>({3, 4, 5}));
  EXPECT_EQ(dtype_of(ints), GLIA_INT64);

  glia_tensor* mask = typed(h, {1, 0, 1}, GLIA_BOOL);
  info = glia_test::take(glia_add_(mask, ints, 1.0));
  EXPECT_EQ(info.code, GLIA_ERR_DTYPE);
}

TEST(Ops, OutputsAreIndependentOfInputs) {
  Handles h;
  glia_tensor* a = vec(h, {1, 2});
  glia_tensor* out = nullptr;
  GLIA_OK_(glia_add(a, vec(h, {0, 0}), 1.0, &out));
  h.add(out);
  GLIA_OK_(glia_add_(a, vec(h, {5, 5}), 1.0));
  EXPECT_EQ(host(h, out), std::vector<double>({1, 2}));
}

}  // namespace
