// libFuzzer harness: the whole load path, format detection included (safetensors,
// torch zip, torch legacy). A dict that loads must also save as safetensors and load
// back with the same keys, dtypes, shapes and bytes. The value path (glia_value_load:
// any top-level object) must agree: every tensor in the tree is sound, and when the
// file loads as a dict, flattening its value gives the same dict.
#include <cstring>
#include <unordered_set>
#include <vector>

#include "fuzz_support.h"
#include "io/checkpoint.h"

namespace {

using glia::Tensor;

// `metadata`: whether safetensors' __metadata__ must match too (a value tree has no place for it).
void same(const glia::nn::TensorDict& a, const glia::nn::TensorDict& b, bool metadata = true) {
  if (a.size() != b.size()) glia::fuzz::finding("round trip changed the number of tensors", "");
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string& key = a.key_at(i);
    if (b.key_at(i) != key) glia::fuzz::finding("round trip changed the keys", key);
    const Tensor &x = a.value_at(i), &y = b.value_at(i);
    if (x.dtype() != y.dtype()) glia::fuzz::finding("round trip changed the dtype", key);
    if (x.shape() != y.shape()) glia::fuzz::finding("round trip changed the shape", key);
    Tensor cx = glia::contiguous(x), cy = glia::contiguous(y);
    size_t n = static_cast<size_t>(cx.numel()) * glia::itemsize(cx.dtype());
    if (n && std::memcmp(cx.data(), cy.data(), n) != 0) glia::fuzz::finding("round trip changed the bytes", key);
  }
  if (metadata && a.metadata != b.metadata) glia::fuzz::finding("round trip changed the metadata", "");
}

// Every tensor of a value tree, each shared subtree once.
void check_value(const glia::io::Value& root) {
  std::unordered_set<const glia::io::Value*> seen;
  std::vector<const glia::io::Value*> todo{&root};
  while (!todo.empty()) {
    const glia::io::Value* v = todo.back();
    todo.pop_back();
    if (!seen.insert(v).second) continue;
    if (v->kind == glia::io::Value::Kind::Tensor) glia::fuzz::check_tensor("value", v->tensor);
    for (const auto& c : v->items) todo.push_back(c.get());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  glia::Ref<glia::nn::TensorDict> flat;
  glia::fuzz::run_one([&] {
    auto value = glia::io::load_value(glia::io::ByteSource::borrow(data, size), glia::io::Format::Auto);
    check_value(*value);
    if (value->kind == glia::io::Value::Kind::Dict) flat = glia::io::flatten(*value, "fuzz");
  });
  return glia::fuzz::run_one([&] {
    auto dict = glia::io::load(glia::io::ByteSource::borrow(data, size), glia::io::Format::Auto);
    glia::fuzz::check_dict(*dict);
    if (!flat) glia::fuzz::finding("a file loads as a dict but its value does not flatten", "");
    same(*dict, *flat, /*metadata=*/false);
    glia::io::StringSink out;
    try {
      glia::io::save(*dict, out, glia::io::Format::Safetensors);
    } catch (const glia::Error& e) {
      glia::fuzz::finding("a loaded dict failed to save as safetensors", e.message());
    }
    glia::Ref<glia::nn::TensorDict> back;
    try {
      back = glia::io::load(glia::io::ByteSource::borrow(out.bytes.data(), out.bytes.size()),
                            glia::io::Format::Safetensors);
    } catch (const glia::Error& e) {
      glia::fuzz::finding("the safetensors file saved from a loaded dict does not load", e.message());
    }
    same(*dict, *back);
  });
}
