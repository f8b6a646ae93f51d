// zarr.codec.pcodec: the refusal, with the reason, of a chunk encoded by pcodec.
module;
#include <memory>
#include <string>
module zarr.codec.pcodec;

namespace zarr {

std::unique_ptr<array_to_bytes_codec> make_pcodec_codec(const codec_context& ctx) {
  throw error(errc::unsupported, ctx.where + " (numcodecs.pcodec): expected a codec this library can decode, got "
                                             "numcodecs.pcodec: refused, no C library implements pcodec (its only "
                                             "implementation is the Rust crate pco, not packaged in Debian)");
}

}  // namespace zarr
