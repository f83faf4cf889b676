// ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softmax, LogSoftmax.
#include "nn/modules/layers.h"

namespace glia::nn {

namespace {

const char* kind_name(Activation::Kind k) {
  switch (k) {
    case Activation::Kind::ReLU:
      return "ReLU";
    case Activation::Kind::LeakyReLU:
      return "LeakyReLU";
    case Activation::Kind::ELU:
      return "ELU";
    case Activation::Kind::GELU:
      return "GELU";
    case Activation::Kind::SiLU:
      return "SiLU";
    case Activation::Kind::Sigmoid:
      return "Sigmoid";
    case Activation::Kind::Tanh:
      return "Tanh";
    case Activation::Kind::Softmax:
      return "Softmax";
    case Activation::Kind::LogSoftmax:
      return "LogSoftmax";
  }
  return "?";
}

}  // namespace

Activation::Activation(Kind k, double a, int64_t d) : Module(kind_name(k)), kind(k), arg(a), dim(d) {}

TensorList Activation::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  const Tensor& x = inputs[0];
  switch (kind) {
    case Kind::ReLU:
      if (inplace) {
        relu_(x);
        return {x};
      }
      return {relu(x)};
    case Kind::LeakyReLU:
      if (inplace) {
        leaky_relu_(x, arg);
        return {x};
      }
      return {leaky_relu(x, arg)};
    case Kind::ELU:
      if (inplace) {
        elu_(x, arg);
        return {x};
      }
      return {elu(x, arg)};
    case Kind::GELU:
      return {gelu(x, arg != 0.0)};
    case Kind::SiLU:
      if (inplace) {
        silu_(x);
        return {x};
      }
      return {silu(x)};
    case Kind::Sigmoid:
      return {sigmoid(x)};
    case Kind::Tanh:
      return {glia::tanh(x)};
    case Kind::Softmax:
      return {softmax(x, dim)};
    case Kind::LogSoftmax:
      return {log_softmax(x, dim)};
  }
  return {};
}

std::string Activation::extra_repr() const {
  const char* in = inplace ? ", inplace=True" : "";
  switch (kind) {
    case Kind::ReLU:
    case Kind::SiLU:
      return inplace ? "inplace=True" : "";
    case Kind::LeakyReLU:
      return "negative_slope=" + py_float(arg) + in;
    case Kind::ELU:
      return "alpha=" + py_float(arg) + in;
    case Kind::GELU:
      return arg != 0.0 ? "approximate='tanh'" : "approximate='none'";
    case Kind::Softmax:
    case Kind::LogSoftmax:
      return "dim=" + std::to_string(dim);
    default:
      return {};
  }
}

}  // namespace glia::nn
