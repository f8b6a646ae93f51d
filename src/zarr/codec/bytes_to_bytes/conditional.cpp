// zarr.codec.conditional: zarr-extensions codecs/conditional, "Encoding Process" and
// "Decoding Process"; the writer's decision is the README's "compress_if_smaller".
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
module zarr.codec.conditional;

namespace zarr {
namespace json = boost::json;

namespace {

constexpr std::uint64_t most_header_bits = 8 * 1024;  // a sanity bound: 1 KiB of header

}  // namespace

conditional_codec::conditional_codec(const codec_context& ctx) : bytes_to_bytes_codec(ctx.where) {
  const auto& config = configuration_object(ctx, {"codecs", "header_bits"});
  const auto at = ctx.where + ".configuration.";
  const auto* list = required_member(config, "codecs", ctx.where, "an array of bytes -> bytes codecs").if_array();
  if (list == nullptr)
    throw error(errc::invalid_metadata, at + "codecs: expected an array of bytes -> bytes codecs, got " + json::serialize(config.at("codecs")));
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto here = at + "codecs[" + std::to_string(i) + "]";
    const auto item = parse_codec_item((*list)[i], here);
    const auto* entry = find_codec(item.name);
    // A bit of the header stands for each codec: none may be left out, even one marked
    // "must_understand": false.
    if (entry == nullptr) throw error(errc::unsupported, here + ".name: expected a supported codec, got \"" + item.name + "\"");
    if (entry->kind != codec_kind::bytes_to_bytes)
      throw error(errc::invalid_metadata, here + " (" + item.name + "): expected a bytes -> bytes codec, got another kind");
    codecs_.push_back(entry->make_bytes_to_bytes({*item.configuration, ctx.decoded, here, ctx.document}));
  }
  std::uint64_t bits = (codecs_.size() + 7) / 8 * 8;
  if (const auto* h = config.if_contains("header_bits")) {
    const auto n = non_negative_integer(*h);
    if (!n || *n % 8 != 0 || *n < codecs_.size() || *n > most_header_bits)
      throw error(errc::invalid_metadata, at + "header_bits: expected a multiple of 8 from " + std::to_string(codecs_.size()) +
                                              " (the number of codecs) to " + std::to_string(most_header_bits) + ", got " +
                                              json::serialize(*h));
    bits = *n;
  }
  header_bytes_ = bits / 8;
}

json::value conditional_codec::to_json() const {
  json::array list;
  for (const auto& c : codecs_) list.push_back(c->to_json());
  return json::object{{"name", "conditional"},
                      {"configuration", json::object{{"codecs", std::move(list)}, {"header_bits", header_bytes_ * 8}}}};
}

bytes conditional_codec::encode(std::span<const std::byte> in) const {
  bytes header(static_cast<std::size_t>(header_bytes_), std::byte{0});
  bytes kept;  // the output of the last codec applied; the input itself until one is
  std::span<const std::byte> current = in;
  for (std::size_t i = 0; i < codecs_.size(); ++i) {
    auto trial = codecs_[i]->encode(current);
    if (trial.size() >= current.size()) continue;
    kept = std::move(trial);
    current = kept;
    header[i / 8] |= static_cast<std::byte>(1u << (i % 8));
  }
  header.insert(header.end(), current.begin(), current.end());
  return header;
}

std::uint64_t conditional_codec::max_encoded_size(std::uint64_t decoded_size) const noexcept {
  // A codec is kept only when it makes the bytes smaller, but another writer may keep any:
  // each nested codec's bound, in turn.
  auto size = decoded_size;
  for (const auto& c : codecs_) size = std::max(size, c->max_encoded_size(size));
  constexpr auto most = ~std::uint64_t{0};
  return size > most - header_bytes_ ? most : size + header_bytes_;
}

bytes conditional_codec::decode_bytes(std::span<const std::byte> in, std::uint64_t limit) const {
  if (in.size() < header_bytes_)
    throw error(errc::corrupt_chunk, label() + ": expected a header of " + std::to_string(header_bytes_) + " bytes, got " +
                                         std::to_string(in.size()) + " bytes in all");
  std::vector<bool> applied(codecs_.size());
  for (std::size_t bit = 0; bit < header_bytes_ * 8; ++bit) {
    if (((static_cast<unsigned>(in[bit / 8]) >> (bit % 8)) & 1u) == 0) continue;
    if (bit >= codecs_.size())
      throw error(errc::corrupt_chunk, label() + ": header bit " + std::to_string(bit) + " is set, but there are only " +
                                           std::to_string(codecs_.size()) + " codecs (expected the reserved bits 0)");
    applied[bit] = true;
  }
  // The largest size each nested codec's output may have: what the one before it can take.
  std::vector<std::uint64_t> limits{limit};
  for (std::size_t i = 0; i + 1 < codecs_.size(); ++i) limits.push_back(std::max(limits.back(), codecs_[i]->max_encoded_size(limits.back())));
  bytes current(in.begin() + static_cast<std::ptrdiff_t>(header_bytes_), in.end());
  for (std::size_t i = codecs_.size(); i-- > 0;)
    if (applied[i]) current = codecs_[i]->decode(current, limits[i]);
  if (current.size() > limit)
    throw error(errc::corrupt_chunk, label() + ": expected at most " + std::to_string(limit) + " bytes, got " +
                                         std::to_string(current.size()));
  return current;
}

std::unique_ptr<bytes_to_bytes_codec> make_conditional_codec(const codec_context& ctx) {
  return std::make_unique<conditional_codec>(ctx);
}

}  // namespace zarr
