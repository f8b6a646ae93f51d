// zarr.codec.crc32c: CRC32C with the SSE4.2 crc32 instruction when the CPU has it
// (chosen at run time), else slicing-by-8 tables (Zarr v3 codecs/crc32c, RFC 3720).
module;
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <boost/json.hpp>
#if defined(__x86_64__)
#include <nmmintrin.h>
#endif
module zarr.codec.crc32c;

namespace zarr {
namespace json = boost::json;

namespace {

constexpr std::uint32_t polynomial = 0x82F63B78;  // Castagnoli, bit-reversed

using tables_t = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr tables_t make_tables() {
  tables_t t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ polynomial : c >> 1;
    t[0][i] = c;
  }
  for (std::size_t j = 1; j < 8; ++j)
    for (std::size_t i = 0; i < 256; ++i) t[j][i] = (t[j - 1][i] >> 8) ^ t[0][t[j - 1][i] & 0xFF];
  return t;
}

constexpr tables_t tables = make_tables();

std::uint32_t crc_table(std::uint32_t crc, const unsigned char* p, std::size_t n) noexcept {
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    w ^= crc;
    crc = tables[7][w & 0xFF] ^ tables[6][(w >> 8) & 0xFF] ^ tables[5][(w >> 16) & 0xFF] ^
          tables[4][(w >> 24) & 0xFF] ^ tables[3][(w >> 32) & 0xFF] ^ tables[2][(w >> 40) & 0xFF] ^
          tables[1][(w >> 48) & 0xFF] ^ tables[0][w >> 56];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = (crc >> 8) ^ tables[0][(crc ^ *p++) & 0xFF];
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t crc_sse42(std::uint32_t crc, const unsigned char* p, std::size_t n) noexcept {
  std::uint64_t c = crc;
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
    p += 8;
    n -= 8;
  }
  auto c32 = static_cast<std::uint32_t>(c);
  while (n-- > 0) c32 = _mm_crc32_u8(c32, *p++);
  return c32;
}
#endif

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", static_cast<unsigned>(v));
  return buf;
}

}  // namespace

bool crc32c_has_sse42() noexcept {
#if defined(__x86_64__)
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
#else
  return false;
#endif
}

std::uint32_t crc32c(std::span<const std::byte> data, crc32c_method method) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  if (method == crc32c_method::sse42 && !crc32c_has_sse42())
    throw error(errc::unsupported, "crc32c: expected a CPU with SSE4.2, got one without");
#if defined(__x86_64__)
  if (method != crc32c_method::table && crc32c_has_sse42()) return ~crc_sse42(~0u, p, data.size());
#endif
  return ~crc_table(~0u, p, data.size());
}

crc32c_configuration crc32c_configuration::parse(const codec_context& ctx) {
  static_cast<void>(configuration_object(ctx, {}));
  return {};
}

crc32c_codec::crc32c_codec(std::string where) : bytes_to_bytes_codec(std::move(where)) {}

json::value crc32c_configuration::to_json() const {
  return json::object{{"name", "crc32c"}, {"configuration", json::object{}}};
}

json::value crc32c_codec::to_json() const { return crc32c_configuration{}.to_json(); }

bytes crc32c_codec::encode(std::span<const std::byte> in) const {
  const auto crc = crc32c(in);
  bytes out(in.size() + 4);
  if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
  for (std::size_t i = 0; i < 4; ++i) out[in.size() + i] = static_cast<std::byte>(crc >> (8 * i));
  return out;
}

std::span<const std::byte> crc32c_codec::checked_body(std::span<const std::byte> in) const {
  if (in.size() < 4)
    throw error(errc::corrupt_chunk, where_ + " (crc32c): expected at least 4 bytes (the checksum), got " +
                                         std::to_string(in.size()));
  const auto body = in.first(in.size() - 4);
  std::uint32_t stored = 0;
  for (std::size_t i = 0; i < 4; ++i) stored |= static_cast<std::uint32_t>(in[body.size() + i]) << (8 * i);
  const auto computed = crc32c(body);
  if (stored != computed)
    throw error(errc::corrupt_chunk, where_ + " (crc32c): expected checksum " + hex32(computed) +
                                         " (computed from the data), got " + hex32(stored) + " (stored)");
  return body;
}

bytes crc32c_codec::decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const {
  const auto body = checked_body(in);
  if (body.size() > limit)
    throw error(errc::corrupt_chunk, where_ + " (crc32c): expected at most " + std::to_string(limit) +
                                         " bytes before the checksum, got " + std::to_string(body.size()));
  return bytes(body.begin(), body.end());
}

void crc32c_codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  const auto body = checked_body(in);
  if (body.size() != out.size())
    throw error(errc::corrupt_chunk, where_ + " (crc32c): expected " + std::to_string(out.size()) +
                                         " bytes before the checksum, got " + std::to_string(body.size()));
  if (!body.empty()) std::memcpy(out.data(), body.data(), body.size());
}

std::unique_ptr<bytes_to_bytes_codec> make_crc32c_codec(const codec_context& ctx) {
  (void)crc32c_configuration::parse(ctx);
  return std::make_unique<crc32c_codec>(ctx.where);
}

}  // namespace zarr
