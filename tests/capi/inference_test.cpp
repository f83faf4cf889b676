// Inference mode (torch.inference_mode): no graph inside it, and inference
// tensors kept out of autograd outside it, with torch's messages.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

glia_tensor* vec(std::vector<double> v) {
  glia_tensor* t = nullptr;
  int64_t n = static_cast<int64_t>(v.size());
  EXPECT_EQ(glia_tensor_from_data(v.data(), v.size() * sizeof(double), &n, 1, GLIA_FLOAT64, &t), nullptr);
  return t;
}

int32_t is_inference(const glia_tensor* t) {
  int32_t v = -1;
  EXPECT_EQ(glia_tensor_is_inference(t, &v), nullptr);
  return v;
}

struct InferenceScope {
  InferenceScope() { glia_inference_mode_set(1); }
  ~InferenceScope() { glia_inference_mode_set(0); }
};

TEST(InferenceMode, RecordsNothingAndMarksTensors) {
  glia_tensor* w = vec({1, 2});
  GLIA_OK_(glia_tensor_set_requires_grad(w, 1));
  EXPECT_EQ(is_inference(w), 0);
  glia_tensor *x = nullptr, *y = nullptr, *view = nullptr;
  {
    InferenceScope scope;
    EXPECT_EQ(glia_inference_mode_enabled(), 1);
    EXPECT_EQ(glia_grad_mode_enabled(), 0);
    glia_grad_mode_set(1);  // cannot turn recording back on
    EXPECT_EQ(glia_grad_mode_enabled(), 0);
    x = vec({3, 4});
    GLIA_OK_(glia_mul(w, x, &y));
    int32_t rg = 1;
    GLIA_OK_(glia_tensor_requires_grad(y, &rg));
    EXPECT_EQ(rg, 0);
    EXPECT_EQ(is_inference(x), 1);
    EXPECT_EQ(is_inference(y), 1);
    GLIA_OK_(glia_add_(y, x, 1.0));  // in place inside inference mode is fine
  }
  EXPECT_EQ(glia_inference_mode_enabled(), 0);
  EXPECT_EQ(glia_grad_mode_enabled(), 1);
  GLIA_OK_(glia_transpose(y, 0, 0, &view));
  EXPECT_EQ(is_inference(view), 1);  // a view of an inference tensor is one

  // Outside: no saving for backward, no in-place update, no requires_grad.
  glia_tensor* z = nullptr;
  glia_test::ErrorInfo info = glia_test::take(glia_mul(w, y, &z));
  EXPECT_EQ(info.code, GLIA_ERR_STATE);
  EXPECT_EQ(info.message,
            "Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal "
            "tensor and use it in autograd.");
  EXPECT_EQ(z, nullptr);
  info = glia_test::take(glia_add_(y, w, 1.0));
  EXPECT_EQ(info.code, GLIA_ERR_STATE);
  EXPECT_NE(info.message.find("Inplace update to inference tensor outside InferenceMode is not allowed"),
            std::string::npos)
      << info.message;
  info = glia_test::take(glia_tensor_set_requires_grad(y, 1));
  EXPECT_EQ(info.code, GLIA_ERR_STATE);
  EXPECT_EQ(info.message, "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");

  // Ops that save nothing for the inference operand work; a clone is a normal tensor.
  GLIA_OK_(glia_add(w, y, 1.0, &z));
  GLIA_OK_(glia_tensor_release(z));
  glia_tensor* c = nullptr;
  GLIA_OK_(glia_tensor_clone(y, &c));
  EXPECT_EQ(is_inference(c), 0);
  GLIA_OK_(glia_mul(w, c, &z));
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(z, nullptr, 0, 0, &s));
  GLIA_OK_(glia_tensor_backward(s, nullptr, 0));
  for (glia_tensor* t : {s, z, c, view, y, x, w}) GLIA_OK_(glia_tensor_release(t));
}

}  // namespace
