// The one table of built-in codecs (no self-registration: a static library would drop it).
// To add a codec: import its module here and add a row (the table is sorted by name).
module;
#include <array>
#include <memory>
#include <string_view>
module zarr.codec;

import zarr.codec.blosc;
import zarr.codec.bytes;
import zarr.codec.cast_value;
import zarr.codec.conditional;
import zarr.codec.crc32c;
import zarr.codec.fixedscaleoffset;
import zarr.codec.gzip;
import zarr.codec.packbits;
import zarr.codec.reshape;
import zarr.codec.scale_offset;
import zarr.codec.sharding_indexed;
import zarr.codec.transpose;
import zarr.codec.zfp;
import zarr.codec.zstd;

namespace zarr {

namespace {

codec_entry array_to_array(std::string_view name, std::unique_ptr<array_to_array_codec> (*make)(const codec_context&)) {
  return {name, codec_kind::array_to_array, make, nullptr, nullptr};
}
codec_entry array_to_bytes(std::string_view name, std::unique_ptr<array_to_bytes_codec> (*make)(const codec_context&)) {
  return {name, codec_kind::array_to_bytes, nullptr, make, nullptr};
}
codec_entry bytes_to_bytes(std::string_view name, std::unique_ptr<bytes_to_bytes_codec> (*make)(const codec_context&)) {
  return {name, codec_kind::bytes_to_bytes, nullptr, nullptr, make};
}

const std::array builtin_codecs{
    bytes_to_bytes("blosc", make_blosc_codec),
    array_to_bytes("bytes", make_bytes_codec),
    array_to_array("cast_value", make_cast_value_codec),
    bytes_to_bytes("conditional", make_conditional_codec),
    bytes_to_bytes("crc32c", make_crc32c_codec),
    bytes_to_bytes("gzip", make_gzip_codec),
    array_to_array("numcodecs.fixedscaleoffset", make_fixedscaleoffset_codec),
    array_to_bytes("packbits", make_packbits_codec),
    array_to_array("reshape", make_reshape_codec),
    array_to_array("scale_offset", make_scale_offset_codec),
    array_to_bytes("sharding_indexed", make_sharding_indexed_codec),
    array_to_array("transpose", make_transpose_codec),
    array_to_bytes("zfp", make_zfp_codec),
    bytes_to_bytes("zstd", make_zstd_codec),
};

}  // namespace

const codec_entry* find_codec(std::string_view name) noexcept {
  for (const auto& entry : builtin_codecs)
    if (entry.name == name) return &entry;
  return nullptr;
}

}  // namespace zarr
