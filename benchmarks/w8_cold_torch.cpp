// W8 (b), libtorch's side: loads libtorch (dynamically linked), adds two 2x2 tensors, checks the sum
// and exits. benchmarks/w8_spawn times fork+exec+wait of it.
#include <torch/torch.h>

int main() {
  torch::Tensor c = torch::add(torch::ones({2, 2}), torch::ones({2, 2}));
  return c.equal(torch::full({2, 2}, 2.0f)) ? 0 : 1;
}
