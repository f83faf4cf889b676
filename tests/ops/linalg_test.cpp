// matmul, mm, bmm, addmm, linear against tests/golden/gen_linalg.py's fixtures.
#include "ops/golden_support.h"

using namespace glia_ops_test;

GLIA_ADAPTER(matmul) { return glia_matmul(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(mm) { return glia_mm(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(bmm) { return glia_bmm(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(addmm) { return glia_addmm(c.in[0], c.in[1], c.in[2], c.num("beta", 1.0), c.num("alpha", 1.0), c.out()); }
GLIA_ADAPTER(linear) { return glia_linear(c.in[0], c.in[1], c.in[2], c.out()); }

TEST(Linalg, Golden) { run_cases("linalg.json"); }
TEST(Linalg, Errors) { run_errors("linalg.json"); }
