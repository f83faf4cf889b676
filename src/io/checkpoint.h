// Checkpoint files: format detection by content and the load/save entry points
// behind glia_tensor_dict_load/save and glia_module_load/save.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "io/byte_source.h"
#include "io/value.h"
#include "nn/tensor_dict.h"

namespace glia::io {

// Mirrors enum glia_format of glia.h value for value.
enum class Format : int32_t {
  Auto = 0,         // loading: by content; saving: safetensors
  Safetensors = 1,  // https://github.com/huggingface/safetensors (glia's own default)
  Torch = 2,        // torch.save: the zip format (1.6+) and, for loading, the legacy format
};

// The format of a file that starts with these bytes (Format::Auto when none):
// safetensors (an 8-byte header length, then '{'), a zip ("PK\3\4": torch.save since
// 1.6) or a pickle that starts with torch's legacy magic number, or any other pickle
// (looks_like_pickle: the torch reader then says what is wrong with it).
Format detect_format(const uint8_t* data, size_t size);
// Whether `data` starts like a legacy (pre-zip) torch.save file of any pickle protocol.
bool is_legacy_torch(const uint8_t* data, size_t size);
// Whether `data` starts like any pickle (PROTO 2-5, or a protocol 0/1 GLOBAL):
// detect_format gives such files to the torch reader, which names what is wrong.
bool looks_like_pickle(const uint8_t* data, size_t size);
const char* format_name(Format f);

// Reads a whole checkpoint. Errors: IO (the file), Format (what is wrong and where).
// Tensors view `src` where they can (Note [Zero-copy loading]).
Ref<nn::TensorDict> load(const Ref<ByteSource>& src, Format format);
Ref<nn::TensorDict> load_file(const std::string& path, Format format);
// The whole object (io/value.h): a torch file's top-level object of any safe
// type; a safetensors file as a dict of str -> tensor.
Ref<Value> load_value(const Ref<ByteSource>& src, Format format);
// Writes `dict` (any device, any strides; CUDA tensors are copied to the host) with
// its metadata. save_file is atomic (AtomicFile). Format::Auto means safetensors.
void save(const nn::TensorDict& dict, Sink& out, Format format);
void save_file(const nn::TensorDict& dict, const std::string& path, Format format);
// Writes a value tree: Format::Torch any value; Format::Safetensors a flat dict of
// str -> tensor (else InvalidArgument saying what is in the way); Format::Auto
// safetensors for a flat dict of str -> tensor, torch for anything else.
void save_value(const Value& root, Sink& out, Format format);
void save_value_file(const Value& root, const std::string& path, Format format);

// Limits every reader enforces on hostile input (Format errors beyond them).
inline constexpr int kMaxDims = 64;                      // dimensions of a tensor
inline constexpr uint64_t kMaxHeaderBytes = 100u << 20;  // safetensors JSON header, torch data.pkl
inline constexpr int kMaxNesting = 1000;                 // nested containers in a pickle / JSON header

}  // namespace glia::io
