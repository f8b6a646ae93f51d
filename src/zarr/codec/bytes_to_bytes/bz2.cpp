// zarr.codec.bz2: libbz2's buffer compressor to encode, its stream decompressor into a
// growing buffer to decode (numcodecs documentation, "BZ2").
module;
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <boost/json.hpp>
#include <bzlib.h>
module zarr.codec.bz2;

namespace zarr {
namespace json = boost::json;

namespace {

// libbz2 counts in unsigned int.
unsigned int step(std::size_t n) noexcept { return static_cast<unsigned int>(std::min<std::size_t>(n, UINT_MAX)); }

}  // namespace

bz2_configuration bz2_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"level"});
  return {static_cast<int>(integer_member(config, "level", 1, 9, 1, ctx.where))};
}

bz2_codec::bz2_codec(const bz2_configuration& config, std::string where)
    : bytes_to_bytes_codec(std::move(where)), config_(config) {}

json::value bz2_codec::to_json() const {
  return json::object{{"name", name()}, {"configuration", json::object{{"level", config_.level}}}};
}

bytes bz2_codec::encode(std::span<const std::byte> in) const {
  bz_stream s{};
  if (BZ2_bzCompressInit(&s, config_.level, 0, 0) != BZ_OK)
    throw error(errc::io, label() + ": expected libbz2 to start a compressor, got an error (out of memory?)");
  const std::unique_ptr<bz_stream, int (*)(bz_stream*)> guard(&s, BZ2_bzCompressEnd);
  // bzip2's documented bound: 1% larger plus 600 bytes.
  bytes out(in.size() + in.size() / 100 + 600);
  std::size_t in_pos = 0, out_pos = 0;
  for (;;) {
    const auto in_step = step(in.size() - in_pos), out_step = step(out.size() - out_pos);
    s.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data() + in_pos));
    s.avail_in = in_step;
    s.next_out = reinterpret_cast<char*>(out.data() + out_pos);
    s.avail_out = out_step;
    const int ret = BZ2_bzCompress(&s, in_pos + in_step == in.size() ? BZ_FINISH : BZ_RUN);
    in_pos += in_step - s.avail_in;
    out_pos += out_step - s.avail_out;
    if (ret == BZ_STREAM_END) break;
    if (ret != BZ_RUN_OK && ret != BZ_FINISH_OK)
      throw error(errc::io, label() + ": expected libbz2 to compress, got error " + std::to_string(ret));
    if (out_pos == out.size()) out.resize(out.size() * 2);
  }
  out.resize(out_pos);
  return out;
}

bytes bz2_codec::decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const {
  const auto corrupt = [&](const std::string& what) {
    return error(errc::corrupt_chunk, label() + ": expected a bzip2 stream, got " + what);
  };
  bz_stream s{};
  const auto start = [&] {
    if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK)
      throw error(errc::io, label() + ": expected libbz2 to start a decompressor, got an error (out of memory?)");
  };
  start();
  const std::unique_ptr<bz_stream, int (*)(bz_stream*)> guard(&s, BZ2_bzDecompressEnd);
  if (in.empty()) throw corrupt("no bytes");
  std::size_t in_pos = 0;
  const auto decode = [&](std::span<std::byte> room) -> std::pair<std::size_t, bool> {
    const auto in_step = step(in.size() - in_pos), out_step = step(room.size());
    s.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data() + in_pos));
    s.avail_in = in_step;
    s.next_out = reinterpret_cast<char*>(room.data());
    s.avail_out = out_step;
    const int ret = BZ2_bzDecompress(&s);
    in_pos += in_step - s.avail_in;
    const std::size_t written = out_step - s.avail_out;
    if (ret == BZ_STREAM_END) {
      if (in_pos == in.size()) return {written, true};
      BZ2_bzDecompressEnd(&s);  // another stream follows
      s = bz_stream{};
      start();
      return {written, false};
    }
    if (ret != BZ_OK)
      throw corrupt("invalid data (libbz2 error " + std::to_string(ret) + ") after " + std::to_string(in_pos) + " of " +
                    std::to_string(in.size()) + " bytes");
    if (in_pos == in.size() && s.avail_out > 0)
      throw corrupt("a truncated stream (" + std::to_string(in.size()) + " bytes, the end is missing)");
    return {written, false};
  };
  return decode_growing(in.size(), limit, decode, [&] {
    return corrupt("more than " + std::to_string(limit) + " bytes of output (the decoding limit)");
  });
}

std::unique_ptr<bytes_to_bytes_codec> make_bz2_codec(const codec_context& ctx) {
  return std::make_unique<bz2_codec>(bz2_configuration::parse(ctx), ctx.where);
}

}  // namespace zarr
