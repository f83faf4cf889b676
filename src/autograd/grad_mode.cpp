#include "autograd/grad_mode.h"

namespace glia {

namespace {
// Stored inverted so that zero-initialised TLS means "enabled"; a plain bool
// keeps the TLS trivially destructible (the library can be dlclose()d).
thread_local bool t_grad_disabled = false;
}  // namespace

bool grad_mode_enabled() { return !t_grad_disabled; }
void set_grad_mode(bool enabled) { t_grad_disabled = !enabled; }

}  // namespace glia
