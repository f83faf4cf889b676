// Pieces every module entry point shares: factory options, glia_string_free.
#include <cstdlib>

#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

nn::Factory glia::capi::factory_arg(const glia_factory_options* o, const char* fn, bool* skip_init) {
  nn::Factory f;
  *skip_init = false;
  if (!o) return f;
  GLIA_CHECK(o->struct_size >= offsetof(glia_factory_options, device) + sizeof(glia_device), InvalidArgument, fn,
             ": options->struct_size is ", o->struct_size, ", expected at least ", sizeof(glia_factory_options),
             " (use glia_factory_options_init)");
  f.dtype = dtype_arg(o->dtype, fn, "options->dtype");
  GLIA_CHECK(is_floating(f.dtype), DType, fn, ": options->dtype must be a floating point dtype, got ",
             dtype_name(f.dtype));
  f.device = device_arg(o->device, fn);
  if (o->struct_size >= offsetof(glia_factory_options, skip_init) + sizeof(int32_t)) *skip_init = o->skip_init != 0;
  return f;
}

extern "C" {

void glia_factory_options_init(glia_factory_options* o) {
  if (!o) return;
  *o = glia_factory_options{};
  o->struct_size = sizeof(glia_factory_options);
  o->dtype = GLIA_FLOAT32;
}

void glia_string_free(char* s) { std::free(s); }

}  // extern "C"
