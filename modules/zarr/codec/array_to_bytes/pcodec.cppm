// zarr.codec.pcodec: numcodecs' `pcodec` (numcodecs documentation, "PCodec"; zarrs reads and
// writes it as `numcodecs.pcodec`), refused by name with its reason: pcodec's only implementation
// is a Rust library, and Debian has no C library for it (docs/decisions.md 68).
// Configuration: v2 {"id": "pcodec", "level": 8, ...}, v3 {"name": "numcodecs.pcodec", "configuration": {...}}.
module;
#include <memory>
export module zarr.codec.pcodec;

export import zarr.codec;

export namespace zarr {

// Throws zarr::error (unsupported) naming the codec, where it is and why it is refused.
[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_pcodec_codec(const codec_context& ctx);

}  // namespace zarr
