// zarr.error: the one exception type of the library, with a code and a message that
// names where it happened (array path, metadata field, codec, chunk key, element).
// Message grammar: "<where>: expected <what>, got <actual>".
module;
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
export module zarr.error;

export namespace zarr {

enum class errc : std::uint8_t {
  invalid_metadata = 1,   // zarr.json or a codec configuration is malformed
  unsupported,            // a valid document names something this library does not have
  invalid_value,          // a value (fill value, scale, JSON element) cannot be represented
  out_of_range,           // a value is outside the range of its target type
  invalid_key,            // a store key or node path is not allowed
  not_found,              // a node or key does not exist
  already_exists,         // a node exists where one is to be created
  corrupt_chunk,          // stored bytes cannot be decoded
  invalid_argument,       // a caller passed something inconsistent (region, buffer size)
  io,                     // the operating system refused a file operation
  cancelled,              // a progress callback asked to stop
};

[[nodiscard]] constexpr std::string_view to_string(errc code) noexcept {
  switch (code) {
    case errc::invalid_metadata: return "invalid metadata";
    case errc::unsupported: return "unsupported";
    case errc::invalid_value: return "invalid value";
    case errc::out_of_range: return "out of range";
    case errc::invalid_key: return "invalid key";
    case errc::not_found: return "not found";
    case errc::already_exists: return "already exists";
    case errc::corrupt_chunk: return "corrupt chunk";
    case errc::invalid_argument: return "invalid argument";
    case errc::io: return "i/o error";
    case errc::cancelled: return "cancelled";
  }
  return "unknown error";
}

class error : public std::runtime_error {
 public:
  error(errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] errc code() const noexcept { return code_; }

 private:
  errc code_;
};

}  // namespace zarr
