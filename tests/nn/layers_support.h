// Shared by the layers_*_test.cpp suites: building a built-in layer from a
// golden fixture's {module, args}, and small module helpers.
#pragma once

#include <string>
#include <vector>

#include "support/fixture.h"

namespace glia_test {

// Calls the glia_nn_* constructor named by `module` with the torch keyword
// arguments in `args` (torch's defaults for absent keys).
glia_error* build_layer(const std::string& module, const json& args, const glia_factory_options* factory,
                        glia_module** out);

}  // namespace glia_test
