// glia_nn_*: constructors of the built-in layers (nn/modules/layers.h).
#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "capi/api.h"
#include "capi/options.h"
#include "nn/modules/layers.h"

using namespace glia;
using namespace glia::capi;

namespace {

template <class M, class... A>
nn::ModuleRef make(A&&... a) {
  return make_ref<M>(std::forward<A>(a)...);
}

glia_error* activation(const glia_factory_options* factory, glia_module** out, const char* fn,
                       nn::Activation::Kind kind, double arg = 0.0, int64_t dim = 0) {
  return module_entry(factory, out, fn, [&](const nn::Factory&) { return make<nn::Activation>(kind, arg, dim); });
}

std::vector<double> doubles_arg(const double* v, int64_t n, const char* fn, const char* arg, const char* n_arg) {
  GLIA_CHECK(n >= 0, InvalidArgument, fn, ": argument '", n_arg, "' must be >= 0, got ", n);
  GLIA_CHECK(v || n == 0, InvalidArgument, fn, ": argument '", arg, "' is NULL with ", n_arg, " ", n);
  return std::vector<double>(v, v + n);
}

}  // namespace

extern "C" {

glia_error* glia_nn_identity(const glia_factory_options* factory, glia_module** out) {
  return module_entry(factory, out, "glia_nn_identity", [&](const nn::Factory&) { return make<nn::Identity>(); });
}

glia_error* glia_nn_linear(int64_t in_features, int64_t out_features, int32_t bias, const glia_factory_options* factory,
                           glia_module** out) {
  return module_entry(factory, out, "glia_nn_linear",
                      [&](const nn::Factory& f) { return make<nn::Linear>(in_features, out_features, bias != 0, f); });
}

glia_error* glia_nn_bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, int32_t bias,
                             const glia_factory_options* factory, glia_module** out) {
  return module_entry(factory, out, "glia_nn_bilinear", [&](const nn::Factory& f) {
    return make<nn::Bilinear>(in1_features, in2_features, out_features, bias != 0, f);
  });
}

void glia_nn_conv2d_options_init(glia_nn_conv2d_options* o) {
  if (!o) return;
  *o = glia_nn_conv2d_options{};
  o->struct_size = sizeof(*o);
  o->stride[0] = o->stride[1] = 1;
  o->dilation[0] = o->dilation[1] = 1;
  o->groups = 1;
  o->bias = 1;
  o->padding_kind = GLIA_PADDING_EXPLICIT;
  o->padding_mode = GLIA_PAD_CONSTANT;
}

glia_error* glia_nn_conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_h, int64_t kernel_w,
                           const glia_nn_conv2d_options* options, const glia_factory_options* factory,
                           glia_module** out) {
  const char* fn = "glia_nn_conv2d";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) {
    nn::Conv2dArgs a;
    a.kernel_size[0] = kernel_h;
    a.kernel_size[1] = kernel_w;
    if (options) {
      check_struct_size(options, fn, "glia_nn_conv2d_options_init");
      GLIA_READ_PAIR(options, stride, a.stride);
      GLIA_READ_PAIR(options, padding, a.padding);
      GLIA_READ_PAIR(options, dilation, a.dilation);
      GLIA_READ(options, groups, a.groups);
      GLIA_READ_FLAG(options, bias, a.bias);
      if (GLIA_COVERS(options, padding_kind)) {
        int k = static_cast<int>(options->padding_kind);
        GLIA_CHECK(k >= 0 && k <= 2, InvalidArgument, fn, ": options->padding_kind ", k, " is not a glia_padding_kind");
        a.padding_kind = k;
      }
      if (GLIA_COVERS(options, padding_mode)) {
        int m = static_cast<int>(options->padding_mode);
        GLIA_CHECK(m >= 0 && m <= 3, InvalidArgument, fn,
                   ": padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got "
                   "glia_pad_mode ",
                   m);
        a.padding_mode = static_cast<nn::ConvPadMode>(m);
      }
    }
    return make<nn::Conv2d>(in_channels, out_channels, a, f);
  });
}

void glia_nn_conv_transpose2d_options_init(glia_nn_conv_transpose2d_options* o) {
  if (!o) return;
  *o = glia_nn_conv_transpose2d_options{};
  o->struct_size = sizeof(*o);
  o->stride[0] = o->stride[1] = 1;
  o->dilation[0] = o->dilation[1] = 1;
  o->groups = 1;
  o->bias = 1;
}

glia_error* glia_nn_conv_transpose2d(int64_t in_channels, int64_t out_channels, int64_t kernel_h, int64_t kernel_w,
                                     const glia_nn_conv_transpose2d_options* options,
                                     const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_conv_transpose2d";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) {
    nn::ConvTranspose2dArgs a;
    a.kernel_size[0] = kernel_h;
    a.kernel_size[1] = kernel_w;
    if (options) {
      check_struct_size(options, fn, "glia_nn_conv_transpose2d_options_init");
      GLIA_READ_PAIR(options, stride, a.stride);
      GLIA_READ_PAIR(options, padding, a.padding);
      GLIA_READ_PAIR(options, output_padding, a.output_padding);
      GLIA_READ(options, groups, a.groups);
      GLIA_READ_FLAG(options, bias, a.bias);
      GLIA_READ_PAIR(options, dilation, a.dilation);
    }
    return make<nn::ConvTranspose2d>(in_channels, out_channels, a, f);
  });
}

glia_error* glia_nn_max_pool2d(const glia_max_pool2d_options* options, const glia_factory_options* factory,
                               glia_module** out) {
  const char* fn = "glia_nn_max_pool2d";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    check_out(options, fn, "options");
    return make<nn::MaxPool2d>(max_pool2d_options_arg(options, fn));
  });
}

glia_error* glia_nn_avg_pool2d(const glia_avg_pool2d_options* options, const glia_factory_options* factory,
                               glia_module** out) {
  const char* fn = "glia_nn_avg_pool2d";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    check_out(options, fn, "options");
    return make<nn::AvgPool2d>(avg_pool2d_options_arg(options, fn));
  });
}

glia_error* glia_nn_adaptive_avg_pool2d(int64_t out_h, int64_t out_w, const glia_factory_options* factory,
                                        glia_module** out) {
  return module_entry(factory, out, "glia_nn_adaptive_avg_pool2d", [&](const nn::Factory&) {
    std::optional<int64_t> h, w;
    if (out_h >= 0) h = out_h;
    if (out_w >= 0) w = out_w;
    return make<nn::AdaptiveAvgPool2d>(h, w);
  });
}

glia_error* glia_nn_relu(const glia_factory_options* factory, glia_module** out) {
  return activation(factory, out, "glia_nn_relu", nn::Activation::Kind::ReLU);
}
glia_error* glia_nn_leaky_relu(double negative_slope, const glia_factory_options* factory, glia_module** out) {
  return activation(factory, out, "glia_nn_leaky_relu", nn::Activation::Kind::LeakyReLU, negative_slope);
}
glia_error* glia_nn_elu(double alpha, const glia_factory_options* factory, glia_module** out) {
  return activation(factory, out, "glia_nn_elu", nn::Activation::Kind::ELU, alpha);
}
glia_error* glia_nn_gelu(const char* approximate, const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_gelu";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    bool tanh = approximate && std::strcmp(approximate, "tanh") == 0;
    GLIA_CHECK(!approximate || tanh || std::strcmp(approximate, "none") == 0, InvalidArgument,
               "approximate argument must be either none or tanh.");
    return make<nn::Activation>(nn::Activation::Kind::GELU, tanh ? 1.0 : 0.0);
  });
}
glia_error* glia_nn_silu(const glia_factory_options* factory, glia_module** out) {
  return activation(factory, out, "glia_nn_silu", nn::Activation::Kind::SiLU);
}
glia_error* glia_nn_sigmoid(const glia_factory_options* factory, glia_module** out) {
  return activation(factory, out, "glia_nn_sigmoid", nn::Activation::Kind::Sigmoid);
}
glia_error* glia_nn_tanh(const glia_factory_options* factory, glia_module** out) {
  return activation(factory, out, "glia_nn_tanh", nn::Activation::Kind::Tanh);
}
glia_error* glia_nn_softmax(int64_t dim, const glia_factory_options* factory, glia_module** out) {
  return activation(factory, out, "glia_nn_softmax", nn::Activation::Kind::Softmax, 0.0, dim);
}
glia_error* glia_nn_log_softmax(int64_t dim, const glia_factory_options* factory, glia_module** out) {
  return activation(factory, out, "glia_nn_log_softmax", nn::Activation::Kind::LogSoftmax, 0.0, dim);
}

glia_error* glia_nn_dropout(double p, const glia_factory_options* factory, glia_module** out) {
  return module_entry(factory, out, "glia_nn_dropout", [&](const nn::Factory&) { return make<nn::Dropout>(p); });
}

glia_error* glia_nn_flatten(int64_t start_dim, int64_t end_dim, const glia_factory_options* factory,
                            glia_module** out) {
  return module_entry(factory, out, "glia_nn_flatten",
                      [&](const nn::Factory&) { return make<nn::Flatten>(start_dim, end_dim); });
}

glia_error* glia_nn_unflatten(int64_t dim, const int64_t* sizes, int64_t n_sizes, const glia_factory_options* factory,
                              glia_module** out) {
  const char* fn = "glia_nn_unflatten";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    IntSpan s = dims_arg(sizes, n_sizes, fn, "sizes", "n_sizes");
    return make<nn::Unflatten>(dim, std::vector<int64_t>(s.begin(), s.end()));
  });
}

glia_error* glia_nn_normalize(const double* mean, int64_t n_mean, const double* std, int64_t n_std,
                              const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_normalize";
  return module_entry(factory, out, fn, [&](const nn::Factory&) {
    return make<nn::Normalize>(doubles_arg(mean, n_mean, fn, "mean", "n_mean"),
                               doubles_arg(std, n_std, fn, "std", "n_std"));
  });
}

glia_error* glia_nn_embedding(int64_t num_embeddings, int64_t embedding_dim, const int64_t* padding_idx,
                              const double* max_norm, double norm_type, const glia_factory_options* factory,
                              glia_module** out) {
  const char* fn = "glia_nn_embedding";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) {
    std::optional<int64_t> pad;
    if (padding_idx) pad = *padding_idx;
    std::optional<double> mn;
    if (max_norm) {
      GLIA_CHECK(!std::isnan(*max_norm), InvalidArgument, fn, ": max_norm is NaN");
      mn = *max_norm;
    }
    return make<nn::Embedding>(num_embeddings, embedding_dim, pad, mn, norm_type, f);
  });
}

}  // extern "C"
