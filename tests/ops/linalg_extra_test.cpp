// addcmul, addcdiv, dot, vdot, inner, outer, ger, mv, addmv, addr, baddbmm, addbmm against
// tests/golden/gen_linalg_extra.py's fixtures.
#include "ops/golden_support.h"

using namespace glia_ops_test;

namespace {
glia_scalar value_arg(Call& c) { return c.has("value") ? c.scalar("value") : glia_scalar_int(1); }
}  // namespace

GLIA_ADAPTER(addcmul) { return glia_addcmul(c.in[0], c.in[1], c.in[2], value_arg(c), c.out()); }
GLIA_ADAPTER(addcdiv) { return glia_addcdiv(c.in[0], c.in[1], c.in[2], value_arg(c), c.out()); }
GLIA_ADAPTER(dot) { return glia_dot(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(vdot) { return glia_vdot(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(inner) { return glia_inner(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(outer) { return glia_outer(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(ger) { return glia_ger(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(mv) { return glia_mv(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(addmv) { return glia_addmv(c.in[0], c.in[1], c.in[2], c.num("beta", 1.0), c.num("alpha", 1.0), c.out()); }
GLIA_ADAPTER(addr) { return glia_addr(c.in[0], c.in[1], c.in[2], c.num("beta", 1.0), c.num("alpha", 1.0), c.out()); }
GLIA_ADAPTER(baddbmm) {
  return glia_baddbmm(c.in[0], c.in[1], c.in[2], c.num("beta", 1.0), c.num("alpha", 1.0), c.out());
}
GLIA_ADAPTER(addbmm) {
  return glia_addbmm(c.in[0], c.in[1], c.in[2], c.num("beta", 1.0), c.num("alpha", 1.0), c.out());
}

TEST(LinalgExtra, Golden) { run_cases("linalg_extra.json"); }
TEST(LinalgExtra, Errors) { run_errors("linalg_extra.json"); }
