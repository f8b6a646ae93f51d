// libFuzzer target: zarr.json text through zarr::parse_node_metadata (zarr::parse_json and the
// array and group validation of Zarr v3 core spec "Metadata"). A valid array must also resolve its
// codec chain or refuse it with zarr::error, and the canonical text of a valid document must
// parse back to the same canonical text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include "fuzz.hpp"
import zarr.error;
import zarr.codec;
import zarr.metadata;

namespace {

zarr::node_metadata reparse(const std::string& canonical) {
  try {
    return zarr::parse_node_metadata(canonical);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect(false, "the canonical text of a valid document does not parse:", e.what());
    throw;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  zarr::node_metadata node;
  try {
    node = zarr::parse_node_metadata(text);
  } catch (const zarr::error&) {
    return 0;
  }
  if (const auto* group = std::get_if<zarr::group_metadata>(&node)) {
    const auto canonical = group->to_text();
    zarr_fuzz::expect(std::get<zarr::group_metadata>(reparse(canonical)).to_text() == canonical,
                      "a group's canonical text changes when read back:", canonical);
    return 0;
  }
  const auto& array = std::get<zarr::array_metadata>(node);
  const auto canonical = array.to_text();
  zarr_fuzz::expect(std::get<zarr::array_metadata>(reparse(canonical)).to_text() == canonical,
                    "an array's canonical text changes when read back:", canonical);
  try {
    const zarr::codec_chain chain(array.codecs, {array.chunk_shape, array.type, array.fill_value, array.layout}, "codecs", array.source);
    static_cast<void>(chain.to_json());
  } catch (const zarr::error&) {
  }
  return 0;
}
