// zarr3 help: the overview and each command's text; the contract of the tool.
#include "cli.hpp"

namespace zarr_cli {

std::optional<std::string> help_text(std::string_view command) {
  if (command.empty())
    return "zarr3 " ZARR_VERSION " - Zarr v3 arrays in directories, S3 buckets and over HTTP\n\n"
           "usage: zarr3 [--threads N] [--endpoint URL] [--in-flight N] [--strict-fill-value]\n"
           "             [--cache-bytes N] [--no-consolidated] COMMAND [ARGS]\n\n"
           "commands:\n"
           "  create PATH --metadata FILE [--attrs FILE] [--overwrite]   create an array or group\n"
           "  write PATH --input FILE [--format raw|json|npy] [--region R] [--single-writer]   write values\n"
           "  read PATH [--format json|raw|npy] [--region R] [--output FILE]  print or save values\n"
           "  info PATH [--json]            metadata, codec chain, chunks, stored bytes, compression\n"
           "  tree PATH                     the hierarchy under a node\n"
           "  convert SRC DST [--codecs FILE] [--chunks a,b,c] [--data-type T] [--format 2|3] [--overwrite]\n"
           "                                copy an array, re-encoding it\n"
           "  verify PATH                   decode every stored chunk under a node\n"
           "  consolidate PATH              every node's metadata below a group in one key\n"
           "  demo [DIR]                    write an array and read it back\n"
           "  help [COMMAND]                this text, or a command's\n"
           "  --version                     the version\n\n"
           "PATH is a store, optionally followed by '#' and a node path inside it:\n"
           "data.zarr is the root node, data.zarr#/a/b the node a/b. The store is a directory,\n"
           "s3://bucket[/prefix] (endpoint from --endpoint URL or AWS_ENDPOINT_URL, region and\n"
           "credentials from AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,\n"
           "AWS_SESSION_TOKEN) or http(s)://host/path (read only; no tree, which needs listing).\n"
           "A zip file is zip://FILE or any of these ending in .zip (data.zarr.zip): a local one\n"
           "is written back when the command ends; one in a bucket or over HTTP is read by ranges.\n\n"
           "--threads N (anywhere on the line) caps the threads that encode and decode chunks\n"
           "(default: one per core). --in-flight N: the requests to an S3 or HTTP store under\n"
           "way at once, apart from those threads (default 64). A Zarr v2 array with\n"
           "\"fill_value\": null reads its missing chunks as the type's zero (\"\" for text);\n"
           "--strict-fill-value refuses them instead. --cache-bytes N: the arrays of a command share\n"
           "one cache of N bytes for decoded shard indexes (each with the version of its shard)\n"
           "instead of 16 MiB each.\n"
           "info, tree, read and convert take the metadata of every node from the root group's\n"
           "consolidated metadata where it has some (one read for the whole hierarchy);\n"
           "--no-consolidated reads each node's own.\n\n"
           "A region R is one start:stop per dimension, comma-separated, half-open, either side\n"
           "optional: 0:10,:,5: (':' is the whole dimension).\n\n"
           "Formats: json is one flat JSON array of all values in C order (integers exact, floats\n"
           "as the shortest decimal that reads back to the same value, \"NaN\", \"Infinity\",\n"
           "\"-Infinity\", bool as true/false, complex as [re, im]). raw is the values' bytes in C\n"
           "order, little-endian, one byte per element for types of 8 bits or fewer (sub-byte\n"
           "values in the low bits, upper bits zero; ignored on input). npy is NumPy .npy 1.0,\n"
           "for the types NumPy has. Without --format, a file name ending in .npy means npy,\n"
           ".raw or .bin raw, anything else json. FILE '-' is stdin or stdout.\n\n"
           "Exit status: 0 success; 1 a data or metadata error (also a well-formed region outside\n"
           "the array, a value the data type cannot hold, a missing node); 2 a usage error (unknown\n"
           "command or option, missing argument, malformed region or PATH).\n"
           "Long operations show a progress bar on stderr when it is a terminal.\n";
  if (command == "create")
    return "zarr3 create PATH --metadata FILE [--attrs FILE] [--overwrite]\n"
           "  Creates the array or group described by the zarr.json document FILE ('-' = stdin).\n"
           "  The document is validated completely (fields, codec chain, fill value) before\n"
           "  anything is written. --attrs FILE (a JSON object) replaces the attributes.\n"
           "  An existing node is an error unless --overwrite.\n";
  if (command == "write")
    return "zarr3 write PATH --input FILE [--format raw|json|npy] [--region R] [--single-writer]\n"
           "            [--inner-chunk-order c|morton]\n"
           "  Writes values into the array at PATH: the whole array, or region R. The input holds\n"
           "  exactly the region's values in C order; npy input must have the region's shape and\n"
           "  the array's dtype. A value the data type cannot hold is an error naming its index.\n"
           "  A region covering a chunk or shard in part rewrites it atomically (no other writer's\n"
           "  update is lost); on a store that cannot (an S3 server ignoring conditional writes) that\n"
           "  is an error, unless --single-writer promises that nobody else writes meanwhile.\n"
           "  --inner-chunk-order morton stores a shard's inner chunks in Morton (Z) order, so that\n"
           "  neighbouring inner chunks lie together (fewer requests for a box of them); c (the\n"
           "  default) in C order. Every reader reads either.\n";
  if (command == "read")
    return "zarr3 read PATH [--format json|raw|npy] [--region R] [--output FILE] [--iso-8601] [--lines]\n"
           "  Prints the values of the array at PATH (or of region R), or saves them to FILE.\n"
           "  npy output is for bool, int8-64, uint8-64, float16/32/64, complex64/128, the two\n"
           "  time types (\"<M8[10s]\": their unit and scale factor), and raw bits, fixed_length_utf32\n"
           "  and struct as NumPy's \"|V3\", \"<U4\" and structured dtypes (raw: each element's bytes).\n"
           "  --lines prints the json values one per line, without brackets; zarr3 --array_path=PATH\n"
           "  is read PATH --lines, as the zarr-conformance-tests suite calls implementations.\n"
           "  numpy.datetime64 and numpy.timedelta64 values are their counts (\"NaT\" for NaT);\n"
           "  --iso-8601 prints a datetime64 as NumPy's datetime_as_string does (\"1970-01-01T00:00:10\").\n";
  if (command == "info")
    return "zarr3 info PATH [--json]\n"
           "  The node's metadata: data type, shape, chunks, fill value, the resolved codec chain,\n"
           "  the number of stored chunks, their stored bytes, and the compression ratio (the\n"
           "  decoded size of the stored chunks over their stored size). --json prints an object.\n";
  if (command == "tree")
    return "zarr3 tree PATH\n"
           "  The hierarchy under the node, with shapes and data types. Exit 1 if a node's\n"
           "  metadata is invalid (marked in the listing).\n";
  if (command == "convert")
    return "zarr3 convert SRC DST [--codecs FILE] [--chunks a,b,c] [--data-type T] [--format 2|3] [--overwrite]\n"
           "  Copies the array SRC to a new array DST (another PATH, possibly another store) with\n"
           "  the same shape, data type, fill value and attributes unless overridden: --codecs FILE\n"
           "  (a JSON array of codecs), --chunks (the chunk shape), --data-type T (values are\n"
           "  converted: identical types, integer to integer, integer or float to float64,\n"
           "  complex64 to complex128; a value with no exact equivalent is an error and DST is\n"
           "  removed). Works block by block, in bounded memory. A Zarr v2 SRC becomes Zarr v3\n"
           "  (--format 3, the default): its filters and compressor as the codecs that read the\n"
           "  same bytes, order F as transpose, _ARRAY_DIMENSIONS as dimension_names, the default\n"
           "  chunk keys; each mapping is printed. --format 2 writes Zarr v2: a v2 SRC as it is, a\n"
           "  v3 SRC (after --codecs) with its codecs as order, filters and compressor, its\n"
           "  dimension_names as _ARRAY_DIMENSIONS, each mapping printed (scale_offset with its\n"
           "  cast_value as numcodecs' fixedscaleoffset where both compute the same values); a\n"
           "  codec or type that Zarr v2 lacks (sharding, crc32c, reshape, bfloat16, ...) is an\n"
           "  error naming it.\n"
           "  Chunks missing from a v2 SRC without a fill value stay missing.\n";
  if (command == "consolidate")
    return "zarr3 consolidate PATH\n"
           "  Writes the consolidated metadata of the group PATH: the documents of every node below\n"
           "  it in one key (Zarr v2: .zmetadata; Zarr v3: consolidated_metadata in its zarr.json),\n"
           "  so that readers open the hierarchy with one read. Later metadata writes through this\n"
           "  library remove it; run it again after them.\n";
  if (command == "verify")
    return "zarr3 verify PATH\n"
           "  Decodes every stored chunk of every array under the node (through groups), lists\n"
           "  the bad ones (key and reason) on stdout, and exits 1 if there are any.\n";
  if (command == "demo")
    return "zarr3 demo [DIR]\n"
           "  Writes a 256x256 float64 array with bytes + zstd to a directory store (default:\n"
           "  ./zarr3-demo.zarr) through zarr::array, reads it back and prints what it did.\n";
  if (command == "help") return "zarr3 help [COMMAND]\n  The overview, or a command's help.\n";
  return std::nullopt;
}

}  // namespace zarr_cli
