// libFuzzer target: the data types sized by their configuration (zarr.sized: raw bits,
// fixed_length_utf32, struct and structured, optional; the stored bytes part skips optional, which
// the bytes codec refuses: the optional target). Input: records split by zarr_fuzz::record_separator:
// a `data_type` JSON, a value JSON, then stored bytes for the bytes codec (a byte choosing the
// byte order first). Properties: a data type is parsed or refused with invalid_metadata or
// unsupported, and its canonical JSON parses back to the same type; a value is parsed or refused
// with invalid_value, and its canonical text reads back to the same bytes; stored bytes decode or
// are corrupt_chunk, and what decodes encodes back and decodes to the same elements.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>
#include <boost/json.hpp>
#include "fuzz.hpp"
import zarr.error;
import zarr.dtype;
import zarr.sized;
import zarr.codec;
import zarr.metadata;
import zarr.builder;
import zarr.bytes;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto records = zarr_fuzz::split_records(text);
  zarr::data_type_spec spec;
  try {
    spec = zarr::parse_data_type_spec(zarr::parse_json(records[0], "fuzz"));
  } catch (const zarr::error& e) {
    zarr_fuzz::expect(e.code() == zarr::errc::invalid_metadata || e.code() == zarr::errc::unsupported,
                      "unexpected error code for a data type:", e.what());
    return 0;
  }
  if (!zarr::is_sized(spec.type) || zarr::has_variable_elements(spec.type, spec.layout)) return 0;  // an optional string: strings
  const auto again = zarr::parse_data_type_spec(zarr::to_json(spec));
  zarr_fuzz::expect(again.element_size() == spec.element_size() && zarr::to_json(again) == zarr::to_json(spec),
                    "the canonical form of a sized type reads back to another type");
  const auto n = static_cast<std::size_t>(spec.element_size());
  zarr_fuzz::expect(n > 0 && n <= zarr::max_element_size, "a sized type of no size or beyond the limit");

  if (records.size() > 1 && n <= 4096) {
    std::vector<std::byte> value(n);
    bool parsed = true;
    try {
      zarr::parse_sized_value(zarr::parse_json(records[1], "fuzz"), spec, value, "fuzz");
    } catch (const zarr::error& e) {
      zarr_fuzz::expect(e.code() == zarr::errc::invalid_value || e.code() == zarr::errc::invalid_metadata,
                        "unexpected error code for a value:", e.what());
      parsed = false;
    }
    if (parsed) {
      const auto canonical = zarr::sized_value_to_json_text(value, spec);
      std::vector<std::byte> back(n);
      zarr::parse_sized_value(zarr::parse_json(canonical, "fuzz"), spec, back, "fuzz");
      zarr_fuzz::expect(back == value || spec.type == zarr::data_type::struct_,  // NaN payloads may differ in a struct
                        "the canonical text of a value reads back to other bytes:", canonical);
    }
  }

  if (records.size() > 2 && n <= 4096 && spec.type != zarr::data_type::optional) {  // optional: the optional target
    zarr_fuzz::input in(reinterpret_cast<const std::uint8_t*>(records[2].data()), records[2].size());
    const bool big = in.byte() % 2 == 1;
    const auto stored = in.rest();
    const std::uint64_t count = std::min<std::uint64_t>(stored.size() / n, 64);
    if (count == 0) return 0;
    zarr::chunk_spec chunk{{count}, spec.type, zarr::default_sized_fill_value(spec), spec.layout};
    const boost::json::value codecs = boost::json::array{boost::json::object{
        {"name", "bytes"}, {"configuration", boost::json::object{{"endian", big ? "big" : "little"}}}}};
    const zarr::codec_chain chain(codecs, chunk);
    const auto part = stored.subspan(0, static_cast<std::size_t>(count * n));
    zarr::bytes decoded;
    try {
      decoded = chain.decode(part);
    } catch (const zarr::error& e) {
      zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
      return 0;
    }
    const auto encoded = chain.encode(decoded);
    const auto twice = chain.decode(encoded);
    zarr_fuzz::expect(zarr_fuzz::same_bytes(decoded, twice), "decode(encode(decode(x))) differs from decode(x)");
  }
  return 0;
}
