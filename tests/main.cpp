// The Boost.Test entry point shared by every test executable.
#define BOOST_TEST_MODULE zarr
#include <boost/test/unit_test.hpp>
