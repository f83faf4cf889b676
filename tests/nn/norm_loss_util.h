// Helpers of the normalisation / loss / container module tests (C API only).
#pragma once

#include <string>
#include <vector>

#include "support/fixture.h"

namespace glia_test {

// Takes a module handle; releases it at scope exit.
struct ModuleHandle {
  glia_module* m = nullptr;
  ModuleHandle() = default;
  explicit ModuleHandle(glia_module* x) : m(x) {}
  ModuleHandle(const ModuleHandle&) = delete;
  ModuleHandle& operator=(const ModuleHandle&) = delete;
  ~ModuleHandle() { glia_error_free(glia_module_release(m)); }
  glia_module** out() { return &m; }
  operator glia_module*() const { return m; }
};

inline std::string module_repr(const glia_module* m) {
  size_t n = 0;
  ok(glia_module_to_string(m, nullptr, 0, &n), "to_string");
  std::string s(n + 1, '\0');
  ok(glia_module_to_string(m, s.data(), s.size(), &n), "to_string");
  s.resize(n);
  return s;
}

inline std::vector<std::string> dict_keys(glia_tensor_dict* d) {
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

inline std::vector<std::string> state_dict_keys(glia_module* m) {
  glia_tensor_dict* d = nullptr;
  ok(glia_module_state_dict(m, &d), "state_dict");
  auto keys = dict_keys(d);
  glia_error_free(glia_tensor_dict_release(d));
  return keys;
}

inline glia_tensor* parameter(Handles& h, glia_module* m, const std::string& path) {
  glia_tensor* t = nullptr;
  ok(glia_module_get_parameter(m, path.c_str(), &t), path.c_str());
  return h.add(t);
}
inline glia_tensor* buffer(Handles& h, glia_module* m, const std::string& path) {
  glia_tensor* t = nullptr;
  ok(glia_module_get_buffer(m, path.c_str(), &t), path.c_str());
  return h.add(t);
}

// dst <- the encoded tensor, without recording autograd.
inline void assign(Handles& h, glia_tensor* dst, const json& src) {
  glia_grad_mode_set(0);
  ok(glia_copy_(dst, tensor_from_json(h, src)), "copy_");
  glia_grad_mode_set(1);
}

inline glia_tensor* grad_of(Handles& h, glia_tensor* t) {
  glia_tensor* g = nullptr;
  ok(glia_tensor_grad(t, &g), "grad");
  return h.add(g);
}

// Runs module(inputs) with one output.
inline glia_tensor* call(Handles& h, glia_module* m, std::vector<const glia_tensor*> inputs) {
  glia_tensor* out = nullptr;
  int64_t n = 0;
  ok(glia_module_forward(m, inputs.data(), static_cast<int64_t>(inputs.size()), &out, 1, &n), "forward");
  return h.add(out);
}

// The message of a failed call (frees it); "" on success.
inline std::string error_text(glia_error* e, enum glia_error_code* code = nullptr) {
  if (!e) return "";
  std::string s = glia_error_message(e);
  if (code) *code = glia_error_code(e);
  glia_error_free(e);
  return s;
}

}  // namespace glia_test
