// zarr.codec.checksum32: zlib's crc32 and adler32, the checksum first, and HDF5's fletcher32 and
// Bob Jenkins' lookup3, the checksum last, and the Castagnoli crc32c, last unless its "location"
// says otherwise; always 4 bytes little-endian (numcodecs' "Checksum codecs";
// tools/numcodecs_checksums.py computes the tests' expected values independently).
module;
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <boost/json.hpp>
#include <zlib.h>
module zarr.codec.checksum32;

import zarr.codec.crc32c;

namespace zarr {
namespace json = boost::json;

namespace {

// HDF5's H5_checksum_fletcher32: 16-bit words read big-endian (a last odd byte is the high byte
// of a word), the two sums folded with an end-around carry every 360 words and at the end.
std::uint32_t fletcher32(std::span<const std::byte> data) noexcept {
  const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
  std::uint32_t sum1 = 0, sum2 = 0;
  const auto fold = [](std::uint32_t s) { return (s & 0xffffu) + (s >> 16); };
  for (std::size_t words = data.size() / 2; words > 0;) {
    const std::size_t block = std::min<std::size_t>(words, 360);
    words -= block;
    for (std::size_t i = 0; i < block; ++i, p += 2) {
      sum1 += (static_cast<std::uint32_t>(p[0]) << 8) | p[1];
      sum2 += sum1;
    }
    sum1 = fold(sum1);
    sum2 = fold(sum2);
  }
  if (data.size() % 2 != 0) {
    sum1 += static_cast<std::uint32_t>(*p) << 8;
    sum2 += sum1;
    sum1 = fold(sum1);
    sum2 = fold(sum2);
  }
  return (fold(sum2) << 16) | fold(sum1);
}

// Bob Jenkins' lookup3.c hashlittle, byte by byte (any alignment, any host byte order).
std::uint32_t jenkins_lookup3(std::span<const std::byte> data, std::uint32_t initval) noexcept {
  const auto rot = [](std::uint32_t x, int k) { return (x << k) | (x >> (32 - k)); };
  const auto word = [](const std::uint8_t* k, std::size_t n) {  // n <= 4 bytes, little-endian
    std::uint32_t w = 0;
    for (std::size_t i = 0; i < n; ++i) w |= static_cast<std::uint32_t>(k[i]) << (8 * i);
    return w;
  };
  std::uint32_t a = 0xdeadbeefu + static_cast<std::uint32_t>(data.size()) + initval, b = a, c = a;
  const auto* k = reinterpret_cast<const std::uint8_t*>(data.data());
  std::size_t length = data.size();
  if (length == 0) return c;
  for (; length > 12; length -= 12, k += 12) {
    a += word(k, 4);
    b += word(k + 4, 4);
    c += word(k + 8, 4);
    a -= c; a ^= rot(c, 4); c += b;
    b -= a; b ^= rot(a, 6); a += c;
    c -= b; c ^= rot(b, 8); b += a;
    a -= c; a ^= rot(c, 16); c += b;
    b -= a; b ^= rot(a, 19); a += c;
    c -= b; c ^= rot(b, 4); b += a;
  }
  a += word(k, std::min<std::size_t>(length, 4));
  if (length > 4) b += word(k + 4, std::min<std::size_t>(length - 4, 4));
  if (length > 8) c += word(k + 8, length - 8);
  c ^= b; c -= rot(b, 14);
  a ^= c; a -= rot(c, 11);
  b ^= a; b -= rot(a, 25);
  c ^= b; c -= rot(b, 16);
  a ^= c; a -= rot(c, 4);
  b ^= a; b -= rot(a, 14);
  c ^= b; c -= rot(b, 24);
  return c;
}

}  // namespace

std::uint32_t checksum32(checksum32_kind kind, std::span<const std::byte> data, std::uint32_t initval) noexcept {
  if (kind == checksum32_kind::fletcher32) return fletcher32(data);
  if (kind == checksum32_kind::jenkins_lookup3) return jenkins_lookup3(data, initval);
  if (kind == checksum32_kind::crc32c) return crc32c(data);
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

checksum32_codec::checksum32_codec(checksum32_kind kind, std::string where, std::uint32_t initval,
                                   std::optional<bool> at_end)
    : bytes_to_bytes_codec(std::move(where)), kind_(kind), initval_(initval),
      at_end_(at_end.value_or(kind != checksum32_kind::crc32 && kind != checksum32_kind::adler32)) {}

std::string_view checksum32_codec::name() const noexcept {
  switch (kind_) {
    case checksum32_kind::crc32: return "numcodecs.crc32";
    case checksum32_kind::adler32: return "numcodecs.adler32";
    case checksum32_kind::fletcher32: return "numcodecs.fletcher32";
    case checksum32_kind::crc32c: return "numcodecs.crc32c";
    default: return "numcodecs.jenkins_lookup3";
  }
}

json::value checksum32_codec::to_json() const {
  json::object config;
  if (kind_ == checksum32_kind::jenkins_lookup3) config["initval"] = initval_;
  // The place is written where numcodecs 0.13 has it and it is not numcodecs 0.11's only one
  // (crc32 and adler32 first), so that numcodecs 0.11 still reads those.
  if (kind_ == checksum32_kind::crc32c || at_end_ != (kind_ != checksum32_kind::crc32 && kind_ != checksum32_kind::adler32))
    config["location"] = at_end_ ? "end" : "start";
  return json::object{{"name", name()}, {"configuration", std::move(config)}};
}

bytes checksum32_codec::encode(std::span<const std::byte> in) const {
  const auto sum = checksum32(kind_, in, initval_);
  bytes out(in.size() + 4);
  const std::size_t at = at_end_ ? in.size() : 0;
  for (std::size_t i = 0; i < 4; ++i) out[at + i] = static_cast<std::byte>(sum >> (8 * i));
  if (!in.empty()) std::memcpy(out.data() + (at_end_ ? 0 : 4), in.data(), in.size());
  return out;
}

std::span<const std::byte> checksum32_codec::checked_body(std::span<const std::byte> in) const {
  if (in.size() < 4)
    throw error(errc::corrupt_chunk, label() + ": expected at least 4 bytes (the checksum), got " + std::to_string(in.size()));
  const std::size_t at = at_end_ ? in.size() - 4 : 0;
  std::uint32_t stored = 0;
  for (std::size_t i = 0; i < 4; ++i) stored |= static_cast<std::uint32_t>(in[at + i]) << (8 * i);
  const auto body = at_end_ ? in.first(in.size() - 4) : in.subspan(4);
  const auto computed = checksum32(kind_, body, initval_);
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
    throw error(errc::corrupt_chunk, label() + ": expected at most " + std::to_string(limit) + " bytes beside the checksum, got " +
                                         std::to_string(body.size()));
  return bytes(body.begin(), body.end());
}

void checksum32_codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  const auto body = checked_body(in);
  if (body.size() != out.size())
    throw error(errc::corrupt_chunk, label() + ": expected " + std::to_string(out.size()) + " bytes beside the checksum, got " +
                                         std::to_string(body.size()));
  if (!body.empty()) std::memcpy(out.data(), body.data(), body.size());
}

namespace {

// numcodecs 0.13's Checksum32(location=None): "start" or "end"; nothing when absent or null.
std::optional<bool> location_at_end(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"location"});
  const auto* location = config.if_contains("location");
  if (location == nullptr || location->is_null()) return std::nullopt;
  if (*location == "start" || *location == "end") return *location == "end";
  throw error(errc::invalid_metadata, ctx.where + ".configuration.location: expected \"start\" or \"end\", got " +
                                          json::serialize(*location));
}

}  // namespace

std::unique_ptr<bytes_to_bytes_codec> make_crc32_codec(const codec_context& ctx) {
  return std::make_unique<checksum32_codec>(checksum32_kind::crc32, ctx.where, 0, location_at_end(ctx));
}

std::unique_ptr<bytes_to_bytes_codec> make_adler32_codec(const codec_context& ctx) {
  return std::make_unique<checksum32_codec>(checksum32_kind::adler32, ctx.where, 0, location_at_end(ctx));
}

std::unique_ptr<bytes_to_bytes_codec> make_numcodecs_crc32c_codec(const codec_context& ctx) {
  return std::make_unique<checksum32_codec>(checksum32_kind::crc32c, ctx.where, 0, location_at_end(ctx));
}

std::unique_ptr<bytes_to_bytes_codec> make_fletcher32_codec(const codec_context& ctx) {
  static_cast<void>(configuration_object(ctx, {}));
  return std::make_unique<checksum32_codec>(checksum32_kind::fletcher32, ctx.where);
}

// numcodecs' JenkinsLookup3(initval=0, prefix=None): its configuration as numcodecs writes it.
std::unique_ptr<bytes_to_bytes_codec> make_jenkins_lookup3_codec(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"initval", "prefix"});
  const auto initval = integer_member(config, "initval", 0, 0xffffffff, 0, ctx.where);
  if (const auto* prefix = config.if_contains("prefix"); prefix != nullptr && !prefix->is_null())
    throw error(errc::unsupported, ctx.where + ".configuration.prefix: expected null (no bytes hashed before the data), got " +
                                       json::serialize(*prefix));
  return std::make_unique<checksum32_codec>(checksum32_kind::jenkins_lookup3, ctx.where, static_cast<std::uint32_t>(initval));
}

}  // namespace zarr
