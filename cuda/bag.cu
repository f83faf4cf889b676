#include "common.h"

namespace glia::cuda {

glia_kernel_fn bag_kernel(Kid) { return nullptr; }

}  // namespace glia::cuda
