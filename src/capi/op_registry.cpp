#include "capi/op_registry.h"

namespace glia::capi {

namespace {
constexpr OpGrad NOGRAD = OpGrad::None;
constexpr OpGrad GRAD = OpGrad::First;
constexpr OpGrad GRAD2 = OpGrad::Second;
constexpr OpInfo kOps[] = {
#define GLIA_OP(name, grad, fixture) {#name, grad, #fixture},
#include "capi/ops.def"
#undef GLIA_OP
};
}  // namespace

std::span<const OpInfo> op_registry() { return kOps; }

}  // namespace glia::capi
