// A test executable whose tests passed but one skipped for a missing peer exits with
// skip_exit_code (tests/main.cpp), which CTest's SKIP_RETURN_CODE reports as skipped, not
// passed (tests/CMakeLists.txt). No module import here: tests/main.cpp includes it.
#pragma once

namespace zarr_test {

inline constexpr int skip_exit_code = 77;

// Set by peer_missing (support.hpp) when a test skipped.
inline bool& peer_skipped() {
  static bool skipped = false;
  return skipped;
}

}  // namespace zarr_test
