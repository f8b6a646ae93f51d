// numcodecs.pcodec: refused by name with its reason (no C library implements pcodec), in a
// Zarr v3 chain and as a Zarr v2 compressor (as zarrs writes them), never "unsupported codec" alone.
#include <boost/test/unit_test.hpp>
#include <boost/json.hpp>
#include <memory>
#include <span>
#include <string>
#include "../codec_test.hpp"
import zarr.error;
import zarr.dtype;
import zarr.array;
import zarr.store.memory;

using zarr_test::chain;
using zarr_test::spec;

BOOST_AUTO_TEST_SUITE(pcodec)

BOOST_AUTO_TEST_CASE(refuses_pcodec_naming_it_and_the_reason) {
  ZARR_CHECK_ERROR(chain(R"([{"name": "numcodecs.pcodec", "configuration": {"level": 8, "mode_spec": "auto",
                             "delta_spec": "auto", "paging_spec": "equal_pages_up_to", "equal_pages_up_to": 262144}}])",
                         spec({4}, zarr::data_type::float64)),
                   zarr::errc::unsupported,
                   "codecs[0] (numcodecs.pcodec): expected a codec this library can decode, got numcodecs.pcodec: refused, "
                   "no C library implements pcodec");
}

BOOST_AUTO_TEST_CASE(refuses_a_zarr_v2_array_compressed_by_pcodec) {
  auto store = std::make_shared<zarr::memory_store>();
  const std::string zarray = R"({"zarr_format": 2, "shape": [8, 8], "chunks": [4, 4], "dtype": "<f8", "order": "C",
    "fill_value": 0.0, "filters": null, "dimension_separator": ".",
    "compressor": {"id": "pcodec", "level": 8, "mode_spec": "auto", "delta_spec": "auto",
                   "paging_spec": "equal_pages_up_to", "delta_encoding_order": null, "equal_pages_up_to": 262144}})";
  store->set("p/.zarray", std::as_bytes(std::span(zarray)));
  ZARR_CHECK_ERROR(zarr::array::open(store, "p"), zarr::errc::unsupported,
                   "(numcodecs.pcodec): expected a codec this library can decode, got numcodecs.pcodec: refused, no C library");
}

BOOST_AUTO_TEST_SUITE_END()
