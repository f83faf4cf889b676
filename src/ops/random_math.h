// Per-element transforms of the random draws (src/ops/random.cpp): uniform draws in, one sample out.
// Small inline functions so that another backend can share them.
#pragma once

#include <cmath>
#include <cstdint>

namespace glia::ops::rnd {

// u in [0, 1).
inline double uniform(double u, double from, double to) { return from + (to - from) * u; }
inline double cauchy(double u, double median, double sigma) { return median + sigma * std::tan(M_PI * (u - 0.5)); }
// u in [0, 1): -log(1 - u) / lambda, in [0, inf); lambda 0 gives inf.
inline double exponential(double u, double lambda) { return -std::log1p(-u) / lambda; }
// u in (0, 1): the number of trials up to the first success, 1, 2, ...
inline double geometric(double u, double p) { return std::ceil(std::log(u) / std::log1p(-p)); }

// Knuth's product of uniforms below 10, Hoermann's transformed rejection (PTRS) above: torch's
// sample_poisson. `next` draws a uniform in [0, 1).
template <class Next>
inline double poisson(double lambda, Next&& next) {
  if (lambda >= 10) {
    const double slam = std::sqrt(lambda), loglam = std::log(lambda);
    const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
      const double u = next() - 0.5, v = next();
      const double us = 0.5 - std::fabs(u);
      const double k = std::floor((2 * a / us + b) * u + lambda + 0.43);
      if (us >= 0.07 && v <= vr) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <= -lambda + k * loglam - std::lgamma(k + 1))
        return k;
    }
  }
  if (lambda == 0) return 0;
  const double enlam = std::exp(-lambda);
  double x = 0, prod = 1.0;
  for (;;) {
    prod *= next();
    if (prod > enlam)
      x += 1;
    else
      return x;
  }
}

}  // namespace glia::ops::rnd
