// zarr.metadata.v2: the codecs of a Zarr v2 array (Zarr storage specification version 2,
// "Metadata": order, filters, compressor) as the Zarr v3 codec chain that reads and writes the
// same bytes, and the numcodecs configurations ({"id": "zlib", "level": 1}) as Zarr v3 codecs;
// and back: the v2 form of a Zarr v3 chain, where v2 has one.
module;
#include <cstddef>
#include <string_view>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
export module zarr.metadata.v2;

export import zarr.codec;
export import zarr.metadata;

export namespace zarr {

// One numcodecs configuration as a Zarr v3 codec object: the registry row the id reads as
// (numcodecs_form::read_as: `gzip` and `zstd` the Zarr v3 codecs of the same format, with
// numcodecs' defaults made explicit; most others "numcodecs.<id>", the rest of the
// configuration as it is). Throws zarr::error naming `where` (".zarray: compressor") for an id
// this library does not have.
[[nodiscard]] boost::json::object numcodecs_to_v3(const boost::json::object& config, std::string_view where);

// The chain of a zarr_format 2 array: `transpose` (reversed axes) for order "F", the array
// filters, `bytes` in the byte order of the dtype (or of the last filter's `astype`), the byte
// filters, the compressor. A byte filter before an array filter cannot be expressed: an error.
[[nodiscard]] boost::json::array v2_codecs(const array_metadata& m);

// The inverse of v2_codecs (docs/decisions.md 40): the `order`, `filters`, `compressor` and
// dtype byte order of a Zarr v3 array `m` (its `codecs`, shape, data type and fill value) that
// make a Zarr v2 array whose chain reads and writes the same bytes. A leading transpose that
// reverses the axes is order "F"; the array -> array codecs are filters (`bitround` and the
// `numcodecs.*` ones), `bytes` gives the byte order, `numcodecs.packbits` is a filter, the
// bytes -> bytes codecs are filters but a last one that Zarr v2 keeps as the compressor
// (numcodecs_form::compressor: blosc, gzip, zstd, numcodecs.zlib, bz2, lzma, lz4). Every NumPy type string in the filters takes the
// byte order of the stored data, as zarr-python 2 views each chunk in the dtype's. Throws
// zarr::error (unsupported) naming `codecs[i]` and what Zarr v2 lacks for anything else
// (sharding, crc32c, reshape, zfp, packbits, conditional, another transpose, a data type NumPy
// does not have; scale_offset and cast_value except as below); the result is checked by mapping
// it back. A `scale_offset` followed by a `cast_value` is `fixedscaleoffset` where
// scale_offset_to_fixedscaleoffset allows it.
[[nodiscard]] v2_array_fields v3_codecs_to_v2(const array_metadata& m);

// The numcodecs `fixedscaleoffset` filter ({"id", "offset", "scale", "dtype", "astype"}, NumPy type
// strings in `byte_order`) that the `scale_offset` codecs[i] and the codec after it, `next` (a
// `cast_value`; nullptr when there is none), make together, where numcodecs 0.11 reads and
// writes the same values (docs/decisions.md 54): the pair must be exactly what decision 18 reads
// that filter as (a float16/32/64 dtype, an integer astype, rounding "nearest-even",
// out_of_range "wrap", no scalar_map), numcodecs must compute its encode in the dtype, and its
// float64 decode must give what scale_offset's decode in the dtype gives (float64, or every
// encoded value of at most 16 bits tried). Throws zarr::error (unsupported) naming `codecs[i]`
// (or `codecs[i + 1]`) and the reason otherwise.
[[nodiscard]] boost::json::object scale_offset_to_fixedscaleoffset(const array_to_array_codec& scale_offset,
                                                                   const array_to_array_codec* next, std::size_t i,
                                                                   char byte_order);

}  // namespace zarr
