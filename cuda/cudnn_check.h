// cuDNN's statuses as words, and its load-time version checks (cudnn_check.cpp): what conv.cpp and the
// backend's device count use, built also into a host test (tests/cuda/cudnn_check_test.cpp) that needs only
// cuDNN, no CUDA runtime or GPU.
#ifndef GLIA_CUDA_CUDNN_CHECK_H
#define GLIA_CUDA_CUDNN_CHECK_H

#include <cudnn.h>

#include <string>

namespace glia::cuda {

// "not supported: <cuDNN's last error message, if any> (CUDNN_STATUS_NOT_SUPPORTED_SHAPE)".
std::string cudnn_status_message(cudnnStatus_t st);

// cuDNN's version checks of its sub-libraries (Note [cuDNN in the CUDA backend] in conv.cpp): "" when
// libcudnn.so.9 is cuDNN 9 and libcudnn_graph, libcudnn_ops and libcudnn_cnn load and match it; else why
// not, led by the loader's message for a sub-library that cannot be loaded ("libcudnn_cnn.so.9: cannot open
// shared object file: ...").
std::string cudnn_check();

}  // namespace glia::cuda

#endif  // GLIA_CUDA_CUDNN_CHECK_H
