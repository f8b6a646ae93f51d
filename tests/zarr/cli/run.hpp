// Running the zarr3 executable from tests: exit status, stdout and stderr.
#pragma once
#include <boost/test/unit_test.hpp>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace zarr_test {

struct run_result {
  int status;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void spit(const std::filesystem::path& p, std::string_view text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

// Runs zarr3 with `args` (a shell command line fragment, which may redirect stdin). Without
// LeakSanitizer (ASAN_OPTIONS gains detect_leaks=0): its scan at exit was half of each run's
// time under ASan, over some thousand runs; the commands' code is leak-checked in-process by
// the fuzz target `cli`, and the library's by the other tests.
inline run_result zarr3(const std::string& args) {
  const auto err_file = std::filesystem::temp_directory_path() / ("zarr3-test-stderr-" + std::to_string(::getpid()));
  const std::string command = "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" " + std::string(ZARR3_EXE) +
                              " " + args + " 2>" + err_file.string();
  FILE* pipe = ::popen(command.c_str(), "r");
  BOOST_TEST_REQUIRE(pipe != nullptr);
  std::string out;
  std::array<char, 65536> buffer{};
  while (const auto n = std::fread(buffer.data(), 1, buffer.size(), pipe)) out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  auto err = slurp(err_file);
  std::filesystem::remove(err_file);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, std::move(out), std::move(err)};
}

inline std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

}  // namespace zarr_test
