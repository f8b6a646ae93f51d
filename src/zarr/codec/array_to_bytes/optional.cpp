// zarr.codec.optional: a validity mask and the present values, each through its own chain
// (zarr-extensions proposal codecs/optional, "Encoded format" and "Algorithm"; data-types/optional).
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.codec.optional;

import zarr.sized;

namespace zarr {
namespace json = boost::json;

namespace {

constexpr std::size_t header_size = 16;  // two uint64 little-endian lengths

}  // namespace

optional_codec::optional_codec(const json::value& mask_codecs, const json::value& data_codecs, const chunk_spec& decoded,
                               std::string where, std::string_view document)
    : array_to_bytes_codec(std::move(where)), decoded_(decoded), data_codecs_(data_codecs), document_(document) {
  if (decoded_.type != data_type::optional)
    throw error(errc::invalid_metadata, label() + ": expected the optional data type, got " +
                                            (is_sized(decoded_.type) ? sized_type_name({decoded_.type, {}, decoded_.layout})
                                                                     : std::string(zarr::name(decoded_.type))));
  const auto& inner = optional_value_type(decoded_.layout);
  variable_ = has_variable_elements(inner.type, inner.layout);
  const chunk_spec mask{decoded_.shape, data_type::bool_, scalar{data_type::bool_, {}}};
  mask_ = std::make_unique<codec_chain>(mask_codecs, mask, where_ + ".configuration.mask_codecs", document_);
  values_ = chunk_spec{{std::max<std::uint64_t>(1, decoded_.num_elements())}, inner.type,
                       is_sized(inner.type) && !variable_ ? default_sized_fill_value(inner) : scalar{inner.type, {}},
                       inner.layout, inner.type == data_type::optional && variable_ ? std::string(1, '\0') : std::string()};
  data_ = std::make_unique<codec_chain>(data_codecs_, values_, where_ + ".configuration.data_codecs", document_);
}

std::unique_ptr<codec_chain> optional_codec::data_chain(std::uint64_t count) const {
  if (count == values_.shape[0]) return nullptr;  // data_ serves it
  chunk_spec spec = values_;
  spec.shape = {count};
  return std::make_unique<codec_chain>(data_codecs_, spec, where_ + ".configuration.data_codecs", document_);
}

json::value optional_codec::to_json() const {
  return json::object{{"name", "optional"},
                      {"configuration", json::object{{"mask_codecs", mask_->to_json()}, {"data_codecs", data_->to_json()}}}};
}

std::uint64_t optional_codec::max_encoded_size() const noexcept {
  const auto mask = mask_->max_encoded_size(), data = data_->max_encoded_size();
  return mask > ~std::uint64_t{0} - header_size - data ? ~std::uint64_t{0} : header_size + mask + data;
}

void optional_codec::assemble(const bytes& encoded_mask, const bytes& encoded_data, bytes& out) const {
  out.resize(header_size + encoded_mask.size() + encoded_data.size());
  store_le64(out.data(), encoded_mask.size());
  store_le64(out.data() + 8, encoded_data.size());
  if (!encoded_mask.empty()) std::memcpy(out.data() + header_size, encoded_mask.data(), encoded_mask.size());
  if (!encoded_data.empty())
    std::memcpy(out.data() + header_size + encoded_mask.size(), encoded_data.data(), encoded_data.size());
}

std::pair<bytes, std::span<const std::byte>> optional_codec::split(std::span<const std::byte> encoded) const {
  if (encoded.size() < header_size)
    throw error(errc::corrupt_chunk, label() + ": expected a header of 16 bytes (the mask's and the data's lengths), got " +
                                         std::to_string(encoded.size()) + " bytes");
  const auto mask_length = load_le64(encoded.data()), data_length = load_le64(encoded.data() + 8);
  const auto rest = encoded.size() - header_size;
  if (mask_length > rest || data_length != rest - mask_length)
    throw error(errc::corrupt_chunk, label() + ": expected a mask of " + std::to_string(mask_length) + " bytes and data of " +
                                         std::to_string(data_length) + " bytes after the header, got " + std::to_string(rest) +
                                         " bytes");
  auto mask = mask_->decode(encoded.subspan(header_size, static_cast<std::size_t>(mask_length)));
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (const auto valid = std::to_integer<unsigned>(mask[i]); valid > 1)
      throw error(errc::corrupt_chunk, label() + ": mask element " + std::to_string(i) + ": expected a bool (0 or 1), got " +
                                           std::to_string(valid));
  return {std::move(mask), encoded.subspan(header_size + static_cast<std::size_t>(mask_length))};
}

template <class Element>
bool optional_codec::has_value(const Element& element, std::size_t i) const {
  try {
    return optional_has_value(element);
  } catch (const error& e) {
    throw error(e.code(), label() + ": element " + std::to_string(i) + ": " + e.what());
  }
}

void optional_codec::do_encode_into(std::span<const std::byte> array, bytes& out) const {
  const auto n = static_cast<std::size_t>(decoded_.num_elements());
  const auto size = static_cast<std::size_t>(decoded_.element_size());
  const auto value_size = size - 1;
  bytes mask(n);
  bytes values;
  values.reserve(n * value_size);
  for (std::size_t i = 0; i < n; ++i) {
    const auto element = array.subspan(i * size, size);
    const bool valid = has_value(element, i);
    mask[i] = std::byte{valid};
    if (valid) values.insert(values.end(), element.begin(), element.end() - 1);
  }
  const auto present = values.size() / value_size;  // (every wrapped type has a size)
  bytes encoded_data;
  if (present > 0) {
    const auto chain = data_chain(present);
    encoded_data = (chain ? *chain : *data_).encode(std::move(values));
  }
  assemble(mask_->encode(std::move(mask)), encoded_data, out);
}

void optional_codec::do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const {
  const auto [mask, data] = split(encoded);
  const auto n = static_cast<std::size_t>(decoded_.num_elements());
  const auto size = static_cast<std::size_t>(decoded_.element_size());
  const auto value_size = size - 1;
  const auto present = static_cast<std::uint64_t>(std::count(mask.begin(), mask.end(), std::byte{1}));
  std::fill(out.begin(), out.end(), std::byte{0});
  if (present == 0) return;  // every element null: the data, if any, holds nothing
  const auto chain = data_chain(present);
  const auto values = (chain ? *chain : *data_).decode(data);
  for (std::size_t i = 0, k = 0; i < n; ++i) {
    if (mask[i] == std::byte{0}) continue;
    auto* element = out.data() + i * size;
    std::memcpy(element, values.data() + value_size * k++, value_size);
    element[value_size] = std::byte{1};
  }
}

std::vector<std::string> optional_codec::present_elements(std::span<const std::string> elements, bytes* mask) const {
  std::vector<std::string> values;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const auto& e = elements[i];
    const bool valid = has_value(std::string_view(e), i);
    if (mask != nullptr) (*mask)[i] = std::byte{valid};
    if (valid) values.emplace_back(e, 0, e.size() - 1);
  }
  return values;
}

void optional_codec::encode_elements(std::span<const std::string> elements, bytes& out) const {
  bytes mask(elements.size());
  const auto values = present_elements(elements, &mask);
  bytes encoded_data;
  if (!values.empty()) {
    const auto chain = data_chain(values.size());
    encoded_data = (chain ? *chain : *data_).encode_elements(values);
  }
  assemble(mask_->encode(std::move(mask)), encoded_data, out);
}

void optional_codec::decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const {
  const auto [mask, data] = split(encoded);
  const auto present = static_cast<std::size_t>(std::count(mask.begin(), mask.end(), std::byte{1}));
  std::vector<std::string> values(present);
  if (present > 0) {
    const auto chain = data_chain(present);
    (chain ? *chain : *data_).decode_elements(data, values);
  }
  for (std::size_t i = 0, k = 0; i < out.size(); ++i) {
    if (mask[i] == std::byte{0}) {
      out[i].assign(1, '\0');
    } else {
      out[i] = std::move(values[k++]);
      out[i] += '\1';
    }
  }
}

void optional_codec::check_elements(std::span<const std::string> elements) const {
  const auto values = present_elements(elements, nullptr);
  data_->check_elements(values);
}

std::unique_ptr<array_to_bytes_codec> make_optional_codec(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"mask_codecs", "data_codecs"});
  return std::make_unique<optional_codec>(required_member(config, "mask_codecs", ctx.where, "an array of codecs"),
                                          required_member(config, "data_codecs", ctx.where, "an array of codecs"),
                                          ctx.decoded, ctx.where, ctx.document);
}

}  // namespace zarr
