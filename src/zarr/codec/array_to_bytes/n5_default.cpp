// zarr.codec.n5_default: the N5 block header around a nested chain (zarr-extensions
// codecs/n5_default, "Procedure" and "Header format").
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.codec.n5_default;

namespace zarr {
namespace json = boost::json;

namespace {

std::uint32_t load_be(std::span<const std::byte> b, std::size_t at, std::size_t size) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < size; ++i) v = (v << 8) | static_cast<std::uint8_t>(b[at + i]);
  return v;
}

void store_be(bytes& out, std::uint32_t v, std::size_t size) {
  for (std::size_t i = size; i-- > 0;) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFF));
}

// The spec's nested chain: a full transpose, a big-endian bytes codec (endian optional for one-byte
// types), then at most one more codec (the chain itself requires it to be bytes -> bytes).
void check_nested(const json::value& codecs, const chunk_spec& decoded, const std::string& at) {
  const auto* list = codecs.if_array();
  if (list == nullptr || list->size() < 2 || list->size() > 3)
    throw error(errc::invalid_metadata, at + ": expected 2 or 3 codecs (transpose, bytes and at most one bytes -> bytes "
                                             "codec), got " + json::serialize(codecs));
  const auto name_of = [&](std::size_t i) -> std::string {
    const auto* o = (*list)[i].if_object();
    const auto* n = o == nullptr ? nullptr : o->if_contains("name");
    return n != nullptr && n->is_string() ? std::string(n->as_string()) : std::string();
  };
  const auto configuration_of = [&](std::size_t i) -> const json::object* {
    const auto* c = (*list)[i].as_object().if_contains("configuration");
    return c == nullptr ? nullptr : c->if_object();
  };
  json::array reversed;
  for (std::size_t i = decoded.shape.size(); i-- > 0;) reversed.push_back(static_cast<std::int64_t>(i));
  const auto* transpose = name_of(0) == "transpose" ? configuration_of(0) : nullptr;
  const auto* order = transpose == nullptr ? nullptr : transpose->if_contains("order");
  if (order == nullptr || !order->is_array() || order->as_array() != reversed)
    throw error(errc::invalid_metadata, at + "[0]: expected a transpose codec of order " + json::serialize(reversed) +
                                            " (N5's column-major blocks), got " + json::serialize((*list)[0]));
  const auto* bytes_config = name_of(1) == "bytes" ? configuration_of(1) : nullptr;
  const auto* endian = bytes_config == nullptr ? nullptr : bytes_config->if_contains("endian");
  const bool big = endian != nullptr && endian->is_string() && endian->as_string() == "big";
  if (name_of(1) != "bytes" || !(big || (endian == nullptr && decoded.element_size() == 1)))
    throw error(errc::invalid_metadata, at + "[1]: expected a bytes codec with \"endian\": \"big\" (N5 blocks are "
                                             "big-endian), got " + json::serialize((*list)[1]));
}

}  // namespace

n5_default_codec::n5_default_codec(const json::value& codecs, const chunk_spec& decoded, std::string where)
    : array_to_bytes_codec(std::move(where)), decoded_(decoded), codecs_(codecs) {
  const auto t = decoded_.type;
  const auto& i = info(t);
  if (!((is_integer(t) && i.bits >= 8) || t == data_type::float32 || t == data_type::float64))
    throw error(errc::unsupported, label() + ": expected a data type N5 has (int8-64, uint8-64, float32, float64), got " +
                                       std::string(zarr::name(t)));
  if (decoded_.shape.empty() || decoded_.shape.size() > 0xFFFF)
    throw error(errc::unsupported, label() + ": expected a chunk of 1 to 65535 dimensions (N5's uint16), got " +
                                       std::to_string(decoded_.shape.size()));
  for (const auto d : decoded_.shape)
    if (d > 0xFFFFFFFFu)
      throw error(errc::unsupported, label() + ": expected chunk dimensions of at most 2^32 - 1 (N5's uint32), got " +
                                         std::to_string(d));
  const auto at = where_ + ".configuration.codecs";
  check_nested(codecs_, decoded_, at);
  inner_ = std::make_unique<codec_chain>(codecs_, decoded_, at);
}

json::value n5_default_codec::to_json() const {
  return json::object{{"name", "n5_default"}, {"configuration", json::object{{"codecs", inner_->to_json()}}}};
}

std::uint64_t n5_default_codec::max_encoded_size() const noexcept {
  return 4 + 4 * decoded_.shape.size() + inner_->max_encoded_size();
}

void n5_default_codec::do_encode_into(std::span<const std::byte> array, bytes& out) const {
  out.clear();
  store_be(out, 0, 2);  // mode: default
  store_be(out, static_cast<std::uint32_t>(decoded_.shape.size()), 2);
  for (const auto d : decoded_.shape) store_be(out, static_cast<std::uint32_t>(d), 4);
  const auto body = inner_->encode(array);
  out.insert(out.end(), body.begin(), body.end());
}

void n5_default_codec::do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const {
  const auto rank = decoded_.shape.size();
  const auto header = 4 + 4 * rank;
  if (encoded.size() < 4)
    throw error(errc::corrupt_chunk, label() + ": expected an N5 block header, got " + std::to_string(encoded.size()) + " bytes");
  const auto mode = load_be(encoded, 0, 2);
  if (mode == 1 || mode == 2)  // N5's other modes: a block this codec does not read
    throw error(errc::unsupported, label() + ": expected an N5 block of mode 0 (default), got mode " + std::to_string(mode) +
                                       (mode == 1 ? " (varlength)" : " (object)"));
  if (mode != 0)  // no mode of N5: damaged
    throw error(errc::corrupt_chunk, label() + ": expected an N5 block of mode 0 (default), got mode " + std::to_string(mode));
  const auto dims = load_be(encoded, 2, 2);
  if (dims != rank)
    throw error(errc::corrupt_chunk, label() + ": expected an N5 block of " + std::to_string(rank) + " dimensions, got " +
                                         std::to_string(dims));
  if (encoded.size() < header)
    throw error(errc::corrupt_chunk, label() + ": expected an N5 block header of " + std::to_string(header) + " bytes, got " +
                                         std::to_string(encoded.size()));
  std::vector<std::uint64_t> block(rank);
  const auto most = decoded_.num_elements();
  std::uint64_t elements = 1;  // the block's, or most + 1 for any count above most
  for (std::size_t d = 0; d < rank; ++d) {
    block[d] = load_be(encoded, 4 + 4 * d, 4);
    if (block[d] == 0)  // no writer makes an empty block
      throw error(errc::corrupt_chunk, label() + ": expected an N5 block of positive dimensions, got 0 in dimension " +
                                           std::to_string(d));
    elements = block[d] > (most + 1) / elements ? most + 1 : elements * block[d];
  }
  const auto body = encoded.subspan(header);
  if (block == decoded_.shape) {
    inner_->decode_into(body, out);
    return;
  }
  // A block padded or truncated by its writer: decoded in its own shape, then cut or padded.
  if (elements > most)
    throw error(errc::corrupt_chunk, label() + ": expected an N5 block of at most the chunk's " +
                                         std::to_string(decoded_.num_elements()) + " elements, got a larger one");
  const codec_chain chain(codecs_, chunk_spec{block, decoded_.type, decoded_.fill, decoded_.layout},
                          where_ + ".configuration.codecs");
  const auto values = chain.decode(body);
  const auto size = static_cast<std::size_t>(decoded_.element_size());
  const auto whole = array_view::c_order(out.data(), decoded_.shape, size);
  std::vector<std::uint64_t> extent(rank), origin(rank, 0);
  for (std::size_t d = 0; d < rank; ++d) extent[d] = std::min(block[d], decoded_.shape[d]);
  fill(whole, decoded_.fill);
  copy(const_array_view::c_order(values.data(), block, size).window(origin, extent), whole.window(origin, extent));
}

std::unique_ptr<array_to_bytes_codec> make_n5_default_codec(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"codecs"});
  return std::make_unique<n5_default_codec>(required_member(config, "codecs", ctx.where, "an array of codecs"), ctx.decoded,
                                            ctx.where);
}

}  // namespace zarr
