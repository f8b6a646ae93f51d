// zarr.codec.vlen: numcodecs' VLenUTF8 / VLenBytes layout (zarr-extensions codecs/vlen-utf8,
// codecs/vlen-bytes, "Format and algorithm"). Every length is checked against the bytes that
// remain before anything is allocated for it, so a decoded chunk never holds more bytes than
// the encoded one.
module;
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <boost/json.hpp>
module zarr.codec.vlen;

import zarr.text;

namespace zarr {
namespace json = boost::json;

namespace {

void put_u32le(bytes& out, std::size_t at, std::uint32_t v) {
  for (std::size_t k = 0; k < 4; ++k) out[at + k] = static_cast<std::byte>((v >> (8 * k)) & 0xFF);
}

std::uint32_t get_u32le(std::span<const std::byte> in, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < 4; ++k) v |= static_cast<std::uint32_t>(in[at + k]) << (8 * k);
  return v;
}

constexpr std::uint64_t max_u32 = 0xFFFFFFFFu;


}  // namespace

vlen_codec::vlen_codec(const chunk_spec& decoded, std::string where) : array_to_bytes_codec(std::move(where)), decoded_(decoded) {}

std::string_view vlen_codec::name() const noexcept {
  return decoded_.type == data_type::string ? "vlen-utf8" : "vlen-bytes";
}

json::value vlen_codec::to_json() const { return json::object{{"name", name()}, {"configuration", json::object{}}}; }

void vlen_codec::encode_elements(std::span<const std::string> elements, bytes& out) const {
  if (elements.size() != decoded_.num_elements())
    throw error(errc::invalid_argument, label() + ": expected " + std::to_string(decoded_.num_elements()) +
                                            " elements, got " + std::to_string(elements.size()));
  if (elements.size() > max_u32)
    throw error(errc::invalid_argument, label() + ": expected at most 2^32 - 1 elements in a chunk, got " +
                                            std::to_string(elements.size()));
  std::uint64_t total = 4;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const auto& e = elements[i];
    if (e.size() > max_u32)
      throw error(errc::invalid_argument, label() + ": element " + std::to_string(i) + ": expected at most 2^32 - 1 bytes, got " +
                                              std::to_string(e.size()));
    if (decoded_.type == data_type::string)
      if (const auto problem = utf8_problem(e))
        throw error(errc::invalid_argument, label() + ": element " + std::to_string(i) + ": " + *problem);
    total += 4 + e.size();
  }
  out.resize(static_cast<std::size_t>(total));
  put_u32le(out, 0, static_cast<std::uint32_t>(elements.size()));
  std::size_t at = 4;
  for (const auto& e : elements) {
    put_u32le(out, at, static_cast<std::uint32_t>(e.size()));
    if (!e.empty()) std::memcpy(out.data() + at + 4, e.data(), e.size());
    at += 4 + e.size();
  }
}

void vlen_codec::decode_elements(std::span<const std::byte> in, std::span<std::string> out) const {
  if (out.size() != decoded_.num_elements())
    throw error(errc::invalid_argument, label() + ": expected room for " + std::to_string(decoded_.num_elements()) +
                                            " elements, got " + std::to_string(out.size()));
  if (in.size() < 4)
    throw error(errc::corrupt_chunk, label() + ": expected a 4-byte count of elements, got " + std::to_string(in.size()) + " bytes");
  const std::uint32_t count = get_u32le(in, 0);
  if (count != out.size())
    throw error(errc::corrupt_chunk, label() + ": expected " + std::to_string(out.size()) + " elements, got a count of " +
                                         std::to_string(count));
  std::size_t at = 4;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto where = [&] { return label() + ": element " + std::to_string(i); };
    if (in.size() - at < 4)
      throw error(errc::corrupt_chunk, where() + ": expected a 4-byte length at offset " + std::to_string(at) +
                                           ", got the end of the chunk");
    const std::uint32_t length = get_u32le(in, at);
    at += 4;
    if (length > in.size() - at)
      throw error(errc::corrupt_chunk, where() + ": expected at most the " + std::to_string(in.size() - at) +
                                           " bytes that remain, got a length of " + std::to_string(length));
    const std::string_view value(reinterpret_cast<const char*>(in.data()) + at, length);
    if (decoded_.type == data_type::string)
      if (const auto problem = utf8_problem(value)) throw error(errc::corrupt_chunk, where() + ": " + *problem);
    out[i].assign(value);
    at += length;
  }
  if (at != in.size())
    throw error(errc::corrupt_chunk, label() + ": expected the chunk to end after its " + std::to_string(out.size()) +
                                         " elements, got " + std::to_string(in.size() - at) + " more bytes");
}

void vlen_codec::do_encode_into(std::span<const std::byte> /*array*/, bytes& /*out*/) const {
  throw error(errc::invalid_argument, label() + ": expected the elements as strings (zarr::array::write_strings), got a buffer");
}

void vlen_codec::do_decode_into(std::span<const std::byte> /*encoded*/, std::span<std::byte> /*out*/) const {
  throw error(errc::invalid_argument, label() + ": decodes to strings (zarr::array::read_strings), not to a buffer");
}

namespace {

std::unique_ptr<array_to_bytes_codec> make_vlen(const codec_context& ctx, data_type type) {
  static_cast<void>(configuration_object(ctx, {}));
  if (ctx.decoded.type != type)
    throw error(errc::invalid_metadata, ctx.where + " (" + (type == data_type::string ? "vlen-utf8" : "vlen-bytes") +
                                            "): expected data type " + std::string(name(type)) + ", got " +
                                            std::string(name(ctx.decoded.type)));
  return std::make_unique<vlen_codec>(ctx.decoded, ctx.where);
}

}  // namespace

std::unique_ptr<array_to_bytes_codec> make_vlen_utf8_codec(const codec_context& ctx) { return make_vlen(ctx, data_type::string); }
std::unique_ptr<array_to_bytes_codec> make_vlen_bytes_codec(const codec_context& ctx) { return make_vlen(ctx, data_type::bytes); }

}  // namespace zarr
