// TEMPORARY: the declarations of include/glia/glia.h's random-sampling section, kept here until glia.h's
// split lands so that a change of glia.h does not rebuild every object. Moved into glia.h before merging.
#pragma once
#include "glia/glia.h"
#ifdef __cplusplus
extern "C" {
#endif

/* ---- random sampling (torch.bernoulli, multinomial, normal, poisson, the in-place fills; issue 20) ---- */
/**
 * Every function here takes `seed`: NULL draws from the calling thread's
 * generator (glia_manual_seed makes the results reproducible); otherwise the
 * values come from a private stream of *seed alone, which is how the bindings
 * give torch's `generator=` argument (the binding's generator draws the seed).
 * The values differ from torch's (another generator); the distributions, the
 * supports, the dtypes and the errors are torch's. On a device the values are
 * the CPU's for the same seed. The samples carry no gradient: where torch
 * records a node with zero gradients (BernoulliBackward0, NormalBackward1/2/3,
 * PoissonBackward0, the fills' UniformBackward0, ...) glia records the same.
 * The in-place fills follow torch's leaf rule and leave self unchanged on error.
 */
/**
 * torch.bernoulli(p): 0 or 1 in p's dtype, 1 with probability p. p float32,
 * float64 or bfloat16 with every element in [0, 1] (else GLIA_ERR_DTYPE or
 * GLIA_ERR_INVALID_ARGUMENT with torch's messages). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_bernoulli(const glia_tensor *p, const uint64_t *seed, glia_tensor **out);
/** torch.bernoulli(input, p): input's shape and dtype, 1 with probability p in [0, 1] (not differentiable). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_bernoulli_scalar(const glia_tensor *input, double p, const uint64_t *seed,
                                                          glia_tensor **out);
/** Tensor.bernoulli_(p): p a tensor of probabilities broadcast to self's shape (torch's expand rule). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_bernoulli_(glia_tensor *self, const glia_tensor *p, const uint64_t *seed);
/** Tensor.bernoulli_(p) with one probability p in [0, 1]; any dtype but float16. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_bernoulli_scalar_(glia_tensor *self, double p, const uint64_t *seed);
/**
 * torch.multinomial(probs, num_samples, replacement): int64 category indices
 * drawn from each row of probs (1-D [C] -> [num_samples], 2-D [R, C] ->
 * [R, num_samples]); rows need not sum to 1. Without replacement a row gives
 * distinct indices (torch's exponential race: zero-probability categories
 * come after the others). Errors with torch's messages: GLIA_ERR_SHAPE (not
 * 1-D or 2-D), GLIA_ERR_DTYPE (not floating; float16), GLIA_ERR_INVALID_ARGUMENT
 * (num_samples <= 0, more samples than categories without replacement, a
 * negative, inf or NaN probability, a row summing to 0). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_multinomial(const glia_tensor *probs, int64_t num_samples,
                                                     int32_t replacement, const uint64_t *seed, glia_tensor **out);
/**
 * torch.normal(mean, std) with two tensors: broadcast shape, mean's dtype
 * (floating), mean + std * N(0, 1). Errors: GLIA_ERR_INVALID_ARGUMENT for a
 * negative or NaN std ("normal expects all elements of std >= 0.0"),
 * GLIA_ERR_SHAPE when the shapes do not broadcast. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_normal(const glia_tensor *mean, const glia_tensor *std, const uint64_t *seed,
                                                glia_tensor **out);
/** torch.normal(mean, std) with a tensor mean and a number std >= 0: mean's shape and dtype. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_normal_tensor_scalar(const glia_tensor *mean, double std,
                                                              const uint64_t *seed, glia_tensor **out);
/** torch.normal(mean, std) with a number mean and a tensor std: std's shape and dtype. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_normal_scalar_tensor(double mean, const glia_tensor *std,
                                                              const uint64_t *seed, glia_tensor **out);
/**
 * torch.normal(mean, std, size): a new tensor of `shape` (options NULL: float32
 * on the CPU; floating dtypes only), std >= 0. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_normal_scalar(double mean, double std, const int64_t *shape, int64_t ndim,
                                                       const glia_tensor_options *options, const uint64_t *seed,
                                                       glia_tensor **out);
/**
 * torch.poisson(rates): Poisson counts in rates' dtype (float32, float64,
 * bfloat16; rates >= 0, else GLIA_ERR_INVALID_ARGUMENT "invalid Poisson rate,
 * expected rate to be non-negative"). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_poisson(const glia_tensor *rates, const uint64_t *seed, glia_tensor **out);
/** Tensor.uniform_(from, to): U[from, to) (floating dtypes; from <= to). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_uniform_(glia_tensor *self, double from, double to, const uint64_t *seed);
/** Tensor.normal_(mean, std): N(mean, std^2) (floating dtypes; std >= 0). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_normal_(glia_tensor *self, double mean, double std, const uint64_t *seed);
/** Tensor.cauchy_(median, sigma): median + sigma * tan(pi * (U - 1/2)) (floating dtypes). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_cauchy_(glia_tensor *self, double median, double sigma,
                                                 const uint64_t *seed);
/** Tensor.exponential_(lambd): Exp(lambd), density lambd * exp(-lambd x) (floating dtypes; lambd >= 0). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_exponential_(glia_tensor *self, double lambd, const uint64_t *seed);
/** Tensor.geometric_(p): trials up to the first success, 1, 2, ... (p in (0, 1); any dtype but bool). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_geometric_(glia_tensor *self, double p, const uint64_t *seed);
/** Tensor.log_normal_(mean, std): exp(N(mean, std^2)) (floating dtypes; std > 0). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_log_normal_(glia_tensor *self, double mean, double std,
                                                     const uint64_t *seed);
/**
 * Tensor.random_: integers uniform in [from, to). torch's three forms: from
 * and to NULL, random_(): [0, 2^mantissa digits] for floating dtypes, [0, max]
 * for integers, {0, 1} for bool; from NULL, random_(to): [0, to); from given,
 * random_(from, to) with to NULL meaning the dtype's largest value. Errors:
 * GLIA_ERR_INVALID_ARGUMENT with torch's messages (from >= to, bounds outside
 * an integer dtype). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_random_(glia_tensor *self, const int64_t *from, const int64_t *to,
                                                 const uint64_t *seed);

/* ---- torch functions missing from OpInfo / coverage (gcd, bincount, as_strided, gradient, ...; issue 20) ---- */
/**
 * torch.gcd(a, b): the greatest common divisor of the magnitudes (>= 0; gcd(0, 0) = 0), broadcast and
 * promoted as torch's binary ops; integer dtypes only (else GLIA_ERR_DTYPE, torch's "gcd_cpu" not
 * implemented for 'Float'). Not differentiable. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_gcd(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** torch.lcm(a, b): |a / gcd(a, b) * b| (0 where gcd is 0); as glia_gcd. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_lcm(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** Tensor.gcd_(other): glia_gcd in place (other broadcasts to self's shape). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_gcd_(glia_tensor *self, const glia_tensor *other);
/** Tensor.lcm_(other): glia_lcm in place. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_lcm_(glia_tensor *self, const glia_tensor *other);
/**
 * torch.bincount(input, weights, minlength): counts of each value of a 1-D non-negative integer input
 * (int64), or sums of weights (NULL for none; float32 and float64 weights keep their dtype, others give
 * float64), max(input) + 1 or minlength entries. Not differentiable. Errors with torch's messages:
 * GLIA_ERR_DTYPE (input not integral), GLIA_ERR_INVALID_ARGUMENT (not 1-D, negative values, weights of
 * another length, minlength < 0). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_bincount(const glia_tensor *input, const glia_tensor *weights,
                                                  int64_t minlength, glia_tensor **out);
/**
 * torch.vander(x, N, increasing): columns x^(N-1), ..., x^0 (x^0, ..., x^(N-1) with increasing) of a 1-D x,
 * N NULL for len(x); dtype promote_types(x, int64). Differentiable (torch's cumulative product). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_vander(const glia_tensor *x, const int64_t *n, int32_t increasing,
                                                glia_tensor **out);
/**
 * torch.as_strided(input, size, stride, storage_offset): a view of input's storage with that geometry
 * (storage_offset NULL: input's own offset). Gradient torch's AsStridedBackward0 (for an input that does
 * not overlap itself). Errors: GLIA_ERR_INVALID_ARGUMENT for sizes and strides of different lengths or a
 * negative offset, GLIA_ERR_SHAPE for a view outside the storage (torch's messages). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_as_strided(const glia_tensor *input, const int64_t *shape, int64_t ndim,
                                                    const int64_t *strides, int64_t n_strides,
                                                    const int64_t *storage_offset, glia_tensor **out);
/**
 * torch.as_strided_scatter(input, src, size, stride, storage_offset): a contiguous copy of input whose
 * elements at the geometry (offset NULL: 0) are src's. Differentiable in input and src. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_as_strided_scatter(const glia_tensor *input, const glia_tensor *src,
                                                            const int64_t *shape, int64_t ndim,
                                                            const int64_t *strides, int64_t n_strides,
                                                            const int64_t *storage_offset, glia_tensor **out);
/**
 * torch.gradient(input, spacing, dim, edge_order): one tensor per differentiated dim (dims NULL: all).
 * spacing: n_spacing numbers (0: unit spacing; 1: the same for every dim) or n_coordinates 1-D coordinate
 * tensors (one per dim); not both. Central differences inside, one-sided of order edge_order (1 or 2) at
 * the edges; torch's formulas and messages. Differentiable. Results as glia_split. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_gradient(const glia_tensor *input, const double *spacing, int64_t n_spacing,
                                                  const glia_tensor *const *coordinates, int64_t n_coordinates,
                                                  const int64_t *dims, int64_t n_dims, int64_t edge_order,
                                                  glia_tensor **outs, int64_t capacity, int64_t *out_count);
/**
 * torch.segment_reduce(data, reduce, lengths=, offsets=, axis, unsafe, initial): reduce ("sum", "mean",
 * "max", "min", "prod") over the segments along axis given by lengths or offsets (exactly one non-NULL;
 * integer, axis + 1 dims); empty segments give initial (NULL: 0, NaN, -inf, inf, 1). Differentiable in
 * data. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_segment_reduce(const glia_tensor *data, const char *reduce,
                                                        const glia_tensor *lengths, const glia_tensor *offsets,
                                                        int64_t axis, int32_t unsafe, const double *initial,
                                                        glia_tensor **out);
/**
 * torch.native_batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps): out_y as
 * glia_batch_norm, out_mean and out_invstd the batch statistics [C] in training (empty in eval).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_native_batch_norm(const glia_tensor *x, const glia_tensor *weight,
                                                           const glia_tensor *bias, glia_tensor *running_mean,
                                                           glia_tensor *running_var, int32_t training,
                                                           double momentum, double eps, glia_tensor **out_y,
                                                           glia_tensor **out_mean, glia_tensor **out_invstd);
/**
 * torch.native_layer_norm(x, normalized_shape, weight, bias, eps): out_y as glia_layer_norm, out_mean and
 * out_rstd of shape x.shape[:-n] + [1] * n. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_native_layer_norm(const glia_tensor *x, const int64_t *normalized_shape,
                                                           int64_t normalized_ndim, const glia_tensor *weight,
                                                           const glia_tensor *bias, double eps, glia_tensor **out_y,
                                                           glia_tensor **out_mean, glia_tensor **out_rstd);
/**
 * torch.histogram(input, bins, range, weight, density): bin_edges NULL for `bins` equal bins over range
 * (2 values, NULL: the data's min and max), else those edges. out_hist in input's dtype (float32 or
 * float64). Not differentiable. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_histogram(const glia_tensor *input, int64_t bins,
                                                   const glia_tensor *bin_edges, const double *range,
                                                   const glia_tensor *weight, int32_t density,
                                                   glia_tensor **out_hist, glia_tensor **out_bin_edges);
/**
 * torch.histogramdd(input [..., D], bins, range, weight, density): bins n_bins counts (edges NULL) or
 * n_edges edge tensors; range 2 * D values or NULL. out_hist D-dim; the D edge tensors go to outs as in
 * glia_split. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_histogramdd(const glia_tensor *input, const int64_t *bins, int64_t n_bins,
                                                     const glia_tensor *const *edges, int64_t n_edges,
                                                     const double *range, int64_t n_range, const glia_tensor *weight,
                                                     int32_t density, glia_tensor **out_hist, glia_tensor **outs,
                                                     int64_t capacity, int64_t *out_count);
#ifdef __cplusplus
}
#endif
