// libFuzzer harness: the restricted unpickler alone (torch's data.pkl), storages
// capped at 1 MiB.
#include "fuzz_support.h"
#include "io/pickle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return glia::fuzz::run_one([&] {
    auto dict = glia::io::unpickle_state_dict(data, size, /*max_storage_bytes=*/1 << 20);
    glia::fuzz::check_dict(*dict);
  });
}
