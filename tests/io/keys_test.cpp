// Keys with a NUL character: the C ABI names entries by C strings, so no reader
// accepts such a key and no writer produces one (found by the checkpoint fuzzer: a
// legacy .pt key with a NUL loaded, saved as safetensors, and did not load back).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "io/byte_source.h"
#include "io/pickle.h"
#include "io/safetensors.h"
#include "io/torch_format.h"

using namespace glia;

namespace {

Code code_of(const std::function<void()>& f, std::string* message) {
  try {
    f();
  } catch (const Error& e) {
    *message = e.message();
    return e.code();
  }
  return Code::Ok;
}

Ref<nn::TensorDict> dict_with_key(const std::string& key) {
  auto d = make_ref<nn::TensorDict>();
  d->set(key, zeros(std::vector<int64_t>{2}, DType::Float32, Device{}));
  return d;
}

}  // namespace

TEST(Keys, UnpicklerRefusesAKeyWithANul) {
  // PROTO 2, EMPTY_DICT, BINUNICODE "a\0b", BININT1 1, SETITEM, STOP
  const std::string pkl(
      "\x80\x02}X\x03\x00\x00\x00"
      "a\0b"
      "K\x01s.",
      15);
  std::string message;
  EXPECT_EQ(code_of([&] { io::unpickle_state_dict(reinterpret_cast<const uint8_t*>(pkl.data()), pkl.size(), 1 << 20); },
                    &message),
            Code::Format);
  EXPECT_NE(message.find("a key with a NUL character"), std::string::npos) << message;
  // The same pickle with "ab" loads (the key check is what refuses it).
  const std::string ok(
      "\x80\x02}X\x02\x00\x00\x00"
      "ab"
      "K\x01s.",
      14);
  auto d = io::unpickle_state_dict(reinterpret_cast<const uint8_t*>(ok.data()), ok.size(), 1 << 20);
  ASSERT_EQ(d->size(), 1u);
  EXPECT_EQ(d->key_at(0), "ab");
}

TEST(Keys, UnpicklerRefusesAKeyThatIsNotUtf8) {
  // PROTO 2, EMPTY_DICT, SHORT_BINBYTES b"a\xff", BININT1 1, SETITEM, STOP: bytes keys
  // are named by their bytes, which must be UTF-8 as every writer needs (found by the
  // checkpoint fuzzer: such a key loaded but could not be saved).
  const std::string pkl(
      "\x80\x02}C\x02"
      "a\xff"
      "K\x01s.",
      11);
  std::string message;
  EXPECT_EQ(code_of([&] { io::unpickle_state_dict(reinterpret_cast<const uint8_t*>(pkl.data()), pkl.size(), 1 << 20); },
                    &message),
            Code::Format);
  EXPECT_NE(message.find("a key that is not valid UTF-8"), std::string::npos) << message;
}

TEST(Keys, WritersRefuseAKeyWithANulAndWriteNothing) {
  Ref<nn::TensorDict> d = dict_with_key(std::string("a\0b", 3));
  std::string message;
  io::StringSink st;
  EXPECT_EQ(code_of([&] { io::write_safetensors(*d, st); }, &message), Code::InvalidArgument);
  EXPECT_NE(message.find("contains a NUL character"), std::string::npos) << message;
  EXPECT_EQ(st.tell(), 0u);
  io::StringSink pt;
  EXPECT_EQ(code_of([&] { io::write_torch(*d, pt); }, &message), Code::InvalidArgument);
  EXPECT_NE(message.find("contains a NUL character"), std::string::npos) << message;
  EXPECT_EQ(pt.tell(), 0u);

  Ref<nn::TensorDict> m = dict_with_key("w");
  m->metadata.emplace_back(std::string("k\0", 2), "v");
  io::StringSink ms;
  EXPECT_EQ(code_of([&] { io::write_safetensors(*m, ms); }, &message), Code::InvalidArgument);
  EXPECT_NE(message.find("metadata key"), std::string::npos) << message;
}
