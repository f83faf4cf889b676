// Random sampling with torch's autograd behaviour (src/autograd/fn/random.cpp): the samples carry no
// gradient to their parameters; torch records a node whose gradients are zeros (BernoulliBackward0,
// NormalBackward1/2/3, PoissonBackward0; the in-place fills UniformBackward0, ..., RandomBackward0/1/2).
// seed: NULL draws from the calling thread's generator (Note [Random draws on the host] in ops/random.h).
#pragma once

#include <optional>

#include "core/tensor.h"

namespace glia {

Tensor bernoulli(const Tensor& p, const uint64_t* seed);
// torch.bernoulli(input, p): input's shape and dtype, 1 with probability p (no gradient).
Tensor bernoulli_scalar(const Tensor& input, double p, const uint64_t* seed);
Tensor poisson(const Tensor& rates, const uint64_t* seed);
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, const uint64_t* seed);
// torch.normal's overloads: (Tensor, float), (float, Tensor), (Tensor, Tensor), (float, float, size).
Tensor normal(const Tensor& mean, double std, const uint64_t* seed);
Tensor normal(double mean, const Tensor& std, const uint64_t* seed);
Tensor normal(const Tensor& mean, const Tensor& std, const uint64_t* seed);
Tensor normal(double mean, double std, IntSpan size, DType dtype, Device device, const uint64_t* seed);

// In place (torch's leaf rule, version bump, zero-gradient node).
void uniform_(const Tensor& self, double from, double to, const uint64_t* seed);
void normal_(const Tensor& self, double mean, double std, const uint64_t* seed);
void cauchy_(const Tensor& self, double median, double sigma, const uint64_t* seed);
void exponential_(const Tensor& self, double lambd, const uint64_t* seed);
void geometric_(const Tensor& self, double p, const uint64_t* seed);
void log_normal_(const Tensor& self, double mean, double std, const uint64_t* seed);
// random_() (neither), random_(to) (to only), random_(from, to) (from; to may be None).
void random_(const Tensor& self, std::optional<int64_t> from, std::optional<int64_t> to, const uint64_t* seed);
void bernoulli_(const Tensor& self, double p, const uint64_t* seed);
void bernoulli_(const Tensor& self, const Tensor& p, const uint64_t* seed);

}  // namespace glia
