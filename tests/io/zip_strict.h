// A strict zip parser for the writer's tests (defined in zip_write_test.cpp): the
// archive read back by hand through its end records, central directory, local
// headers and data descriptors, with alignment and CRCs checked on the way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace glia_test {

struct ZipEntryInfo {
  std::string name;
  uint64_t header_offset, data_offset, size;
  uint32_t crc;
  uint16_t flags;
};
std::vector<ZipEntryInfo> parse_zip_strict(const std::string& bytes);

}  // namespace glia_test
