// Starting the writer process of the crash and concurrency tests with posix_spawn (never
// fork(): the test process has threads), waiting for its "ready" byte, killing it.
#pragma once
#include <boost/test/unit_test.hpp>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace zarr_test {

// This process's environment with LeakSanitizer off (ASAN_OPTIONS gains detect_leaks=0), for
// the writers the tests start by the hundred: the leak scan at exit was half of each short
// writer's time (55 of 120 ms under ASan). The library paths a writer takes are leak-checked
// in-process by the tests that write from threads (concurrency, array, s3).
inline std::vector<std::string> environment_without_leak_checks() {
  std::vector<std::string> env;
  bool found = false;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    if (entry.starts_with("ASAN_OPTIONS=")) {
      entry += entry.size() > 13 ? ":detect_leaks=0" : "detect_leaks=0";
      found = true;
    }
    env.push_back(std::move(entry));
  }
  if (!found) env.emplace_back("ASAN_OPTIONS=detect_leaks=0");
  return env;
}

class child_process {
 public:
  // Starts the crash writer (ZARR_CRASH_WRITER_EXE) with `args`; its stdout is a pipe.
  explicit child_process(const std::vector<std::string>& args) : child_process(ZARR_CRASH_WRITER_EXE, args) {}
  // Starts `program` with `args`; its stdout is a pipe.
  child_process(const std::string& program, const std::vector<std::string>& args) {
    int fds[2];
    BOOST_TEST_REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);  // dup2 clears O_CLOEXEC
    std::vector<std::string> all{program};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    auto env_text = environment_without_leak_checks();
    std::vector<char*> env;
    for (auto& e : env_text) env.push_back(e.data());
    env.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), env.data());
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    out_ = fds[0];
    BOOST_TEST_REQUIRE(rc == 0, "posix_spawn " << all[0] << ": " << rc);
  }
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      static_cast<void>(wait());
    }
    if (out_ >= 0) ::close(out_);
  }

  // Blocks until the writer writes a byte to stdout (it is about to write, or it finished
  // a generation); false when it exited first.
  bool wait_byte() {
    char c = 0;
    for (;;) {
      const auto n = ::read(out_, &c, 1);
      if (n < 0 && errno == EINTR) continue;
      return n == 1;
    }
  }
  // Everything it writes to stdout until it exits (or closes stdout).
  std::string read_all() {
    std::string text;
    char buffer[256];
    for (;;) {
      const auto n = ::read(out_, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return text;
      text.append(buffer, static_cast<std::size_t>(n));
    }
  }
  // One line of its stdout (without the newline); what came before EOF when it exits first.
  std::string read_line() {
    std::string line;
    char c = 0;
    for (;;) {
      const auto n = ::read(out_, &c, 1);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || c == '\n') return line;
      line += c;
    }
  }
  void kill() const { ::kill(pid_, SIGKILL); }
  // The wait status (see WIFEXITED and friends).
  int wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
};

// "exit 0", "exit 3", "signal 9": a wait status for messages.
inline std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace zarr_test
