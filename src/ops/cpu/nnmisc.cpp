// Host-side helpers of the norms, dropouts and distances of issue 21: the
// dropout masks (glia's generator) and pdist's index pairs.
#include "ops/nnmisc.h"

#include "core/dispatch.h"
#include "core/random.h"
#include "ops/cpu/loops.h"

namespace glia::ops {

Tensor bernoulli_mask(IntSpan shape, DType dtype, Device device, double keep) {
  Tensor mask = empty(shape, dtype, Device{});
  const int64_t n = mask.numel();
  dispatch_floating(dtype, "bernoulli_", [&](auto tag) {
    using T = decltype(tag);
    const T one = T(1.0f), zero = T(0.0f);
    T* o = mask.data_ptr<T>();
    // One stream, in order: the mask depends only on the seed, not on the thread count.
    Generator& gen = thread_generator();
    for (int64_t i = 0; i < n; ++i) o[i] = gen.next_double() < keep ? one : zero;
  });
  return to_device(mask, device);
}

void pdist_pairs(int64_t n, Device device, Tensor* first, Tensor* second) {
  const int64_t count = n > 1 ? n * (n - 1) / 2 : 0;
  Tensor a = empty(Dims{count}, DType::Int64, Device{}), b = empty(Dims{count}, DType::Int64, Device{});
  int64_t* pa = a.data_ptr<int64_t>();
  int64_t* pb = b.data_ptr<int64_t>();
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j, ++k) {
      pa[k] = i;
      pb[k] = j;
    }
  *first = to_device(a, device);
  *second = to_device(b, device);
}

}  // namespace glia::ops
