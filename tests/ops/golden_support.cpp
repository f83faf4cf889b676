#include "ops/golden_support.h"

#include <cmath>
#include <cstring>
#include <map>

#include "autograd/functions.h"
#include "capi/api.h"
#include "capi/op_registry.h"
#include "support/gradcheck.h"

namespace glia_ops_test {

namespace {

std::vector<std::pair<std::string, Adapter>>& registry() {
  static std::vector<std::pair<std::string, Adapter>> r;
  return r;
}

// An operand as the fixture describes it: built in float64 (exact for every
// fixture value: the generator keeps integers below 2^53), converted to its
// dtype, and viewed transposed when asked.
glia_tensor* operand(Handles& h, const json& in) {
  if (in.is_null()) return nullptr;
  std::vector<int64_t> shp = in["shape"].get<std::vector<int64_t>>();
  bool transposed = in["transposed"].get<bool>();
  std::vector<int64_t> base_shape = shp;
  if (transposed) std::swap(base_shape[0], base_shape[1]);
  glia_tensor* t = make(h, decode_all(in["values"]), base_shape, dtype_named(in["dtype"]));
  if (!transposed) return t;
  glia_tensor* v = nullptr;
  ok(glia_transpose(t, 0, 1, &v), "transpose an operand");
  return h.add(v);
}

glia::capi::OpGrad grad_kind(const std::string& op) {
  for (const auto& info : glia::capi::op_registry())
    if (op == info.name) return info.grad;
  return glia::capi::OpGrad::None;
}

// Runs the adapter on internal tensors; the sum over outputs of sum(out * w).
glia::Tensor contracted(const Adapter& a, const json& args, const glia::TensorList& xs,
                        const std::vector<glia::Tensor>& ws) {
  using namespace glia;
  Handles h;
  Call call{args, {}, {}};
  for (const Tensor& x : xs) call.in.push_back(x.defined() ? h.add(capi::tensor_handle(x)) : nullptr);
  glia_error* e = a(call);
  for (glia_tensor* o : call.outs) h.add(o);
  if (e) {
    std::string msg = glia_error_message(e);
    glia_error_free(e);
    throw std::runtime_error("the op failed during the gradient check: " + msg);
  }
  Tensor total;
  for (size_t k = 0; k < call.outs.size() && k < ws.size(); ++k) {
    if (!ws[k].defined()) continue;
    Tensor o = capi::tensor_arg(call.outs[k], "gradcheck", "output");
    Tensor term = sum(mul(o, ws[k]), {}, false);
    total = total.defined() ? add(total, term) : term;
  }
  return total;
}

}  // namespace

// ---- Call

double Call::num(const char* key, double def) const { return has(key) ? decode(args[key]) : def; }
int64_t Call::integer(const char* key, int64_t def) const { return has(key) ? args[key].get<int64_t>() : def; }
bool Call::flag(const char* key, bool def) const { return has(key) ? args[key].get<bool>() : def; }
std::vector<int64_t> Call::ints(const char* key) const {
  if (!has(key)) return {};
  if (args[key].is_number()) return {args[key].get<int64_t>()};
  return args[key].get<std::vector<int64_t>>();
}
std::string Call::str(const char* key, const char* def) const {
  return has(key) ? args[key].get<std::string>() : std::string(def);
}
glia_scalar Call::scalar(const char* key) const {
  const json& v = args.at(key);
  if (v.is_boolean()) return glia_scalar_bool(v.get<bool>());
  if (v.is_number_integer()) return glia_scalar_int(v.get<int64_t>());
  return glia_scalar_float(decode(v));
}

RegisterAdapter::RegisterAdapter(const char* op, Adapter a) { registry().emplace_back(op, std::move(a)); }
const std::vector<std::pair<std::string, Adapter>>& adapters() { return registry(); }
const Adapter* find_adapter(const std::string& op) {
  for (const auto& [name, a] : registry())
    if (name == op) return &a;
  return nullptr;
}

json load_fixture(const std::string& file) {
  return json::parse(glia_test::read_file(glia_test::data_path("golden/ops/" + file)));
}

void run_cases(const char* file) {
  json fixture = load_fixture(file);
  ASSERT_GT(fixture["cases"].size(), 0u) << file;
  for (const json& c : fixture["cases"]) {
    const std::string name = c["name"], op = c["op"];
    SCOPED_TRACE(std::string(file) + ": " + name);
    const Adapter* adapter = find_adapter(op);
    ASSERT_NE(adapter, nullptr) << "no adapter for op " << op;
    Handles h;
    Call call{c["args"], {}, {}};
    for (const json& i : c["inputs"]) call.in.push_back(operand(h, i));
    const bool with_grads = c.contains("grads");
    if (with_grads)
      for (size_t k = 0; k < call.in.size(); ++k)
        if (!c["grads"][k].is_null()) ok(glia_tensor_set_requires_grad(call.in[k], 1), "set_requires_grad");
    glia_error* e = (*adapter)(call);
    for (glia_tensor* o : call.outs) h.add(o);
    if (e) {
      ADD_FAILURE() << op << " failed: " << glia_error_message(e);
      glia_error_free(e);
      continue;
    }
    const json& outs = c["outs"];
    ASSERT_EQ(call.outs.size(), outs.size()) << "number of outputs";
    const bool zero_sign = c.value("signed_zeros", false);
    for (size_t k = 0; k < outs.size(); ++k) {
      std::string what = "output " + std::to_string(k);
      ASSERT_NE(call.outs[k], nullptr) << what;
      glia_dtype od = dtype_named(outs[k]["dtype"]);
      EXPECT_EQ(glia_dtype_name(dtype(call.outs[k])), glia_dtype_name(od)) << what;
      ASSERT_EQ(shape(call.outs[k]), outs[k]["shape"].get<std::vector<int64_t>>()) << what;
      double tol = c.contains("tol") ? c["tol"].get<double>() : default_tolerance(od);
      expect_values(values(call.outs[k]), decode_all(outs[k]["values"]), tol, what, zero_sign);
    }
    if (!with_grads) continue;

    // Gradients of sum_k sum(outs[k] * w[k]) against torch's.
    std::vector<glia::Tensor> ws;
    glia_tensor* total = nullptr;
    for (size_t k = 0; k < outs.size(); ++k) {
      if (c["w"][k].is_null()) {
        ws.emplace_back();
        continue;
      }
      glia_tensor* w = make(h, decode_all(c["w"][k]), outs[k]["shape"].get<std::vector<int64_t>>());
      ws.push_back(glia::capi::tensor_arg(w, "test", "w"));
      glia_tensor *prod = nullptr, *s = nullptr;
      GLIA_OK_(glia_mul(call.outs[k], w, &prod));
      h.add(prod);
      GLIA_OK_(glia_sum(prod, nullptr, 0, 0, &s));
      h.add(s);
      if (!total) {
        total = s;
      } else {
        glia_tensor* t2 = nullptr;
        GLIA_OK_(glia_add(total, s, 1.0, &t2));
        total = h.add(t2);
      }
    }
    ASSERT_NE(total, nullptr) << "no differentiable output";
    GLIA_OK_(glia_tensor_backward(total, nullptr, 0));
    double gtol = std::max(1e-10, c.contains("tol") ? c["tol"].get<double>() : 0.0);
    glia::TensorList xs;
    for (size_t k = 0; k < call.in.size(); ++k) {
      xs.push_back(call.in[k] ? glia::capi::tensor_arg(call.in[k], "test", "input") : glia::Tensor());
      if (c["grads"][k].is_null()) continue;
      glia_tensor* g = nullptr;
      GLIA_OK_(glia_tensor_grad(call.in[k], &g));
      std::string what = "grad of input " + std::to_string(k);
      std::vector<double> want = decode_all(c["grads"][k]);
      if (!g) {
        // No gradient flowed: torch's zeros.
        for (double v : want) EXPECT_EQ(v, 0.0) << what << " is missing";
        continue;
      }
      h.add(g);
      EXPECT_EQ(shape(g), shape(call.in[k])) << what;
      EXPECT_EQ(dtype(g), GLIA_FLOAT64) << what;
      expect_values(values(g), want, gtol, what, false);
      GLIA_OK_(glia_tensor_set_grad(call.in[k], nullptr));
    }
    if (!c.value("gradcheck", true)) continue;

    // Finite differences through the same adapter.
    glia_test::GradFn f = [&](const glia::TensorList& in) { return contracted(*adapter, c["args"], in, ws); };
    EXPECT_TRUE(glia_test::gradcheck(f, xs)) << "gradcheck";
    if (grad_kind(op) == glia::capi::OpGrad::Second) EXPECT_TRUE(glia_test::gradgradcheck(f, xs)) << "gradgradcheck";
  }
}

void run_errors(const char* file) {
  json fixture = load_fixture(file);
  ASSERT_GT(fixture["errors"].size(), 0u) << file;
  for (const json& c : fixture["errors"]) {
    const std::string name = c["name"], op = c["op"];
    SCOPED_TRACE(std::string(file) + ": " + name);
    const Adapter* adapter = find_adapter(op);
    ASSERT_NE(adapter, nullptr) << "no adapter for op " << op;
    Handles h;
    Call call{c["args"], {}, {}};
    for (const json& i : c["inputs"]) call.in.push_back(operand(h, i));
    glia_error* e = (*adapter)(call);
    for (glia_tensor* o : call.outs) {
      EXPECT_EQ(o, nullptr) << "an output was written by a failing call";
      h.add(o);
    }
    ASSERT_NE(e, nullptr) << "unexpectedly succeeded";
    glia_test::ErrorInfo info = glia_test::take(e);
    EXPECT_STREQ(glia_error_code_name(info.code), glia_error_code_name(code_named(c["code"]))) << info.message;
    if (c["message"].is_null()) continue;
    std::string want = c["message"];
    EXPECT_NE(info.message.find(want), std::string::npos) << "glia: " << info.message << "\ntorch: " << want;
  }
}

}  // namespace glia_ops_test
