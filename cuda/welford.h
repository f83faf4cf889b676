// Welford's running mean and variance (torch's WelfordOps, ATen/native/SharedReduceOps.h), for the batch, layer
// and group norm kernels: each thread reduces its elements, partial results combine in any tree (Chan, Golub,
// LeVeque's pairwise update), and project() gives the variance with a correction (0: biased, 1: unbiased).
// Host and device (host_device.h); Acc is the accumulation type (float for float and half, double for double).
#ifndef GLIA_CUDA_WELFORD_H
#define GLIA_CUDA_WELFORD_H

#include "host_device.h"

namespace glia::cuda {

template <class Acc>
struct Welford {
  Acc mean = 0;
  Acc m2 = 0;  // sum of squared deviations from mean
  Acc n = 0;   // count, in Acc so that combining large partial counts cannot overflow (torch's nf)
};

template <class Acc>
GLIA_HOST_DEVICE Welford<Acc> welford_add(Welford<Acc> a, Acc x) {
  const Acc n = a.n + Acc(1);
  const Acc delta = x - a.mean;
  const Acc mean = a.mean + delta / n;
  return Welford<Acc>{mean, a.m2 + delta * (x - mean), n};
}

template <class Acc>
GLIA_HOST_DEVICE Welford<Acc> welford_combine(Welford<Acc> a, Welford<Acc> b) {
  if (a.n == Acc(0)) return b;
  if (b.n == Acc(0)) return a;
  const Acc delta = b.mean - a.mean;
  const Acc n = a.n + b.n;
  const Acc nb_over_n = b.n / n;
  return Welford<Acc>{a.mean + delta * nb_over_n, a.m2 + b.m2 + delta * delta * a.n * nb_over_n, n};
}

// m2 / (n - correction); with n <= correction the divisor is 0, so the variance is NaN (m2 == 0) or inf, as
// torch's var.
template <class Acc>
GLIA_HOST_DEVICE Acc welford_variance(Welford<Acc> a, Acc correction) {
  const Acc divisor = a.n > correction ? a.n - correction : Acc(0);
  return a.m2 / divisor;
}

}  // namespace glia::cuda

#endif  // GLIA_CUDA_WELFORD_H
