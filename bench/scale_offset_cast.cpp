// float32 -> uint8 through scale_offset + cast_value + bytes (the codec chain),
// encode and decode, next to a plain unchecked loop doing the same arithmetic, in one run.
// bench/scale_offset runs this and numcodecs' FixedScaleOffset on the same data.
#include <benchmark/benchmark.h>
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>
import zarr;

namespace {

constexpr std::size_t n = 1 << 22;  // 4 Mi elements: 16 MiB of float32
constexpr float offset = -20.0f, scale = 4.0f;

// Values in [-20, 43.75): (x + 20) * 4 lands in [0, 255).
const std::vector<float>& input() {
  static const std::vector<float> v = [] {
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = -20.0f + static_cast<float>((i * 2654435761u) % 25500u) / 400.0f;
    return out;
  }();
  return v;
}

const zarr::codec_chain& chain() {
  static const zarr::codec_chain c(
      boost::json::parse(R"([{"name": "scale_offset", "configuration": {"offset": -20, "scale": 4}},
                             {"name": "cast_value", "configuration": {"data_type": "uint8"}},
                             {"name": "bytes"}])"),
      zarr::chunk_spec{{n}, zarr::data_type::float32, zarr::scalar::of(zarr::data_type::float32, 0.0f)});
  return c;
}

// The whole chain (the bytes codec is a no-op for uint8): encode from the caller's array into
// a new buffer, decode into the caller's buffer, as zarr::array does with a chunk.
void zarr_encode(benchmark::State& state) {
  const auto in = std::as_bytes(std::span(input()));
  for (auto _ : state) {
    auto out = chain().encode(in);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void zarr_decode(benchmark::State& state) {
  const auto encoded = chain().encode(std::as_bytes(std::span(input())));
  std::vector<float> out(n);
  for (auto _ : state) {
    chain().decode_into(encoded, std::as_writable_bytes(std::span(out)));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

// The same arithmetic with no checks at all: what a careless implementation would do.
void unchecked_encode(benchmark::State& state) {
  const auto& in = input();
  std::vector<std::uint8_t> out(n);
  for (auto _ : state) {
    // Round half to even by adding and subtracting 1.5 * 2^23 (exact for |x| < 2^22; the
    // compiler vectorises it, where std::nearbyint is a library call per element).
    for (std::size_t i = 0; i < n; ++i) {
      const float y = (in[i] - offset) * scale;
      out[i] = static_cast<std::uint8_t>((y + 12582912.0f) - 12582912.0f);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void unchecked_decode(benchmark::State& state) {
  std::vector<std::uint8_t> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::uint8_t>(i * 31);
  std::vector<float> out(n);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]) / scale + offset;
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

}  // namespace

BENCHMARK(zarr_encode)->Unit(benchmark::kMillisecond);
BENCHMARK(unchecked_encode)->Unit(benchmark::kMillisecond);
BENCHMARK(zarr_decode)->Unit(benchmark::kMillisecond);
BENCHMARK(unchecked_decode)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
