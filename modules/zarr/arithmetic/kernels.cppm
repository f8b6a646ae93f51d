// zarr.arithmetic.kernels: the bulk loops of cast_value and scale_offset over chunk buffers in
// the in-memory layout of dtype.cppm's `scalar` (zarr-extensions codecs/cast_value and codecs/scale_offset;
// docs/decisions.md 7-17). Loops never throw per element: they report the first failing element.
// Results are bit-identical to zarr.arithmetic's scalar core (zarr::cast, zarr::arithmetic).
module;
#include <cstddef>
#include <cstdint>
#include <span>
export module zarr.arithmetic.kernels;

export import zarr.arithmetic;

export namespace zarr {

// ok, or the first element that failed: its index, its raw input bits and why.
struct kernel_result {
  bool ok = true;
  std::size_t index = 0;
  std::uint64_t value = 0;
  numeric_errc error = numeric_errc::none;
  std::size_t step = 0;  // run_steps: the step that failed; `value` is that step's input
};

// Casts every element of `in` (type `from`) into `out` (type `to`), as zarr::cast does.
// Sizes must match (n * size of each type; zarr::error invalid_argument otherwise); `in` and
// `out` may be the same buffer when both types have the same size, and must not otherwise
// overlap. On failure `out` holds the results of the elements before `index`; the rest is
// unspecified. Fast paths: every 8-bit source (a table), float32/float64 to narrower floats
// and to 8- to 32-bit integers (nearest-even; error or clamp), float32 to float64.
[[nodiscard]] kernel_result cast_elements(data_type from, std::span<const std::byte> in, data_type to,
                                          std::span<std::byte> out, rounding_mode mode = rounding_mode::nearest_even,
                                          out_of_range_mode oor = out_of_range_mode::error);

// scale_offset encode, out = (in - offset) * scale, and decode, out = in / scale + offset, in
// type `t` (raw bits of offset and scale), each operation exact and rounded once to `t`
// (zarr::arithmetic; integer division must be exact). Same size and aliasing rules as
// cast_elements; in-place (in == out) is allowed.
[[nodiscard]] kernel_result scale_offset_encode(data_type t, std::span<const std::byte> in, std::span<std::byte> out,
                                                std::uint64_t offset, std::uint64_t scale);
[[nodiscard]] kernel_result scale_offset_decode(data_type t, std::span<const std::byte> in, std::span<std::byte> out,
                                                std::uint64_t offset, std::uint64_t scale);

// One elementwise operation of a codec chain (a cast_value or scale_offset direction), so that
// neighbouring ones run fused in one pass (run_steps) instead of one pass each.
struct element_step {
  enum class kind : std::uint8_t { cast, scale_offset_encode, scale_offset_decode };
  kind op = kind::cast;
  data_type from = data_type::float64;  // the input type
  data_type to = data_type::float64;    // the output type (== from for scale_offset)
  rounding_mode rounding = rounding_mode::nearest_even;      // cast
  out_of_range_mode out_of_range = out_of_range_mode::error;  // cast
  std::uint64_t offset = 0;  // scale_offset: raw bits
  std::uint64_t scale = 0;
};

// Runs `steps` (each step's `to` is the next one's `from`) over every element of `in` into
// `out`, which must not overlap; the result is exactly that of running the steps' kernels one
// after the other. Float32/float64 scale_offset fused with a nearest-even cast to a narrower
// integer (encode), and an exact integer-to-float cast fused with scale_offset (decode), run
// as one vectorised loop; anything else goes block by block through cache-sized buffers.
[[nodiscard]] kernel_result run_steps(std::span<const element_step> steps, std::span<const std::byte> in,
                                      std::span<std::byte> out);

// The raw bits of the element at `p` (masked to the type's width) and the inverse, which writes
// the in-memory form (sign-extended byte for int2/int4).
[[nodiscard]] std::uint64_t load_raw(data_type t, const std::byte* p) noexcept;
void store_raw(data_type t, std::byte* p, std::uint64_t raw) noexcept;

}  // namespace zarr
