// cuDNN's statuses as words and its load-time version checks (cudnn_check.h).
#include "cudnn_check.h"

#include <dlfcn.h>

namespace glia::cuda {

namespace {

const char* status_text(cudnnStatus_t st) {
  // The categories are the thousands: 1000 (NOT_INITIALIZED = 1001 and the sub-library statuses), 2000
  // (BAD_PARAM), 3000 (NOT_SUPPORTED), 4000 (INTERNAL_ERROR), 5000 (EXECUTION_FAILED).
  switch (static_cast<int>(CUDNN_STATUS_CATEGORY(st))) {
    case 1000:
      return st == CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH ? "a cuDNN sub-library has another version"
             : st == CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED ? "a cuDNN sub-library cannot be loaded"
                                                            : "cuDNN is not initialized";
    case CUDNN_STATUS_BAD_PARAM:
      return "bad parameter";
    case CUDNN_STATUS_NOT_SUPPORTED:
      return "not supported";
    case CUDNN_STATUS_INTERNAL_ERROR:
      return "internal error";
    case CUDNN_STATUS_EXECUTION_FAILED:
      return "execution failed";
    default:
      return "unknown status";
  }
}

// The loader's message for a library that cannot be loaded from here, or "" when it loads.
std::string loader_message(const char* lib) {
  void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (h) {
    dlclose(h);
    return "";
  }
  const char* e = dlerror();
  return e ? e : "";
}

}  // namespace

std::string cudnn_status_message(cudnnStatus_t st) {
  char last[512] = {};
  cudnnGetLastErrorString(last, sizeof last);
  std::string m = status_text(st);
  if (last[0]) m += std::string(": ") + last;
  return m + " (" + cudnnGetErrorString(st) + ")";
}

std::string cudnn_check() {
  const size_t v = cudnnGetVersion();
  const std::string loaded =
      std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
  if (v / 10000 != CUDNN_MAJOR)
    return "cuDNN " + loaded + " was loaded as libcudnn.so." + std::to_string(CUDNN_MAJOR) +
           ", glia was built for cuDNN " + std::to_string(CUDNN_MAJOR) + "." + std::to_string(CUDNN_MINOR);
  struct Sub {
    const char* call;
    cudnnStatus_t (*check)();
    const char* lib;
  };
  const Sub subs[] = {{"cudnnGraphVersionCheck", &cudnnGraphVersionCheck, "libcudnn_graph.so.9"},
                      {"cudnnOpsVersionCheck", &cudnnOpsVersionCheck, "libcudnn_ops.so.9"},
                      {"cudnnCnnVersionCheck", &cudnnCnnVersionCheck, "libcudnn_cnn.so.9"}};
  for (const Sub& s : subs) {
    const cudnnStatus_t st = s.check();
    if (st == CUDNN_STATUS_SUCCESS) continue;
    const std::string why =
        std::string("cudnn: ") + s.call + " (cuDNN " + loaded + ") failed: " + cudnn_status_message(st);
    const std::string ld = loader_message(s.lib);
    return ld.empty() ? why : ld + " (" + why + ")";
  }
  return "";
}

}  // namespace glia::cuda
