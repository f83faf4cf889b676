// Bool storages hold only bytes 0 and 1 (anything else is undefined behaviour for
// kernels that read C++ bool): both readers refuse other bytes, so every file that
// loads can be saved and loaded again in either format (found by the checkpoint
// fuzzer: a .pt bool byte of 79 loaded, and its safetensors copy did not).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "io/byte_source.h"
#include "io/safetensors.h"
#include "io/torch_format.h"

using namespace glia;

namespace {

// A bool tensor over raw bytes (glia itself never makes one with a byte above 1).
Ref<nn::TensorDict> dict_of_bool_bytes(std::vector<uint8_t>& bytes) {
  auto d = make_ref<nn::TensorDict>();
  std::vector<int64_t> shape{static_cast<int64_t>(bytes.size())}, strides{1};
  d->set("flags", from_blob(bytes.data(), shape, strides, DType::Bool, Device{}, nullptr, nullptr));
  return d;
}

std::string load_error(const std::string& file, Ref<nn::TensorDict> (*read)(const Ref<io::ByteSource>&)) {
  try {
    read(io::ByteSource::copy_of(file.data(), file.size()));
  } catch (const Error& e) {
    return std::string(e.code() == Code::Format ? "Format: " : "other: ") + e.message();
  }
  return "loaded";
}

}  // namespace

TEST(BoolBytes, TorchReaderRefusesBytesOtherThanZeroAndOne) {
  std::vector<uint8_t> good{0, 1, 1}, bad{0, 1, 79};
  io::StringSink ok, hostile;
  io::write_torch(*dict_of_bool_bytes(good), ok);
  io::write_torch(*dict_of_bool_bytes(bad), hostile);
  EXPECT_EQ(load_error(ok.bytes, io::read_torch), "loaded");
  std::string e = load_error(hostile.bytes, io::read_torch);
  EXPECT_NE(e.find("Format: "), std::string::npos) << e;
  EXPECT_NE(e.find("of bools: element 2 is byte 79, expected 0 or 1"), std::string::npos) << e;
}

TEST(BoolBytes, SafetensorsReaderRefusesThemToo) {
  std::vector<uint8_t> bad{0, 79};
  io::StringSink st;
  io::write_safetensors(*dict_of_bool_bytes(bad), st);
  std::string e = load_error(st.bytes, io::read_safetensors);
  EXPECT_NE(e.find("Format: "), std::string::npos) << e;
  EXPECT_NE(e.find("BOOL element 1 is byte 79, expected 0 or 1"), std::string::npos) << e;
}
