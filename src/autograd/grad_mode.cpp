#include "autograd/grad_mode.h"

#include "core/tensor.h"

namespace glia {

namespace {
// Stored inverted so that zero-initialised TLS means "enabled"; a plain bool
// keeps the TLS trivially destructible (the library can be dlclose()d).
thread_local bool t_grad_disabled = false;
}  // namespace

bool grad_mode_enabled() { return !t_grad_disabled && !inference_mode_enabled(); }
void set_grad_mode(bool enabled) { t_grad_disabled = !enabled; }
bool inference_mode() { return inference_mode_enabled(); }
void set_inference_mode(bool enabled) { set_inference_mode_flag(enabled); }

}  // namespace glia
