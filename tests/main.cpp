// The Boost.Test entry point shared by every test executable: Boost.Test's exit status, or
// skip_exit_code when every test passed but one skipped for want of its peer (tests/skip.hpp).
#define BOOST_TEST_MODULE zarr
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>
#include "skip.hpp"

int main(int argc, char* argv[]) {
  const int status = boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
  return status == 0 && zarr_test::peer_skipped() ? zarr_test::skip_exit_code : status;
}
