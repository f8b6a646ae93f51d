// The C API from C++ built by g++ (not the library's clang), with zarr.h alone: no module, no
// other header of the library (tests/c/run.cmake). Expected values: exact math.
#include <zarr.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {
int failures = 0;
void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "cxx_api: %s failed: %s\n", what, zarr_last_error());
    ++failures;
  }
}
}  // namespace

int main() {
  zarr_store* s = nullptr;
  check(zarr_store_open("memory:", nullptr, &s) == ZARR_OK, "zarr_store_open");
  const std::vector<std::uint64_t> shape{6, 8}, chunks{3, 4}, zero{0, 0};
  zarr_array* a = nullptr;
  check(zarr_array_create(s, "grid", 2, shape.data(), chunks.data(), ZARR_UINT16, 0, nullptr,
                          R"([{"name":"bytes","configuration":{"endian":"big"}},{"name":"crc32c"}])", nullptr, 0,
                          &a) == ZARR_OK,
        "zarr_array_create");
  std::vector<std::uint16_t> in(48);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint16_t>(i * 1000);
  check(zarr_array_write(a, zero.data(), shape.data(), ZARR_UINT16, in.data(), in.size() * 2, nullptr, nullptr) == ZARR_OK,
        "zarr_array_write");
  // Four reads in flight, one per quarter, as uint32.
  std::vector<std::vector<std::uint32_t>> out(4, std::vector<std::uint32_t>(12));
  std::vector<zarr_operation*> ops(4);
  for (std::uint64_t q = 0; q < 4; ++q) {
    const std::uint64_t start[2] = {q / 2 * 3, q % 2 * 4}, stop[2] = {q / 2 * 3 + 3, q % 2 * 4 + 4};
    check(zarr_array_read_async(a, start, stop, ZARR_UINT32, out[q].data(), 48, nullptr, nullptr, &ops[q]) == ZARR_OK,
          "zarr_array_read_async");
  }
  zarr_array_free(a);  // the operations hold what they need
  for (std::uint64_t q = 0; q < 4; ++q) {
    check(zarr_wait(ops[q]) == ZARR_OK, "zarr_wait");
    zarr_operation_free(ops[q]);
    for (std::uint64_t k = 0; k < 12; ++k) {
      const auto row = q / 2 * 3 + k / 4, column = q % 2 * 4 + k % 4;
      check(out[q][k] == (row * 8 + column) * 1000, "values of the asynchronous reads");
    }
  }
  // 60000 as int16: out of range, named.
  check(zarr_array_open(s, "/grid", &a) == ZARR_OK, "zarr_array_open");
  std::vector<std::int16_t> narrow(48);
  const int rc = zarr_array_read(a, zero.data(), shape.data(), ZARR_INT16, narrow.data(), 96, nullptr, nullptr);
  const std::string message = zarr_last_error();
  check(rc == ZARR_OUT_OF_RANGE && message.find("element 33") != std::string::npos &&
            message.find("33000") != std::string::npos,
        "the out-of-range element's error");
  char* meta = nullptr;
  check(zarr_array_metadata(a, &meta) == ZARR_OK && std::strstr(meta, "\"crc32c\"") != nullptr, "zarr_array_metadata");
  zarr_free(meta);
  zarr_array_free(a);
  zarr_store_free(s);
  std::printf("cxx_api: %s\n", failures == 0 ? "passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
