#include "nn/modules/container.h"

#include <climits>

#include "nn/repr.h"

namespace glia::nn {

size_t list_index(int64_t idx, size_t size) {
  auto n = static_cast<int64_t>(size);
  GLIA_CHECK(idx >= -n && idx < n, InvalidArgument, "index ", idx, " is out of range");
  return static_cast<size_t>(idx < 0 ? idx + n : idx);
}

std::vector<size_t> slice_indices(int64_t start, int64_t stop, int64_t step, size_t size) {
  GLIA_CHECK(step != 0, InvalidArgument, "slice step cannot be zero");
  auto n = static_cast<int64_t>(size);
  // CPython's PySlice_AdjustIndices.
  auto adjust = [&](int64_t v, bool is_start) {
    bool open = step > 0 ? (is_start ? v == INT64_MIN : v == INT64_MAX) : (is_start ? v == INT64_MAX : v == INT64_MIN);
    if (open) return is_start ? (step > 0 ? int64_t{0} : n - 1) : (step > 0 ? n : int64_t{-1});
    if (v < 0) {
      v += n;
      if (v < 0) v = step < 0 ? -1 : 0;
    } else if (v >= n) {
      v = step < 0 ? n - 1 : n;
    }
    return v;
  };
  int64_t b = adjust(start, true), e = adjust(stop, false);
  std::vector<size_t> out;
  if (step > 0)
    for (int64_t i = b; i < e; i += step) out.push_back(static_cast<size_t>(i));
  else
    for (int64_t i = b; i > e; i += step) out.push_back(static_cast<size_t>(i));
  return out;
}

namespace {

void check_module(const ModuleRef& m, const char* what) { GLIA_CHECK(m, InvalidArgument, what, ": module is None"); }

// ModuleList.insert / Sequential.insert: shift the tail up by one key.
void insert_child(Module& self, int64_t index, ModuleRef m) {
  auto n = static_cast<int64_t>(self.local_children().size());
  GLIA_CHECK(index >= -n && index <= n, InvalidArgument, "Index out of range: ", index);
  if (index < 0) index += n;
  if (index == n) {
    self.register_module(std::to_string(n), std::move(m));
    return;
  }
  // register_module keeps a replaced key's position, so re-registering every
  // key from `index` on (the last one appended as str(n)) shifts the values.
  std::vector<ModuleRef> tail;
  for (size_t i = static_cast<size_t>(index); i < self.local_children().size(); ++i)
    tail.push_back(self.local_children()[i].module);
  self.register_module(std::to_string(index), std::move(m));
  for (size_t k = 0; k < tail.size(); ++k)
    self.register_module(std::to_string(index + 1 + static_cast<int64_t>(k)), tail[k]);
}

}  // namespace

// ---- Sequential ---------------------------------------------------------------------

TensorList Sequential::forward(const TensorList& inputs) {
  check_num_inputs(inputs, 1);
  TensorList x = inputs;
  for (const auto& c : local_children())
    if (c.module) x = c.module->call(x);
  return x;
}

void Sequential::append(ModuleRef m) { register_module(std::to_string(local_children().size()), std::move(m)); }
void Sequential::insert(int64_t index, ModuleRef m) {
  check_module(m, "Sequential.insert");
  insert_child(*this, index, std::move(m));
}
ModuleRef Sequential::at(int64_t index) const {
  return local_children()[list_index(index, local_children().size())].module;
}
void Sequential::set(int64_t index, ModuleRef m) {
  const auto& c = local_children()[list_index(index, local_children().size())];
  register_module(std::string(c.name), std::move(m));
}
Ref<Sequential> Sequential::slice(int64_t start, int64_t stop, int64_t step) const {
  auto out = make_ref<Sequential>();
  for (size_t i : slice_indices(start, stop, step, local_children().size()))
    out->register_module(local_children()[i].name, local_children()[i].module);
  return out;
}

ModuleRef Sequential::pop(int64_t index) {
  const auto& c = local_children()[list_index(index, local_children().size())];
  ModuleRef m = c.module;
  remove(std::string(c.name));
  renumber_children();
  return m;
}

// ---- ModuleList ---------------------------------------------------------------------

void ModuleList::append(ModuleRef m) { register_module(std::to_string(local_children().size()), std::move(m)); }
void ModuleList::insert(int64_t index, ModuleRef m) { insert_child(*this, index, std::move(m)); }
ModuleRef ModuleList::at(int64_t index) const {
  return local_children()[list_index(index, local_children().size())].module;
}
void ModuleList::set(int64_t index, ModuleRef m) {
  register_module(std::to_string(list_index(index, local_children().size())), std::move(m));
}
Ref<ModuleList> ModuleList::slice(int64_t start, int64_t stop, int64_t step) const {
  auto out = make_ref<ModuleList>();
  for (size_t i : slice_indices(start, stop, step, local_children().size())) out->append(local_children()[i].module);
  return out;
}

ModuleRef ModuleList::pop(int64_t index) {
  const auto& c = local_children()[list_index(index, local_children().size())];
  ModuleRef m = c.module;
  remove(std::string(c.name));
  renumber_children();
  return m;
}

// ---- ModuleDict ---------------------------------------------------------------------

ModuleRef ModuleDict::get(const std::string& key) const {
  for (const auto& c : local_children())
    if (c.name == key) return c.module;
  fail(Code::NotFound, "'", key, "'");
}
ModuleRef ModuleDict::pop(const std::string& key) {
  ModuleRef m = get(key);
  remove(key);
  return m;
}
void ModuleDict::clear() {
  while (!local_children().empty()) remove(std::string(local_children().back().name));
}

// ---- ParameterList / ParameterDict ----------------------------------------------------

namespace {

std::string size_str(const Tensor& p) {
  std::string s;
  for (int64_t i = 0; i < p.dim(); ++i) s += (i ? "x" : "") + std::to_string(p.size(i));
  return s;
}
std::string device_str(const Tensor& p) {
  return p.device().is_cpu() ? std::string() : " (GPU " + std::to_string(p.device().index) + ")";
}
}  // namespace

TensorList ParameterList::forward(const TensorList&) { fail(Code::Unsupported, "ParameterList should not be called."); }
void ParameterList::append(const Tensor& p) {
  GLIA_CHECK(p.defined(), InvalidArgument, "ParameterList.append: parameter is None");
  register_parameter(std::to_string(local_parameters().size()), p);
}
Tensor ParameterList::at(int64_t index) const {
  return local_parameters()[list_index(index, local_parameters().size())].value;
}
void ParameterList::set(int64_t index, const Tensor& p) {
  GLIA_CHECK(p.defined(), InvalidArgument, "ParameterList: parameter is None");
  register_parameter(std::to_string(list_index(index, local_parameters().size())), p);
}
// torch 1.13's ParameterList.extra_repr: "  (0): Parameter containing: [torch.float32 of size 2x3]".
std::string ParameterList::extra_repr() const {
  std::string out;
  size_t k = 0;
  for (const auto& e : local_parameters()) {
    if (k) out += "\n";
    out += "  (" + std::to_string(k++) + "): Parameter containing: [torch." + dtype_name(e.value.dtype()) +
           " of size " + size_str(e.value) + device_str(e.value) + "]";
  }
  return out;
}

TensorList ParameterDict::forward(const TensorList&) { fail(Code::Unsupported, "ParameterDict should not be called."); }
Tensor ParameterDict::get(const std::string& key) const {
  for (const auto& e : local_parameters())
    if (e.name == key && e.value.defined()) return e.value;
  fail(Code::NotFound, "'", key, "'");
}
Tensor ParameterDict::pop(const std::string& key) {
  Tensor* p = find_parameter(key);
  GLIA_CHECK(p, NotFound, "'ParameterDict' object has no attribute '", key, "'");
  Tensor t = *p;
  remove(key);
  return t;
}
void ParameterDict::clear() {
  while (!local_parameters().empty()) remove(std::string(local_parameters().back().name));
}
// torch 1.13's ParameterDict.extra_repr uses torch.typename: "[torch.FloatTensor of size 3]".
std::string ParameterDict::extra_repr() const {
  std::string out;
  for (const auto& e : local_parameters()) {
    if (!e.value.defined()) continue;
    if (!out.empty()) out += "\n";
    out += "  (" + e.name + "): Parameter containing: [" + torch_typename(e.value) + " of size " + size_str(e.value) +
           device_str(e.value) + "]";
  }
  return out;
}

std::optional<size_t> container_len(const Module& m) {
  if (dynamic_cast<const Sequential*>(&m) || dynamic_cast<const ModuleList*>(&m) || dynamic_cast<const ModuleDict*>(&m))
    return m.local_children().size();
  if (dynamic_cast<const ParameterList*>(&m) || dynamic_cast<const ParameterDict*>(&m))
    return m.local_parameters().size();
  return std::nullopt;
}

}  // namespace glia::nn
