// zarr.codec.pickle: numcodecs' `pickle` object codec (numcodecs documentation, "Pickle"), the
// array -> bytes codec of a `string` or `bytes` array: a chunk is Python's pickle of a NumPy
// object array of its elements (`pickle.dumps(array, protocol)`). Configuration: v2
// {"id": "pickle", "protocol": 5}, v3 {"name": "numcodecs.pickle", "configuration":
// {"protocol": 5}} (0 to 5; absent: 5, numcodecs' default, Python's highest protocol).
//
// Reading never runs code: the stream is read by an interpreter of the pickle opcodes of
// protocols 0 to 5 that only builds values, and the one object it accepts is NumPy's pickle of an
// object array, its callables recognised by name and never called (docs/decisions.md 73).
module;
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <boost/json/value.hpp>
export module zarr.codec.pickle;

export import zarr.codec;

export namespace zarr {

class pickle_codec final : public array_to_bytes_codec {
 public:
  // `decoded.type` is string or bytes; `protocol` 0 to 5.
  pickle_codec(const chunk_spec& decoded, int protocol, std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.pickle"; }
  [[nodiscard]] boost::json::value to_json() const override;
  [[nodiscard]] const chunk_spec& decoded() const noexcept override { return decoded_; }
  [[nodiscard]] bool variable_length() const noexcept override { return true; }
  [[nodiscard]] std::uint64_t max_encoded_size() const noexcept override { return default_decode_limit; }

  // The pickle NumPy writes for an object array of `elements` (str objects for string, bytes for
  // bytes), in the opcodes of the configured protocol; errc::invalid_argument naming the element
  // for a string that is not UTF-8 or an element of 4 GiB or more.
  void encode_elements(std::span<const std::string> elements, bytes& out) const override;
  // errc::corrupt_chunk for a stream that is not a well-formed pickle of a NumPy object array of
  // decoded().num_elements() elements, and for an element of another kind than the array's (a
  // str in a bytes array, a number, None; the integer 0, zarr-python 2's fill of object arrays,
  // is the empty value), naming the byte or the element.
  void decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const override;

 protected:
  // The fixed-size paths: errc::invalid_argument (elements go through the two above).
  void do_encode_into(std::span<const std::byte> array, bytes& out) const override;
  void do_decode_into(std::span<const std::byte> encoded, std::span<std::byte> out) const override;

 private:
  chunk_spec decoded_;
  int protocol_;
};

[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_pickle_codec(const codec_context& ctx);

}  // namespace zarr
