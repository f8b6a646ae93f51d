// zarr.codec.numcodecs_zfpy: numcodecs' `zfpy` codec (numcodecs documentation, "ZFPY"; zarrs'
// `numcodecs.zfpy`): the zfp codec's stream (zarr.codec.zfp, libzfp) after zfp's full header
// (magic, field, mode), as zfpy.compress_numpy(write_header=True) writes it. Decoding takes the
// mode from the header and checks its field against the chunk.
// Configuration: v2 {"id": "zfpy", "mode": 4, "tolerance": 0.05, "rate": -1, "precision": -1,
// "compression_kwargs": {"tolerance": 0.05}}, v3 {"name": "numcodecs.zfpy", "configuration": {"mode": 2, "rate": 8}}
// (mode 2 fixed rate, 3 fixed precision, 4 fixed accuracy, 5 reversible; a negative parameter,
// numcodecs' default -1, leaves zfp's default parameters, docs/decisions.md 68).
module;
#include <memory>
#include <string>
#include <string_view>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
export module zarr.codec.numcodecs_zfpy;

export import zarr.codec.zfp;

export namespace zarr {

class numcodecs_zfpy_codec final : public zfp_codec {
 public:
  // `configuration` is numcodecs' object, kept to be written back as it was read.
  numcodecs_zfpy_codec(const zfp_configuration& config, boost::json::object configuration, const chunk_spec& decoded,
                       std::string where);

  [[nodiscard]] std::string_view name() const noexcept override { return "numcodecs.zfpy"; }
  [[nodiscard]] boost::json::value to_json() const override;

 private:
  boost::json::object configuration_;
};

// The registry's factory: errors name `<ctx.where>.configuration.<key>`.
[[nodiscard]] std::unique_ptr<array_to_bytes_codec> make_numcodecs_zfpy_codec(const codec_context& ctx);

}  // namespace zarr
