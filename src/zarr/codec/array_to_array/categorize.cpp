// zarr.codec.categorize: strings to label numbers and back (numcodecs documentation,
// "Categorize"; docs/decisions.md 62, 72).
module;
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.codec.categorize;

import zarr.sized;
import zarr.text;

namespace zarr {
namespace json = boost::json;

categorize_codec::categorize_codec(std::vector<std::string> labels, data_type encode_type, const chunk_spec& decoded,
                                   std::string dtype, std::string where)
    : array_to_array_codec(std::move(where)), labels_(std::move(labels)), dtype_(std::move(dtype)), decoded_(decoded),
      encoded_(decoded), width_(static_cast<std::size_t>(decoded.element_size())),
      number_size_(static_cast<std::size_t>(info(encode_type).size)) {
  if (decoded_.type == data_type::fixed_length_utf32) {
    // Each label as an element: its code units, zero padded (NumPy compares "ab" and "ab\0" as
    // equal, and so do padded elements); one too long for the element matches none.
    for (const auto& l : labels_) {
      std::string units(width_, '\0');
      try {
        utf32_from_utf8(l, std::as_writable_bytes(std::span<char>(units)), "label");
      } catch (const error&) {
        units.clear();  // no element holds it
      }
      label_units_.push_back(std::move(units));
    }
  }
  const auto& keys = label_units_.empty() ? labels_ : label_units_;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (!keys[i].empty() || label_units_.empty()) numbers_[keys[i]] = i + 1;  // a repeated label: its last number
  encoded_.type = encode_type;
  encoded_.layout = {};
  // The number of the empty string, which is what a chunk of the array's missing elements holds
  // where the rest of the chain needs a fill (sharding's absent inner chunks).
  const auto empty = numbers_.find(label_units_.empty() ? std::string() : std::string(width_, '\0'));
  const std::uint64_t fill = empty == numbers_.end() ? 0 : empty->second;
  encoded_.fill = scalar{encode_type, {}};
  std::memcpy(encoded_.fill.bytes().data(), &fill, number_size_);
}

json::value categorize_codec::to_json() const {
  json::array labels;
  for (const auto& l : labels_) labels.emplace_back(l);
  return json::object{{"name", name()},
                      {"configuration", json::object{{"labels", std::move(labels)},
                                                     {"dtype", dtype_},
                                                     {"astype", *numpy_dtype_string(encoded_.type, '<')}}}};
}

bytes categorize_codec::encode_elements(std::span<const std::string> elements) const {
  if (elements.size() != decoded_.num_elements())
    throw error(errc::invalid_argument, label() + ": expected " + std::to_string(decoded_.num_elements()) +
                                            " elements, got " + std::to_string(elements.size()));
  bytes out(elements.size() * number_size_);
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const auto number = number_of(elements[i], i);
    std::memcpy(out.data() + i * number_size_, &number, number_size_);  // little-endian hosts: the low bytes
  }
  return out;
}

void categorize_codec::check_elements(std::span<const std::string> elements) const {
  for (std::size_t i = 0; i < elements.size(); ++i) static_cast<void>(number_of(elements[i], i));
}

std::uint64_t categorize_codec::number_of(const std::string& element, std::size_t i) const {
  if (const auto found = numbers_.find(element); found != numbers_.end()) return found->second;
  if (element.empty()) return 0;
  // numcodecs would store 0 and read "" back: data lost
  const auto shown = element.size() > 64 ? element.substr(0, 64) + "..." : element;
  throw error(errc::invalid_value, label() + ", element " + std::to_string(i) +
                                       ": expected one of the labels or the empty string, got " +
                                       json::serialize(json::value(shown)));
}

void categorize_codec::decode_elements(std::span<const std::byte> in, std::span<std::string> out) const {
  if (in.size() != out.size() * number_size_ || out.size() != decoded_.num_elements())
    throw error(errc::corrupt_chunk, label() + ": expected " + std::to_string(decoded_.num_elements()) + " numbers of " +
                                         std::to_string(number_size_) + " bytes, got " + std::to_string(in.size()) + " bytes");
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto number = number_at(in, i);
    if (number == 0) out[i].clear();
    else out[i] = labels_[static_cast<std::size_t>(number - 1)];
  }
}

std::uint64_t categorize_codec::number_at(std::span<const std::byte> in, std::size_t i) const {
  const bool is_signed = info(encoded_.type).kind == dtype_kind::signed_integer;
  std::uint64_t number = 0;
  std::memcpy(&number, in.data() + i * number_size_, number_size_);
  const bool negative = is_signed && (number >> (8 * number_size_ - 1)) != 0;
  if (negative || number > labels_.size()) {
    const auto shown = negative ? std::to_string(static_cast<std::int64_t>(number | (number_size_ == 8 ? 0 : ~std::uint64_t{0} << (8 * number_size_))))
                                : std::to_string(number);
    throw error(errc::corrupt_chunk, label() + ", element " + std::to_string(i) + ": expected a label number from 0 to " +
                                         std::to_string(labels_.size()) + ", got " + shown);
  }
  return number;
}

// fixed_length_utf32 elements: a buffer of padded code units to numbers, and back.
bytes categorize_codec::do_encode(bytes in) const {
  if (label_units_.empty()) throw error(errc::invalid_argument, label() + ": expected strings, got a chunk buffer");
  const auto n = in.size() / width_;
  bytes out(n * number_size_);
  std::string key(width_, '\0');
  const auto zero = std::string(width_, '\0');
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(key.data(), in.data() + i * width_, width_);
    std::uint64_t number = 0;
    if (const auto found = numbers_.find(key); found != numbers_.end()) {
      number = found->second;
    } else if (key != zero) {
      std::string shown;
      try {
        shown = json::serialize(json::value(utf8_from_utf32(std::as_bytes(std::span<const char>(key)), "element")));
      } catch (const error&) {
        shown = "code units that are no text";
      }
      throw error(errc::invalid_value, label() + ", element " + std::to_string(i) +
                                           ": expected one of the labels or the empty string, got " + shown);
    }
    std::memcpy(out.data() + i * number_size_, &number, number_size_);  // little-endian hosts: the low bytes
  }
  return out;
}

bytes categorize_codec::do_decode(bytes in) const {
  if (label_units_.empty()) throw error(errc::invalid_argument, label() + ": decodes to strings, not to a chunk buffer");
  const auto n = in.size() / number_size_;
  bytes out(n * width_, std::byte{0});
  for (std::size_t i = 0; i < n; ++i) {
    const auto number = number_at(in, i);
    if (number == 0) continue;
    const auto& units = label_units_[static_cast<std::size_t>(number - 1)];
    if (units.empty())  // numcodecs never stores it: no element equals a label longer than the element
      throw error(errc::corrupt_chunk, label() + ", element " + std::to_string(i) + ": expected the number of a label of at most " +
                                           std::to_string(width_ / 4) + " code points, got " + std::to_string(number) +
                                           ", the number of " + json::serialize(json::value(labels_[static_cast<std::size_t>(number - 1)])));
    std::memcpy(out.data() + i * width_, units.data(), width_);
  }
  return out;
}

std::unique_ptr<array_to_array_codec> make_categorize_codec(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"labels", "dtype", "astype"});
  const auto at = ctx.where + ".configuration.";
  if (ctx.decoded.type != data_type::string && ctx.decoded.type != data_type::fixed_length_utf32)
    throw error(errc::unsupported, ctx.where + " (numcodecs.categorize): expected an array of data type string or "
                                               "fixed_length_utf32, got " + std::string(name(ctx.decoded.type)));
  // The type numcodecs views each chunk as: "|O" for strings, "<U5" or ">U5" for
  // fixed_length_utf32 of 20 bytes (code points, whatever the stored byte order).
  const auto points = std::to_string(ctx.decoded.element_size() / 4);
  const auto& dtype = required_member(config, "dtype", ctx.where, "\"|O\"");
  const bool fits = ctx.decoded.type == data_type::string ? dtype == json::value("|O")
                                                          : dtype == json::value("<U" + points) || dtype == json::value(">U" + points);
  if (!fits)
    throw error(errc::unsupported, at + "dtype: expected " +
                                       (ctx.decoded.type == data_type::string
                                            ? std::string("\"|O\" (NumPy's object type, the strings of a string array)")
                                            : "\"<U" + points + "\" (NumPy's type of the array's " + points + " code points)") +
                                       ", got " + json::serialize(dtype));
  const auto* list = required_member(config, "labels", ctx.where, "an array of strings").if_array();
  if (list == nullptr) throw error(errc::invalid_metadata, at + "labels: expected an array of strings, got another value");
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto* s = (*list)[i].if_string();
    if (s == nullptr || invalid_utf8_at(*s))
      throw error(errc::invalid_metadata, at + "labels[" + std::to_string(i) + "]: expected a string, got " +
                                              json::serialize((*list)[i]));
    labels.emplace_back(*s);
  }
  data_type encode_type = data_type::uint8;
  if (const auto* astype = config.if_contains("astype"); astype != nullptr && !astype->is_null()) {
    const auto* s = astype->if_string();
    const auto t = s ? parse_numpy_dtype(*s) : std::nullopt;
    if (!t || !is_integer(t->type) || info(t->type).bits < 8)
      throw error(errc::unsupported, at + "astype: expected a NumPy integer type (\"|u1\", \"<u2\", ...), got " +
                                         json::serialize(*astype));
    encode_type = t->type;
  }
  if (labels.size() > info(encode_type).max)
    throw error(errc::invalid_metadata, at + "labels: expected at most " + std::to_string(info(encode_type).max) +
                                            " labels for " + std::string(name(encode_type)) + ", got " +
                                            std::to_string(labels.size()));
  return std::make_unique<categorize_codec>(std::move(labels), encode_type, ctx.decoded, std::string(dtype.as_string()),
                                            ctx.where);
}

}  // namespace zarr
