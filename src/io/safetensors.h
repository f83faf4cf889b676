// safetensors, read and written to the letter of the format:
// u64 little-endian header length N, N bytes of UTF-8 JSON
// {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
//  "__metadata__": {"k": "v"}}, then the data buffer. Offsets are relative to the
// buffer, in bounds, non-overlapping, and cover it without holes.
#pragma once

#include "io/byte_source.h"
#include "nn/tensor_dict.h"

namespace glia::io {

// Errors: Format with a message naming the tensor and what is wrong. Tensors view
// the source (Note [Zero-copy loading]); metadata lands in dict->metadata.
Ref<nn::TensorDict> read_safetensors(const Ref<ByteSource>& src);
// Header in dict order; data sorted by element size (largest first, dict order
// among equals), the header padded with spaces so that the data buffer starts at a
// multiple of 64: every tensor then starts at a multiple of its element size and
// loads without a copy (the format allows no gaps between tensors). Tensors that
// share a storage each get their own bytes (the format cannot express sharing).
void write_safetensors(const nn::TensorDict& dict, Sink& out);

}  // namespace glia::io
