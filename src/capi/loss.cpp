// C entry points of the losses.
#include <cstddef>

#include "autograd/functions.h"
#include "capi/api.h"
#include "capi/options.h"

using namespace glia;
using namespace glia::capi;

namespace {

template <class F>
glia_error* pair_loss(const glia_tensor* input, const glia_tensor* target, glia_tensor** out, const char* fn, F f) {
  return guard([&] {
    Tensor x = tensor_arg(input, fn, "input");
    Tensor t = tensor_arg(target, fn, "target");
    check_out(out, fn, "out");
    *out = tensor_handle(f(x, t));
  });
}

}  // namespace

extern "C" {

glia_error* glia_mse_loss(const glia_tensor* input, const glia_tensor* target, glia_reduction reduction,
                          glia_tensor** out) {
  return pair_loss(input, target, out, "glia_mse_loss", [&](const Tensor& x, const Tensor& t) {
    return mse_loss(x, t, reduction_arg(reduction, "glia_mse_loss"));
  });
}

glia_error* glia_l1_loss(const glia_tensor* input, const glia_tensor* target, glia_reduction reduction,
                         glia_tensor** out) {
  return pair_loss(input, target, out, "glia_l1_loss", [&](const Tensor& x, const Tensor& t) {
    return l1_loss(x, t, reduction_arg(reduction, "glia_l1_loss"));
  });
}

glia_error* glia_smooth_l1_loss(const glia_tensor* input, const glia_tensor* target, glia_reduction reduction,
                                double beta, glia_tensor** out) {
  return pair_loss(input, target, out, "glia_smooth_l1_loss", [&](const Tensor& x, const Tensor& t) {
    return smooth_l1_loss(x, t, reduction_arg(reduction, "glia_smooth_l1_loss"), beta);
  });
}

glia_error* glia_huber_loss(const glia_tensor* input, const glia_tensor* target, glia_reduction reduction, double delta,
                            glia_tensor** out) {
  return pair_loss(input, target, out, "glia_huber_loss", [&](const Tensor& x, const Tensor& t) {
    return huber_loss(x, t, reduction_arg(reduction, "glia_huber_loss"), delta);
  });
}

glia_error* glia_binary_cross_entropy(const glia_tensor* input, const glia_tensor* target,
                                      const glia_tensor* weight_or_null, glia_reduction reduction, glia_tensor** out) {
  const char* fn = "glia_binary_cross_entropy";
  return pair_loss(input, target, out, fn, [&](const Tensor& x, const Tensor& t) {
    return binary_cross_entropy(x, t, tensor_opt(weight_or_null, fn, "weight"), reduction_arg(reduction, fn));
  });
}

glia_error* glia_binary_cross_entropy_with_logits(const glia_tensor* input, const glia_tensor* target,
                                                  const glia_tensor* weight_or_null,
                                                  const glia_tensor* pos_weight_or_null, glia_reduction reduction,
                                                  glia_tensor** out) {
  const char* fn = "glia_binary_cross_entropy_with_logits";
  return pair_loss(input, target, out, fn, [&](const Tensor& x, const Tensor& t) {
    return binary_cross_entropy_with_logits(x, t, tensor_opt(weight_or_null, fn, "weight"),
                                            tensor_opt(pos_weight_or_null, fn, "pos_weight"),
                                            reduction_arg(reduction, fn));
  });
}

void glia_nll_loss_options_init(glia_nll_loss_options* o) {
  if (!o) return;
  *o = glia_nll_loss_options{};
  o->struct_size = sizeof(glia_nll_loss_options);
  o->weight = nullptr;
  o->ignore_index = -100;
  o->reduction = GLIA_REDUCTION_MEAN;
}

void glia_cross_entropy_options_init(glia_cross_entropy_options* o) {
  if (!o) return;
  *o = glia_cross_entropy_options{};
  o->struct_size = sizeof(glia_cross_entropy_options);
  o->weight = nullptr;
  o->ignore_index = -100;
  o->reduction = GLIA_REDUCTION_MEAN;
  o->label_smoothing = 0.0;
}

glia_error* glia_nll_loss(const glia_tensor* input, const glia_tensor* target, const glia_nll_loss_options* options,
                          glia_tensor** out) {
  const char* fn = "glia_nll_loss";
  return pair_loss(input, target, out, fn, [&](const Tensor& x, const Tensor& t) {
    glia_nll_loss_options d = nll_loss_options_arg(options, fn);
    return nll_loss(x, t, tensor_opt(d.weight, fn, "options->weight"), d.ignore_index, reduction_arg(d.reduction, fn));
  });
}

glia_error* glia_cross_entropy(const glia_tensor* input, const glia_tensor* target,
                               const glia_cross_entropy_options* options, glia_tensor** out) {
  const char* fn = "glia_cross_entropy";
  return pair_loss(input, target, out, fn, [&](const Tensor& x, const Tensor& t) {
    glia_cross_entropy_options d = cross_entropy_options_arg(options, fn);
    return cross_entropy(x, t, tensor_opt(d.weight, fn, "options->weight"), d.ignore_index,
                         reduction_arg(d.reduction, fn), d.label_smoothing);
  });
}

}  // extern "C"

Reduction glia::capi::reduction_arg(int32_t r, const char* fn, const char* arg) {
  GLIA_CHECK(r == GLIA_REDUCTION_NONE || r == GLIA_REDUCTION_MEAN || r == GLIA_REDUCTION_SUM, InvalidArgument, fn,
             ": argument '", arg, "' is ", r, ", expected GLIA_REDUCTION_NONE, _MEAN or _SUM");
  return static_cast<Reduction>(r);
}

glia_nll_loss_options glia::capi::nll_loss_options_arg(const glia_nll_loss_options* o, const char* fn) {
  glia_nll_loss_options d;
  glia_nll_loss_options_init(&d);
  if (!o) return d;
  check_struct_size(o, fn, "glia_nll_loss_options_init");
  GLIA_READ(o, weight, d.weight);
  GLIA_READ(o, ignore_index, d.ignore_index);
  GLIA_READ(o, reduction, d.reduction);
  return d;
}

glia_cross_entropy_options glia::capi::cross_entropy_options_arg(const glia_cross_entropy_options* o, const char* fn) {
  glia_cross_entropy_options d;
  glia_cross_entropy_options_init(&d);
  if (!o) return d;
  check_struct_size(o, fn, "glia_cross_entropy_options_init");
  GLIA_READ(o, weight, d.weight);
  GLIA_READ(o, ignore_index, d.ignore_index);
  GLIA_READ(o, reduction, d.reduction);
  GLIA_READ(o, label_smoothing, d.label_smoothing);
  return d;
}
