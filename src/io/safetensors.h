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
// Keys in dict order; data aligned so that every tensor starts at a multiple of 64
// bytes from the file start (the header is padded with spaces, as the reference
// writer pads it to 8).
void write_safetensors(const nn::TensorDict& dict, Sink& out);

}  // namespace glia::io
