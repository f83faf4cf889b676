// Note [Poisoned cache under ASan] (src/core/allocator.cpp): the CPU allocator's
// cache must not hide overruns and uses after free from AddressSanitizer. These
// tests make the mistakes on purpose, in a child process (death tests), and expect
// ASan's report. They need an ASan build (the asan preset of scripts/test.sh runs
// them); elsewhere they say they are skipped.
#include <gtest/gtest.h>

#include "core/allocator.h"
#include "core/storage.h"

#if defined(__SANITIZE_ADDRESS__)
#define GLIA_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLIA_TEST_ASAN 1
#endif
#endif

namespace {

using namespace glia;

#ifdef GLIA_TEST_ASAN

// Touches a byte through a volatile pointer, so that the compiler keeps the access.
void touch(void* base, size_t offset) {
  volatile char* p = static_cast<char*>(base);
  p[offset] = 1;
}

TEST(AsanPoison, AnOverrunPastAStoragesBytesIsReported) {
  // 100 bytes live in a 128-byte block: byte 100 is past the storage.
  EXPECT_DEATH(
      {
        Ref<Storage> s = Storage::allocate(100);
        touch(s->data(), 99);  // the last byte is fine
        touch(s->data(), 100);
      },
      "AddressSanitizer: use-after-poison");
}

TEST(AsanPoison, AnOverrunOfACachedBlockReusedForLessIsReported) {
  EXPECT_DEATH(
      {
        { Ref<Storage> big = Storage::allocate(1000); }  // back into the cache, 1024 bytes
        Ref<Storage> s = Storage::allocate(1000 - 24);   // the same block, fewer bytes
        touch(s->data(), 1000 - 24);
      },
      "AddressSanitizer: use-after-poison");
}

TEST(AsanPoison, AUseOfAReleasedStorageIsReported) {
  EXPECT_DEATH(
      {
        void* data = nullptr;
        {
          Ref<Storage> s = Storage::allocate(256);
          data = s->data();
        }  // cached, not freed: ASan alone would not see it
        touch(data, 0);
      },
      "AddressSanitizer: use-after-poison");
}

TEST(AsanPoison, CorrectUseIsQuietAndBlocksAreReused) {
  void* first = nullptr;
  {
    Ref<Storage> s = Storage::allocate(256);
    first = s->data();
    for (size_t i = 0; i < 256; ++i) touch(s->data(), i);
  }
  Ref<Storage> again = Storage::allocate(256);
  EXPECT_EQ(again->data(), first);  // the cache still works
  for (size_t i = 0; i < 256; ++i) touch(again->data(), i);
  empty_cache();
}

#else

TEST(AsanPoison, NeedsAddressSanitizer) {
  GTEST_SKIP() << "needs an AddressSanitizer build (the asan preset runs these tests)";
}

#endif

}  // namespace
