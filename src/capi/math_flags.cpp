// The determinism and TF32 switches (glia.h, "Determinism and TF32"; Note [Math flags] in core/math_flags.h).
#include "core/math_flags.h"

#include "capi/api.h"
#include "glia/glia_backend.h"

using namespace glia;

namespace {

void check_flag(int32_t v, const char* fn, const char* arg) {
  GLIA_CHECK(v == 0 || v == 1, InvalidArgument, fn, ": argument '", arg, "' is a flag: expected 0 or 1, got ", v);
}

uint32_t tf32_bit(glia_tf32_scope scope, const char* fn) {
  const int s = static_cast<int>(scope);
  GLIA_CHECK(s == GLIA_TF32_MATMUL || s == GLIA_TF32_CUDNN, InvalidArgument, fn, ": argument 'scope' is ", s,
             ", expected GLIA_TF32_MATMUL (0) or GLIA_TF32_CUDNN (1)");
  return s == GLIA_TF32_MATMUL ? GLIA_BACKEND_MATH_TF32_MATMUL : GLIA_BACKEND_MATH_TF32_CUDNN;
}

}  // namespace

extern "C" {

glia_error* glia_set_deterministic_algorithms(int32_t enabled) {
  return capi::guard([&] {
    check_flag(enabled, "glia_set_deterministic_algorithms", "enabled");
    set_math_flag(GLIA_BACKEND_MATH_DETERMINISTIC, enabled != 0);
  });
}

int32_t glia_get_deterministic_algorithms(void) { return math_flag(GLIA_BACKEND_MATH_DETERMINISTIC) ? 1 : 0; }

glia_error* glia_set_cudnn_deterministic(int32_t enabled) {
  return capi::guard([&] {
    check_flag(enabled, "glia_set_cudnn_deterministic", "enabled");
    set_math_flag(GLIA_BACKEND_MATH_CUDNN_DETERMINISTIC, enabled != 0);
  });
}

int32_t glia_get_cudnn_deterministic(void) { return math_flag(GLIA_BACKEND_MATH_CUDNN_DETERMINISTIC) ? 1 : 0; }

glia_error* glia_set_allow_tf32(glia_tf32_scope scope, int32_t allow) {
  return capi::guard([&] {
    const uint32_t bit = tf32_bit(scope, "glia_set_allow_tf32");
    check_flag(allow, "glia_set_allow_tf32", "allow");
    set_math_flag(bit, allow != 0);
  });
}

glia_error* glia_get_allow_tf32(glia_tf32_scope scope, int32_t* out) {
  return capi::guard([&] {
    const uint32_t bit = tf32_bit(scope, "glia_get_allow_tf32");
    capi::check_out(out, "glia_get_allow_tf32", "out");
    *out = math_flag(bit) ? 1 : 0;
  });
}

}  // extern "C"
