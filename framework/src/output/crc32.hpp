// CRC-32 (IEEE 802.3, the polynomial of zlib and PNG) over a byte range: the checksum that lets a
// checkpoint tell a truncated or damaged file from a good one (framework/src/output/ only).
#pragma once

#include <cstdint>
#include <string_view>

namespace fem::detail {

/// CRC-32 of `bytes`, continuing from `crc` (0 to start): crc32("123456789") = 0xCBF43926.
std::uint32_t crc32(std::string_view bytes, std::uint32_t crc = 0);

}  // namespace fem::detail
