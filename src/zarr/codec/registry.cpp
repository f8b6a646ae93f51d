// The one table of built-in codecs (no self-registration: a static library would drop it).
// To add a codec: import its module here and add a row (the table is sorted by name), with
// its Zarr v2 form where numcodecs has one.
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

// Zarr v2's forms (numcodecs_form) of the rows a `.zarray` id reads as: a filter, a compressor;
// and of a codec numcodecs has not.
constexpr numcodecs_form v2_filter(std::string_view id) { return {.id = id, .read_as = true}; }
constexpr numcodecs_form v2_compressor(std::string_view id) { return {.id = id, .compressor = true, .read_as = true}; }
constexpr numcodecs_form no_v2(std::string_view why_not) { return {.why_not = why_not}; }

codec_entry with(codec_entry e, numcodecs_form v2) {
  e.v2 = v2;
  return e;
}

const std::array table{
    with(array_to_array("bitround", make_bitround_codec), {.id = "bitround"}),
    with(bytes_to_bytes("blosc", make_blosc_codec), {.id = "blosc", .compressor = true, .to_v2 = blosc_to_numcodecs}),
    array_to_bytes("bytes", make_bytes_codec, sized_types::taken),
    with(array_to_array("cast_value", make_cast_value_codec),
         no_v2("no numcodecs filter has its rounding and out-of-range modes, except as numcodecs.fixedscaleoffset "
              "right after a scale_offset (docs/decisions.md 54)")),
    bytes_to_bytes("conditional", make_conditional_codec),
    with(bytes_to_bytes("crc32c", make_crc32c_codec), no_v2("numcodecs 0.11 has no crc32c (numcodecs.crc32 is another checksum)")),
    with(bytes_to_bytes("gzip", make_gzip_codec), {.id = "gzip", .compressor = true, .read_as = true, .from_v2 = gzip_from_numcodecs}),
    array_to_bytes("n5_default", make_n5_default_codec),
    with(bytes_to_bytes("numcodecs.adler32", make_adler32_codec), v2_filter("adler32")),
    with(array_to_array("numcodecs.astype", make_astype_codec), v2_filter("astype")),
    with(array_to_array("numcodecs.bitround", make_numcodecs_bitround_codec), v2_filter("bitround")),
    with(bytes_to_bytes("numcodecs.blosc", make_numcodecs_blosc_codec), v2_compressor("blosc")),
    with(bytes_to_bytes("numcodecs.bz2", make_bz2_codec), v2_compressor("bz2")),
    with(array_to_array("numcodecs.categorize", make_categorize_codec, sized_types::taken), v2_filter("categorize")),  // fixed_length_utf32
    with(bytes_to_bytes("numcodecs.crc32", make_crc32_codec), v2_filter("crc32")),
    with(bytes_to_bytes("numcodecs.crc32c", make_numcodecs_crc32c_codec), v2_filter("crc32c")),
    with(array_to_array("numcodecs.delta", make_delta_codec), v2_filter("delta")),
    with(array_to_array("numcodecs.fixedscaleoffset", make_fixedscaleoffset_codec), v2_filter("fixedscaleoffset")),
    with(bytes_to_bytes("numcodecs.fletcher32", make_fletcher32_codec), v2_filter("fletcher32")),
    with(bytes_to_bytes("numcodecs.gzip", make_gzip_codec), {.id = "gzip", .compressor = true}),
    with(bytes_to_bytes("numcodecs.jenkins_lookup3", make_jenkins_lookup3_codec), v2_filter("jenkins_lookup3")),
    with(bytes_to_bytes("numcodecs.lz4", make_lz4_codec), v2_compressor("lz4")),
    with(bytes_to_bytes("numcodecs.lzma", make_lzma_codec), v2_compressor("lzma")),
    with(array_to_bytes("numcodecs.json2", make_json2_codec), v2_filter("json2")),
    with(array_to_bytes("numcodecs.msgpack2", make_msgpack2_codec), v2_filter("msgpack2")),
    with(array_to_bytes("numcodecs.packbits", make_numcodecs_packbits_codec), v2_filter("packbits")),
    with(array_to_bytes("numcodecs.pcodec", make_pcodec_codec), v2_filter("pcodec")),
    with(array_to_bytes("numcodecs.pickle", make_pickle_codec), v2_filter("pickle")),
    with(array_to_array("numcodecs.quantize", make_quantize_codec), v2_filter("quantize")),
    with(bytes_to_bytes("numcodecs.shuffle", make_shuffle_codec), v2_filter("shuffle")),
    with(array_to_bytes("numcodecs.zfpy", make_numcodecs_zfpy_codec), v2_filter("zfpy")),
    with(bytes_to_bytes("numcodecs.zlib", make_zlib_codec), v2_compressor("zlib")),
    with(bytes_to_bytes("numcodecs.zstd", make_zstd_codec), {.id = "zstd", .compressor = true}),
    array_to_bytes("optional", make_optional_codec, sized_types::taken),
    with(array_to_bytes("packbits", make_packbits_codec), no_v2("numcodecs.packbits is another layout: bool only, a padding byte first")),
    with(array_to_array("reshape", make_reshape_codec, sized_types::taken), no_v2("numcodecs has no such filter")),
    with(array_to_array("scale_offset", make_scale_offset_codec),
         no_v2("no numcodecs filter computes it exactly (numcodecs.fixedscaleoffset rounds in NumPy's way)")),
    with(array_to_bytes("sharding_indexed", make_sharding_indexed_codec, sized_types::taken), no_v2("Zarr v2 has no shards")),
    array_to_array("transpose", make_transpose_codec, sized_types::taken),
    with(array_to_bytes("vlen-bytes", make_vlen_bytes_codec), v2_filter("vlen-bytes")),
    with(array_to_bytes("vlen-utf8", make_vlen_utf8_codec), v2_filter("vlen-utf8")),
    with(array_to_bytes("zfp", make_zfp_codec), no_v2("numcodecs' zfpy is not the zfp codec's stream")),
    with(bytes_to_bytes("zstd", make_zstd_codec), {.id = "zstd", .compressor = true, .read_as = true, .from_v2 = zstd_from_numcodecs}),
};

}  // namespace

std::span<const codec_entry> builtin_codecs() noexcept { return table; }

const codec_entry* find_codec(std::string_view name) noexcept {
  for (const auto& entry : table)
    if (entry.name == name) return &entry;
  return nullptr;
}

const codec_entry* find_numcodecs(std::string_view id) noexcept {
  for (const auto& entry : table)
    if (entry.v2.read_as && entry.v2.id == id) return &entry;
  return nullptr;
}

}  // namespace zarr
