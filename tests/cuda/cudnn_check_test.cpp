// cuDNN's load-time checks (cuda/cudnn_check.cpp, Note [cuDNN in the CUDA backend]) on the CPU: with the
// toolkit's cuDNN 9 every sub-library loads and matches, and statuses read as words with cuDNN's name. The
// CUDA backend runs the same checks when it first counts its devices (only when there is a device, so on a
// machine without one this is where they run). Needs cuDNN, no CUDA runtime or GPU.
#include "cudnn_check.h"

#include <gtest/gtest.h>

#include <string>

TEST(CudnnCheck, SubLibrariesLoadAndMatch) {
  EXPECT_EQ(cudnnGetVersion() / 10000, static_cast<size_t>(CUDNN_MAJOR));
  EXPECT_EQ(glia::cuda::cudnn_check(), "");
  // What the check loaded is cuDNN's convolution library itself, now resident.
  EXPECT_EQ(cudnnCnnVersionCheck(), CUDNN_STATUS_SUCCESS);
}

TEST(CudnnCheck, StatusesReadAsWordsWithCudnnsName) {
  const std::string m = glia::cuda::cudnn_status_message(CUDNN_STATUS_NOT_SUPPORTED_SHAPE);
  EXPECT_EQ(m.rfind("not supported", 0), 0u) << m;
  EXPECT_NE(m.find("(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)"), std::string::npos) << m;
  const std::string l = glia::cuda::cudnn_status_message(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED);
  EXPECT_EQ(l.rfind("a cuDNN sub-library cannot be loaded", 0), 0u) << l;
  EXPECT_NE(l.find("(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)"), std::string::npos) << l;
  const std::string n = glia::cuda::cudnn_status_message(CUDNN_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(n.rfind("cuDNN is not initialized", 0), 0u) << n;
  const std::string b = glia::cuda::cudnn_status_message(CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(b.rfind("bad parameter", 0), 0u) << b;
  EXPECT_NE(b.find("(CUDNN_STATUS_BAD_PARAM)"), std::string::npos) << b;
}
