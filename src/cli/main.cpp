// zarr3: the command-line tool. Exit status: 0 success, 1 a data or metadata error,
// 2 a usage error.
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>
import zarr;

namespace {

namespace fs = std::filesystem;

constexpr int exit_ok = 0, exit_error = 1, exit_usage = 2;

void print_help(std::string_view command) {
  if (command == "demo") {
    std::cout << "zarr3 demo [DIR]\n  Writes an array to a directory store (default: ./zarr3-demo.zarr),\n"
                 "  reads it back and prints what it did.\n";
    return;
  }
  std::cout << "zarr3 " ZARR_VERSION " - Zarr v3 arrays on disk\n\n"
               "usage: zarr3 COMMAND [ARGS]\n\n"
               "commands:\n"
               "  demo [DIR]        write an array to a directory store and read it back\n"
               "  help [COMMAND]    this text, or a command's\n"
               "  --version         the version\n";
}

// The demo: a 64x64 uint16 array in 32x32 chunks, written chunk by chunk in the `bytes`
// codec's little-endian layout under the `default` chunk key encoding, then read back.
int demo(const fs::path& dir) {
  fs::remove_all(dir);
  zarr::filesystem_store store(dir);
  constexpr std::size_t n = 64, c = 32;
  boost::json::object meta{
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", {n, n}},
      {"data_type", zarr::to_json(zarr::data_type::uint16)},
      {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {c, c}}}}}},
      {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
      {"fill_value", 0},
      {"codecs", boost::json::array{{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}}},
      {"attributes", {{"description", "zarr3 demo: x + 64 * y"}}},
  };
  const auto text = boost::json::serialize(meta);
  store.set("zarr.json", std::as_bytes(std::span(text)));
  const auto value = [](std::size_t y, std::size_t x) { return static_cast<std::uint16_t>(x + 64 * y); };
  std::size_t stored = 0;
  for (std::size_t cy = 0; cy < n / c; ++cy)
    for (std::size_t cx = 0; cx < n / c; ++cx) {
      std::vector<std::byte> chunk(c * c * 2);
      for (std::size_t y = 0; y < c; ++y)
        for (std::size_t x = 0; x < c; ++x) {
          const auto v = value(cy * c + y, cx * c + x);
          chunk[2 * (y * c + x)] = static_cast<std::byte>(v & 0xff);
          chunk[2 * (y * c + x) + 1] = static_cast<std::byte>(v >> 8);
        }
      store.set("c/" + std::to_string(cy) + "/" + std::to_string(cx), chunk);
      stored += chunk.size();
    }
  std::cout << "wrote " << dir.string() << ": uint16 array " << n << "x" << n << " in " << c << "x" << c
            << " chunks, " << (n / c) * (n / c) << " chunks, " << stored << " bytes\n";

  const auto back = store.get("zarr.json");
  const auto doc = boost::json::parse(std::string_view(reinterpret_cast<const char*>(back->data()), back->size()));
  const auto type = zarr::parse_data_type(doc.at("data_type"));
  std::size_t mismatches = 0;
  for (std::size_t cy = 0; cy < n / c; ++cy)
    for (std::size_t cx = 0; cx < n / c; ++cx) {
      const auto chunk = store.get("c/" + std::to_string(cy) + "/" + std::to_string(cx));
      for (std::size_t y = 0; y < c; ++y)
        for (std::size_t x = 0; x < c; ++x) {
          const auto i = 2 * (y * c + x);
          const auto v = static_cast<std::uint16_t>(std::to_integer<unsigned>((*chunk)[i]) |
                                                    std::to_integer<unsigned>((*chunk)[i + 1]) << 8);
          mismatches += v != value(cy * c + y, cx * c + x);
        }
    }
  std::cout << "read back " << zarr::name(type) << " values: " << (mismatches == 0 ? "all equal" : "MISMATCH")
            << " (" << n * n << " values, " << mismatches << " different)\n";
  return mismatches == 0 ? exit_ok : exit_error;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  try {
    if (args.empty()) {
      print_help("");
      return exit_usage;
    }
    const auto command = args[0];
    if (command == "--version") {
      std::cout << "zarr3 " ZARR_VERSION "\n";
      return exit_ok;
    }
    if (command == "help" || command == "--help" || command == "-h") {
      print_help(args.size() > 1 ? args[1] : "");
      return exit_ok;
    }
    if (command == "demo") {
      if (args.size() > 2) {
        std::cerr << "zarr3 demo: expected at most one DIR, got " << args.size() - 1 << " arguments\n";
        return exit_usage;
      }
      return demo(args.size() == 2 ? fs::path(args[1]) : fs::path("zarr3-demo.zarr"));
    }
    std::cerr << "zarr3: unknown command \"" << command << "\" (see zarr3 help)\n";
    return exit_usage;
  } catch (const zarr::error& e) {
    std::cerr << "zarr3: " << e.what() << "\n";
    return exit_error;
  } catch (const std::exception& e) {
    std::cerr << "zarr3: " << e.what() << "\n";
    return exit_error;
  }
}
