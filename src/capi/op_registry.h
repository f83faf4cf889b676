// The list of C API operators (ops.def) as data, for tests and introspection.
#pragma once

#include <span>

namespace glia::capi {

enum class OpGrad { None, First, Second };

struct OpInfo {
  const char* name;  // the C function is glia_<name>
  OpGrad grad;
  const char* fixture;  // tests/golden/ops/<fixture>.json holds its golden cases
};

std::span<const OpInfo> op_registry();

}  // namespace glia::capi
