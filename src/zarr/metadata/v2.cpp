// zarr.metadata.v2: Zarr v2 `order`, `filters` and `compressor` as a Zarr v3 codec chain
// (Zarr storage specification version 2, "Metadata", "Filters"; numcodecs' codec
// configurations, https://numcodecs.readthedocs.io).
module;
#include <cstdint>
#include <string>
#include <string_view>
#include <boost/json.hpp>
module zarr.metadata.v2;

namespace zarr {
namespace json = boost::json;

namespace {

json::object codec_object(std::string_view name, json::object configuration) {
  return json::object{{"name", name}, {"configuration", std::move(configuration)}};
}

}  // namespace

json::object numcodecs_to_v3(const json::object& config, std::string_view where) {
  const std::string at(where);
  const std::string id(config.at("id").as_string());
  json::object rest = config;
  rest.erase("id");
  if (id == "pickle")
    throw error(errc::unsupported, at + ".id: expected a codec that does not run code, got \"pickle\" (unpickling "
                                        "runs arbitrary Python code: refused)");
  // numcodecs 0.11's defaults: GZip(level=1), Zstd(level=1).
  if (id == "gzip") {
    if (!rest.contains("level")) rest["level"] = 1;
    return codec_object("gzip", std::move(rest));
  }
  if (id == "zstd") {
    if (!rest.contains("level")) rest["level"] = 1;
    if (!rest.contains("checksum")) rest["checksum"] = false;
    return codec_object("zstd", std::move(rest));
  }
  const auto name = "numcodecs." + id;
  if (find_codec(name) == nullptr)
    throw error(errc::unsupported, at + ".id: expected a numcodecs codec this library has, got \"" + id + "\"");
  return codec_object(name, std::move(rest));
}

json::array v2_codecs(const array_metadata& m) {
  json::array out;
  const auto rank = m.shape.size();
  if (m.v2.order == 'F' && rank > 1) {
    json::array order;
    for (std::size_t i = rank; i-- > 0;) order.push_back(i);
    out.push_back(codec_object("transpose", {{"order", std::move(order)}}));
  }
  char byte_order = m.v2.byte_order;
  bool bytes_done = false;
  const auto add_bytes = [&] {
    if (bytes_done) return;
    out.push_back(codec_object("bytes", {{"endian", byte_order == '>' ? "big" : "little"}}));
    bytes_done = true;
  };
  if (const auto* filters = m.v2.filters.if_array()) {
    for (std::size_t i = 0; i < filters->size(); ++i) {
      const auto where = ".zarray: filters[" + std::to_string(i) + "]";
      const auto& config = (*filters)[i].as_object();
      auto codec = numcodecs_to_v3(config, where);
      const auto kind = find_codec(codec.at("name").as_string())->kind;
      if (kind == codec_kind::array_to_array) {
        if (bytes_done)
          throw error(errc::unsupported, where + ": expected an array filter only before the byte filters (a Zarr v3 "
                                                 "chain cannot express it after one), got \"" +
                                             std::string(config.at("id").as_string()) + "\"");
        // The encoded array's bytes are in the byte order of what the filter makes.
        const auto* astype = config.if_contains(config.contains("encode_dtype") ? "encode_dtype" : "astype");
        if (astype != nullptr && astype->is_string())
          if (const auto t = parse_numpy_dtype(astype->as_string()); t && t->byte_order != '|') byte_order = t->byte_order;
      } else if (kind == codec_kind::bytes_to_bytes) {
        add_bytes();
      } else if (!bytes_done) {  // numcodecs.packbits: it makes the bytes itself
        bytes_done = true;
      } else {
        throw error(errc::unsupported, where + ": expected an array -> bytes filter only before the byte filters, got \"" +
                                           std::string(config.at("id").as_string()) + "\"");
      }
      out.push_back(std::move(codec));
    }
  }
  add_bytes();
  if (const auto* compressor = m.v2.compressor.if_object()) {
    auto codec = numcodecs_to_v3(*compressor, ".zarray: compressor");
    if (find_codec(codec.at("name").as_string())->kind != codec_kind::bytes_to_bytes)
      throw error(errc::unsupported, ".zarray: compressor: expected a bytes -> bytes codec, got \"" +
                                         std::string(codec.at("name").as_string()) + "\"");
    out.push_back(std::move(codec));
  }
  return out;
}

}  // namespace zarr
