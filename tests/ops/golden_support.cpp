#include "ops/golden_support.h"

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

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
glia_tensor* operand(Handles& h, const json& in, const glia_device* device) {
  if (in.is_null()) return nullptr;
  std::vector<int64_t> shp = in["shape"].get<std::vector<int64_t>>();
  bool transposed = in["transposed"].get<bool>();
  std::vector<int64_t> base_shape = shp;
  if (transposed) std::swap(base_shape[0], base_shape[1]);
  glia_tensor* t = make(h, decode_all(in["values"]), base_shape, dtype_named(in["dtype"]));
  if (device) {
    // Built on the host and copied: the device run sees the same values, and the transposed view is taken there.
    glia_tensor* d = nullptr;
    ok(glia_tensor_to(t, device, ptr_to(dtype(t)), &d), "copy an operand to the device");
    t = h.add(d);
  }
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

namespace {

// Note [Golden cases on every device]: each case runs on the CPU and then, when
// the test device (tests/testdevice) is loaded, with its operands copied to
// testdevice:0 (transposed views taken there). The device run must give the
// same outputs and gradients within the case's tolerance. An op whose kernel
// the device lacks fails with GLIA_ERR_UNSUPPORTED; that is accepted only for
// the ops listed in tests/testdevice/unsupported_ops.txt ("op" for the op
// itself, "op grad" for its backward), and a listed op that runs fails too, so
// the list only shrinks and says exactly what is left.
std::set<std::string> load_unsupported() {
  std::set<std::string> out;
  std::istringstream in(glia_test::read_file(glia_test::data_path("testdevice/unsupported_ops.txt")));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    out.insert(line);
  }
  return out;
}
const std::set<std::string>& unsupported() {
  static const std::set<std::string> s = load_unsupported();
  return s;
}
bool listed(const std::string& entry) { return unsupported().count(entry) != 0; }

const glia_device* test_device() {
#ifdef GLIA_TESTDEVICE_PATH
  static const bool loaded = [] {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    if (e) {
      ADD_FAILURE() << "cannot load the test device: " << glia_error_message(e);
      glia_error_free(e);
      return false;
    }
    return true;
  }();
  static const glia_device d{GLIA_PRIVATEUSE1, 0};
  return loaded ? &d : nullptr;
#else
  return nullptr;
#endif
}

// The device run's name in messages, and whether an unsupported kernel is a failure whatever the test
// device's list says (run_cases_on: the CUDA golden run).
const char* g_device_label = "testdevice:0";
bool g_strict = false;
const std::set<std::string>* g_forward_only = nullptr;  // ops whose gradients run_cases_on does not check

// Per op (and "op grad") of a fixture file: whether some device case was refused for want of a kernel.
using Refusals = std::map<std::string, bool>;

// Whether an error of the device run is an accepted "no kernel" (then it is freed).
bool accepted_unsupported(glia_error* e, const std::string& entry, Refusals& refused) {
  if (g_strict || glia_error_code(e) != GLIA_ERR_UNSUPPORTED || !listed(entry)) return false;
  glia_error_free(e);
  refused[entry] = true;
  return true;
}

void run_case(const char* file, const json& c, const glia_device* device, Refusals& refused) {
  const std::string name = c["name"], op = c["op"];
  SCOPED_TRACE(std::string(file) + ": " + name + (device ? std::string(" (on ") + g_device_label + ")" : ""));
  const Adapter* adapter = find_adapter(op);
  ASSERT_NE(adapter, nullptr) << "no adapter for op " << op;
  {
    Handles h;
    Call call{c["args"], {}, {}, device};
    for (const json& i : c["inputs"]) call.in.push_back(operand(h, i, device));
    const bool with_grads = c.contains("grads") && !(device && g_forward_only && g_forward_only->count(op));
    if (with_grads)
      for (size_t k = 0; k < call.in.size(); ++k)
        if (!c["grads"][k].is_null()) ok(glia_tensor_set_requires_grad(call.in[k], 1), "set_requires_grad");
    glia_error* e = (*adapter)(call);
    for (glia_tensor* o : call.outs) h.add(o);
    if (device) {
      refused.emplace(op, false);
      if (e && accepted_unsupported(e, op, refused)) return;
      // An output left on the CPU is as unsupported as an error (e.g. an empty case no kernel ran for).
      bool on_device = !e;
      for (size_t k = 0; on_device && k < call.outs.size(); ++k) {
        glia_device od{};
        on_device = call.outs[k] && glia_tensor_device(call.outs[k], &od) == nullptr && od.type == device->type;
      }
      if (!e && !on_device) {
        if (listed(op) && !g_strict) {
          refused[op] = true;
          return;
        }
        ADD_FAILURE() << op << ": an output is not on " << g_device_label;
        return;
      }
    }
    if (e) {
      ADD_FAILURE() << op << " failed: " << glia_error_message(e)
                    << (device && glia_error_code(e) == GLIA_ERR_UNSUPPORTED
                            ? "\n(no device kernel: list \"" + op + "\" in tests/testdevice/unsupported_ops.txt)"
                            : "");
      glia_error_free(e);
      return;
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
    if (!with_grads) return;

    // Gradients of sum_k sum(outs[k] * w[k]) against torch's.
    std::vector<glia::Tensor> ws;
    glia_tensor* total = nullptr;
    glia_error* ge = nullptr;
    for (size_t k = 0; k < outs.size() && !ge; ++k) {
      if (c["w"][k].is_null()) {
        ws.emplace_back();
        continue;
      }
      glia_tensor* w = make(h, decode_all(c["w"][k]), outs[k]["shape"].get<std::vector<int64_t>>());
      if (device) {
        glia_tensor* dw = nullptr;
        ok(glia_tensor_to(w, device, ptr_to(GLIA_FLOAT64), &dw), "copy w to the device");
        w = h.add(dw);
      }
      ws.push_back(glia::capi::tensor_arg(w, "test", "w"));
      glia_tensor *prod = nullptr, *s = nullptr;
      if ((ge = glia_mul(call.outs[k], w, &prod))) break;
      h.add(prod);
      if ((ge = glia_sum(prod, nullptr, 0, 0, &s))) break;
      h.add(s);
      if (!total) {
        total = s;
      } else {
        glia_tensor* t2 = nullptr;
        if ((ge = glia_add(total, s, 1.0, &t2))) break;
        total = h.add(t2);
      }
    }
    if (!ge) {
      ASSERT_NE(total, nullptr) << "no differentiable output";
      ge = glia_tensor_backward(total, nullptr, 0);
    }
    const std::string grad_entry = op + " grad";
    if (device) {
      refused.emplace(grad_entry, false);
      if (ge && accepted_unsupported(ge, grad_entry, refused)) return;
    }
    if (ge) {
      ADD_FAILURE() << op << ": gradient failed: " << glia_error_message(ge)
                    << (device && glia_error_code(ge) == GLIA_ERR_UNSUPPORTED
                            ? "\n(no device kernel: list \"" + grad_entry +
                                  "\" in tests/testdevice/unsupported_ops.txt)"
                            : "");
      glia_error_free(ge);
      return;
    }
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
      if (device) {
        glia_device gd{};
        GLIA_OK_(glia_tensor_device(g, &gd));
        EXPECT_EQ(gd.type, device->type) << what << " is not on the device";
      }
      expect_values(values(g), want, gtol, what, false);
      GLIA_OK_(glia_tensor_set_grad(call.in[k], nullptr));
    }
    // Finite differences through the same adapter (on the CPU: the device run checks
    // its analytic gradients against torch's above).
    if (device || !c.value("gradcheck", true)) return;
    glia_test::GradFn f = [&](const glia::TensorList& in) { return contracted(*adapter, c["args"], in, ws); };
    EXPECT_TRUE(glia_test::gradcheck(f, xs)) << "gradcheck";
    if (grad_kind(op) == glia::capi::OpGrad::Second) EXPECT_TRUE(glia_test::gradgradcheck(f, xs)) << "gradgradcheck";
  }
}

}  // namespace

void run_cases(const char* file) {
  json fixture = load_fixture(file);
  ASSERT_GT(fixture["cases"].size(), 0u) << file;
  Refusals refused;
  for (const json& c : fixture["cases"]) run_case(file, c, nullptr, refused);
  const glia_device* d = test_device();
  if (!d) return;
  for (const json& c : fixture["cases"]) run_case(file, c, d, refused);
  // A listed op none of whose cases was refused runs on the device now: the list must shrink.
  for (const auto& [entry, was_refused] : refused)
    if (listed(entry) && !was_refused)
      ADD_FAILURE() << file << ": \"" << entry << "\" runs on the test device in every case now: remove it from "
                    << "tests/testdevice/unsupported_ops.txt";
}

int run_cases_on(const char* file, const glia_device* device, const char* label, const std::set<std::string>& ops,
                 const std::set<std::string>& forward_only) {
  json fixture = load_fixture(file);
  if (!fixture.contains("cases")) return 0;
  Refusals refused;
  const char* saved_label = g_device_label;
  const bool saved_strict = g_strict;
  g_device_label = label;
  g_strict = true;
  g_forward_only = &forward_only;
  int n = 0;
  for (const json& c : fixture["cases"]) {
    if (!ops.count(c["op"].get<std::string>())) continue;
    run_case(file, c, device, refused);
    ++n;
  }
  g_device_label = saved_label;
  g_strict = saved_strict;
  g_forward_only = nullptr;
  return n;
}

// Error cases run on the CPU and, with every operand on the test device, again there: the same
// code and torch's same message, except that a tensor type is named with its device as torch names
// it ("torch.testdevice.FloatTensor" where the CPU says "torch.FloatTensor").
void run_errors(const char* file) {
  json fixture = load_fixture(file);
  ASSERT_GT(fixture["errors"].size(), 0u) << file;
  for (const glia_device* device : {static_cast<const glia_device*>(nullptr), test_device()}) {
    for (const json& c : fixture["errors"]) {
      const std::string name = c["name"], op = c["op"];
      SCOPED_TRACE(std::string(file) + ": " + name + (device ? " (testdevice:0)" : ""));
      const Adapter* adapter = find_adapter(op);
      ASSERT_NE(adapter, nullptr) << "no adapter for op " << op;
      Handles h;
      Call call{c["args"], {}, {}, device};
      for (const json& i : c["inputs"]) call.in.push_back(operand(h, i, device));
      glia_error* e = (*adapter)(call);
      for (glia_tensor* o : call.outs) {
        EXPECT_EQ(o, nullptr) << "an output was written by a failing call";
        h.add(o);
      }
      ASSERT_NE(e, nullptr) << "unexpectedly succeeded";
      glia_test::ErrorInfo info = glia_test::take(e);
      EXPECT_STREQ(glia_error_code_name(info.code), glia_error_code_name(code_named(c["code"]))) << info.message;
      if (c["message"].is_null()) continue;
      std::string want = c["message"], got = info.message;
      for (size_t at; device && (at = got.find("torch.testdevice.")) != std::string::npos;)
        got.replace(at, std::string("torch.testdevice.").size(), "torch.");
      EXPECT_NE(got.find(want), std::string::npos) << "glia: " << info.message << "\ntorch: " << want;
    }
    if (!test_device()) break;
  }
}

}  // namespace glia_ops_test
