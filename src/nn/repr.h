// Python's spelling of values in module reprs (extra_repr).
#pragma once

#include <string>

namespace glia {
class Tensor;
}

namespace glia::nn {

// Python's float repr: shortest round-trip digits, positional for decimal
// exponents in [-4, 16), else scientific ("1e-05", "0.1", "1.0", "inf").
std::string py_float(double v);
// torch.typename(t): "torch.FloatTensor", "torch.cuda.DoubleTensor", ...
std::string torch_typename(const Tensor& t);
inline const char* py_bool(bool b) { return b ? "True" : "False"; }

}  // namespace glia::nn
