#include "core/scalar.h"

namespace glia {

Tensor Scalar::to_tensor() const {
  Tensor t;
  switch (kind) {
    case Kind::Float:
      t = empty({}, DType::Float64);
      *t.data_ptr<double>() = f;
      break;
    case Kind::Int:
      t = empty({}, DType::Int64);
      *t.data_ptr<int64_t>() = i;
      break;
    case Kind::Bool:
      t = empty({}, DType::Bool);
      *t.data_ptr<bool>() = i != 0;
      break;
  }
  t.impl()->wrapped_number = true;
  return t;
}

}  // namespace glia
