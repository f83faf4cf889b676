// libFuzzer harness: the zip reader. Opens the archive, then reads every entry whose
// declared size is sane both whole and as an 8-byte aligned storage; the two must
// agree with each other and with the declared size.
#include <cstring>
#include <string>

#include "fuzz_support.h"
#include "io/zip.h"

namespace {
constexpr uint64_t kLimit = 64u << 20;  // far beyond what a small input may expand to (kMaxRatio)
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return glia::fuzz::run_one([&] {
    glia::io::ZipReader r(glia::io::ByteSource::borrow(data, size));
    for (size_t i = 0; i < r.size() && i < 64; ++i) {
      const std::string& name = r.name(i);
      if (auto j = r.find(name); !j) glia::fuzz::finding("find(name(i)) found nothing", name);
      uint64_t n = r.uncompressed_size(i);
      std::string whole;
      try {
        whole = r.read(i, kLimit);
      } catch (const glia::Error&) {
        continue;  // a bad entry; the next one may be fine
      }
      if (whole.size() != n) glia::fuzz::finding("read() returned other than the declared size", name);
      if (n > kLimit) continue;
      glia::Ref<glia::Storage> s;
      try {
        s = r.read_storage(i, n, 8);
      } catch (const glia::Error&) {
        glia::fuzz::finding("read_storage() failed on an entry that read() returned", name);
      }
      if (!s || s->nbytes() != n) glia::fuzz::finding("read_storage() returned other than nbytes", name);
      if (n && std::memcmp(s->data(), whole.data(), n) != 0)
        glia::fuzz::finding("read_storage() and read() disagree", name);
    }
  });
}
