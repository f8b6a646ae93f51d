// libFuzzer target: reading shards (zarr.codec.sharding_indexed): the index, the inner chunks,
// whole (decode) and in part (its reader, which reads byte ranges). Input: the layout
// (one byte, zarr_fuzz::sharding_case_of), a region (start and length per dimension, one byte
// each), then the shard's bytes. Both reads succeed or refuse with corrupt_chunk; when both
// succeed they agree, and a shard that decodes whole also decodes in part.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>
#include "fuzz.hpp"
import zarr.error;
import zarr.dtype;
import zarr.fill_value;
import zarr.codec;
import zarr.metadata;
import zarr.builder;
import zarr.bytes;
import zarr.nd;

namespace {

const zarr::codec_chain& chain_of(std::uint8_t selector) {
  static std::vector<std::optional<zarr::codec_chain>> chains(48);
  auto& chain = chains[selector % 48];
  if (!chain) {
    const auto c = zarr_fuzz::sharding_case_of(selector % 48);
    chain.emplace(zarr::parse_json(c.codecs), zarr::chunk_spec{c.shape, c.type, zarr::default_fill_value(c.type)});
  }
  return *chain;
}

}  // namespace

// The shard as a store gives it: byte ranges, never the bytes in memory (so the reader takes
// the paths of a shard read in part).
class ranges_only final : public zarr::chunk_reader {
 public:
  explicit ranges_only(std::span<const std::byte> value) : value_(value) {}
  [[nodiscard]] bool read_all(zarr::bytes& out) const override { return value_.read_all(out); }
  [[nodiscard]] std::optional<zarr::bytes> read(zarr::byte_range range) const override { return value_.read(range); }

 private:
  zarr::buffer_chunk_reader value_;
};

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarr_fuzz::input in(data, size);
  const auto& codec = chain_of(in.byte()).array_to_bytes();
  const auto& spec = codec.decoded();
  zarr::region r{std::vector<std::uint64_t>(spec.shape.size()), std::vector<std::uint64_t>(spec.shape.size())};
  for (std::size_t i = 0; i < spec.shape.size(); ++i) {
    r.start[i] = in.byte() % (spec.shape[i] + 1);
    r.stop[i] = r.start[i] + in.byte() % (spec.shape[i] - r.start[i] + 1);
  }
  const auto shard = in.rest();

  std::optional<zarr::bytes> whole;
  try {
    whole = codec.decode(shard);
    zarr_fuzz::expect(whole->size() == spec.byte_size(), "a shard decoded to the wrong size");
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
  }

  const auto element = static_cast<std::size_t>(zarr::info(spec.type).size);
  zarr::bytes part(static_cast<std::size_t>(r.num_elements()) * element);
  const ranges_only reader(shard);
  try {
    zarr_fuzz::expect(codec.reader(reader)->read(r, zarr::array_view::c_order(part.data(), r.extent(), element)),
                      "a present shard read as absent");
  } catch (const zarr::error& e) {
    zarr_fuzz::expect_code(e, zarr::errc::corrupt_chunk);
    zarr_fuzz::expect(!whole, "the reader refuses a shard that decode reads:", e.what());
    return 0;
  }
  if (whole && r.num_elements() > 0) {
    zarr::bytes expected(part.size());
    zarr::copy(zarr::const_array_view::c_order(whole->data(), spec.shape, element).window(r.start, r.extent()),
               zarr::array_view::c_order(expected.data(), r.extent(), element));
    zarr_fuzz::expect(zarr_fuzz::same_bytes(expected, part), "the reader differs from decode");
  }
  return 0;
}
