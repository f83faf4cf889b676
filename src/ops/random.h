// Random sampling (issue 20): torch.bernoulli, multinomial, poisson and the in-place fills
// Tensor.uniform_ / normal_ / cauchy_ / exponential_ / geometric_ / log_normal_ / random_ / bernoulli_.
//
// Note [Random draws on the host]: as torch.rand / randn / dropout in glia, the samples are drawn on the
// host from one PCG64 stream and copied to the tensor's device, so a device gets the CPU's values for the
// same seed. Each op draws one 64-bit seed (from the calling thread's generator, or the caller's own seed
// for torch's generator= argument) and takes every value from that seed's stream in row-major order, so
// glia_manual_seed makes every op reproducible and an explicit seed leaves the thread's generator alone.
// Ops whose draws depend on tensor parameters (bernoulli's p, poisson's rates, multinomial's
// probabilities) read them on the host (one copy from a device). Values differ from torch's (another
// generator); the distributions, supports, dtypes and errors are torch's.
#pragma once

#include <cstdint>
#include <optional>

#include "core/tensor.h"

namespace glia::ops {

// The distributions of the random_fill kernel (its `kind` attribute; never renumber).
enum class RandomKind : int64_t {
  Uniform = 0,      // a + (b - a) u, u in [0, 1)
  Normal = 1,       // a + b n
  Cauchy = 2,       // a + b tan(pi (u - 1/2))
  Exponential = 3,  // -log(1 - u) / a
  Geometric = 4,    // ceil(log(u) / log(1 - a)), u in (0, 1): 1, 2, ...
  LogNormal = 5,    // exp(a + b n)
  Random = 6,       // lo + (x mod range), x uniform on 64 bits (range 0: all 2^64)
  Bernoulli = 7,    // u < a
};

// The seed of one random op: *seed when given, else the next draw of the calling thread's generator.
uint64_t draw_seed(const uint64_t* seed);

// Tensor.uniform_(a, b), normal_(mean, std), cauchy_(median, sigma), exponential_(lambd), geometric_(p),
// log_normal_(mean, std), bernoulli_(p): torch's checks and messages; self is overwritten (any strides).
void uniform_(const Tensor& self, double from, double to, uint64_t seed);
void normal_(const Tensor& self, double mean, double std, uint64_t seed);
void cauchy_(const Tensor& self, double median, double sigma, uint64_t seed);
void exponential_(const Tensor& self, double lambd, uint64_t seed);
void geometric_(const Tensor& self, double p, uint64_t seed);
void log_normal_(const Tensor& self, double mean, double std, uint64_t seed);
void bernoulli_(const Tensor& self, double p, uint64_t seed);
// Tensor.random_(from, to): integers uniform in [from, to). to empty: torch's defaults (from = 0 and no
// to: [0, 2^digits] for floating dtypes, [0, max] for integers; from given without to: [from, max]).
void random_(const Tensor& self, int64_t from, std::optional<int64_t> to, uint64_t seed);
// Tensor.bernoulli_(p) with a tensor of probabilities (broadcast to self's shape).
void bernoulli_(const Tensor& self, const Tensor& p, uint64_t seed);
// torch.bernoulli(p): 0 or 1 in p's dtype, 1 with probability p.
Tensor bernoulli(const Tensor& p, uint64_t seed);
// torch.poisson(rates): counts in rates' dtype.
Tensor poisson(const Tensor& rates, uint64_t seed);
// torch.multinomial(probs, num_samples, replacement): int64 indices [num_samples] or [rows, num_samples].
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, uint64_t seed);

}  // namespace glia::ops
