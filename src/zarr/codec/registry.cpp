// The one table of built-in codecs (no self-registration: a static library would drop it).
// To add a codec: import its module here and add a row (the table is sorted by name).
module;
#include <array>
#include <memory>
#include <span>
#include <string_view>
module zarr.codec;

import zarr.codec.astype;
import zarr.codec.bitround;
import zarr.codec.blosc;
import zarr.codec.bz2;
import zarr.codec.categorize;
import zarr.codec.checksum32;
import zarr.codec.bytes;
import zarr.codec.vlen;
import zarr.codec.cast_value;
import zarr.codec.conditional;
import zarr.codec.crc32c;
import zarr.codec.delta;
import zarr.codec.fixedscaleoffset;
import zarr.codec.gzip;
import zarr.codec.lz4;
import zarr.codec.lzma;
import zarr.codec.n5_default;
import zarr.codec.numcodecs_packbits;
import zarr.codec.numcodecs_zfpy;
import zarr.codec.json2;
import zarr.codec.msgpack2;
import zarr.codec.optional;
import zarr.codec.pickle;
import zarr.codec.packbits;
import zarr.codec.pcodec;
import zarr.codec.quantize;
import zarr.codec.reshape;
import zarr.codec.scale_offset;
import zarr.codec.sharding_indexed;
import zarr.codec.shuffle;
import zarr.codec.transpose;
import zarr.codec.zfp;
import zarr.codec.zlib;
import zarr.codec.zstd;

namespace zarr {

namespace {

// `sized`: the codec takes elements of the sized types (codec_entry::takes_sized_types).
enum class sized_types : bool { refused, taken };

codec_entry array_to_array(std::string_view name, std::unique_ptr<array_to_array_codec> (*make)(const codec_context&),
                           sized_types sized = sized_types::refused) {
  return {name, codec_kind::array_to_array, make, nullptr, nullptr, sized == sized_types::taken};
}
codec_entry array_to_bytes(std::string_view name, std::unique_ptr<array_to_bytes_codec> (*make)(const codec_context&),
                           sized_types sized = sized_types::refused) {
  return {name, codec_kind::array_to_bytes, nullptr, make, nullptr, sized == sized_types::taken};
}
codec_entry bytes_to_bytes(std::string_view name, std::unique_ptr<bytes_to_bytes_codec> (*make)(const codec_context&)) {
  return {name, codec_kind::bytes_to_bytes, nullptr, nullptr, make, true};
}

const std::array table{
    array_to_array("bitround", make_bitround_codec),
    bytes_to_bytes("blosc", make_blosc_codec),
    array_to_bytes("bytes", make_bytes_codec, sized_types::taken),
    array_to_array("cast_value", make_cast_value_codec),
    bytes_to_bytes("conditional", make_conditional_codec),
    bytes_to_bytes("crc32c", make_crc32c_codec),
    bytes_to_bytes("gzip", make_gzip_codec),
    array_to_bytes("n5_default", make_n5_default_codec),
    bytes_to_bytes("numcodecs.adler32", make_adler32_codec),
    array_to_array("numcodecs.astype", make_astype_codec),
    array_to_array("numcodecs.bitround", make_numcodecs_bitround_codec),
    bytes_to_bytes("numcodecs.blosc", make_numcodecs_blosc_codec),
    bytes_to_bytes("numcodecs.bz2", make_bz2_codec),
    array_to_array("numcodecs.categorize", make_categorize_codec, sized_types::taken),  // fixed_length_utf32
    bytes_to_bytes("numcodecs.crc32", make_crc32_codec),
    bytes_to_bytes("numcodecs.crc32c", make_numcodecs_crc32c_codec),
    array_to_array("numcodecs.delta", make_delta_codec),
    array_to_array("numcodecs.fixedscaleoffset", make_fixedscaleoffset_codec),
    bytes_to_bytes("numcodecs.fletcher32", make_fletcher32_codec),
    bytes_to_bytes("numcodecs.gzip", make_gzip_codec),
    bytes_to_bytes("numcodecs.jenkins_lookup3", make_jenkins_lookup3_codec),
    bytes_to_bytes("numcodecs.lz4", make_lz4_codec),
    bytes_to_bytes("numcodecs.lzma", make_lzma_codec),
    array_to_bytes("numcodecs.json2", make_json2_codec),
    array_to_bytes("numcodecs.msgpack2", make_msgpack2_codec),
    array_to_bytes("numcodecs.packbits", make_numcodecs_packbits_codec),
    array_to_bytes("numcodecs.pcodec", make_pcodec_codec),
    array_to_bytes("numcodecs.pickle", make_pickle_codec),
    array_to_array("numcodecs.quantize", make_quantize_codec),
    bytes_to_bytes("numcodecs.shuffle", make_shuffle_codec),
    array_to_bytes("numcodecs.zfpy", make_numcodecs_zfpy_codec),
    bytes_to_bytes("numcodecs.zlib", make_zlib_codec),
    bytes_to_bytes("numcodecs.zstd", make_zstd_codec),
    array_to_bytes("optional", make_optional_codec, sized_types::taken),
    array_to_bytes("packbits", make_packbits_codec),
    array_to_array("reshape", make_reshape_codec, sized_types::taken),
    array_to_array("scale_offset", make_scale_offset_codec),
    array_to_bytes("sharding_indexed", make_sharding_indexed_codec, sized_types::taken),
    array_to_array("transpose", make_transpose_codec, sized_types::taken),
    array_to_bytes("vlen-bytes", make_vlen_bytes_codec),
    array_to_bytes("vlen-utf8", make_vlen_utf8_codec),
    array_to_bytes("zfp", make_zfp_codec),
    bytes_to_bytes("zstd", make_zstd_codec),
};

}  // namespace

std::span<const codec_entry> builtin_codecs() noexcept { return table; }

const codec_entry* find_codec(std::string_view name) noexcept {
  for (const auto& entry : table)
    if (entry.name == name) return &entry;
  return nullptr;
}

}  // namespace zarr
