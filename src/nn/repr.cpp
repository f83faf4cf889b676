#include "nn/repr.h"

#include <charconv>
#include <cmath>

#include "core/tensor.h"

namespace glia::nn {

std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  // Python's repr: the shortest round-tripping digits, fixed notation when the
  // decimal exponent is in [-4, 16), else scientific with a 2+ digit exponent.
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string sci(buf, r.ptr);
  int exp = std::stoi(sci.substr(sci.find('e') + 1));
  if (exp < -4 || exp >= 16) return sci;
  r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  std::string fixed(buf, r.ptr);
  if (fixed.find('.') == std::string::npos) fixed += ".0";
  return fixed;
}

std::string torch_typename(const Tensor& p) {
  const char* n = "FloatTensor";
  switch (p.dtype()) {
    case DType::Float32:
      n = "FloatTensor";
      break;
    case DType::Float64:
      n = "DoubleTensor";
      break;
    case DType::Float16:
      n = "HalfTensor";
      break;
    case DType::BFloat16:
      n = "BFloat16Tensor";
      break;
    case DType::Int64:
      n = "LongTensor";
      break;
    case DType::Int32:
      n = "IntTensor";
      break;
    case DType::UInt8:
      n = "ByteTensor";
      break;
    case DType::Int8:
      n = "CharTensor";
      break;
    case DType::Int16:
      n = "ShortTensor";
      break;
    case DType::Bool:
      n = "BoolTensor";
      break;
  }
  return std::string(p.device().is_cpu() ? "torch." : "torch.cuda.") + n;
}

}  // namespace glia::nn
