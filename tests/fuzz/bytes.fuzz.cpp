// libFuzzer target: the `bytes` codec's decoder (zarr.codec.bytes). Input: the data type (one
// byte), flags (bit 0 big endian, bit 1 a chunk one element longer than the data, bit 2 two
// rows), then the stored bytes. It decodes or refuses with corrupt_chunk; what it decodes
// encodes and decodes back to itself.
#include <cstddef>
#include <cstdint>
#include <vector>
#include "fuzz.hpp"
import zarr.dtype;
import zarr.fill_value;
import zarr.codec;
import zarr.codec.bytes;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto type = static_cast<zarr::data_type>(in.byte() % zarr::data_type_count);
  if (zarr::is_variable_length(type)) return 0;  // no fixed-size layout (vlen.fuzz.cpp)
  if (zarr::is_sized(type)) return 0;            // a layout from a configuration (sized_value.fuzz.cpp)
  const auto flags = in.byte();
  const auto stored = in.rest();
  const auto element = static_cast<std::uint64_t>(zarr::info(type).size);
  std::uint64_t n = stored.size() / element + ((flags & 2) ? 1 : 0);
  std::vector<std::uint64_t> shape{n};
  if ((flags & 4) && n % 2 == 0) shape = {2, n / 2};
  const zarr::chunk_spec spec{shape, type, zarr::default_fill_value(type)};
  const zarr::bytes_codec codec({(flags & 1) ? zarr::endian::big : zarr::endian::little}, spec, "fuzz");
  const auto encoded = stored.first(std::min<std::size_t>(stored.size(), spec.byte_size()));
  zarr_fuzz::check_array_decoder(codec, encoded);
  return 0;
}
