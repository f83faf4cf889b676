#include "core/backend.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "core/error.h"
#include "core/log.h"

namespace glia {

namespace {
struct Loaded {
  void* handle = nullptr;
  const BackendV1* table = nullptr;
  bool tried = false;
};
std::mutex g_mu;
Loaded g_cuda;

std::string self_dir() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&backend_load), &info) && info.dli_fname) {
    std::string p = info.dli_fname;
    size_t slash = p.rfind('/');
    if (slash != std::string::npos) return p.substr(0, slash + 1);
  }
  return "";
}

void load_locked(const std::string& name) {
  if (g_cuda.table) return;
  std::string err;
  void* h = nullptr;
  if (name == "cuda") {
    for (const std::string& cand : {self_dir() + "libglia_cuda.so.0", std::string("libglia_cuda.so.0")}) {
      h = dlopen(cand.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h) break;
      const char* e = dlerror();
      if (!err.empty()) err += "; ";
      err += e ? e : cand;
    }
  } else {
    GLIA_CHECK(name.find('/') != std::string::npos, Unsupported, "backend_load: unknown backend \"", name,
               "\" (expected \"cuda\" or a path to a backend library)");
    h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      err = e ? e : name;
    }
  }
  GLIA_CHECK(h, NotFound, "backend_load: cannot load backend \"", name, "\": ", err);
  using Entry = const BackendV1* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(h, "glia_backend_v1"));
  const BackendV1* table = entry ? entry() : nullptr;
  if (!table || table->abi_version != kBackendAbiVersion) {
    dlclose(h);
    fail(Code::Unsupported, "backend_load: \"", name, "\" is not a glia backend of ABI version ", kBackendAbiVersion);
  }
  g_cuda.handle = h;
  g_cuda.table = table;
  log(LogLevel::Info, std::string("loaded backend ") + table->name);
}
}  // namespace

void backend_load(const std::string& name) {
  std::lock_guard<std::mutex> lock(g_mu);
  load_locked(name);
}

int32_t cuda_device_count() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_cuda.table && !g_cuda.tried) {
    g_cuda.tried = true;
    try {
      load_locked("cuda");
    } catch (const Error& e) {
      log(LogLevel::Debug, e.message());
    }
  }
  return g_cuda.table ? g_cuda.table->device_count() : 0;
}

void backends_unload() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_cuda.handle) dlclose(g_cuda.handle);
  g_cuda = Loaded{};
}

}  // namespace glia
