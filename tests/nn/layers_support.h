// Shared by the layers_*_test.cpp suites: building a built-in layer from a
// golden fixture's {module, args}, and small module helpers.
#pragma once

#include <string>
#include <vector>

#include "support/fixture.h"

namespace glia_test {

// Owns a module handle.
struct ModuleHandle {
  glia_module* m = nullptr;
  ModuleHandle() = default;
  explicit ModuleHandle(glia_module* p) : m(p) {}
  ModuleHandle(const ModuleHandle&) = delete;
  ModuleHandle& operator=(const ModuleHandle&) = delete;
  ~ModuleHandle() { (void)glia_module_release(m); }
  glia_module* get() const { return m; }
  glia_module** out() { return &m; }
};

// Calls the glia_nn_* constructor named by `module` with the torch keyword
// arguments in `args` (torch's defaults for absent keys).
glia_error* build_layer(const std::string& module, const json& args, const glia_factory_options* factory,
                        glia_module** out);

std::string module_repr(glia_module* m);
std::vector<std::string> state_dict_keys(glia_module* m);
// A new reference to the parameter `name`.
glia_tensor* parameter(Handles& h, glia_module* m, const std::string& name);
// One-input forward; a new reference.
glia_tensor* forward1(Handles& h, glia_module* m, glia_tensor* x);

}  // namespace glia_test
