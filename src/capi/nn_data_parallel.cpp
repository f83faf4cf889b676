// glia_nn_data_parallel: torch.nn.DataParallel (nn/modules/data_parallel.h).
#include <optional>
#include <vector>

#include "capi/api.h"
#include "nn/modules/data_parallel.h"

using namespace glia;
using namespace glia::capi;

extern "C" {

glia_error* glia_nn_data_parallel(glia_module* module, const glia_device* device_ids, int64_t num_devices,
                                  const glia_device* output_device, int64_t dim, glia_module** out) {
  const char* fn = "glia_nn_data_parallel";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    check_out(out, fn, "out");
    GLIA_CHECK(num_devices >= 0, InvalidArgument, fn, ": argument 'num_devices' must be >= 0, got ", num_devices);
    GLIA_CHECK(num_devices == 0 || device_ids, InvalidArgument, fn, ": argument 'device_ids' is NULL with ",
               num_devices, " devices");
    std::vector<Device> ids;
    for (int64_t i = 0; i < num_devices; ++i) ids.push_back(device_arg(device_ids[i], fn));
    std::optional<Device> output;
    if (output_device) output = device_arg(*output_device, fn);
    nn::ModuleRef dp = make_ref<nn::DataParallel>(m, std::move(ids), output, dim);
    *out = module_handle(dp);
  });
}

}  // extern "C"
