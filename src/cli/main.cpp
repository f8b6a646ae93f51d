// zarr3: the command-line tool. Dispatches to the commands (src/cli/*.cpp) and turns errors
// into exit statuses: 0 success, 1 a data or metadata error, 2 a usage error.
#include <exception>
#include <iostream>
#include <new>
#include <string>
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
};

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
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const auto command = args.empty() ? std::string() : std::string(args[0]);
  const auto prefix = [&] {
    const auto& target = current_target();
    return "zarr3 " + command + (target.empty() ? std::string() : " " + target) + ": ";
  };
  try {
    return dispatch(args);
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
