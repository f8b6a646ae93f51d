// sharding_indexed (array -> bytes): a chunk ("shard") split into inner chunks, each encoded
// by its own codec chain, with an index of [offset, nbytes] per inner chunk at the start or
// end. Spec: Zarr v3 codecs/sharding_indexed. Example configuration:
//   {"chunk_shape": [32, 32], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
//    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
//    "index_location": "end"}
module;
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include <boost/json/value.hpp>
export module zarr.codec.sharding_indexed;

export import zarr.codec;

export namespace zarr {

// The JSON configuration (Zarr v3 codecs/sharding-indexed): the inner chunk shape, the inner
// chunks' codecs and the index's as their JSON arrays, and where the index lies.
struct sharding_configuration {
  std::vector<std::uint64_t> chunk_shape = {};
  boost::json::value codecs = {};
  boost::json::value index_codecs = {};
  bool index_at_end = true;

  // Parses ctx.configuration; errors name `<ctx.where>.configuration.<key>`.
  [[nodiscard]] static sharding_configuration parse(const codec_context& ctx);
  // {"name": "sharding_indexed", "configuration": {...}}: the one serialisation, the codec's
  // and array_builder's.
  [[nodiscard]] boost::json::value to_json() const;
};

class sharding_indexed_codec final : public array_to_bytes_codec {
 public:
  sharding_indexed_codec(const sharding_configuration& config, const chunk_spec& decoded, const std::string& where,
                         std::string_view document = {}, const encoding_options& encoding = {});

  [[nodiscard]] std::string_view name() const noexcept override { return "sharding_indexed"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return shard_; }
  // The index and every inner chunk at its largest.
  [[nodiscard]] std::uint64_t max_encoded_size() const noexcept override;
  // The inner chunks' byte order.
  [[nodiscard]] std::optional<endian> byte_order() const noexcept override { return inner_->array_to_bytes().byte_order(); }
  // A part of a shard is read as its index and the inner chunks the part meets (through nested
  // shards too: an inner chunk met in part is read through its own chain's reader, by ranges).
  [[nodiscard]] std::unique_ptr<array_reader> reader(const chunk_reader& source) const override;

  // A shard of strings or byte strings, whose inner chain ends in vlen-utf8 or vlen-bytes:
  // each inner chunk's elements go through that chain; those of only the fill value are left out.
  [[nodiscard]] bool variable_length() const noexcept override { return has_variable_elements(shard_.type, shard_.layout); }
  void encode_elements(std::span<const std::string> elements, bytes& out) const override;
  void decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const override;
  void check_elements(std::span<const std::string> elements) const override { inner_->check_elements(elements); }

  [[nodiscard]] const codec_chain& inner_codecs() const noexcept { return *inner_; }
  [[nodiscard]] std::uint64_t index_size() const noexcept { return index_size_; }

 protected:
  // Inner chunks encoded in parallel, then laid out in C order (or encoding_options' order).
  void do_encode_into(std::span<const std::byte> shard, bytes& out) const override;
  // Inner chunks decoded in parallel, each straight into its place; only absent ones filled.
  void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const override;
  void do_decode_into_view(std::span<const std::byte> encoded, const array_view& out) const override {
    decode_all(encoded, out);
  }

 private:
  class shard_reader;

  // [offset, nbytes] of every inner chunk, checked against the shard's size when known and
  // against the index's place.
  [[nodiscard]] std::vector<std::uint64_t> decode_index(std::span<const std::byte> encoded,
                                                        std::optional<std::uint64_t> shard_size) const;
  // Every inner chunk of a stored shard into `out`, a view of the shard's shape.
  void decode_all(std::span<const std::byte> encoded, const array_view& out) const;
  // The position in the shard of inner chunk `k` (C order).
  [[nodiscard]] std::vector<std::uint64_t> origin_of(std::uint64_t k) const;
  // The C-order index in the shard of each element of inner chunk `k`, in the inner chunk's C order.
  [[nodiscard]] std::vector<std::uint64_t> elements_of(std::uint64_t k) const;
  // The shard: the index and the `present` inner chunks of `encoded` (C order), stored in
  // C order or stored_order_, into `out`.
  void lay_out(const std::vector<bytes>& encoded, const std::vector<char>& present, bytes& out) const;
  // The stored shard's index, its size checked.
  [[nodiscard]] std::vector<std::uint64_t> stored_index(std::span<const std::byte> encoded) const;
  // Inner chunk `inner`, stored as `stored`, whole into `out`; the box `box` (inner-chunk
  // coordinates) of the inner chunk `stored` reads, into `out`. Errors name the inner chunk.
  void decode_inner(std::span<const std::byte> stored, std::uint64_t inner, const array_view& out) const;
  void read_inner(const chunk_reader& stored, std::uint64_t inner, const region& box, const array_view& out) const;

  sharding_configuration config_;
  chunk_spec shard_;
  std::vector<std::uint64_t> chunks_per_shard_;
  std::uint64_t inner_count_ = 1;
  std::unique_ptr<codec_chain> inner_;
  std::unique_ptr<codec_chain> index_;
  std::uint64_t index_size_ = 0;
  // The inner chunks (C-order numbers) in the order they are stored; empty: C order.
  std::vector<std::uint64_t> stored_order_;
  // Names the decoded indexes this codec leaves with a stored shard (chunk_reader::derived).
  derivation_owner decoded_index_;
};

[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_sharding_indexed_codec(const codec_context& ctx);

}  // namespace zarr
