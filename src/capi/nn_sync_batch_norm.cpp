// glia_nn_sync_batch_norm: torch.nn.SyncBatchNorm (distributed/sync_batch_norm.h).
#include <algorithm>
#include <cstring>

#include "capi/api.h"
#include "distributed/sync_batch_norm.h"

using namespace glia;
using namespace glia::capi;

namespace {

dist::ProcessGroup* optional_group(const glia_process_group* h, const char* fn) {
  return h ? lookup<dist::ProcessGroup>(h, HandleType::ProcessGroup, fn, "process_group") : nullptr;
}

// BatchNorm's options through glia_nn_batch_norm1d's reader: its checks and messages, named after `fn`.
nn::BatchNormOptions read_options(const glia_batch_norm_options* options, const glia_factory_options* factory,
                                  const char* fn) {
  glia_factory_options f;
  glia_factory_options_init(&f);
  if (factory) std::memcpy(&f, factory, std::min(factory->struct_size, sizeof(f)));
  f.struct_size = sizeof(f);
  f.skip_init = 1;
  glia_module* h = nullptr;
  glia_error* e = glia_nn_batch_norm1d(0, options, &f, &h);
  if (e) {
    Code code = static_cast<Code>(glia_error_code(e));
    std::string msg = glia_error_message(e);
    glia_error_free(e);
    const char* inner = "glia_nn_batch_norm1d";
    if (msg.compare(0, std::strlen(inner), inner) == 0) msg = fn + msg.substr(std::strlen(inner));
    throw Error(code, msg);
  }
  nn::ModuleRef m = module_arg(h, fn, "out");
  glia_error_free(glia_module_release(h));
  return static_cast<nn::BatchNorm&>(*m).options();
}

}  // namespace

extern "C" {

glia_error* glia_nn_sync_batch_norm(int64_t num_features, const glia_batch_norm_options* options,
                                    glia_process_group* process_group, const glia_factory_options* factory,
                                    glia_module** out) {
  const char* fn = "glia_nn_sync_batch_norm";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) -> nn::ModuleRef {
    nn::BatchNormOptions o = read_options(options, factory, fn);
    dist::ProcessGroup* g = optional_group(process_group, fn);
    return make_ref<dist::SyncBatchNorm>(num_features, o, Ref<dist::ProcessGroup>::share(g), f);
  });
}

glia_error* glia_nn_sync_batch_norm_set_process_group(glia_module* module, glia_process_group* process_group) {
  const char* fn = "glia_nn_sync_batch_norm_set_process_group";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    auto* s = dynamic_cast<dist::SyncBatchNorm*>(m.get());
    GLIA_CHECK(s, InvalidArgument, fn, ": the module is a ", m->type_name(), ", not a SyncBatchNorm");
    dist::ProcessGroup* g = optional_group(process_group, fn);
    s->set_process_group(Ref<dist::ProcessGroup>::share(g));
  });
}

}  // extern "C"
