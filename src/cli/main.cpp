// zarr3: the command-line tool. Dispatches to the commands (src/cli/*.cpp) and turns errors
// into exit statuses: 0 success, 1 a data or metadata error, 2 a usage error.
#include <charconv>
#include <cstddef>
#include <exception>
#include <iostream>
#include <system_error>
#include <new>
#include <string>
#include <optional>
#include <string_view>
#include <vector>
#include "cli.hpp"

namespace {

using namespace zarr_cli;

struct command_entry {
  std::string_view name;
  int (*run)(std::span<const std::string_view>);
};

constexpr command_entry commands[] = {
    {"create", run_create}, {"write", run_write},   {"read", run_read},     {"info", run_info},
    {"tree", run_tree},     {"convert", run_convert}, {"verify", run_verify}, {"demo", run_demo},
    {"consolidate", run_consolidate},
};

// Takes every global option `name` ("--threads N" or "--threads=N", anywhere before a "--")
// out of `args`; the last value given, or nothing.
std::optional<std::string_view> take_global_option(std::vector<std::string_view>& args, std::string_view name) {
  std::optional<std::string_view> value;
  const std::string with_equals = std::string(name) + "=";
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto arg = args[i];
    if (arg == "--") break;
    if (arg != name && !arg.starts_with(with_equals)) continue;
    std::size_t taken = 1;
    if (arg == name) {
      if (i + 1 >= args.size()) throw usage_error("zarr3: option " + std::string(name) + " needs a value");
      value = args[i + 1];
      taken = 2;
    } else {
      value = arg.substr(with_equals.size());
    }
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i + taken));
    --i;
  }
  return value;
}

// Takes every global flag `name` (anywhere before a "--") out of `args`; whether there was one.
bool take_global_flag(std::vector<std::string_view>& args, std::string_view name) {
  bool found = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i] != name) continue;
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
    --i;
    found = true;
  }
  return found;
}

// A whole number from 1 to `most` given to global option `name`.
std::size_t count_option(std::string_view name, std::string_view value, std::size_t most) {
  std::size_t n = 0;
  const auto r = std::from_chars(value.data(), value.data() + value.size(), n);
  if (r.ec != std::errc{} || r.ptr != value.data() + value.size() || n == 0 || n > most)
    throw usage_error("zarr3: " + std::string(name) + " \"" + std::string(value) + "\": expected a whole number from 1 to " +
                      std::to_string(most));
  return n;
}

// The global options: --threads N (the threads a command's reads and writes use at most),
// --endpoint URL (the S3 endpoint of s3:// paths) and --in-flight N (the requests to S3 or
// HTTP stores under way at once); --strict-fill-value (a missing chunk of a Zarr v2 array
// without a fill value is an error, not zeros); --cache-bytes N (a cache of shard indexes);
// --no-consolidated (metadata from each node's own documents, even where the root group has
// consolidated metadata).
void take_global_options(std::vector<std::string_view>& args) {
  if (take_global_flag(args, "--strict-fill-value")) strict_fill_value() = true;
  if (take_global_flag(args, "--no-consolidated")) use_consolidated() = false;
  if (const auto value = take_global_option(args, "--threads")) zarr::set_concurrency(count_option("--threads", *value, 1024));
  if (const auto value = take_global_option(args, "--in-flight")) requests_in_flight() = count_option("--in-flight", *value, 1024);
  if (const auto value = take_global_option(args, "--endpoint")) s3_endpoint() = std::string(*value);
  if (const auto value = take_global_option(args, "--cache-bytes"))
    shared_cache() = std::make_shared<zarr::cache>(count_option("--cache-bytes", *value, std::size_t{1} << 40));
}

int dispatch(const std::vector<std::string_view>& args) {
  if (args.empty()) {
    std::cerr << *help_text("");
    return exit_usage;
  }
  const auto command = args[0];
  if (command == "--version") {
    std::cout << "zarr3 " ZARR_VERSION "\n";
    return exit_ok;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    const auto topic = args.size() > 1 ? args[1] : std::string_view();
    const auto text = help_text(topic);
    if (!text || args.size() > 2) throw usage_error("zarr3 help: unknown command \"" + std::string(topic) + "\"");
    std::cout << *text;
    return exit_ok;
  }
  for (const auto& c : commands) {
    if (c.name != command) continue;
    const std::span<const std::string_view> rest(args.data() + 1, args.size() - 1);
    for (const auto a : rest)
      if (a == "--help" || a == "-h") {
        std::cout << *help_text(command);
        return exit_ok;
      }
    return c.run(rest);
  }
  throw usage_error("zarr3: unknown command \"" + std::string(command) + "\" (see zarr3 help)");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  std::string command;
  const auto prefix = [&] {
    const auto& target = current_target();
    return "zarr3 " + command + (target.empty() ? std::string() : " " + target) + ": ";
  };
  try {
    take_global_options(args);
    // The peer conformance suite's convention (Bisaloo/zarr-conformance-tests): `zarr3
    // --array_path=DIR` prints the array's elements in C order, one JSON value per line.
    std::vector<std::string_view> conformance;
    if (const auto path = take_global_option(args, "--array_path")) {
      if (!args.empty()) throw usage_error("--array_path: expected no command beside it, got \"" + std::string(args[0]) + "\"");
      conformance = {"read", *path, "--lines"};
      args = conformance;
    }
    command = args.empty() ? std::string() : std::string(args[0]);
    const auto status = dispatch(args);
    flush_zip_stores();
    return status;
  } catch (const usage_error& e) {
    std::cerr << e.what() << "\n";
    return exit_usage;
  } catch (const zarr::error& e) {
    std::cerr << prefix() << e.what() << "\n";
    return exit_error;
  } catch (const std::bad_alloc&) {
    std::cerr << prefix() << "out of memory\n";
    return exit_error;
  } catch (const std::exception& e) {
    std::cerr << prefix() << e.what() << "\n";
    return exit_error;
  }
}
