// C entry points of the losses of autograd/fn/loss_extra.h (glia_kl_div ...) and their modules
// (glia_nn_kl_div_loss ...).
#include <cstddef>
#include <memory>

#include "autograd/functions.h"
#include "capi/api.h"
#include "capi/options.h"
#include "nn/modules/loss.h"

using namespace glia;
using namespace glia::capi;

namespace {

template <class F>
glia_error* loss2(const glia_tensor* input, const glia_tensor* target, glia_tensor** out, const char* fn, F f) {
  return guard([&] {
    Tensor x = tensor_arg(input, fn, "input");
    Tensor t = tensor_arg(target, fn, "target");
    check_out(out, fn, "out");
    *out = tensor_handle(f(x, t));
  });
}

template <class F>
glia_error* loss3(const glia_tensor* a, const glia_tensor* b, const glia_tensor* c, const char* (&names)[3],
                  glia_tensor** out, const char* fn, F f) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, names[0]);
    Tensor y = tensor_arg(b, fn, names[1]);
    Tensor z = tensor_arg(c, fn, names[2]);
    check_out(out, fn, "out");
    *out = tensor_handle(f(x, y, z));
  });
}

const char* kPair[3] = {"input1", "input2", "target"};
const char* kTriplet[3] = {"anchor", "positive", "negative"};
const char* kGauss[3] = {"input", "target", "var"};

// kl_div's reduction: also GLIA_REDUCTION_BATCHMEAN.
Reduction kl_reduction(int32_t r, const char* fn, const char* arg, bool* batchmean) {
  *batchmean = r == GLIA_REDUCTION_BATCHMEAN;
  if (*batchmean) return Reduction::Sum;
  GLIA_CHECK(r == GLIA_REDUCTION_NONE || r == GLIA_REDUCTION_MEAN || r == GLIA_REDUCTION_SUM, InvalidArgument, fn,
             ": argument '", arg, "' is ", r, ", expected GLIA_REDUCTION_NONE, _MEAN, _SUM or _BATCHMEAN");
  return static_cast<Reduction>(r);
}

// A host distance function (the caller keeps user_data alive while it may be called).
DistanceFn host_distance(glia_distance_fn f, void* user_data, std::shared_ptr<void> keep) {
  if (!f) return {};
  return [f, user_data, keep](const Tensor& a, const Tensor& b) -> Tensor {
    HandleList in(TensorList{a, b});
    glia_tensor* out = nullptr;
    glia_error* e = f(user_data, in.hs[0], in.hs[1], &out);
    if (e) {
      release_handles(&out, 1);
      rethrow_callback(e, "triplet_margin_with_distance_loss", "distance_function");
    }
    TensorList r = adopt_handles(&out, 1, 1, "glia_distance_fn", "out");
    GLIA_CHECK(r[0].defined(), Callback, "triplet_margin_with_distance_loss: distance_function wrote no tensor");
    return r[0];
  };
}

struct HostUserData {
  void* user_data;
  void (*free_user_data)(void*);
  ~HostUserData() {
    if (free_user_data) free_user_data(user_data);
  }
};

template <class F>
glia_error* loss_module(nn::LossKind kind, int32_t reduction, const glia_factory_options* factory, glia_module** out,
                        const char* fn, F extra) {
  return module_entry(factory, out, fn, [&](const nn::Factory&) -> nn::ModuleRef {
    nn::LossOptions o;
    if (kind == nn::LossKind::KLDiv)
      o.reduction = kl_reduction(reduction, fn, "reduction", &o.batchmean);
    else
      o.reduction = reduction_arg(reduction, fn);
    extra(o);
    return make_ref<nn::Loss>(kind, o);
  });
}

}  // namespace

extern "C" {

glia_error* glia_kl_div(const glia_tensor* input, const glia_tensor* target, glia_reduction reduction,
                        int32_t log_target, glia_tensor** out) {
  const char* fn = "glia_kl_div";
  return loss2(input, target, out, fn, [&](const Tensor& x, const Tensor& t) {
    bool batchmean = false;
    Reduction r = kl_reduction(reduction, fn, "reduction", &batchmean);
    return kl_div(x, t, r, log_target != 0, batchmean);
  });
}

glia_error* glia_poisson_nll_loss(const glia_tensor* input, const glia_tensor* target, int32_t log_input, int32_t full,
                                  double eps, glia_reduction reduction, glia_tensor** out) {
  const char* fn = "glia_poisson_nll_loss";
  return loss2(input, target, out, fn, [&](const Tensor& x, const Tensor& t) {
    return poisson_nll_loss(x, t, log_input != 0, full != 0, eps, reduction_arg(reduction, fn));
  });
}

glia_error* glia_gaussian_nll_loss(const glia_tensor* input, const glia_tensor* target, const glia_tensor* var,
                                   int32_t full, double eps, glia_reduction reduction, glia_tensor** out) {
  const char* fn = "glia_gaussian_nll_loss";
  return loss3(input, target, var, kGauss, out, fn, [&](const Tensor& x, const Tensor& t, const Tensor& v) {
    return gaussian_nll_loss(x, t, v, full != 0, eps, reduction_arg(reduction, fn));
  });
}

glia_error* glia_margin_ranking_loss(const glia_tensor* input1, const glia_tensor* input2, const glia_tensor* target,
                                     double margin, glia_reduction reduction, glia_tensor** out) {
  const char* fn = "glia_margin_ranking_loss";
  return loss3(input1, input2, target, kPair, out, fn, [&](const Tensor& a, const Tensor& b, const Tensor& t) {
    return margin_ranking_loss(a, b, t, margin, reduction_arg(reduction, fn));
  });
}

glia_error* glia_hinge_embedding_loss(const glia_tensor* input, const glia_tensor* target, double margin,
                                      glia_reduction reduction, glia_tensor** out) {
  const char* fn = "glia_hinge_embedding_loss";
  return loss2(input, target, out, fn, [&](const Tensor& x, const Tensor& t) {
    return hinge_embedding_loss(x, t, margin, reduction_arg(reduction, fn));
  });
}

glia_error* glia_soft_margin_loss(const glia_tensor* input, const glia_tensor* target, glia_reduction reduction,
                                  glia_tensor** out) {
  const char* fn = "glia_soft_margin_loss";
  return loss2(input, target, out, fn,
               [&](const Tensor& x, const Tensor& t) { return soft_margin_loss(x, t, reduction_arg(reduction, fn)); });
}

glia_error* glia_multilabel_soft_margin_loss(const glia_tensor* input, const glia_tensor* target,
                                             const glia_tensor* weight_or_null, glia_reduction reduction,
                                             glia_tensor** out) {
  const char* fn = "glia_multilabel_soft_margin_loss";
  return loss2(input, target, out, fn, [&](const Tensor& x, const Tensor& t) {
    return multilabel_soft_margin_loss(x, t, tensor_opt(weight_or_null, fn, "weight"), reduction_arg(reduction, fn));
  });
}

glia_error* glia_cosine_embedding_loss(const glia_tensor* input1, const glia_tensor* input2, const glia_tensor* target,
                                       double margin, glia_reduction reduction, glia_tensor** out) {
  const char* fn = "glia_cosine_embedding_loss";
  return loss3(input1, input2, target, kPair, out, fn, [&](const Tensor& a, const Tensor& b, const Tensor& t) {
    return cosine_embedding_loss(a, b, t, margin, reduction_arg(reduction, fn));
  });
}

glia_error* glia_multi_margin_loss(const glia_tensor* input, const glia_tensor* target, int64_t p, double margin,
                                   const glia_tensor* weight_or_null, glia_reduction reduction, glia_tensor** out) {
  const char* fn = "glia_multi_margin_loss";
  return loss2(input, target, out, fn, [&](const Tensor& x, const Tensor& t) {
    return multi_margin_loss(x, t, p, margin, tensor_opt(weight_or_null, fn, "weight"), reduction_arg(reduction, fn));
  });
}

glia_error* glia_multilabel_margin_loss(const glia_tensor* input, const glia_tensor* target, glia_reduction reduction,
                                        glia_tensor** out) {
  const char* fn = "glia_multilabel_margin_loss";
  return loss2(input, target, out, fn, [&](const Tensor& x, const Tensor& t) {
    return multilabel_margin_loss(x, t, reduction_arg(reduction, fn));
  });
}

glia_error* glia_triplet_margin_loss(const glia_tensor* anchor, const glia_tensor* positive,
                                     const glia_tensor* negative, double margin, double p, double eps, int32_t swap,
                                     glia_reduction reduction, glia_tensor** out) {
  const char* fn = "glia_triplet_margin_loss";
  return loss3(anchor, positive, negative, kTriplet, out, fn, [&](const Tensor& a, const Tensor& b, const Tensor& c) {
    return triplet_margin_loss(a, b, c, margin, p, eps, swap != 0, reduction_arg(reduction, fn));
  });
}

glia_error* glia_triplet_margin_with_distance_loss(const glia_tensor* anchor, const glia_tensor* positive,
                                                   const glia_tensor* negative, glia_distance_fn distance_or_null,
                                                   void* user_data, double margin, int32_t swap,
                                                   glia_reduction reduction, glia_tensor** out) {
  const char* fn = "glia_triplet_margin_with_distance_loss";
  return loss3(anchor, positive, negative, kTriplet, out, fn, [&](const Tensor& a, const Tensor& b, const Tensor& c) {
    Reduction r = reduction_arg(reduction, fn);
    return triplet_margin_with_distance_loss(a, b, c, host_distance(distance_or_null, user_data, nullptr), margin,
                                             swap != 0, r);
  });
}

glia_error* glia_nn_kl_div_loss(glia_reduction reduction, int32_t log_target, const glia_factory_options* factory,
                                glia_module** out) {
  return loss_module(nn::LossKind::KLDiv, reduction, factory, out, "glia_nn_kl_div_loss",
                     [&](nn::LossOptions& o) { o.log_target = log_target != 0; });
}

glia_error* glia_nn_poisson_nll_loss(int32_t log_input, int32_t full, double eps, glia_reduction reduction,
                                     const glia_factory_options* factory, glia_module** out) {
  return loss_module(nn::LossKind::PoissonNLL, reduction, factory, out, "glia_nn_poisson_nll_loss",
                     [&](nn::LossOptions& o) {
                       o.log_input = log_input != 0;
                       o.full = full != 0;
                       o.eps = eps;
                     });
}

glia_error* glia_nn_gaussian_nll_loss(int32_t full, double eps, glia_reduction reduction,
                                      const glia_factory_options* factory, glia_module** out) {
  return loss_module(nn::LossKind::GaussianNLL, reduction, factory, out, "glia_nn_gaussian_nll_loss",
                     [&](nn::LossOptions& o) {
                       o.full = full != 0;
                       o.eps = eps;
                     });
}

glia_error* glia_nn_margin_ranking_loss(double margin, glia_reduction reduction, const glia_factory_options* factory,
                                        glia_module** out) {
  return loss_module(nn::LossKind::MarginRanking, reduction, factory, out, "glia_nn_margin_ranking_loss",
                     [&](nn::LossOptions& o) { o.margin = margin; });
}

glia_error* glia_nn_hinge_embedding_loss(double margin, glia_reduction reduction, const glia_factory_options* factory,
                                         glia_module** out) {
  return loss_module(nn::LossKind::HingeEmbedding, reduction, factory, out, "glia_nn_hinge_embedding_loss",
                     [&](nn::LossOptions& o) { o.margin = margin; });
}

glia_error* glia_nn_soft_margin_loss(glia_reduction reduction, const glia_factory_options* factory, glia_module** out) {
  return loss_module(nn::LossKind::SoftMargin, reduction, factory, out, "glia_nn_soft_margin_loss",
                     [](nn::LossOptions&) {});
}

glia_error* glia_nn_multilabel_soft_margin_loss(glia_tensor* weight_or_null, glia_reduction reduction,
                                                const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_multilabel_soft_margin_loss";
  return loss_module(nn::LossKind::MultiLabelSoftMargin, reduction, factory, out, fn,
                     [&](nn::LossOptions& o) { o.weight = tensor_opt(weight_or_null, fn, "weight"); });
}

glia_error* glia_nn_cosine_embedding_loss(double margin, glia_reduction reduction, const glia_factory_options* factory,
                                          glia_module** out) {
  return loss_module(nn::LossKind::CosineEmbedding, reduction, factory, out, "glia_nn_cosine_embedding_loss",
                     [&](nn::LossOptions& o) { o.margin = margin; });
}

glia_error* glia_nn_multi_margin_loss(int64_t p, double margin, glia_tensor* weight_or_null, glia_reduction reduction,
                                      const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_multi_margin_loss";
  return loss_module(nn::LossKind::MultiMargin, reduction, factory, out, fn, [&](nn::LossOptions& o) {
    GLIA_CHECK(p == 1 || p == 2, InvalidArgument, "only p == 1 and p == 2 supported");
    o.weight = tensor_opt(weight_or_null, fn, "weight");
    GLIA_CHECK(!o.weight.defined() || o.weight.dim() == 1, InvalidArgument, "weight must be one-dimensional");
    o.p = static_cast<double>(p);
    o.margin = margin;
  });
}

glia_error* glia_nn_multilabel_margin_loss(glia_reduction reduction, const glia_factory_options* factory,
                                           glia_module** out) {
  return loss_module(nn::LossKind::MultiLabelMargin, reduction, factory, out, "glia_nn_multilabel_margin_loss",
                     [](nn::LossOptions&) {});
}

glia_error* glia_nn_triplet_margin_loss(double margin, double p, double eps, int32_t swap, glia_reduction reduction,
                                        const glia_factory_options* factory, glia_module** out) {
  return loss_module(nn::LossKind::TripletMargin, reduction, factory, out, "glia_nn_triplet_margin_loss",
                     [&](nn::LossOptions& o) {
                       o.margin = margin;
                       o.p = p;
                       o.eps = eps;
                       o.swap = swap != 0;
                     });
}

glia_error* glia_nn_triplet_margin_with_distance_loss(glia_distance_fn distance_or_null, void* user_data,
                                                      void (*free_user_data)(void*), double margin, int32_t swap,
                                                      glia_reduction reduction, const glia_factory_options* factory,
                                                      glia_module** out) {
  std::shared_ptr<HostUserData> owner;
  try {
    owner = std::make_shared<HostUserData>();
  } catch (...) {
    if (free_user_data) free_user_data(user_data);
    return out_of_memory_error();
  }
  owner->user_data = user_data;
  owner->free_user_data = free_user_data;
  return loss_module(nn::LossKind::TripletMarginWithDistance, reduction, factory, out,
                     "glia_nn_triplet_margin_with_distance_loss", [&](nn::LossOptions& o) {
                       o.margin = margin;
                       o.swap = swap != 0;
                       o.distance = host_distance(distance_or_null, user_data, owner);
                     });
}

}  // extern "C"
