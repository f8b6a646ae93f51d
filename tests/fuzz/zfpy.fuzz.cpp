// libFuzzer target: the `numcodecs.zfpy` codec's decoder (zarr.codec.numcodecs_zfpy): zfp's header,
// then its stream. Input: the data type (one of the ten zfp takes), the rank (1-4) and a byte per
// dimension (1-8 elements), then the stored bytes. Decoding succeeds or refuses with
// corrupt_chunk (a header not zfp's or not the chunk's, a stream cut short), never reads past
// the input; what it decodes encodes (reversible) and decodes back to itself.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <vector>
#include "fuzz.hpp"
import zarr.fill_value;
import zarr.codec;
import zarr.codec.zfp;
import zarr.codec.numcodecs_zfpy;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto type = zarr_fuzz::zfp_types[in.byte() % std::size(zarr_fuzz::zfp_types)];
  std::vector<std::uint64_t> shape(in.byte() % 4 + 1);
  for (auto& d : shape) d = in.byte() % 8 + 1;
  zarr::zfp_configuration reversible;
  reversible.mode = zarr::zfp_mode::reversible;
  const zarr::numcodecs_zfpy_codec codec(reversible, boost::json::object{{"mode", 5}},
                                         zarr::chunk_spec{shape, type, zarr::default_fill_value(type)}, "fuzz");
  zarr_fuzz::check_array_decoder(codec, in.rest());
  return 0;
}
