// The determinism and TF32 switches of the C API (glia.h, "Determinism and TF32"): torch's defaults, round
// trips, and bad arguments refused with nothing changed. What they do is on the CUDA backend (cuDNN's
// algorithms, TF32 math: tests/cuda/cuda_test.cpp on a GPU); here, that they are kept and reported.
#include <gtest/gtest.h>

#include "glia/glia.h"
#include "support/test_support.h"

namespace {

int32_t tf32(glia_tf32_scope scope) {
  int32_t v = -1;
  glia_error* e = glia_get_allow_tf32(scope, &v);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return v;
}

// Puts every flag back to torch's defaults when a test ends (they are process-wide).
class MathFlags : public ::testing::Test {
 protected:
  void TearDown() override {
    glia_error_free(glia_set_deterministic_algorithms(0));
    glia_error_free(glia_set_cudnn_deterministic(0));
    glia_error_free(glia_set_allow_tf32(GLIA_TF32_MATMUL, 0));
    glia_error_free(glia_set_allow_tf32(GLIA_TF32_CUDNN, 1));
  }
};

// torch 1.13: are_deterministic_algorithms_enabled() False, backends.cudnn.deterministic False,
// backends.cuda.matmul.allow_tf32 False, backends.cudnn.allow_tf32 True. (First in this file: nothing has
// changed them yet in this process; the other tests restore them.)
TEST_F(MathFlags, DefaultsAreTorchs) {
  EXPECT_EQ(glia_get_deterministic_algorithms(), 0);
  EXPECT_EQ(glia_get_cudnn_deterministic(), 0);
  EXPECT_EQ(tf32(GLIA_TF32_MATMUL), 0);
  EXPECT_EQ(tf32(GLIA_TF32_CUDNN), 1);
}

TEST_F(MathFlags, RoundTrips) {
  GLIA_OK_(glia_set_deterministic_algorithms(1));
  EXPECT_EQ(glia_get_deterministic_algorithms(), 1);
  EXPECT_EQ(glia_get_cudnn_deterministic(), 0);  // torch's two flags are separate
  GLIA_OK_(glia_set_cudnn_deterministic(1));
  EXPECT_EQ(glia_get_cudnn_deterministic(), 1);
  GLIA_OK_(glia_set_deterministic_algorithms(0));
  EXPECT_EQ(glia_get_deterministic_algorithms(), 0);
  EXPECT_EQ(glia_get_cudnn_deterministic(), 1);
  GLIA_OK_(glia_set_cudnn_deterministic(0));
  EXPECT_EQ(glia_get_cudnn_deterministic(), 0);

  GLIA_OK_(glia_set_allow_tf32(GLIA_TF32_MATMUL, 1));
  EXPECT_EQ(tf32(GLIA_TF32_MATMUL), 1);
  EXPECT_EQ(tf32(GLIA_TF32_CUDNN), 1);
  GLIA_OK_(glia_set_allow_tf32(GLIA_TF32_CUDNN, 0));
  EXPECT_EQ(tf32(GLIA_TF32_CUDNN), 0);
  EXPECT_EQ(tf32(GLIA_TF32_MATMUL), 1);  // the scopes are independent
  GLIA_OK_(glia_set_allow_tf32(GLIA_TF32_MATMUL, 0));
  EXPECT_EQ(tf32(GLIA_TF32_MATMUL), 0);
  EXPECT_EQ(tf32(GLIA_TF32_CUDNN), 0);
  // Setting a flag to the value it has is fine.
  GLIA_OK_(glia_set_allow_tf32(GLIA_TF32_MATMUL, 0));
  EXPECT_EQ(tf32(GLIA_TF32_MATMUL), 0);
}

TEST_F(MathFlags, BadArgumentsAreRefusedAndChangeNothing) {
  EXPECT_GLIA_MSG(glia_set_deterministic_algorithms(2), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_set_deterministic_algorithms: argument 'enabled' is a flag: expected 0 or 1, got 2");
  EXPECT_EQ(glia_get_deterministic_algorithms(), 0);
  EXPECT_GLIA_MSG(glia_set_cudnn_deterministic(-1), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_set_cudnn_deterministic: argument 'enabled' is a flag: expected 0 or 1, got -1");
  EXPECT_EQ(glia_get_cudnn_deterministic(), 0);
  EXPECT_GLIA_MSG(glia_set_allow_tf32(GLIA_TF32_MATMUL, 5), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_set_allow_tf32: argument 'allow' is a flag: expected 0 or 1, got 5");
  EXPECT_EQ(tf32(GLIA_TF32_MATMUL), 0);
  const auto bad = static_cast<glia_tf32_scope>(2);
  EXPECT_GLIA_MSG(glia_set_allow_tf32(bad, 1), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_set_allow_tf32: argument 'scope' is 2, expected GLIA_TF32_MATMUL (0) or GLIA_TF32_CUDNN (1)");
  EXPECT_GLIA_MSG(glia_set_allow_tf32(static_cast<glia_tf32_scope>(-1), 0), GLIA_ERR_INVALID_ARGUMENT,
                  "argument 'scope' is -1");
  EXPECT_EQ(tf32(GLIA_TF32_MATMUL), 0);
  EXPECT_EQ(tf32(GLIA_TF32_CUDNN), 1);
  int32_t v = 7;
  EXPECT_GLIA_MSG(glia_get_allow_tf32(bad, &v), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_get_allow_tf32: argument 'scope' is 2");
  EXPECT_EQ(v, 7);  // not written on failure
  EXPECT_GLIA_MSG(glia_get_allow_tf32(GLIA_TF32_CUDNN, nullptr), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_get_allow_tf32: argument 'out' is NULL");
}

}  // namespace
