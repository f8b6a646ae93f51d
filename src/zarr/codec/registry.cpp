// The one table of built-in codecs (no self-registration: a static library would drop it).
// To add a codec: import its module here and add a row.
module;
#include <array>
#include <memory>
#include <string_view>
module zarr.codec;

namespace zarr {

namespace {

const std::array<codec_entry, 0> builtin_codecs{};

}  // namespace

const codec_entry* find_codec(std::string_view name) noexcept {
  for (const auto& entry : builtin_codecs)
    if (entry.name == name) return &entry;
  return nullptr;
}

}  // namespace zarr
