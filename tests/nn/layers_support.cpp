#include "layers_support.h"

#include <cstring>

namespace glia_test {

namespace {

void pair(const json& args, const char* key, int64_t dst[2]) {
  if (!args.contains(key)) return;
  const json& v = args[key];
  if (v.is_array()) {
    dst[0] = v[0].get<int64_t>();
    dst[1] = v[1].get<int64_t>();
  } else {
    dst[0] = dst[1] = v.get<int64_t>();
  }
}
template <class T>
T get(const json& args, const char* key, T dflt) {
  return args.contains(key) && !args[key].is_null() ? args[key].get<T>() : dflt;
}

glia_pad_mode pad_mode_named(const std::string& s) {
  if (s == "reflect") return GLIA_PAD_REFLECT;
  if (s == "replicate") return GLIA_PAD_REPLICATE;
  if (s == "circular") return GLIA_PAD_CIRCULAR;
  return GLIA_PAD_CONSTANT;
}

}  // namespace

glia_error* build_layer(const std::string& module, const json& a, const glia_factory_options* f, glia_module** out) {
  if (module == "Identity") return glia_nn_identity(f, out);
  if (module == "Linear")
    return glia_nn_linear(a["in_features"], a["out_features"], get<bool>(a, "bias", true), f, out);
  if (module == "Bilinear")
    return glia_nn_bilinear(a["in1_features"], a["in2_features"], a["out_features"], get<bool>(a, "bias", true), f,
                            out);
  if (module == "Conv2d") {
    glia_nn_conv2d_options o;
    glia_nn_conv2d_options_init(&o);
    pair(a, "stride", o.stride);
    pair(a, "dilation", o.dilation);
    if (a.contains("padding") && a["padding"].is_string())
      o.padding_kind = a["padding"] == "same" ? GLIA_PADDING_SAME : GLIA_PADDING_VALID;
    else
      pair(a, "padding", o.padding);
    o.groups = get<int64_t>(a, "groups", 1);
    o.bias = get<bool>(a, "bias", true);
    o.padding_mode = pad_mode_named(get<std::string>(a, "padding_mode", "zeros"));
    return glia_nn_conv2d(a["in_channels"], a["out_channels"], a["kernel_size"][0], a["kernel_size"][1], &o, f, out);
  }
  if (module == "ConvTranspose2d") {
    glia_nn_conv_transpose2d_options o;
    glia_nn_conv_transpose2d_options_init(&o);
    pair(a, "stride", o.stride);
    pair(a, "padding", o.padding);
    pair(a, "output_padding", o.output_padding);
    pair(a, "dilation", o.dilation);
    o.groups = get<int64_t>(a, "groups", 1);
    o.bias = get<bool>(a, "bias", true);
    return glia_nn_conv_transpose2d(a["in_channels"], a["out_channels"], a["kernel_size"][0], a["kernel_size"][1], &o,
                                    f, out);
  }
  if (module == "MaxPool2d") {
    glia_max_pool2d_options o;
    glia_max_pool2d_options_init(&o);
    pair(a, "kernel_size", o.kernel_size);
    pair(a, "stride", o.stride);
    pair(a, "padding", o.padding);
    pair(a, "dilation", o.dilation);
    o.ceil_mode = get<bool>(a, "ceil_mode", false);
    return glia_nn_max_pool2d(&o, f, out);
  }
  if (module == "AvgPool2d") {
    glia_avg_pool2d_options o;
    glia_avg_pool2d_options_init(&o);
    pair(a, "kernel_size", o.kernel_size);
    pair(a, "stride", o.stride);
    pair(a, "padding", o.padding);
    o.ceil_mode = get<bool>(a, "ceil_mode", false);
    o.count_include_pad = get<bool>(a, "count_include_pad", true);
    o.divisor_override = get<int64_t>(a, "divisor_override", 0);
    return glia_nn_avg_pool2d(&o, f, out);
  }
  if (module == "AdaptiveAvgPool2d") {
    const json& s = a["output_size"];
    return glia_nn_adaptive_avg_pool2d(s[0].is_null() ? -1 : s[0].get<int64_t>(),
                                       s[1].is_null() ? -1 : s[1].get<int64_t>(), f, out);
  }
  if (module == "ReLU") return glia_nn_relu(f, out);
  if (module == "LeakyReLU") return glia_nn_leaky_relu(get<double>(a, "negative_slope", 0.01), f, out);
  if (module == "ELU") return glia_nn_elu(get<double>(a, "alpha", 1.0), f, out);
  if (module == "GELU") {
    std::string s = get<std::string>(a, "approximate", "none");
    return glia_nn_gelu(s.c_str(), f, out);
  }
  if (module == "SiLU") return glia_nn_silu(f, out);
  if (module == "Sigmoid") return glia_nn_sigmoid(f, out);
  if (module == "Tanh") return glia_nn_tanh(f, out);
  if (module == "Softmax") return glia_nn_softmax(a["dim"], f, out);
  if (module == "LogSoftmax") return glia_nn_log_softmax(a["dim"], f, out);
  if (module == "Dropout") return glia_nn_dropout(get<double>(a, "p", 0.5), f, out);
  if (module == "Flatten")
    return glia_nn_flatten(get<int64_t>(a, "start_dim", 1), get<int64_t>(a, "end_dim", -1), f, out);
  if (module == "Unflatten") {
    std::vector<int64_t> s = a["sizes"].get<std::vector<int64_t>>();
    return glia_nn_unflatten(a["dim"], s.data(), static_cast<int64_t>(s.size()), f, out);
  }
  if (module == "Normalize") {
    std::vector<double> mean = a["mean"].get<std::vector<double>>(), std = a["std"].get<std::vector<double>>();
    return glia_nn_normalize(mean.data(), static_cast<int64_t>(mean.size()), std.data(),
                             static_cast<int64_t>(std.size()), f, out);
  }
  if (module == "Embedding") {
    int64_t pad = 0;
    double max_norm = 0;
    bool has_pad = a.contains("padding_idx") && !a["padding_idx"].is_null();
    bool has_max = a.contains("max_norm") && !a["max_norm"].is_null();
    if (has_pad) pad = a["padding_idx"];
    if (has_max) max_norm = a["max_norm"];
    return glia_nn_embedding(a["num_embeddings"], a["embedding_dim"], has_pad ? &pad : nullptr,
                             has_max ? &max_norm : nullptr, get<double>(a, "norm_type", 2.0), f, out);
  }
  ADD_FAILURE() << "unknown module " << module;
  return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "unknown module");
}

}  // namespace glia_test
