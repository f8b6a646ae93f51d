// libFuzzer target: Zarr v2 `.zarray` text through zarr::array_metadata::parse_v2 (and a
// `.zgroup` through group_metadata::parse_v2), then zarr::v2_codecs and the codec chain. A valid
// document's canonical text must parse back to the same canonical text, and its chain must
// resolve or be refused with zarr::error; a chain that resolves must map back to a Zarr v2 form
// (zarr::v3_codecs_to_v2) without an error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
#include "fuzz.hpp"
import zarr.error;
import zarr.codec;
import zarr.metadata;
import zarr.metadata.v2;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    static_cast<void>(zarr::group_metadata::parse_v2(text));
  } catch (const zarr::error&) {
  }
  zarr::array_metadata array;
  try {
    array = zarr::array_metadata::parse_v2(text);
  } catch (const zarr::error&) {
    return 0;
  }
  const auto canonical = array.to_text();
  try {
    zarr_fuzz::expect(zarr::array_metadata::parse_v2(canonical).to_text() == canonical,
                      "a .zarray's canonical text changes when read back:", canonical);
  } catch (const zarr::error& e) {
    zarr_fuzz::expect(false, "the canonical text of a valid .zarray does not parse:", e.what());
  }
  boost::json::value chain;
  try {
    chain = zarr::codec_chain(zarr::v2_codecs(array), {array.chunk_shape, array.type, array.fill_value, array.layout}).to_json();
  } catch (const zarr::error&) {
    return 0;
  }
  // Every chain that a .zarray makes has a Zarr v2 form again (docs/decisions.md 40), whose
  // own chain is the same: v3_codecs_to_v2 checks that itself, and must never refuse.
  auto v3 = array;
  v3.zarr_format = 3;
  v3.codecs = chain;
  v3.source.clear();
  try {
    static_cast<void>(zarr::v3_codecs_to_v2(v3));
  } catch (const zarr::error& e) {
    zarr_fuzz::expect(false, "the chain of a valid .zarray has no Zarr v2 form:", e.what());
  }
  return 0;
}
