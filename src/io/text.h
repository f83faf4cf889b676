// Text checks the checkpoint readers and writers share.
#pragma once

#include <cstddef>
#include <string_view>

namespace glia::io {

// The offset of the first byte of `s` that is not part of well-formed UTF-8 (RFC
// 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or npos when all
// of `s` is valid. Keys and metadata are held to it everywhere: what one reader
// accepts, every writer can write and every reader reads back.
size_t invalid_utf8_at(std::string_view s);

}  // namespace glia::io
