// zarr.codec.checksum32: zlib's crc32 and adler32, the checksum first, little-endian (numcodecs
// 0.11 documentation, "Checksum codecs").
module;
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <boost/json.hpp>
#include <zlib.h>
module zarr.codec.checksum32;

namespace zarr {
namespace json = boost::json;

std::uint32_t checksum32(checksum32_kind kind, std::span<const std::byte> data) noexcept {
  uLong sum = kind == checksum32_kind::crc32 ? crc32(0, nullptr, 0) : adler32(0, nullptr, 0);
  const auto* p = reinterpret_cast<const Bytef*>(data.data());
  for (std::size_t left = data.size(); left > 0;) {  // zlib counts in uInt
    const auto n = static_cast<uInt>(std::min<std::size_t>(left, UINT_MAX));
    sum = kind == checksum32_kind::crc32 ? crc32(sum, p, n) : adler32(sum, p, n);
    p += n;
    left -= n;
  }
  return static_cast<std::uint32_t>(sum);
}

checksum32_codec::checksum32_codec(checksum32_kind kind, std::string where)
    : bytes_to_bytes_codec(std::move(where)), kind_(kind) {}

std::string_view checksum32_codec::name() const noexcept {
  return kind_ == checksum32_kind::crc32 ? "numcodecs.crc32" : "numcodecs.adler32";
}

json::value checksum32_codec::to_json() const { return json::object{{"name", name()}, {"configuration", json::object{}}}; }

bytes checksum32_codec::encode(std::span<const std::byte> in) const {
  const auto sum = checksum32(kind_, in);
  bytes out(in.size() + 4);
  for (std::size_t i = 0; i < 4; ++i) out[i] = static_cast<std::byte>(sum >> (8 * i));
  if (!in.empty()) std::memcpy(out.data() + 4, in.data(), in.size());
  return out;
}

std::span<const std::byte> checksum32_codec::checked_body(std::span<const std::byte> in) const {
  if (in.size() < 4)
    throw error(errc::corrupt_chunk, label() + ": expected at least 4 bytes (the checksum), got " + std::to_string(in.size()));
  std::uint32_t stored = 0;
  for (std::size_t i = 0; i < 4; ++i) stored |= static_cast<std::uint32_t>(in[i]) << (8 * i);
  const auto body = in.subspan(4);
  const auto computed = checksum32(kind_, body);
  if (stored != computed) {
    char text[64];
    std::snprintf(text, sizeof text, "0x%08X (computed from the data), got 0x%08X (stored)", static_cast<unsigned>(computed),
                  static_cast<unsigned>(stored));
    throw error(errc::corrupt_chunk, label() + ": expected checksum " + text);
  }
  return body;
}

bytes checksum32_codec::decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const {
  const auto body = checked_body(in);
  if (body.size() > limit)
    throw error(errc::corrupt_chunk, label() + ": expected at most " + std::to_string(limit) + " bytes after the checksum, got " +
                                         std::to_string(body.size()));
  return bytes(body.begin(), body.end());
}

void checksum32_codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  const auto body = checked_body(in);
  if (body.size() != out.size())
    throw error(errc::corrupt_chunk, label() + ": expected " + std::to_string(out.size()) + " bytes after the checksum, got " +
                                         std::to_string(body.size()));
  if (!body.empty()) std::memcpy(out.data(), body.data(), body.size());
}

std::unique_ptr<bytes_to_bytes_codec> make_crc32_codec(const codec_context& ctx) {
  static_cast<void>(configuration_object(ctx, {}));
  return std::make_unique<checksum32_codec>(checksum32_kind::crc32, ctx.where);
}

std::unique_ptr<bytes_to_bytes_codec> make_adler32_codec(const codec_context& ctx) {
  static_cast<void>(configuration_object(ctx, {}));
  return std::make_unique<checksum32_codec>(checksum32_kind::adler32, ctx.where);
}

}  // namespace zarr
