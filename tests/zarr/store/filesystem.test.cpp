#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include "contract.hpp"
import zarr;

namespace fs = std::filesystem;

BOOST_AUTO_TEST_SUITE(filesystem_store)

BOOST_AUTO_TEST_CASE(keeps_the_store_contract) {
  zarr::filesystem_store s(zarr_test::scratch_dir() / "store");
  zarr_test::check_store_contract(s);
}

BOOST_AUTO_TEST_CASE(stores_keys_as_files_below_the_root) {
  const auto root = zarr_test::scratch_dir() / "store";
  zarr::filesystem_store s(root);
  s.set("g/c/0", zarr_test::some_bytes(4));
  BOOST_TEST(fs::file_size(root / "g" / "c" / "0") == 4u);
  // nothing but the value is left behind by the atomic write
  BOOST_TEST(std::distance(fs::directory_iterator(root / "g" / "c"), fs::directory_iterator()) == 1);
}

BOOST_AUTO_TEST_CASE(refuses_symbolic_links_that_lead_outside_the_root) {
  const auto dir = zarr_test::scratch_dir();
  const auto outside = dir / "outside";
  fs::create_directories(outside);
  std::ofstream(outside / "secret") << "secret";
  const auto root = dir / "store";
  zarr::filesystem_store s(root);
  fs::create_directory_symlink(outside, root / "link");
  ZARR_CHECK_ERROR(static_cast<void>(s.get("link/secret")), zarr::errc::invalid_key, "inside the store root");
  ZARR_CHECK_ERROR(s.set("link/new", zarr_test::some_bytes(1)), zarr::errc::invalid_key, "inside the store root");
  BOOST_TEST(!fs::exists(outside / "new"));
  // a link that stays inside the root is fine
  fs::create_directories(root / "real");
  fs::create_directory_symlink(root / "real", root / "alias");
  s.set("alias/x", zarr_test::some_bytes(2));
  BOOST_TEST(s.get("real/x")->size() == 2u);
}

BOOST_AUTO_TEST_CASE(fails_to_open_a_missing_root_without_create) {
  ZARR_CHECK_ERROR(zarr::filesystem_store(zarr_test::scratch_dir() / "absent", false), zarr::errc::not_found,
                   "expected a directory");
}

BOOST_AUTO_TEST_SUITE_END()
