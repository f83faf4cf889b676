// torch.nn containers: Sequential, ModuleList, ModuleDict, ParameterList,
// ParameterDict (torch 1.13's container.py: names, numbering, errors, repr).
#pragma once

#include "nn/module.h"

namespace glia::nn {

// Python's index rule for lists: idx in [-size, size) else
// IndexError("index {idx} is out of range"); returns the absolute index.
size_t list_index(int64_t idx, size_t size);
// Python's slice.indices(len) followed by range(start, stop, step).
// step != 0 (else "slice step cannot be zero"); INT64_MAX / INT64_MIN act as
// the open ends (None).
std::vector<size_t> slice_indices(int64_t start, int64_t stop, int64_t step, size_t size);

class Sequential : public Module {
 public:
  Sequential() : Module("Sequential") {}
  // forward(input): each child in order on the previous child's outputs.
  TensorList forward(const TensorList& inputs) override;
  void append(ModuleRef m);
  // insert(index, module): index in [-n, n] else "Index out of range: {index}".
  void insert(int64_t index, ModuleRef m);
  ModuleRef at(int64_t index) const;
  void set(int64_t index, ModuleRef m);
  // self[start:stop:step]: a new Sequential sharing the children under their original keys.
  Ref<Sequential> slice(int64_t start, int64_t stop, int64_t step) const;
  // pop(index) / del self[index]: removes the child and renumbers the rest
  // "0", "1", ... (torch 1.13's __delitem__); returns the removed child.
  ModuleRef pop(int64_t index);
};

class ModuleList : public Module {
 public:
  ModuleList() : Module("ModuleList") {}
  void append(ModuleRef m);
  void insert(int64_t index, ModuleRef m);
  ModuleRef at(int64_t index) const;
  void set(int64_t index, ModuleRef m);
  // self[start:stop:step]: a new ModuleList of the same modules, renumbered.
  Ref<ModuleList> slice(int64_t start, int64_t stop, int64_t step) const;
  // pop(index) / del self[index]: as Sequential::pop.
  ModuleRef pop(int64_t index);
};

class ModuleDict : public Module {
 public:
  ModuleDict() : Module("ModuleDict") {}
  void set(const std::string& key, ModuleRef m) { register_module(key, std::move(m)); }
  // KeyError text: the key in quotes, as Python prints KeyError('x').
  ModuleRef get(const std::string& key) const;
  // pop(key) / del self[key]: NotFound "'key'" (KeyError) when absent.
  ModuleRef pop(const std::string& key);
  void clear();
};

class ParameterList : public Module {
 public:
  ParameterList() : Module("ParameterList") {}
  TensorList forward(const TensorList& inputs) override;
  void append(const Tensor& p);
  Tensor at(int64_t index) const;
  void set(int64_t index, const Tensor& p);
  std::string extra_repr() const override;
};

class ParameterDict : public Module {
 public:
  ParameterDict() : Module("ParameterDict") {}
  TensorList forward(const TensorList& inputs) override;
  void set(const std::string& key, const Tensor& p) { register_parameter(key, p); }
  Tensor get(const std::string& key) const;
  // pop(key) / del self[key]: NotFound "'ParameterDict' object has no
  // attribute 'key'" (torch's AttributeError) when absent.
  Tensor pop(const std::string& key);
  void clear();
  std::string extra_repr() const override;
};

// len(container): the number of children (Sequential, ModuleList, ModuleDict)
// or parameters (ParameterList, ParameterDict); null when `m` is none of them.
std::optional<size_t> container_len(const Module& m);

}  // namespace glia::nn
