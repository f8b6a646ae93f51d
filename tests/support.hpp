// Helpers shared by the tests: where the test data is, per-test scratch folders, CSV reading.
#pragma once
// Include after the standard headers; it imports the modules it names (zarr.error, zarr.dtype).
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <optional>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <vector>
#include "skip.hpp"
import zarr.error;
import zarr.dtype;

namespace zarr_test {

// The unpacked test data (vectors/, interop/: tests/data/README.md), from ZARR_TEST_DATA.
inline std::filesystem::path data_dir() {
  const char* dir = std::getenv("ZARR_TEST_DATA");
  BOOST_TEST_REQUIRE(dir != nullptr, "ZARR_TEST_DATA is not set (run the tests through ctest)");
  return dir;
}

// A test whose peer (a program, or a Python module: numpy, zarr-python 2, node with zarrita.js,
// a server) is not installed: outside CI it skips loudly, and the executable then exits with
// skip_exit_code, which CTest reports as skipped (never as passed); under CI (CI=true) it fails,
// so that CI never reports a peer check as passed that did not run. A peer that is installed
// and answers no is no skip: a failure, always (peer_ran).
inline void peer_missing(std::string_view what) {
  const char* ci = std::getenv("CI");
  if (ci != nullptr && std::string_view(ci) == "true")
    BOOST_FAIL("CI=true, yet " << what << ": CI must run this test with its peer");
  peer_skipped() = true;
  BOOST_TEST_MESSAGE("\n*** SKIPPED: " << what << " (under CI=true this fails) ***\n");
}

// The exit status of a peer script (tests/interop/*.py) whose Python modules cannot be
// imported: the peer is missing. Any other non-zero status is its refusal.
inline constexpr int peer_module_missing = 3;

// Whether a peer command run through the shell (std::system or pclose `status`) succeeded. A
// missing program (the shell's 127) or module (peer_module_missing) is peer_missing; any other
// failure, or a signal, is the installed peer's refusal: a test failure naming `what`.
inline bool peer_ran(int status, std::string_view what) {
  if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  if (status != -1 && WIFEXITED(status) && (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == peer_module_missing)) {
    peer_missing(std::string(what) + ": the peer is not installed (exit status " + std::to_string(WEXITSTATUS(status)) + ")");
    return false;
  }
  BOOST_ERROR(what << ": the peer is installed and refused (status "
                   << (status == -1 ? std::string("-1: not run")
                       : WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                           : "signal " + std::to_string(WTERMSIG(status)))
                   << ")");
  return false;
}

// Runs a peer command through the shell: its standard output when it succeeded, else nothing
// after peer_ran's verdict (a skip when it is missing, a failure when it refused).
inline std::optional<std::string> run_peer(const std::string& command, std::string_view what) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    BOOST_ERROR(what << ": cannot start " << command);
    return std::nullopt;
  }
  std::string out;
  char buffer[4096];
  while (const auto n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  if (!peer_ran(::pclose(pipe), what)) return std::nullopt;
  return out;
}

// A fresh, empty folder for the running test case, below ZARR_TEST_TMP.
inline std::filesystem::path scratch_dir() {
  const char* base = std::getenv("ZARR_TEST_TMP");
  std::filesystem::path root = base ? base : std::filesystem::temp_directory_path() / "zarr-tests";
  const auto& test = boost::unit_test::framework::current_test_case();
  auto dir = root / (test.p_parent_id == 0 ? std::string("t") : std::to_string(test.p_parent_id.get())) /
             std::string(test.p_name.get());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A file's bytes as a string (empty when it cannot be read).
inline std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The lines of a CSV file split at commas (the vector files never quote a field),
// without the header line.
inline std::vector<std::vector<std::string>> read_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  BOOST_TEST_REQUIRE(in.good(), "cannot open " << path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (;;) {
      const auto comma = line.find(',', start);
      fields.emplace_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

// Checks that a callable throws zarr::error with the given code and a message containing `part`.
#define ZARR_CHECK_ERROR(expr, code_, part)                                                            \
  BOOST_CHECK_EXCEPTION(static_cast<void>(expr), zarr::error, [&](const zarr::error& e) {                                 \
    const bool ok = e.code() == (code_) && std::string_view(e.what()).find(part) != std::string_view::npos; \
    if (!ok) BOOST_TEST_MESSAGE("unexpected error: " << e.what());                                    \
    return ok;                                                                                        \
  })

}  // namespace zarr_test

// Boost.Test prints values of these types in failure messages.
namespace zarr {
inline std::ostream& operator<<(std::ostream& os, data_type t) { return os << name(t); }
inline std::ostream& operator<<(std::ostream& os, errc c) { return os << to_string(c); }
}  // namespace zarr
