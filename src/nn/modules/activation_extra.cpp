// The activation modules of issue 21 (nn/modules/activation_extra.h).
#include "nn/modules/activation_extra.h"

#include "nn/init.h"

namespace glia::nn {

namespace {

const char* kind_name(ActivationExtra::Kind k) {
  using K = ActivationExtra::Kind;
  switch (k) {
    case K::RReLU:
      return "RReLU";
    case K::GLU:
      return "GLU";
    case K::CELU:
      return "CELU";
    case K::SELU:
      return "SELU";
    case K::Softmin:
      return "Softmin";
    case K::Softmax2d:
      return "Softmax2d";
    case K::Softplus:
      return "Softplus";
    case K::Softshrink:
      return "Softshrink";
    case K::Hardshrink:
      return "Hardshrink";
    case K::Tanhshrink:
      return "Tanhshrink";
    case K::Threshold:
      return "Threshold";
    case K::Hardtanh:
      return "Hardtanh";
    case K::ReLU6:
      return "ReLU6";
    case K::Hardsigmoid:
      return "Hardsigmoid";
    case K::Hardswish:
      return "Hardswish";
    case K::Mish:
      return "Mish";
    case K::LogSigmoid:
      return "LogSigmoid";
  }
  return "?";
}

// torch's Softplus prints its numbers as passed and its defaults are ints ("beta=1,
// threshold=20"); glia holds doubles: the default values print as torch's ints, others as floats.
std::string number(double v, int dflt) { return v == dflt ? std::to_string(dflt) : py_float(v); }

std::string with_inplace(std::string s, bool inplace) {
  if (!inplace) return s;
  return s.empty() ? "inplace=True" : s + ", inplace=True";
}

}  // namespace

ActivationExtra::ActivationExtra(Kind k, double a_, double b_, int64_t d, bool inplace_)
    : Module(kind_name(k)), kind(k), a(a_), b(b_), dim(d), inplace(inplace_) {
  switch (kind) {
    case Kind::RReLU:
      GLIA_CHECK(a <= b, InvalidArgument, "Lower bound should be less than or equal to the upper bound");
      break;
    case Kind::CELU:
      GLIA_CHECK(a != 0, InvalidArgument, "ZeroDivisionError: alpha cannot be 0 for CELU");
      break;
    case Kind::Softshrink:
      GLIA_CHECK(a >= 0, InvalidArgument, "lambda must be greater or equal to 0, but found to be ", a, ".");
      break;
    case Kind::Hardtanh:
      // torch: `assert self.max_val > self.min_val` (an AssertionError without text).
      GLIA_CHECK(b > a, InvalidArgument, "Hardtanh: max_val (", py_float(b), ") must be greater than min_val (",
                 py_float(a), ")");
      break;
    default:
      break;
  }
}

TensorList ActivationExtra::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  const Tensor& x = inputs[0];
  switch (kind) {
    case Kind::RReLU:
      if (inplace) {
        rrelu_(x, a, b, is_training());
        return {x};
      }
      return {rrelu(x, a, b, is_training())};
    case Kind::GLU:
      return {glu(x, dim)};
    case Kind::CELU:
      if (inplace) {
        celu_(x, a);
        return {x};
      }
      return {celu(x, a)};
    case Kind::SELU:
      if (inplace) {
        selu_(x);
        return {x};
      }
      return {selu(x)};
    case Kind::Softmin:
      return {softmin(x, dim)};
    case Kind::Softmax2d:
      GLIA_CHECK(x.dim() == 3 || x.dim() == 4, Shape, "Softmax2d requires a 3D or 4D tensor as input");
      return {softmax(x, -3)};
    case Kind::Softplus:
      return {softplus(x, a, b)};
    case Kind::Softshrink:
      return {softshrink(x, a)};
    case Kind::Hardshrink:
      return {hardshrink(x, a)};
    case Kind::Tanhshrink:
      return {tanhshrink(x)};
    case Kind::Threshold:
      if (inplace) {
        threshold_(x, a, b);
        return {x};
      }
      return {glia::threshold(x, a, b)};
    case Kind::Hardtanh:
      if (inplace) {
        hardtanh_(x, a, b);
        return {x};
      }
      return {hardtanh(x, a, b)};
    case Kind::ReLU6:
      if (inplace) {
        hardtanh_(x, 0.0, 6.0);
        return {x};
      }
      return {relu6(x)};
    case Kind::Hardsigmoid:
      if (inplace) {
        hardsigmoid_(x);
        return {x};
      }
      return {hardsigmoid(x)};
    case Kind::Hardswish:
      if (inplace) {
        hardswish_(x);
        return {x};
      }
      return {hardswish(x)};
    case Kind::Mish:
      if (inplace) {
        mish_(x);
        return {x};
      }
      return {mish(x)};
    case Kind::LogSigmoid:
      return {log_sigmoid(x)};
  }
  return {};
}

std::string ActivationExtra::extra_repr() const {
  switch (kind) {
    case Kind::RReLU:
      return with_inplace("lower=" + py_float(a) + ", upper=" + py_float(b), inplace);
    case Kind::GLU:
    case Kind::Softmin:
      return "dim=" + std::to_string(dim);
    case Kind::CELU:
      return with_inplace("alpha=" + py_float(a), inplace);
    case Kind::SELU:
    case Kind::ReLU6:
    case Kind::Mish:
      return with_inplace("", inplace);
    case Kind::Softplus:
      return "beta=" + number(a, 1) + ", threshold=" + number(b, 20);
    case Kind::Softshrink:
    case Kind::Hardshrink:
      return py_float(a);
    case Kind::Threshold:
      return with_inplace("threshold=" + py_float(a) + ", value=" + py_float(b), inplace);
    case Kind::Hardtanh:
      return with_inplace("min_val=" + py_float(a) + ", max_val=" + py_float(b), inplace);
    default:  // torch's Hardsigmoid and Hardswish print no inplace either
      return {};
  }
}

PReLU::PReLU(int64_t n, double init_, const Factory& f) : Module("PReLU"), num_parameters(n), init(init_) {
  check_param_shape(Dims{n});
  register_parameter("weight", empty(Dims{n}, f.dtype, f.device));
  maybe_reset(*this);
}

void PReLU::reset_parameters() { init::constant_(param("weight"), init); }

TensorList PReLU::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {prelu(inputs[0], param("weight"))};
}

std::string PReLU::extra_repr() const { return "num_parameters=" + std::to_string(num_parameters); }

}  // namespace glia::nn
