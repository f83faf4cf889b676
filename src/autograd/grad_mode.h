// Thread-local grad mode (torch.no_grad / enable_grad / inference_mode).
#pragma once

namespace glia {

// Note [Inference mode]: torch.inference_mode. While it is on, grad mode is
// off and every tensor created is an inference tensor. Outside it, an
// inference tensor cannot be saved for backward, updated in place or made to
// require grad (torch's messages): it never enters a graph.
bool grad_mode_enabled();
void set_grad_mode(bool enabled);
bool inference_mode();
void set_inference_mode(bool enabled);

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
