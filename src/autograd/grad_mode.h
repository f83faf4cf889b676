// Thread-local grad mode (torch.no_grad / enable_grad / inference_mode).
#pragma once

namespace glia {

bool grad_mode_enabled();
void set_grad_mode(bool enabled);

// RAII: sets grad mode for a scope and restores it afterwards.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : prev_(grad_mode_enabled()) { set_grad_mode(enabled); }
  ~GradModeGuard() { set_grad_mode(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace glia
