// zarr.codec.gzip: zlib's deflate with the gzip wrapper (windowBits 15 + 16) to encode, and
// inflate with header auto-detection (15 + 32) into a progressively grown buffer to decode
// (Zarr v3 codecs/gzip).
module;
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <boost/json.hpp>
#include <zlib.h>
module zarr.codec.gzip;

namespace zarr {
namespace json = boost::json;

namespace {

// zlib counts in uInt: feed it at most this many bytes per call.
constexpr std::size_t zlib_step = UINT_MAX;

uInt step(std::size_t remaining) noexcept { return static_cast<uInt>(std::min(remaining, zlib_step)); }

Bytef* ptr(std::byte* p) noexcept { return reinterpret_cast<Bytef*>(p); }
// zlib's next_in is not const in older headers.
Bytef* ptr(const std::byte* p) noexcept { return const_cast<Bytef*>(reinterpret_cast<const Bytef*>(p)); }

}  // namespace

gzip_configuration gzip_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"level"});
  return {static_cast<int>(integer_member(config, "level", 0, 9, std::nullopt, ctx.where))};
}

gzip_codec::gzip_codec(const gzip_configuration& config, std::string where)
    : bytes_to_bytes_codec(std::move(where)), config_(config) {}

json::value gzip_configuration::to_json() const {
  return json::object{{"name", "gzip"}, {"configuration", json::object{{"level", level}}}};
}

json::value gzip_codec::to_json() const { return config_.to_json(); }

bytes deflate_bytes(std::span<const std::byte> in, int level, int window_bits, const std::string& label) {
  z_stream s{};
  if (deflateInit2(&s, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw error(errc::io, label + ": expected zlib to start a compressor, got an error (out of memory?)");
  const std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&s, deflateEnd);
  bytes out(deflateBound(&s, static_cast<uLong>(in.size())));
  std::size_t in_pos = 0;
  std::size_t out_pos = 0;
  for (;;) {
    const auto in_step = step(in.size() - in_pos);
    const auto out_step = step(out.size() - out_pos);
    s.next_in = ptr(in.data() + in_pos);
    s.avail_in = in_step;
    s.next_out = ptr(out.data() + out_pos);
    s.avail_out = out_step;
    const int flush = in_pos + in_step == in.size() ? Z_FINISH : Z_NO_FLUSH;
    const int ret = deflate(&s, flush);
    in_pos += in_step - s.avail_in;
    out_pos += out_step - s.avail_out;
    if (ret == Z_STREAM_END) break;
    if (ret != Z_OK && ret != Z_BUF_ERROR)
      throw error(errc::io, label + ": expected deflate to succeed, got zlib error " + std::to_string(ret));
    if (out_pos == out.size())  // deflateBound is an upper bound: this cannot happen
      throw error(errc::io, label + ": expected the output to fit deflateBound, got more");
  }
  out.resize(out_pos);
  return out;
}

bytes gzip_codec::encode(std::span<const std::byte> in) const {
  return deflate_bytes(in, config_.level, MAX_WBITS + 16, where_ + " (gzip)");
}

namespace {

// Inflates all of `in` into the span `room(out_pos)` gives: a larger one when the output is
// full (or an empty one: no more room). Returns the bytes written; `corrupt` makes the error.
template <class Room, class Corrupt>
std::size_t inflate_all(std::span<const std::byte> in, Room&& room, Corrupt&& corrupt, const std::string& label) {
  z_stream s{};
  if (inflateInit2(&s, MAX_WBITS + 32) != Z_OK)
    throw error(errc::io, label + ": expected zlib to start a decompressor, got an error (out of memory?)");
  const std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&s, inflateEnd);
  std::size_t in_pos = 0;
  std::size_t out_pos = 0;
  std::span<std::byte> out = room(0);
  for (;;) {
    if (out_pos == out.size()) out = room(out_pos);
    std::byte probe[1];
    // No room left: one more byte of output would be one too many (the stream may still end).
    const bool full = out_pos == out.size();
    const auto in_step = step(in.size() - in_pos);
    const auto out_step = full ? uInt{1} : step(out.size() - out_pos);
    s.next_in = ptr(in.data() + in_pos);
    s.avail_in = in_step;
    s.next_out = full ? ptr(probe) : ptr(out.data() + out_pos);
    s.avail_out = out_step;
    const int ret = inflate(&s, Z_NO_FLUSH);
    in_pos += in_step - s.avail_in;
    if (full && s.avail_out == 0) throw corrupt("more than " + std::to_string(out_pos) + " bytes of output (the decoding limit)");
    if (!full) out_pos += out_step - s.avail_out;
    if (ret == Z_STREAM_END) {
      if (in_pos == in.size()) break;
      // Another gzip member follows (RFC 1952 "2.2 File format": a file is a series of members).
      if (inflateReset(&s) != Z_OK) throw corrupt("a stream zlib cannot reset");
      continue;
    }
    if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT || ret == Z_STREAM_ERROR)
      throw corrupt(std::string("invalid data (") + (s.msg != nullptr ? s.msg : "zlib error " + std::to_string(ret)) +
                    ") after " + std::to_string(in_pos) + " of " + std::to_string(in.size()) + " bytes");
    if (ret == Z_MEM_ERROR) throw error(errc::io, label + ": expected memory to decompress, got none");
    // Z_OK or Z_BUF_ERROR: with room left in the output and no input left, the stream is cut short.
    if (in_pos == in.size() && s.avail_out > 0)
      throw corrupt("a truncated stream (" + std::to_string(in.size()) + " bytes, the end is missing)");
  }
  return out_pos;
}

}  // namespace

bytes inflate_bytes(std::span<const std::byte> in, std::uint64_t limit, const std::string& label, std::string_view format) {
  const auto corrupt = [&](const std::string& what) {
    return error(errc::corrupt_chunk, label + ": expected a " + std::string(format) + " stream, got " + what);
  };
  bytes out;
  // A first guess (compressed data usually expands a few times), doubled as needed up to the limit.
  const auto room = [&](std::size_t used) {
    if (out.size() >= limit) return std::span<std::byte>(out);
    const auto want = used == 0 ? std::max<std::uint64_t>(4 * in.size(), 4096) : 2 * static_cast<std::uint64_t>(out.size());
    out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(limit, want)));
    return std::span<std::byte>(out);
  };
  out.resize(inflate_all(in, room, corrupt, label));
  return out;
}

void inflate_bytes_into(std::span<const std::byte> in, std::span<std::byte> out, const std::string& label,
                        std::string_view format) {
  const auto corrupt = [&](const std::string& what) {
    return error(errc::corrupt_chunk, label + ": expected a " + std::string(format) + " stream of " +
                                          std::to_string(out.size()) + " bytes, got " + what);
  };
  const auto n = inflate_all(in, [&](std::size_t) { return out; }, corrupt, label);
  if (n != out.size()) throw corrupt(std::to_string(n) + " bytes");
}

bytes gzip_codec::decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const {
  return inflate_bytes(in, limit, where_ + " (gzip)", "gzip");
}

void gzip_codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  inflate_bytes_into(in, out, where_ + " (gzip)", "gzip");
}

std::unique_ptr<bytes_to_bytes_codec> make_gzip_codec(const codec_context& ctx) {
  return std::make_unique<gzip_codec>(gzip_configuration::parse(ctx), ctx.where);
}

json::object gzip_from_numcodecs(json::object configuration) {
  if (!configuration.contains("level")) configuration["level"] = 1;
  return configuration;
}

}  // namespace zarr
