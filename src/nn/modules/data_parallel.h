// torch.nn.DataParallel: one process, several devices (Note [DataParallel]).
#pragma once

#include <cstdint>
#include <vector>

#include "nn/module.h"

namespace glia::nn {

// Note [DataParallel]
// torch's DataParallel (torch/nn/parallel/data_parallel.py of 1.13) over a glia module, a Module
// itself whose child is "module" (state-dict keys "module.<name>"). A forward:
// - checks that every parameter and buffer of the module is on device_ids[0] (torch's message);
// - scatters each input along `dim` into at most one chunk per device (torch.chunk's sizes; fewer
//   chunks than devices use fewer replicas), each chunk copied to its device (differentiable);
// - with one device (or one chunk) calls the module on device_ids[0] directly;
// - otherwise makes one replica per chunk (Note [DataParallel replicas] in nn/module.h): the
//   parameters copied to each device differentiably when grad mode is on (torch's Broadcast), the
//   buffers without gradient (replica 0's are the module's own tensors), the tensor attributes
//   copied as the parameters; runs replica 0 on the calling thread and the others on threads of
//   their own, each with the caller's grad and inference mode and its device's current stream of
//   the caller; an error in a replica fails the call, after every replica finished, naming the
//   replica and its device;
// - gathers output i of every replica on output_device by concatenating along `dim`
//   (differentiable); 0-d outputs become a vector of one element per replica (torch's warning).
// Backward then sends each replica's gradients back through the copies: the module's parameters
// receive the sum over the replicas. Hooks of the module and its children run once per replica,
// on the replica's thread, with that replica's tensors. With no device_ids the module is called
// as it is (torch's DataParallel without GPUs).
class DataParallel final : public Module {
 public:
  // `device_ids`: distinct devices of one type other than the CPU (empty: pass-through);
  // `output_device`: where outputs are gathered (default device_ids[0]; the CPU is allowed).
  DataParallel(ModuleRef module, std::vector<Device> device_ids, std::optional<Device> output_device, int64_t dim);
  TensorList forward(const TensorList& inputs) override;

  const std::vector<Device>& device_ids() const { return device_ids_; }
  Device output_device() const { return output_device_; }
  int64_t dim() const { return dim_; }

 private:
  ModuleRef module_;
  std::vector<Device> device_ids_;
  Device output_device_{};
  int64_t dim_ = 0;
};

}  // namespace glia::nn
