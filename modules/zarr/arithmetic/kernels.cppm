// zarr.arithmetic.kernels: the bulk loops of cast_value and scale_offset over chunk buffers in
// the in-memory layout of dtype.cppm's `scalar` (codec-cast_value.md, codec-scale_offset.md;
// DECISIONS.md 7-17). Loops never throw per element: they report the first failing element.
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

// The raw bits of the element at `p` (masked to the type's width) and the inverse, which writes
// the in-memory form (sign-extended byte for int2/int4).
[[nodiscard]] std::uint64_t load_raw(data_type t, const std::byte* p) noexcept;
void store_raw(data_type t, std::byte* p, std::uint64_t raw) noexcept;

}  // namespace zarr
