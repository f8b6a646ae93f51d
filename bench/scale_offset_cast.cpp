// float32 -> uint8 through scale_offset + cast_value (the array -> array part of the chain),
// encode and decode, next to a plain unchecked loop doing the same arithmetic, in one run.
// bench/scale_offset runs this and numcodecs' FixedScaleOffset on the same data.
#include <benchmark/benchmark.h>
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
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

zarr::bytes as_bytes(const std::vector<float>& v) {
  zarr::bytes b(v.size() * sizeof(float));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

zarr::bytes encode_chain(zarr::bytes b) {
  for (const auto& c : chain().array_to_array()) b = c->encode(std::move(b));
  return b;
}

void zarr_encode(benchmark::State& state) {
  const auto in = as_bytes(input());
  for (auto _ : state) {
    auto out = encode_chain(in);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void zarr_decode(benchmark::State& state) {
  const auto encoded = encode_chain(as_bytes(input()));
  const auto& codecs = chain().array_to_array();
  for (auto _ : state) {
    auto b = encoded;
    for (auto it = codecs.rbegin(); it != codecs.rend(); ++it) b = (*it)->decode(std::move(b));
    benchmark::DoNotOptimize(b.data());
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
