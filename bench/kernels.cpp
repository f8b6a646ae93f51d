// Throughput of zarr.arithmetic.kernels on the hot cast_value and scale_offset pairs, next
// to a plain memcpy of the same input bytes in the same run (bench/README.md has numbers).
// Run: build/release/zarr.bench.kernels [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <vector>
import zarr;

namespace {

constexpr std::size_t elements = 1 << 20;  // 1 Mi elements: 4 MiB of float32, beyond L2

template <class T>
std::vector<T> random_values(double lo, double hi) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(elements);
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}

template <class In, class Out>
void run_cast(benchmark::State& state, zarr::data_type from, const std::vector<In>& in, zarr::data_type to,
              zarr::out_of_range_mode oor) {
  std::vector<Out> out(in.size());
  for (auto _ : state) {
    const auto r = zarr::cast_elements(from, std::as_bytes(std::span(in)), to, std::as_writable_bytes(std::span(out)),
                                       zarr::rounding_mode::nearest_even, oor);
    if (!r.ok) state.SkipWithError("cast failed");
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size() * sizeof(In)));
}

template <class T>
void run_memcpy(benchmark::State& state) {
  std::vector<T> in(elements, T{1}), out(elements);
  for (auto _ : state) {
    std::memcpy(out.data(), in.data(), in.size() * sizeof(T));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size() * sizeof(T)));
}

void float32_to_float8_e4m3(benchmark::State& state) {
  const auto in = random_values<float>(-240.0, 240.0);
  run_cast<float, std::uint8_t>(state, zarr::data_type::float32, in, zarr::data_type::float8_e4m3,
                                zarr::out_of_range_mode::error);
}

void float8_e4m3_to_float32(benchmark::State& state) {
  std::vector<std::uint8_t> in(elements);
  std::mt19937 rng(7);
  for (auto& x : in) x = static_cast<std::uint8_t>(rng() & 0x77);  // finite values
  run_cast<std::uint8_t, float>(state, zarr::data_type::float8_e4m3, in, zarr::data_type::float32,
                                zarr::out_of_range_mode::error);
}

void float64_to_bfloat16(benchmark::State& state) {
  const auto in = random_values<double>(-1e30, 1e30);
  run_cast<double, std::uint16_t>(state, zarr::data_type::float64, in, zarr::data_type::bfloat16,
                                  zarr::out_of_range_mode::error);
}

void float32_to_uint8_clamp(benchmark::State& state) {
  const auto in = random_values<float>(-20.0, 280.0);
  run_cast<float, std::uint8_t>(state, zarr::data_type::float32, in, zarr::data_type::uint8,
                                zarr::out_of_range_mode::clamp);
}

void int64_scale_offset_encode(benchmark::State& state) {
  std::vector<std::int64_t> in(elements), out(elements);
  std::mt19937_64 rng(3);
  for (auto& x : in) x = static_cast<std::int64_t>(rng() % 2'000'000'000) - 1'000'000'000;
  for (auto _ : state) {
    const auto r = zarr::scale_offset_encode(zarr::data_type::int64, std::as_bytes(std::span(in)),
                                             std::as_writable_bytes(std::span(out)), 1000, 7);
    if (!r.ok) state.SkipWithError("scale_offset failed");
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size() * sizeof(std::int64_t)));
}

}  // namespace

BENCHMARK(float32_to_float8_e4m3);
BENCHMARK(run_memcpy<float>)->Name("memcpy_float32");
BENCHMARK(float8_e4m3_to_float32);
BENCHMARK(run_memcpy<std::uint8_t>)->Name("memcpy_float8");
BENCHMARK(float64_to_bfloat16);
BENCHMARK(run_memcpy<double>)->Name("memcpy_float64");
BENCHMARK(float32_to_uint8_clamp);
BENCHMARK(int64_scale_offset_encode);
BENCHMARK(run_memcpy<std::int64_t>)->Name("memcpy_int64");

BENCHMARK_MAIN();
