// Runs the zarr3 executable end to end.
#include <boost/test/unit_test.hpp>
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include "../support.hpp"

namespace {

struct run_result {
  int status;
  std::string out;
};

// Runs zarr3 with the given arguments (a shell command line), capturing stdout.
run_result run(const std::string& args) {
  const std::string command = std::string(ZARR3_EXE) + " " + args + " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  BOOST_TEST_REQUIRE(pipe != nullptr);
  std::string out;
  std::array<char, 4096> buffer{};
  while (const auto n = std::fread(buffer.data(), 1, buffer.size(), pipe)) out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli)

BOOST_AUTO_TEST_CASE(demo_writes_a_store_and_reads_it_back) {
  const auto dir = zarr_test::scratch_dir() / "demo.zarr";
  const auto r = run("demo " + dir.string());
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.find("all equal") != std::string::npos, r.out);
  BOOST_TEST(std::filesystem::exists(dir / "zarr.json"));
  BOOST_TEST(std::filesystem::exists(dir / "c" / "1" / "1"));
}

BOOST_AUTO_TEST_CASE(prints_its_version) {
  const auto r = run("--version");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.starts_with("zarr3 "));
}

BOOST_AUTO_TEST_CASE(unknown_commands_are_usage_errors) {
  BOOST_TEST(run("frobnicate").status == 2);
  BOOST_TEST(run("").status == 2);
  BOOST_TEST(run("demo a b").status == 2);
}

BOOST_AUTO_TEST_SUITE_END()
