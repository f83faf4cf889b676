// glia_nn_*: constructors of the activation modules of issue 21
// (nn/modules/activation_extra.h) and glia_nn_activation_set_inplace.
#include "capi/api.h"
#include "nn/modules/activation_extra.h"

using namespace glia;
using namespace glia::capi;

namespace {

using K = nn::ActivationExtra::Kind;

glia_error* act(const glia_factory_options* factory, glia_module** out, const char* fn, K kind, double a = 0.0,
                double b = 0.0, int64_t dim = 0, int32_t inplace = 0) {
  return module_entry(factory, out, fn, [&](const nn::Factory&) -> nn::ModuleRef {
    return make_ref<nn::ActivationExtra>(kind, a, b, dim, inplace != 0);
  });
}

}  // namespace

extern "C" {

glia_error* glia_nn_prelu(int64_t num_parameters, double init, const glia_factory_options* factory, glia_module** out) {
  return module_entry(factory, out, "glia_nn_prelu", [&](const nn::Factory& f) -> nn::ModuleRef {
    return make_ref<nn::PReLU>(num_parameters, init, f);
  });
}
glia_error* glia_nn_rrelu(double lower, double upper, int32_t inplace, const glia_factory_options* factory,
                          glia_module** out) {
  return act(factory, out, "glia_nn_rrelu", K::RReLU, lower, upper, 0, inplace);
}
glia_error* glia_nn_glu(int64_t dim, const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_glu", K::GLU, 0.0, 0.0, dim);
}
glia_error* glia_nn_celu(double alpha, int32_t inplace, const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_celu", K::CELU, alpha, 0.0, 0, inplace);
}
glia_error* glia_nn_selu(int32_t inplace, const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_selu", K::SELU, 0.0, 0.0, 0, inplace);
}
glia_error* glia_nn_softmin(int64_t dim, const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_softmin", K::Softmin, 0.0, 0.0, dim);
}
glia_error* glia_nn_softmax2d(const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_softmax2d", K::Softmax2d);
}
glia_error* glia_nn_softplus(double beta, double threshold, const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_softplus", K::Softplus, beta, threshold);
}
glia_error* glia_nn_softshrink(double lambd, const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_softshrink", K::Softshrink, lambd);
}
glia_error* glia_nn_hardshrink(double lambd, const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_hardshrink", K::Hardshrink, lambd);
}
glia_error* glia_nn_tanhshrink(const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_tanhshrink", K::Tanhshrink);
}
glia_error* glia_nn_threshold(double threshold, double value, int32_t inplace, const glia_factory_options* factory,
                              glia_module** out) {
  return act(factory, out, "glia_nn_threshold", K::Threshold, threshold, value, 0, inplace);
}
glia_error* glia_nn_hardtanh(double min_val, double max_val, int32_t inplace, const glia_factory_options* factory,
                             glia_module** out) {
  return act(factory, out, "glia_nn_hardtanh", K::Hardtanh, min_val, max_val, 0, inplace);
}
glia_error* glia_nn_relu6(int32_t inplace, const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_relu6", K::ReLU6, 0.0, 0.0, 0, inplace);
}
glia_error* glia_nn_hardsigmoid(int32_t inplace, const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_hardsigmoid", K::Hardsigmoid, 0.0, 0.0, 0, inplace);
}
glia_error* glia_nn_hardswish(int32_t inplace, const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_hardswish", K::Hardswish, 0.0, 0.0, 0, inplace);
}
glia_error* glia_nn_mish(int32_t inplace, const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_mish", K::Mish, 0.0, 0.0, 0, inplace);
}
glia_error* glia_nn_logsigmoid(const glia_factory_options* factory, glia_module** out) {
  return act(factory, out, "glia_nn_logsigmoid", K::LogSigmoid);
}

glia_error* glia_nn_activation_set_inplace(glia_module* module, int32_t inplace) {
  const char* fn = "glia_nn_activation_set_inplace";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    if (auto* a = dynamic_cast<nn::Activation*>(m)) {
      using AK = nn::Activation::Kind;
      if (a->kind == AK::ReLU || a->kind == AK::LeakyReLU || a->kind == AK::ELU || a->kind == AK::SiLU) {
        a->inplace = inplace != 0;
        return;
      }
    } else if (auto* e = dynamic_cast<nn::ActivationExtra*>(m)) {
      switch (e->kind) {
        case K::RReLU:
        case K::CELU:
        case K::SELU:
        case K::Threshold:
        case K::Hardtanh:
        case K::ReLU6:
        case K::Hardsigmoid:
        case K::Hardswish:
        case K::Mish:
          e->inplace = inplace != 0;
          return;
        default:
          break;
      }
    }
    GLIA_CHECK(false, InvalidArgument, fn, ": ", m->type_name(), " has no inplace argument");
  });
}

}  // extern "C"
