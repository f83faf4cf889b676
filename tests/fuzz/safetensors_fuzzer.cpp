// libFuzzer harness: the safetensors reader over borrowed bytes.
#include "fuzz_support.h"
#include "io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return glia::fuzz::run_one([&] {
    auto dict = glia::io::read_safetensors(glia::io::ByteSource::borrow(data, size));
    glia::fuzz::check_dict(*dict);
  });
}
