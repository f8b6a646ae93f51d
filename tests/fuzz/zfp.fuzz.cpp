// libFuzzer target: the `zfp` codec's decoder (zarr.codec.zfp). Input: the data type (one of
// the ten zfp takes), the mode (fixed parameters each), the rank (0-4) and a byte per
// dimension (1-8 elements), then the stored stream. Decoding succeeds or refuses with
// corrupt_chunk, never reads past the stream; in reversible mode what it decodes encodes and
// decodes back to itself.
#include <cstddef>
#include <cstdint>
#include <vector>
#include "fuzz.hpp"
import zarr.error;
import zarr.fill_value;
import zarr.codec;
import zarr.codec.zfp;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto type = zarr_fuzz::zfp_types[in.byte() % std::size(zarr_fuzz::zfp_types)];
  const auto config = zarr_fuzz::zfp_configuration_of(in.byte());
  std::vector<std::uint64_t> shape(in.byte() % 5);
  for (auto& d : shape) d = in.byte() % 8 + 1;
  const auto stored = in.rest();
  const zarr::chunk_spec spec{shape, type, zarr::default_fill_value(type)};
  try {
    const zarr::zfp_codec codec(config, spec, "fuzz");
    if (config.mode == zarr::zfp_mode::reversible) {
      zarr_fuzz::check_array_decoder(codec, stored);
    } else {
      try {
        const auto decoded = codec.decode(stored);
        zarr_fuzz::expect(decoded.size() == spec.byte_size(), "decoded to the wrong size", "zfp");
      } catch (const zarr::error& e) {
        zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
      }
    }
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::unsupported);  // fixed_accuracy on an integer type
  }
  return 0;
}
