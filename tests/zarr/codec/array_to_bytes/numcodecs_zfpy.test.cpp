// numcodecs.zfpy against numcodecs' ZFPY (zfpy 1.0, run at test time): the same stream byte for
// byte (zfp's full header, then the zfp stream) from the same values, and the same values back
// from numcodecs' stream; a header that is not zfp's or describes another chunk is corrupt.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.codec;
import zarr.array;
import zarr.builder;
import zarr.store.filesystem;
import zarr.bytes;
import zarr.nd;

namespace json = boost::json;
namespace fs = std::filesystem;
using zarr::data_type;
using zarr::errc;
using zarr_test::chain;
using zarr_test::spec;

namespace {

zarr::codec_chain zfpy(const json::value& configuration, std::vector<std::uint64_t> shape, data_type type) {
  return chain(json::serialize(json::array{json::object{{"name", "numcodecs.zfpy"}, {"configuration", configuration}}}),
               spec(std::move(shape), type));
}

data_type type_of(std::string_view dtype) {
  return dtype == "<f4" ? data_type::float32 : dtype == "<f8" ? data_type::float64 : dtype == "<i4" ? data_type::int32 : data_type::int64;
}

// numcodecs' encodings and zarr-python 2's array (tests/interop/numcodecs_zfpy.py) in `dir`; false
// (a loud skip, a failure under CI) without /usr/bin/python3, numcodecs, zfpy and zarr.
bool run_numcodecs(const fs::path& dir) {
  const char* python = std::getenv("ZARR_PYTHON");
  const char* script = std::getenv("ZARR_ZFPY_SCRIPT");
  BOOST_TEST_REQUIRE(python != nullptr, "ZARR_PYTHON is set by CTest");
  BOOST_TEST_REQUIRE(script != nullptr, "ZARR_ZFPY_SCRIPT is set by CTest");
  const std::string command = std::string(python) + " " + script + " '" + dir.string() + "' 2>&1";
  return zarr_test::peer_ran(std::system(command.c_str()), "numcodecs' ZFPY and zarr-python 2");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(numcodecs_zfpy)

BOOST_AUTO_TEST_CASE(writes_and_reads_what_numcodecs_zfpy_writes_and_reads) {
  const auto dir = zarr_test::scratch_dir();
  if (!run_numcodecs(dir)) return;
  const auto cases = json::parse(zarr_test::file_text(dir / "cases.json")).as_array();
  BOOST_TEST_REQUIRE(cases.size() == 7u);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i].as_object();
    std::vector<std::uint64_t> shape;
    for (const auto& d : c.at("shape").as_array()) shape.push_back(d.to_number<std::uint64_t>());
    const auto file = [&](std::string_view ext) { return zarr_test::octets(zarr_test::file_text(dir / (std::to_string(i) + std::string(ext)))); };
    BOOST_TEST_CONTEXT("case " << i << ": " << json::serialize(cases[i])) {
      const auto codec = zfpy(c.at("configuration"), shape, type_of(c.at("dtype").as_string()));
      const auto numcodecs_stream = file(".out");
      // Case 0, numcodecs' default (every parameter -1, zfp's default stream): read, not yet
      // written byte for byte (docs/decisions.md 68).
      if (i != 0) BOOST_TEST(zarr_test::same(codec.encode(file(".in")), numcodecs_stream));
      BOOST_TEST(zarr_test::same(codec.decode(numcodecs_stream), file(".dec")));
      // numcodecs' configuration is written back as it was read
      BOOST_TEST(json::serialize(codec.to_json().as_array()[0].as_object().at("configuration")) == json::serialize(c.at("configuration")));
    }
  }
}

// A zarr-python 2 array whose compressor is ZFPY reads as zarr-python 2 reads it.
BOOST_AUTO_TEST_CASE(reads_a_zarr_python_2_array_compressed_by_zfpy) {
  const auto dir = zarr_test::scratch_dir();
  if (!run_numcodecs(dir)) return;
  const auto a = zarr::array::open(std::make_shared<zarr::filesystem_store>(dir / "v2.zarr"), "");
  zarr::bytes values(120 * 8);
  a.read(zarr::region::all(a.metadata().shape), values);
  BOOST_TEST(zarr_test::same(values, zarr_test::octets(zarr_test::file_text(dir / "v2.dec"))));
}

BOOST_AUTO_TEST_CASE(writes_zfps_header_and_takes_the_mode_from_it) {
  // A reversible stream (mode 5) read by a codec configured for fixed rate: the header's mode decodes it.
  std::vector<double> v(24);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.5 * static_cast<double>(i * i) - 3.25;
  const auto reversible = zfpy(json::parse(R"({"mode": 5})"), {4, 6}, data_type::float64);
  const auto stream = reversible.encode(zarr_test::to_bytes(v));
  // zfp's magic: the bytes 'z', 'f', 'p' and the codec version 5
  BOOST_TEST_REQUIRE(stream.size() > 4u);
  BOOST_TEST(zarr_test::same(std::span(stream).first(4), zarr_test::octets({'z', 'f', 'p', 5})));
  const auto other = zfpy(json::parse(R"({"mode": 2, "rate": 8})"), {4, 6}, data_type::float64);
  BOOST_TEST(zarr_test::from_bytes<double>(other.decode(stream)) == v, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(refuses_a_header_that_is_not_zfps_or_not_the_chunks) {
  const auto c = zfpy(json::parse(R"({"mode": 5})"), {4, 6}, data_type::float64);
  const auto stream = c.encode(zarr::bytes(24 * 8, std::byte{0}));
  auto bad = stream;
  bad[0] = std::byte{'Z'};
  ZARR_CHECK_ERROR(c.decode(bad), errc::corrupt_chunk, "codecs[0] (numcodecs.zfpy): expected zfp's header");
  ZARR_CHECK_ERROR(c.decode(zarr::bytes{}), errc::corrupt_chunk, "expected zfp's header");
  ZARR_CHECK_ERROR(zfpy(json::parse(R"({"mode": 5})"), {6, 4}, data_type::float64).decode(stream), errc::corrupt_chunk,
                   "expected zfp's header to describe the chunk (float64, 24 values in 2 dimensions)");
  ZARR_CHECK_ERROR(zfpy(json::parse(R"({"mode": 5})"), {4, 6}, data_type::int64).decode(stream), errc::corrupt_chunk,
                   "got a header of another field");
  ZARR_CHECK_ERROR(c.decode(std::span(stream).first(stream.size() - 8)), errc::corrupt_chunk, "codecs[0] (numcodecs.zfpy)");
}

BOOST_AUTO_TEST_CASE(rejects_bad_configurations) {
  ZARR_CHECK_ERROR(zfpy(json::parse(R"({"mode": 1})"), {4}, data_type::float64), errc::invalid_metadata,
                   "codecs[0].configuration.mode: expected 2 (fixed rate), 3 (fixed precision), 4 (fixed accuracy) or 5 (reversible), got 1");
  ZARR_CHECK_ERROR(zfpy(json::parse(R"({})"), {4}, data_type::float64), errc::invalid_metadata, "codecs[0].configuration.mode");
  ZARR_CHECK_ERROR(zfpy(json::parse(R"({"mode": 2, "rate": 80})"), {4}, data_type::float64), errc::invalid_metadata,
                   "codecs[0].configuration.rate: expected a number above 0 and at most 64, got 80");
  ZARR_CHECK_ERROR(zfpy(json::parse(R"({"mode": 3, "precision": 2.5})"), {4}, data_type::float64), errc::invalid_metadata,
                   "codecs[0].configuration.precision: expected an integer from 0 to 64");
  ZARR_CHECK_ERROR(zfpy(json::parse(R"({"mode": 4, "tolerance": "x"})"), {4}, data_type::float64), errc::invalid_metadata,
                   "codecs[0].configuration.tolerance: expected a number, got \"x\"");
  ZARR_CHECK_ERROR(zfpy(json::parse(R"({"mode": 4, "level": 1})"), {4}, data_type::float64), errc::invalid_metadata,
                   "codecs[0].configuration.level");
  ZARR_CHECK_ERROR(zfpy(json::parse(R"({"mode": 4, "compression_kwargs": 3})"), {4}, data_type::float64), errc::invalid_metadata,
                   "codecs[0].configuration.compression_kwargs: expected an object, got 3");
  ZARR_CHECK_ERROR(zfpy(json::parse(R"({"mode": 5})"), {4}, data_type::bool_), errc::unsupported, "got bool");
}

BOOST_AUTO_TEST_SUITE_END()
