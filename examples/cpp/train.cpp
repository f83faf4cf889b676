// Trains a small classifier with the C++ wrapper (include/glia/glia.hpp) and saves it.
#include <glia/glia.hpp>
#include <iostream>

int main() {
  glia::manual_seed(0);
  // Points inside the unit circle are class 1, the others class 0.
  glia::Tensor x = glia::Tensor::rand({256, 2}) * 4.0 - 2.0;
  glia::Tensor y = (x * x).sum({1}).lt(glia::Tensor::ones({1})).to(GLIA_INT64);

  glia::Module model = glia::nn::Sequential(
      {glia::nn::Linear(2, 32), glia::nn::ReLU(), glia::nn::Linear(32, 32), glia::nn::ReLU(), glia::nn::Linear(32, 2)});
  glia::Module loss_fn = glia::nn::CrossEntropyLoss();
  glia::Optimizer opt = glia::optim::Adam(model.parameters(), glia::optim::AdamOptions(0.01));

  for (int epoch = 0; epoch <= 300; ++epoch) {
    opt.zero_grad();
    glia::Tensor loss = loss_fn(model(x), y);
    loss.backward();
    opt.step();
    if (epoch % 100 == 0) std::cout << "epoch " << epoch << " loss " << loss.item() << "\n";
  }

  glia::NoGradGuard no_grad;
  const double accuracy = model.eval()(x).argmax(1).eq(y).to(GLIA_FLOAT32).mean().item();
  std::cout << "accuracy " << accuracy << "\n" << model << "\n";
  model.save("circle.safetensors");
  return accuracy > 0.9 ? 0 : 1;
}
