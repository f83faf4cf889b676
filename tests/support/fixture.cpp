// Tensor fixtures shared by the GoogleTest suites that go through the C API:
// JSON-encoded values (golden files written by tests/golden/*.py), handle
// owners, tolerance checks.
#include "support/fixture.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace glia_test {

namespace {
const glia_device kCpu = {GLIA_CPU, 0};
}  // namespace

glia_dtype dtype_named(const std::string& name) {
  for (int d = GLIA_FLOAT32; d <= GLIA_INT16; ++d)
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
  out.reserve(vs.size());
  for (const json& v : vs) out.push_back(decode(v));
  return out;
}

void ok(glia_error* e, const char* what) {
  EXPECT_EQ(e, nullptr) << what << ": " << glia_error_message(e);
  glia_error_free(e);
}

double default_tolerance(glia_dtype d) {
  switch (d) {
    case GLIA_FLOAT64:
      return 1e-10;
    case GLIA_FLOAT32:
      return 1e-5;
    case GLIA_FLOAT16:
      return 1e-3;
    case GLIA_BFLOAT16:
      return 1e-2;
    default:
      return 0;
  }
}

void expect_values(const std::vector<double>& got, const std::vector<double>& want, double tol, const std::string& what,
                   bool check_zero_sign) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < got.size() && reported < 10; ++i) {
    bool good;
    if (std::isnan(want[i]))
      good = std::isnan(got[i]);
    else if (std::isinf(want[i]) || tol == 0)
      good = got[i] == want[i];
    else
      good = std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i]));
    if (good && check_zero_sign && want[i] == 0 && got[i] == 0 && tol != 0)
      good = std::signbit(got[i]) == std::signbit(want[i]);
    if (!good) {
      ++reported;
      ADD_FAILURE() << what << " element " << i << ": glia " << got[i] << ", torch " << want[i] << " (tol " << tol
                    << ")";
    }
  }
}

Handles::~Handles() {
  for (auto it = hs.rbegin(); it != hs.rend(); ++it) glia_error_free(glia_tensor_release(*it));
}

glia_tensor* make(Handles& h, const std::vector<double>& v, const std::vector<int64_t>& shp, glia_dtype d) {
  glia_tensor* t = nullptr;
  ok(glia_tensor_from_data(v.data(), v.size() * sizeof(double), shp.data(), static_cast<int64_t>(shp.size()),
                           GLIA_FLOAT64, &t),
     "glia_tensor_from_data");
  h.add(t);
  if (d == GLIA_FLOAT64) return t;
  glia_tensor* c = nullptr;
  ok(glia_tensor_to(t, &kCpu, &d, &c), "glia_tensor_to");
  return h.add(c);
}

std::vector<int64_t> shape(const glia_tensor* t) {
  int64_t nd = 0;
  ok(glia_tensor_ndim(t, &nd), "ndim");
  std::vector<int64_t> v(static_cast<size_t>(nd));
  ok(glia_tensor_shape(t, nd, v.data()), "shape");
  return v;
}

glia_dtype dtype(const glia_tensor* t) {
  glia_dtype d = GLIA_FLOAT32;
  ok(glia_tensor_dtype(t, &d), "dtype");
  return d;
}

std::vector<double> values(glia_tensor* t) {
  Handles h;
  glia_tensor* f64 = nullptr;
  ok(glia_tensor_to(t, &kCpu, ptr_to(GLIA_FLOAT64), &f64), "to float64");
  h.add(f64);
  glia_tensor* c = nullptr;
  ok(glia_tensor_contiguous(f64, &c), "contiguous");
  h.add(c);
  int64_t n = 0;
  ok(glia_tensor_numel(c, &n), "numel");
  std::vector<double> v(static_cast<size_t>(n));
  ok(glia_tensor_copy_to_host(c, v.data(), v.size() * sizeof(double)), "copy_to_host");
  return v;
}

glia_tensor* tensor_from_json(Handles& h, const json& t) {
  if (t.is_null()) return nullptr;
  return make(h, decode_all(t["values"]), t["shape"].get<std::vector<int64_t>>(), dtype_named(t["dtype"]));
}

void expect_tensor(glia_tensor* got, const json& want, double tol, const std::string& what) {
  ASSERT_NE(got, nullptr) << what << ": no tensor";
  EXPECT_EQ(shape(got), want["shape"].get<std::vector<int64_t>>()) << what << ": shape";
  if (tol < 0) tol = default_tolerance(dtype_named(want["dtype"]));
  expect_values(values(got), decode_all(want["values"]), tol, what, false);
}

json load_json(const std::string& relative) { return json::parse(read_file(data_path(relative))); }

Stats stats(const std::vector<double>& v) {
  Stats s;
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(ss / static_cast<double>(v.size() - 1));
  return s;
}

std::string error_text(glia_error* e, enum glia_error_code* code) {
  if (!e) return "";
  std::string s = glia_error_message(e);
  if (code) *code = glia_error_code(e);
  glia_error_free(e);
  return s;
}

std::string module_repr(const glia_module* m) {
  size_t n = 0;
  ok(glia_module_to_string(m, nullptr, 0, &n), "to_string");
  std::string s(n + 1, '\0');
  ok(glia_module_to_string(m, s.data(), s.size(), &n), "to_string");
  s.resize(n);
  return s;
}

std::string grad_fn_name(const glia_tensor* t) {
  size_t n = 0;
  ok(glia_tensor_grad_fn_name(t, nullptr, 0, &n), "grad_fn_name");
  std::string s(n + 1, '\0');
  ok(glia_tensor_grad_fn_name(t, s.data(), s.size(), &n), "grad_fn_name");
  s.resize(n);
  return s;
}

std::vector<std::string> dict_keys(glia_tensor_dict* d) {
  int64_t n = 0;
  ok(glia_tensor_dict_size(d, &n), "dict_size");
  std::vector<std::string> keys;
  for (int64_t i = 0; i < n; ++i) {
    char buf[256];
    size_t len = 0;
    ok(glia_tensor_dict_key_at(d, i, buf, sizeof buf, &len), "key_at");
    keys.emplace_back(buf, len);
  }
  return keys;
}

std::vector<std::string> state_dict_keys(glia_module* m) {
  DictHandle d;
  ok(glia_module_state_dict(m, d.out()), "state_dict");
  return dict_keys(d);
}

glia_tensor* parameter(Handles& h, glia_module* m, const std::string& path) {
  glia_tensor* t = nullptr;
  ok(glia_module_get_parameter(m, path.c_str(), &t), path.c_str());
  return h.add(t);
}

glia_tensor* buffer(Handles& h, glia_module* m, const std::string& path) {
  glia_tensor* t = nullptr;
  ok(glia_module_get_buffer(m, path.c_str(), &t), path.c_str());
  return h.add(t);
}

glia_tensor* grad_of(Handles& h, glia_tensor* t) {
  glia_tensor* g = nullptr;
  ok(glia_tensor_grad(t, &g), "grad");
  return h.add(g);
}

void assign(Handles& h, glia_tensor* dst, const json& src) {
  glia_tensor* value = tensor_from_json(h, src);
  glia_grad_mode_set(0);
  ok(glia_copy_(dst, value), "copy_");
  glia_grad_mode_set(1);
}

glia_tensor* call(Handles& h, glia_module* m, std::vector<const glia_tensor*> inputs) {
  glia_tensor* out = nullptr;
  int64_t n = 0;
  ok(glia_module_forward(m, inputs.data(), static_cast<int64_t>(inputs.size()), &out, 1, &n), "forward");
  return h.add(out);
}

}  // namespace glia_test
