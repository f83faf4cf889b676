// PyTorch checkpoints (torch.save / torch.load), without Python.
#pragma once

#include "io/byte_source.h"
#include "io/value.h"
#include "nn/tensor_dict.h"

namespace glia::io {

// Reads the zip format of torch.save since 1.6 ("<archive>/data.pkl",
// "<archive>/data/<key>", "byteorder", "version") or the legacy format (a sequence of
// pickles, then the storages), chosen by content. The pickle goes through a
// restricted unpickler: only the globals a state dict needs; anything else is
// Error(Format) naming it, and no code runs. Storage sharing, offsets and strides
// of views are preserved. Nested dicts flatten to dotted keys
// ({"model": {"fc.weight": t}} -> "model.fc.weight"); see torch_read.cpp for the
// exact rules on non-tensor values.
Ref<nn::TensorDict> read_torch(const Ref<ByteSource>& src);
// The same file's whole object, whatever its type (io/value.h).
Ref<Value> read_torch_value(const Ref<ByteSource>& src);
// The zip format that torch.load(path, weights_only=True) reads back: an
// OrderedDict of the dict's keys; tensors sharing a storage share it in the file.
// `archive_name` is the folder inside the zip (torch uses the file's stem).
void write_torch(const nn::TensorDict& dict, Sink& out, const std::string& archive_name = "archive");
// Any value tree (io/value.h) in the same format, pickled as Python's pickler
// writes the object it stands for (Note [Pickling a value], torch_write.cpp).
// A dict of str -> tensor that is `ordered` gives write_torch's bytes.
void write_torch_value(const Value& root, Sink& out, const std::string& archive_name = "archive");

}  // namespace glia::io
