#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
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

BOOST_AUTO_TEST_CASE(never_lists_temporary_files_and_removes_them_on_request) {
  const auto root = zarr_test::scratch_dir() / "store";
  zarr::filesystem_store s(root);
  s.set("a/c/0", zarr_test::some_bytes(4));
  s.set("a/zarr.json", zarr_test::some_bytes(2));
  // What writers killed between writing and renaming leave, one alone in its folder.
  std::ofstream(root / "a" / "c" / "0.zarr-tmp.77.0") << "x";
  std::ofstream(root / "a" / "zarr.json.zarr-tmp.77.1") << "{";
  fs::create_directories(root / "a" / "c" / "5");
  std::ofstream(root / "a" / "c" / "5" / "3.zarr-tmp.78.0") << "x";
  BOOST_TEST(s.list("") == (std::vector<std::string>{"a/c/0", "a/zarr.json"}), boost::test_tools::per_element());
  BOOST_TEST(s.list_dir("a/c/") == (std::vector<std::string>{"0"}), boost::test_tools::per_element());
  BOOST_TEST(s.get("a/c/0")->size() == 4u);
  BOOST_TEST(s.remove_temporaries() == 3u);
  BOOST_TEST(s.remove_temporaries() == 0u);
  BOOST_TEST(!fs::exists(root / "a" / "c" / "0.zarr-tmp.77.0"));
  BOOST_TEST(!fs::exists(root / "a" / "c" / "5" / "3.zarr-tmp.78.0"));
  BOOST_TEST(s.list("") == (std::vector<std::string>{"a/c/0", "a/zarr.json"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(rejects_keys_that_look_like_temporary_files) {
  zarr::filesystem_store s(zarr_test::scratch_dir() / "store");
  ZARR_CHECK_ERROR(s.set("a/c/0.zarr-tmp.1.2", zarr_test::some_bytes(1)), zarr::errc::invalid_key, "temporary files");
  ZARR_CHECK_ERROR(static_cast<void>(s.get("a.zarr-tmp.x/b")), zarr::errc::invalid_key, ".zarr-tmp.");
  BOOST_TEST(s.list("").empty());
}

BOOST_AUTO_TEST_SUITE_END()
