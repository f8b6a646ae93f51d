// zarr.codec.lzma: liblzma's easy encoder (.xz) or alone encoder (.lzma) as Python's lzma module
// uses them, and its stream decoders into a growing buffer (numcodecs documentation, "LZMA").
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <boost/json.hpp>
#include <lzma.h>
module zarr.codec.lzma;

namespace zarr {
namespace json = boost::json;

namespace {

constexpr std::uint64_t decoder_memory_limit = std::uint64_t{1} << 30;

}  // namespace

lzma_configuration lzma_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"format", "check", "preset", "filters"});
  lzma_configuration out;
  out.format = static_cast<int>(integer_member(config, "format", 0, 3, 1, ctx.where));
  if (out.format != 1 && out.format != 2)
    throw error(errc::unsupported, ctx.where + ".configuration.format: expected 1 (.xz) or 2 (.lzma), got " +
                                       std::to_string(out.format) + (out.format == 3 ? " (raw streams need filters)" : ""));
  out.check = static_cast<int>(integer_member(config, "check", -1, 15, -1, ctx.where));
  if (out.check != -1 && out.check != 0 && out.check != 1 && out.check != 4 && out.check != 10)
    throw error(errc::invalid_metadata, ctx.where + ".configuration.check: expected -1, 0, 1, 4 or 10, got " +
                                            std::to_string(out.check));
  if (out.format == 2 && out.check != -1 && out.check != 0)
    throw error(errc::invalid_metadata, ctx.where + ".configuration.check: expected -1 or 0 for format 2 (.lzma has no check), got " +
                                            std::to_string(out.check));
  if (const auto* p = config.if_contains("preset"); p != nullptr && !p->is_null()) {
    out.preset = static_cast<int>(integer_member(config, "preset", 0, 9, std::nullopt, ctx.where));
    out.preset_given = true;
  }
  if (const auto* f = config.if_contains("filters"); f != nullptr && !f->is_null())
    throw error(errc::unsupported, ctx.where + ".configuration.filters: expected null (custom filter chains are not "
                                               "supported), got " + json::serialize(*f));
  return out;
}

lzma_codec::lzma_codec(const lzma_configuration& config, std::string where)
    : bytes_to_bytes_codec(std::move(where)), config_(config) {}

json::value lzma_codec::to_json() const {
  return json::object{{"name", name()},
                      {"configuration", json::object{{"format", config_.format},
                                                     {"check", config_.check},
                                                     {"preset", config_.preset_given ? json::value(config_.preset) : json::value()},
                                                     {"filters", nullptr}}}};
}

namespace {

// Runs `s` over all of `in` to the end of the stream into a buffer grown by decode_growing.
template <class Corrupt>
bytes run(lzma_stream& s, std::span<const std::byte> in, std::uint64_t limit, Corrupt&& corrupt) {
  s.next_in = reinterpret_cast<const std::uint8_t*>(in.data());
  s.avail_in = in.size();
  const auto step = [&](std::span<std::byte> room) -> std::pair<std::size_t, bool> {
    s.next_out = reinterpret_cast<std::uint8_t*>(room.data());
    s.avail_out = room.size();
    const auto ret = lzma_code(&s, LZMA_FINISH);
    const std::size_t written = room.size() - s.avail_out;
    if (ret == LZMA_STREAM_END) return {written, true};
    if (ret == LZMA_OK) return {written, false};
    if (ret == LZMA_BUF_ERROR) throw corrupt("a truncated stream (" + std::to_string(in.size()) + " bytes, the end is missing)");
    if (ret == LZMA_MEMLIMIT_ERROR)
      throw corrupt("a stream that needs more than " + std::to_string(decoder_memory_limit) + " bytes of decoder memory");
    throw corrupt("invalid data (liblzma error " + std::to_string(static_cast<int>(ret)) + ")");
  };
  return decode_growing(in.size(), limit, step, [&] {
    return corrupt("more than " + std::to_string(limit) + " bytes of output (the decoding limit)");
  });
}

}  // namespace

bytes lzma_codec::encode(std::span<const std::byte> in) const {
  lzma_stream s = LZMA_STREAM_INIT;
  const std::unique_ptr<lzma_stream, void (*)(lzma_stream*)> guard(&s, lzma_end);
  const auto preset = static_cast<std::uint32_t>(config_.preset);
  lzma_ret ret = LZMA_OK;
  if (config_.format == 1) {
    const auto check = config_.check == -1 ? LZMA_CHECK_CRC64 : static_cast<lzma_check>(config_.check);
    ret = lzma_easy_encoder(&s, preset, check);
  } else {
    lzma_options_lzma options{};
    if (lzma_lzma_preset(&options, preset)) ret = LZMA_OPTIONS_ERROR;
    else ret = lzma_alone_encoder(&s, &options);
  }
  if (ret != LZMA_OK) throw error(errc::io, label() + ": expected liblzma to start an encoder, got error " + std::to_string(ret));
  return run(s, in, ~std::uint64_t{0}, [&](const std::string& what) {
    return error(errc::io, label() + ": expected liblzma to encode, got " + what);
  });
}

bytes lzma_codec::decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const {
  const auto corrupt = [&](const std::string& what) {
    return error(errc::corrupt_chunk, label() + ": expected an " + (config_.format == 1 ? ".xz" : ".lzma") +
                                          " stream, got " + what);
  };
  lzma_stream s = LZMA_STREAM_INIT;
  const std::unique_ptr<lzma_stream, void (*)(lzma_stream*)> guard(&s, lzma_end);
  const auto ret = config_.format == 1 ? lzma_stream_decoder(&s, decoder_memory_limit, LZMA_CONCATENATED)
                                       : lzma_alone_decoder(&s, decoder_memory_limit);
  if (ret != LZMA_OK) throw error(errc::io, label() + ": expected liblzma to start a decoder, got error " + std::to_string(ret));
  return run(s, in, limit, corrupt);
}

std::unique_ptr<bytes_to_bytes_codec> make_lzma_codec(const codec_context& ctx) {
  return std::make_unique<lzma_codec>(lzma_configuration::parse(ctx), ctx.where);
}

}  // namespace zarr
