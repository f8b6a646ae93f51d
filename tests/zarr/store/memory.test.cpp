#include <boost/test/unit_test.hpp>
#include "contract.hpp"
import zarr.store.memory;

BOOST_AUTO_TEST_SUITE(memory_store)

BOOST_AUTO_TEST_CASE(keeps_the_store_contract) {
  zarr::memory_store s;
  zarr_test::check_store_contract(s);
}

BOOST_AUTO_TEST_CASE(updates_are_atomic_and_conditional_writes_see_every_change) {
  zarr::memory_store s;
  zarr_test::check_update_contract(s);
}

BOOST_AUTO_TEST_SUITE_END()
