// zarr.builder: the JSON each typed codec configuration stands for, and array_builder's
// validation (the same round trip through text and parse, and the same chain resolution, as
// array::create).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>
#include <boost/json.hpp>
module zarr.builder;

import zarr.codec;
import zarr.codec.sharding_indexed;
import zarr.fill_value;
import zarr.sized;

namespace zarr {
namespace json = boost::json;

namespace codecs {
namespace {

bool is_array_to_bytes(const any& c) {
  return std::holds_alternative<bytes>(c) || std::holds_alternative<packbits>(c) ||
         std::holds_alternative<sharding_indexed>(c) || std::holds_alternative<vlen>(c);
}

// The chain's JSON; `type` is what the first codec receives and follows the cast_value codecs.
json::array chain_json(const std::vector<any>& chain, data_type type, const std::string& where) {
  json::array out;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const auto at = where + "[" + std::to_string(i) + "]";
    out.push_back(to_json(chain[i], type, at));
    if (const auto* c = std::get_if<cast_value>(&chain[i])) type = c->data_type;
  }
  return out;
}

}  // namespace

// Each configuration serialises itself; only the typed nesting of sharding_indexed and vlen's
// choice of name by data type are the builder's own.
json::value to_json(const any& codec, data_type type, std::string_view where_view) {
  const std::string where(where_view);
  return std::visit(
      [&](const auto& c) -> json::value {
        using C = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<C, vlen>) {
          return json::object{{"name", type == data_type::bytes ? "vlen-bytes" : "vlen-utf8"}, {"configuration", json::object{}}};
        } else if constexpr (std::is_same_v<C, sharding_indexed>) {
          const auto at = where + ".configuration.";
          const std::vector<any> inner = c.codecs.empty() ? std::vector<any>{bytes{}} : c.codecs;
          const std::vector<any> index = c.index_codecs.empty() ? std::vector<any>{bytes{}, crc32c{}} : c.index_codecs;
          return sharding_configuration{.chunk_shape = c.chunk_shape,
                                        .codecs = chain_json(inner, type, at + "codecs"),
                                        .index_codecs = chain_json(index, data_type::uint64, at + "index_codecs"),
                                        .index_at_end = c.location == index_location::end}
              .to_json();
        } else if constexpr (requires { c.to_json(type, where); }) {
          return c.to_json(type, where);  // typed scalars, converted exactly to `type`
        } else {
          return c.to_json();
        }
      },
      codec);
}

}  // namespace codecs

array_builder::array_builder(std::vector<std::uint64_t> shape, data_type type) : shape_(std::move(shape)), type_(type) {}

array_builder::array_builder(std::vector<std::uint64_t> shape, const data_type_spec& type)
    : shape_(std::move(shape)), type_(type.type), layout_(type.layout) {
  if (is_time(type.type)) resolution_ = type.time;
}

array_builder& array_builder::fill_json(json::value value) {
  json_fill_ = std::move(value);
  return *this;
}

array_builder& array_builder::chunk_shape(std::vector<std::uint64_t> shape) {
  chunk_shape_ = std::move(shape);
  shards_.reset();
  return *this;
}

array_builder& array_builder::shards(std::vector<std::uint64_t> shard_shape, std::vector<std::uint64_t> inner_chunk_shape,
                                     codecs::index_location location) {
  chunk_shape_ = std::move(shard_shape);
  shards_ = codecs::sharding_indexed{.chunk_shape = std::move(inner_chunk_shape), .codecs = {}, .index_codecs = {},
                                     .location = location};
  return *this;
}

array_builder& array_builder::fill_value(typed_value value) {
  fill_ = value;
  return *this;
}

array_builder& array_builder::fill_string(std::string value) {
  string_fill_ = std::move(value);
  return *this;
}

array_builder& array_builder::codecs(std::vector<codecs::any> chain) {
  codecs_ = std::move(chain);
  return *this;
}

array_builder& array_builder::attributes(json::object attributes) {
  attributes_ = std::move(attributes);
  return *this;
}

array_builder& array_builder::dimension_names(std::vector<std::optional<std::string>> names) {
  dimension_names_ = std::move(names);
  return *this;
}

array_builder& array_builder::chunk_key_encoding(zarr::chunk_key_encoding encoding) {
  key_encoding_ = encoding;
  return *this;
}

array_builder& array_builder::resolution(time_resolution r) {
  resolution_ = r;
  return *this;
}

array_metadata array_builder::metadata() const {
  try {
    array_metadata m;
    m.shape = shape_;
    m.type = type_;
    if (is_sized(type_) && layout_.size == 0)  // their size is in their configuration
      throw error(errc::invalid_metadata, "data_type: expected the configuration of " + std::string(name(type_)) +
                                              " (array_builder(shape, zarr::parse_data_type_spec(...))), got none");
    m.layout = layout_;
    if (json_fill_ && !is_sized(type_))
      throw error(errc::invalid_value, "fill_value: expected a C++ value for " + std::string(name(type_)) +
                                           " (fill_value or fill_string), got JSON (fill_json)");
    if (is_time(type_) && !resolution_)
      throw error(errc::invalid_metadata, "data_type: expected a resolution for " + std::string(name(type_)) +
                                              " (.resolution({zarr::time_unit::ns})), got none");
    if (!is_time(type_) && resolution_)
      throw error(errc::invalid_metadata, "data_type: expected no resolution for " + std::string(name(type_)) +
                                              ", got " + std::string(time_unit_name(resolution_->unit)));
    if (resolution_) m.time = *resolution_;
    if (chunk_shape_) {
      m.chunk_shape = *chunk_shape_;
    } else {
      for (auto d : shape_) m.chunk_shape.push_back(d == 0 ? 1 : d);
    }
    m.key_encoding = key_encoding_;
    if (is_variable_length(type_)) {
      if (fill_)
        throw error(errc::invalid_value, "fill_value: expected a string for " + std::string(name(type_)) + ", got a number");
      m.fill_value = scalar{type_, {}};
      m.fill_string = string_fill_.value_or("");
    } else if (is_sized(type_)) {
      if (fill_ || string_fill_)
        throw error(errc::invalid_value, "fill_value: expected its JSON form for " + std::string(name(type_)) +
                                             " (fill_json), got a C++ value");
      const data_type_spec spec{type_, {}, layout_};
      m.fill_value = json_fill_ ? parse_sized_fill_value(*json_fill_, spec) : default_sized_fill_value(spec);
    } else {
      if (string_fill_)
        throw error(errc::invalid_value, "fill_value: expected a number for " + std::string(name(type_)) + ", got a string");
      m.fill_value = fill_ ? convert_value(fill_->value(), type_, "fill_value") : default_fill_value(type_);
    }

    // The chain: the user's codecs, with bytes{} after the array -> array ones when there is
    // no array -> bytes codec; with shards, all of that inside sharding_indexed.
    std::vector<codecs::any> chain = codecs_;
    bool has_array_to_bytes = false;
    for (const auto& c : chain) has_array_to_bytes = has_array_to_bytes || codecs::is_array_to_bytes(c);
    if (!has_array_to_bytes) {
      std::size_t k = 0;
      while (k < chain.size() &&
             (std::holds_alternative<codecs::transpose>(chain[k]) || std::holds_alternative<codecs::scale_offset>(chain[k]) ||
              std::holds_alternative<codecs::cast_value>(chain[k]) || std::holds_alternative<codecs::reshape>(chain[k])))
        ++k;
      if (is_variable_length(type_)) chain.insert(chain.begin() + static_cast<std::ptrdiff_t>(k), codecs::vlen{});
      else chain.insert(chain.begin() + static_cast<std::ptrdiff_t>(k), codecs::bytes{});
    }
    if (shards_) {
      auto sharding = *shards_;
      sharding.codecs = std::move(chain);
      chain = {std::move(sharding)};
    }
    m.codecs = codecs::chain_json(chain, type_, "codecs");
    m.attributes = attributes_;
    m.dimension_names = dimension_names_;

    // What array::create does: the text, parsed back, and the chain resolved on it.
    const auto text = m.to_text();
    auto parsed = array_metadata::parse(parse_json(text), text);
    const codec_chain resolved(parsed.codecs,
                               chunk_spec{parsed.chunk_shape, parsed.type, parsed.fill_value, parsed.layout, parsed.fill_string}, "codecs",
                               parsed.source);
    return parsed;
  } catch (const error& e) {
    throw error(e.code(), std::string("array_builder: ") + e.what());
  }
}

array array_builder::create(std::shared_ptr<store> s, std::string_view path, bool overwrite) const {
  return array::create(std::move(s), path, metadata(), overwrite);
}

}  // namespace zarr
