// zarr.codec.zstd: one-shot compression with ZSTD_compress2, and streaming decompression
// into a buffer sized from the frame header when it declares its content size
// (zarr-extensions codecs/zstd).
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <boost/json.hpp>
#include <zstd.h>
module zarr.codec.zstd;

namespace zarr {
namespace json = boost::json;

zstd_configuration zstd_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"level", "checksum"});
  zstd_configuration out;
  out.level = static_cast<int>(integer_member(config, "level", -131072, 22, std::nullopt, ctx.where));
  if (const auto* c = config.if_contains("checksum")) {
    if (!c->is_bool())
      throw error(errc::invalid_metadata, ctx.where + ".configuration.checksum: expected a boolean, got " + json::serialize(*c));
    out.checksum = c->as_bool();
  }
  return out;
}

zstd_codec::zstd_codec(const zstd_configuration& config, std::string where)
    : bytes_to_bytes_codec(std::move(where)), config_(config) {}

json::value zstd_configuration::to_json() const {
  json::object config{{"level", level}};
  if (checksum) config["checksum"] = true;
  return json::object{{"name", "zstd"}, {"configuration", std::move(config)}};
}

namespace {

// One compression and one decompression context per thread, reset before each use:
// creating them costs more than decoding a small chunk.
ZSTD_CCtx* thread_cctx() {
  thread_local const std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (cctx) ZSTD_CCtx_reset(cctx.get(), ZSTD_reset_session_and_parameters);
  return cctx.get();
}

ZSTD_DCtx* thread_dctx() {
  thread_local const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (dctx) ZSTD_DCtx_reset(dctx.get(), ZSTD_reset_session_and_parameters);
  return dctx.get();
}

// The sum of the content sizes the frames of `in` declare; ZSTD_CONTENTSIZE_UNKNOWN when a
// frame declares none, ZSTD_CONTENTSIZE_ERROR when the frames are malformed.
unsigned long long declared_size(std::span<const std::byte> in) {
  unsigned long long total = 0;
  while (!in.empty()) {
    const auto size = ZSTD_getFrameContentSize(in.data(), in.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) return size;
    const auto frame = ZSTD_findFrameCompressedSize(in.data(), in.size());
    if (ZSTD_isError(frame) || size > ZSTD_CONTENTSIZE_ERROR - 1 - total) return ZSTD_CONTENTSIZE_ERROR;
    total += size;
    in = in.subspan(frame);
  }
  return total;
}

}  // namespace

bytes zstd_codec::encode(std::span<const std::byte> in) const {
  bytes out;
  encode_into(in, out);
  return out;
}

void zstd_codec::encode_into(std::span<const std::byte> in, bytes& out) const {
  ZSTD_CCtx* const cctx = thread_cctx();
  if (cctx == nullptr) throw error(errc::io, where_ + " (zstd): expected memory for a compressor, got none");
  const auto check = [&](std::size_t r) {
    if (ZSTD_isError(r))
      throw error(errc::io, where_ + " (zstd): expected compression to succeed, got " + ZSTD_getErrorName(r));
    return r;
  };
  check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, config_.level));
  check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, config_.checksum ? 1 : 0));
  out.resize(ZSTD_compressBound(in.size()));
  out.resize(check(ZSTD_compress2(cctx, out.data(), out.size(), in.data(), in.size())));
}

bytes zstd_codec::decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const {
  const auto corrupt = [&](const std::string& what) {
    return error(errc::corrupt_chunk, where_ + " (zstd): expected a zstd frame, got " + what);
  };
  const auto first = ZSTD_getFrameContentSize(in.data(), in.size());
  if (first == ZSTD_CONTENTSIZE_ERROR) throw corrupt("bytes that do not start with a zstd frame header");
  // The first frame's declared size, then the sum over all frames when each declares one.
  const auto declared = declared_size(in);
  for (const auto size : {first, declared})
    if (size != ZSTD_CONTENTSIZE_UNKNOWN && size != ZSTD_CONTENTSIZE_ERROR && size > limit)
      throw corrupt("a frame declaring " + std::to_string(size) + " bytes, more than the decoding limit of " +
                    std::to_string(limit));
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR) {
    bytes out(static_cast<std::size_t>(declared));
    decode_into(in, out);
    return out;
  }
  ZSTD_DCtx* const dctx = thread_dctx();
  if (dctx == nullptr) throw error(errc::io, where_ + " (zstd): expected memory for a decompressor, got none");
  // No declared size: a guess that grows, never past the limit.
  bytes out(static_cast<std::size_t>(std::min<std::uint64_t>(limit, std::max<std::uint64_t>(4 * in.size(), 4096))));
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  ZSTD_outBuffer output{out.data(), out.size(), 0};
  for (;;) {
    if (output.pos == output.size) {
      if (out.size() >= limit)
        throw corrupt("more than " + std::to_string(limit) + " bytes of output (the decoding limit)");
      out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(limit, 2 * static_cast<std::uint64_t>(out.size()))));
      output.dst = out.data();
      output.size = out.size();
    }
    const auto ret = ZSTD_decompressStream(dctx, &output, &input);
    if (ZSTD_isError(ret))
      throw corrupt(std::string("invalid data (") + ZSTD_getErrorName(ret) + ") after " + std::to_string(input.pos) +
                    " of " + std::to_string(in.size()) + " bytes");
    if (input.pos == input.size) {
      // Everything consumed: complete when the last frame ended and was flushed (ret == 0);
      // with room left in the output and no input, anything else is a frame cut short.
      if (ret == 0) break;
      if (output.pos < output.size)
        throw corrupt("a truncated frame (" + std::to_string(in.size()) + " bytes, the end is missing)");
    }
  }
  out.resize(output.pos);
  return out;
}

void zstd_codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  const auto corrupt = [&](const std::string& what) {
    return error(errc::corrupt_chunk, where_ + " (zstd): expected a zstd frame of " + std::to_string(out.size()) +
                                          " bytes, got " + what);
  };
  const auto known = [](unsigned long long size) { return size != ZSTD_CONTENTSIZE_ERROR && size != ZSTD_CONTENTSIZE_UNKNOWN; };
  const auto first = ZSTD_getFrameContentSize(in.data(), in.size());
  const auto declared = declared_size(in);
  if (known(first) && first > out.size()) throw corrupt("a frame declaring " + std::to_string(first) + " bytes");
  if (known(declared) && declared != out.size())
    throw corrupt((declared == first ? "a frame declaring " : "frames declaring ") + std::to_string(declared) + " bytes");
  ZSTD_DCtx* const dctx = thread_dctx();
  if (dctx == nullptr) throw error(errc::io, where_ + " (zstd): expected memory for a decompressor, got none");
  const auto n = ZSTD_decompressDCtx(dctx, out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(n))
    throw corrupt(std::string("invalid data (") + ZSTD_getErrorName(n) + ", " + std::to_string(in.size()) + " bytes)");
  if (n != out.size()) throw corrupt(std::to_string(n) + " bytes");
}

std::unique_ptr<bytes_to_bytes_codec> make_zstd_codec(const codec_context& ctx) {
  return std::make_unique<zstd_codec>(zstd_configuration::parse(ctx), ctx.where);
}

json::object zstd_from_numcodecs(json::object configuration) {
  if (!configuration.contains("level")) configuration["level"] = 1;
  if (!configuration.contains("checksum")) configuration["checksum"] = false;
  return configuration;
}

}  // namespace zarr
