// zarr.metadata.v2: the codecs of a Zarr v2 array (Zarr storage specification version 2,
// "Metadata": order, filters, compressor) as the Zarr v3 codec chain that reads and writes the
// same bytes, and the numcodecs configurations ({"id": "zlib", "level": 1}) as Zarr v3 codecs.
module;
#include <string_view>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
export module zarr.metadata.v2;

export import zarr.codec;
export import zarr.metadata;

export namespace zarr {

// One numcodecs configuration as a Zarr v3 codec object: `gzip` and `zstd` become the Zarr v3
// codecs of the same format (numcodecs' default level 1 when absent), every other id
// "numcodecs.<id>" with the rest of the configuration as it is (`numcodecs.blosc` then records
// itself as the Zarr v3 `blosc` it is). Throws zarr::error naming
// `where` (".zarray: compressor") for an id this library does not have, and for `pickle`.
[[nodiscard]] boost::json::object numcodecs_to_v3(const boost::json::object& config, std::string_view where);

// The chain of a zarr_format 2 array: `transpose` (reversed axes) for order "F", the array
// filters, `bytes` in the byte order of the dtype (or of the last filter's `astype`), the byte
// filters, the compressor. A byte filter before an array filter cannot be expressed: an error.
[[nodiscard]] boost::json::array v2_codecs(const array_metadata& m);

}  // namespace zarr
