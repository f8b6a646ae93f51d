// zarr.arithmetic.kernels: the bulk loops of cast_value and scale_offset over chunk buffers in
// the in-memory layout of dtype.cppm's `scalar` (zarr-extensions codecs/cast_value and codecs/scale_offset;
// docs/decisions.md 7-17). Loops never throw per element: they report the first failing element.
// Results are bit-identical to zarr.arithmetic's scalar core (zarr::cast, zarr::arithmetic).
module;
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>
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

// One elementwise operation, so that several in a row run fused in one pass (run_steps)
// instead of one pass each: a cast, (x - offset) * scale, or x / scale + offset.
struct element_step {
  enum class kind : std::uint8_t { cast, subtract_multiply, divide_add };
  kind op = kind::cast;
  data_type from = data_type::float64;  // the input type
  data_type to = data_type::float64;    // the output type (== from for the arithmetic kinds)
  rounding_mode rounding = rounding_mode::nearest_even;      // cast
  out_of_range_mode out_of_range = out_of_range_mode::error;  // cast
  std::uint64_t offset = 0;  // arithmetic kinds: raw bits of `from`
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

// A function of a one-byte type (sub-byte types included) as a table of all 256 byte values:
// each one's result in the in-memory form of the target type, or why it has none. Bulk casts
// from one-byte types use it, and cast_value with its scalar_map folded in.
class byte_table {
 public:
  // Fills the table with f(raw) -> numeric_result, raw being each byte value masked to the
  // width of `from`.
  template <class F>
  byte_table(data_type from, data_type to, F&& f)
      : from_(from), to_(to), results_(256 * static_cast<std::size_t>(info(to).size)) {
    const std::uint64_t mask = (std::uint64_t{1} << info(from).bits) - 1;
    const auto size = static_cast<std::size_t>(info(to).size);
    for (unsigned b = 0; b < 256; ++b) {
      const numeric_result r = f(b & mask);
      errors_[b] = r.error;
      store_raw(to, results_.data() + b * size, r.ok() ? r.bits : 0);
    }
  }
  // Every element of `in` (of `from`) through the table into `out` (of `to`), with the size
  // and aliasing rules of cast_elements and the same result on failure.
  [[nodiscard]] kernel_result apply(std::span<const std::byte> in, std::span<std::byte> out) const;

 private:
  data_type from_;
  data_type to_;
  std::vector<std::byte> results_;
  std::array<numeric_errc, 256> errors_{};
};

}  // namespace zarr
