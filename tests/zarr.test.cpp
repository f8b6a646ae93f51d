// zarr: the umbrella module. One `import zarr;` brings every component's public API.
#include <boost/test/unit_test.hpp>
#include <type_traits>
import zarr;

BOOST_AUTO_TEST_SUITE(umbrella)

BOOST_AUTO_TEST_CASE(one_import_brings_every_component) {
  static_assert(std::is_class_v<zarr::error>);                 // zarr.error
  static_assert(std::is_enum_v<zarr::data_type>);              // zarr.dtype
  static_assert(std::is_class_v<zarr::float8_e4m3>);           // zarr.arithmetic
  static_assert(std::is_class_v<zarr::region>);                // zarr.nd
  static_assert(std::is_class_v<zarr::byte_range_reader>);     // zarr.bytes
  static_assert(std::is_abstract_v<zarr::array_reader>);       // zarr.codec
  static_assert(std::is_class_v<zarr::bytes_codec>);           // zarr.codec.bytes
  static_assert(std::is_class_v<zarr::sharding_indexed_codec>);  // zarr.codec.sharding_indexed
  static_assert(std::is_abstract_v<zarr::store>);              // zarr.store
  static_assert(std::is_class_v<zarr::memory_store>);          // zarr.store.memory
  static_assert(std::is_class_v<zarr::filesystem_store>);      // zarr.store.filesystem
  static_assert(std::is_class_v<zarr::s3_store>);              // zarr.store.s3
  static_assert(std::is_class_v<zarr::http_store>);            // zarr.store.http
  static_assert(std::is_class_v<zarr::array_metadata>);        // zarr.metadata
  static_assert(std::is_class_v<zarr::array>);                 // zarr.array
  static_assert(std::is_class_v<zarr::array_builder>);         // zarr.builder
  BOOST_TEST(zarr::name(zarr::data_type::float8_e4m3) == "float8_e4m3");
  BOOST_TEST(zarr::base64_encode("foo") == "Zm9v");            // zarr.text
}

BOOST_AUTO_TEST_SUITE_END()
