// zarr.codec.blosc: c-blosc's context functions (thread safe, no global state, one internal
// thread), with the header validated before the output is allocated (Zarr v3 codecs/blosc).
module;
#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <boost/json.hpp>
#include <blosc.h>
module zarr.codec.blosc;

namespace zarr {
namespace json = boost::json;

namespace {

constexpr std::array<std::string_view, 6> known_compressors{"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};
constexpr std::array<std::string_view, 3> shuffle_names{"noshuffle", "shuffle", "bitshuffle"};

// The spec only asks for a positive typesize. c-blosc shuffles with typesizes up to 255 and
// treats larger ones as 1 (no shuffle effect, the data still round trips), so they are accepted.
constexpr std::uint64_t max_typesize = INT32_MAX;
constexpr std::uint64_t max_blocksize = INT32_MAX;

std::string string_member(const json::object& config, std::string_view key, std::string_view expected,
                          const std::string& where) {
  const auto* v = config.if_contains(key);
  const auto at = where + ".configuration." + std::string(key);
  if (v == nullptr) throw error(errc::invalid_metadata, at + ": expected " + std::string(expected) + ", got nothing");
  if (!v->is_string())
    throw error(errc::invalid_metadata, at + ": expected " + std::string(expected) + ", got " + json::serialize(*v));
  return std::string(v->as_string());
}

}  // namespace

std::string_view blosc_compressors() noexcept { return blosc_list_compressors(); }

blosc_configuration blosc_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"cname", "clevel", "shuffle", "typesize", "blocksize"});
  blosc_configuration out;
  const auto cname = string_member(config, "cname", "one of \"blosclz\", \"lz4\", \"lz4hc\", \"snappy\", \"zlib\", \"zstd\"", ctx.where);
  const auto c = std::find(known_compressors.begin(), known_compressors.end(), cname);
  if (c == known_compressors.end())
    throw error(errc::invalid_metadata, ctx.where + ".configuration.cname: expected one of \"blosclz\", \"lz4\", " +
                                            "\"lz4hc\", \"snappy\", \"zlib\", \"zstd\", got \"" + cname + "\"");
  if (blosc_compname_to_compcode(cname.c_str()) < 0)
    throw error(errc::unsupported, ctx.where + ".configuration.cname: expected a compressor of this c-blosc build (" +
                                       std::string(blosc_compressors()) + "), got \"" + cname + "\"");
  out.cname = static_cast<blosc_cname>(c - known_compressors.begin());
  out.clevel = static_cast<int>(integer_member(config, "clevel", 0, 9, std::nullopt, ctx.where));
  const auto shuffle =
      string_member(config, "shuffle", "one of \"noshuffle\", \"shuffle\", \"bitshuffle\"", ctx.where);
  const auto s = std::find(shuffle_names.begin(), shuffle_names.end(), shuffle);
  if (s == shuffle_names.end())
    throw error(errc::invalid_metadata, ctx.where + ".configuration.shuffle: expected one of \"noshuffle\", " +
                                            "\"shuffle\", \"bitshuffle\", got \"" + shuffle + "\"");
  out.shuffle = static_cast<blosc_shuffle>(s - shuffle_names.begin());
  // Absent typesize: the element size of the data this codec receives. Bytes -> bytes codecs
  // see the array -> bytes codec's input type in ctx.decoded (Zarr v3 core spec leaves this choice
  // to the implementation as long as it is recorded, which to_json does).
  // A sized type wider than blosc's largest typesize shuffles as bytes (typesize 1).
  const auto size = ctx.decoded.element_size();
  const auto element_size = static_cast<std::int64_t>(size >= 1 && size <= static_cast<std::uint64_t>(max_typesize) ? size : 1);
  out.typesize = static_cast<std::uint64_t>(integer_member(config, "typesize", 1, max_typesize, element_size, ctx.where));
  out.blocksize = static_cast<std::uint64_t>(integer_member(config, "blocksize", 0, max_blocksize, 0, ctx.where));
  return out;
}

json::value blosc_configuration::to_json() const {
  json::object config{{"cname", known_compressors[static_cast<std::size_t>(cname)]},
                      {"clevel", clevel},
                      {"shuffle", shuffle_names[static_cast<std::size_t>(shuffle)]}};
  if (typesize) config["typesize"] = *typesize;
  config["blocksize"] = blocksize;
  return json::object{{"name", "blosc"}, {"configuration", std::move(config)}};
}

blosc_codec::blosc_codec(const blosc_configuration& config, std::string where)
    : bytes_to_bytes_codec(std::move(where)), config_(config) {
  if (!config_.typesize) config_.typesize = 1;
}

bytes blosc_codec::encode(std::span<const std::byte> in) const {
  if (in.size() > static_cast<std::size_t>(BLOSC_MAX_BUFFERSIZE))
    throw error(errc::invalid_argument, where_ + " (blosc): expected at most " + std::to_string(BLOSC_MAX_BUFFERSIZE) +
                                            " bytes to compress (the c-blosc limit), got " + std::to_string(in.size()));
  const int shuffle = config_.shuffle == blosc_shuffle::noshuffle ? BLOSC_NOSHUFFLE
                      : config_.shuffle == blosc_shuffle::shuffle ? BLOSC_SHUFFLE
                                                                   : BLOSC_BITSHUFFLE;
  bytes out(in.size() + BLOSC_MAX_OVERHEAD);
  const int n = blosc_compress_ctx(config_.clevel, shuffle, static_cast<std::size_t>(*config_.typesize), in.size(),
                                   in.data(), out.data(), out.size(),
                                   known_compressors[static_cast<std::size_t>(config_.cname)].data(),
                                   static_cast<std::size_t>(config_.blocksize), 1);
  if (n <= 0)
    throw error(errc::io, where_ + " (blosc): expected blosc_compress_ctx to succeed, got " + std::to_string(n));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::size_t blosc_codec::declared_size(std::span<const std::byte> in, std::uint64_t limit) const {
  std::size_t nbytes = 0;
  if (in.size() < BLOSC_MIN_HEADER_LENGTH || blosc_cbuffer_validate(in.data(), in.size(), &nbytes) != 0)
    throw error(errc::corrupt_chunk, where_ + " (blosc): expected a blosc buffer, got " + std::to_string(in.size()) +
                                         " bytes with an invalid header");
  if (nbytes > limit)
    throw error(errc::corrupt_chunk, where_ + " (blosc): expected a blosc buffer of at most " + std::to_string(limit) +
                                         " bytes (the decoding limit), got one declaring " + std::to_string(nbytes));
  return nbytes;
}

bytes blosc_codec::decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const {
  bytes out(declared_size(in, limit));
  decode_into(in, out);
  return out;
}

void blosc_codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  const auto nbytes = declared_size(in, ~std::uint64_t{0});
  if (nbytes != out.size())
    throw error(errc::corrupt_chunk, where_ + " (blosc): expected a blosc buffer of " + std::to_string(out.size()) +
                                         " bytes, got one declaring " + std::to_string(nbytes));
  if (nbytes == 0) return;
  const int n = blosc_decompress_ctx(in.data(), out.data(), out.size(), 1);
  if (n < 0 || static_cast<std::size_t>(n) != nbytes)
    throw error(errc::corrupt_chunk, where_ + " (blosc): expected " + std::to_string(nbytes) +
                                         " bytes from the blosc buffer, got an error (" + std::to_string(n) + ")");
}

std::unique_ptr<bytes_to_bytes_codec> make_blosc_codec(const codec_context& ctx) {
  return std::make_unique<blosc_codec>(blosc_configuration::parse(ctx), ctx.where);
}

// numcodecs' Blosc configuration {"cname", "clevel", "shuffle": -1..2, "blocksize"} (numcodecs
// documentation, "Blosc"), with numcodecs' defaults for absent keys (lz4, 5, SHUFFLE, automatic
// block size), read as the Zarr v3 configuration it means.
std::unique_ptr<bytes_to_bytes_codec> make_numcodecs_blosc_codec(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"cname", "clevel", "shuffle", "blocksize", "typesize"});
  json::object v3;
  v3["cname"] = config.contains("cname") ? config.at("cname") : json::value("lz4");
  v3["clevel"] = config.contains("clevel") ? config.at("clevel") : json::value(5);
  v3["blocksize"] = config.contains("blocksize") ? config.at("blocksize") : json::value(0);
  if (const auto* t = config.if_contains("typesize")) v3["typesize"] = *t;
  const auto* shuffle = config.if_contains("shuffle");
  const auto code = shuffle == nullptr ? std::optional<std::int64_t>(1)
                    : shuffle->is_int64() ? std::optional<std::int64_t>(shuffle->get_int64())
                                          : std::nullopt;
  // -1 is numcodecs' AUTOSHUFFLE: bit shuffle for items of one byte, byte shuffle otherwise.
  const bool one_byte = ctx.decoded.element_size() == 1;
  if (code == 0) v3["shuffle"] = "noshuffle";
  else if (code == 1 || (code == -1 && !one_byte)) v3["shuffle"] = "shuffle";
  else if (code == 2 || code == -1) v3["shuffle"] = "bitshuffle";
  else
    throw error(errc::invalid_metadata, ctx.where + ".configuration.shuffle: expected -1, 0, 1 or 2 (numcodecs), got " +
                                            json::serialize(*shuffle));
  const json::value translated(std::move(v3));
  return make_blosc_codec({translated, ctx.decoded, ctx.where, {}});
}

json::object blosc_to_numcodecs(const json::object& configuration) {
  const auto& shuffle = configuration.at("shuffle").as_string();
  return json::object{{"cname", configuration.at("cname")},
                      {"clevel", configuration.at("clevel")},
                      {"shuffle", shuffle == "noshuffle" ? 0 : shuffle == "shuffle" ? 1 : 2},
                      {"blocksize", configuration.at("blocksize")}};
}

}  // namespace zarr
