// The one table of built-in codecs (no self-registration: a static library would drop it).
// To add a codec: import its module here and add a row.
module;
#include <array>
#include <memory>
#include <string_view>
module zarr.codec;

import zarr.codec.sharding_indexed;

namespace zarr {

namespace {

const std::array builtin_codecs{
    codec_entry{"sharding_indexed", codec_kind::array_to_bytes, {}, make_sharding_indexed_codec, {}},
};

}  // namespace

const codec_entry* find_codec(std::string_view name) noexcept {
  for (const auto& entry : builtin_codecs)
    if (entry.name == name) return &entry;
  return nullptr;
}

}  // namespace zarr
