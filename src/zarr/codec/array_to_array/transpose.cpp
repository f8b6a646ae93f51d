// zarr.codec.transpose: parsing the order, and an N-d permuting copy that merges
// contiguous dimensions, copies contiguous runs with memcpy and transposes the two
// innermost strided dimensions in cache-sized tiles (Zarr v3 codecs/transpose).
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.codec.transpose;

namespace zarr {
namespace json = boost::json;

namespace {

template <std::size_t N>
struct element {
  std::byte b[N];
};

std::string order_text(std::span<const std::size_t> order) {
  json::array a;
  for (auto o : order) a.push_back(static_cast<std::uint64_t>(o));
  return json::serialize(a);
}

std::vector<std::uint64_t> c_strides(std::span<const std::uint64_t> shape) {
  std::vector<std::uint64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// Calls f(in_offset, out_offset) for every combination of indices of the dimensions
// `dims` (outermost first), with offsets in elements. Odometer: no division per step.
template <class F>
void for_each_offset(const std::vector<std::size_t>& dims, const std::vector<std::uint64_t>& shape,
                     const std::vector<std::uint64_t>& in_stride, const std::vector<std::uint64_t>& out_stride, F&& f) {
  std::vector<std::uint64_t> index(dims.size(), 0);
  std::uint64_t in_off = 0;
  std::uint64_t out_off = 0;
  for (;;) {
    f(in_off, out_off);
    std::size_t k = dims.size();
    for (;;) {
      if (k == 0) return;
      --k;
      const auto d = dims[k];
      in_off += in_stride[d];
      out_off += out_stride[d];
      if (++index[k] < shape[d]) break;
      in_off -= in_stride[d] * shape[d];
      out_off -= out_stride[d] * shape[d];
      index[k] = 0;
    }
  }
}

template <class T>
void permute_typed(T* out, const T* in, std::vector<std::uint64_t> shape, std::vector<std::uint64_t> stride) {
  // Drop dimensions of extent 1 and merge neighbours that are contiguous in the input
  // too (the output is C-contiguous, so any neighbours are contiguous there).
  std::vector<std::uint64_t> s;
  std::vector<std::uint64_t> is;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return;
    if (shape[i] == 1) continue;
    if (!s.empty() && is.back() == stride[i] * shape[i]) {
      s.back() *= shape[i];
      is.back() = stride[i];
    } else {
      s.push_back(shape[i]);
      is.push_back(stride[i]);
    }
  }
  if (s.empty()) {
    out[0] = in[0];
    return;
  }
  const auto os = c_strides(s);
  const std::size_t k = s.size() - 1;
  if (is[k] == 1) {  // contiguous runs along the innermost output dimension
    std::vector<std::size_t> dims(k);
    for (std::size_t d = 0; d < k; ++d) dims[d] = d;
    const std::size_t run = s[k] * sizeof(T);
    for_each_offset(dims, s, is, os, [&](std::uint64_t i, std::uint64_t o) { std::memcpy(out + o, in + i, run); });
    return;
  }
  // The output dimension that is contiguous in the input: tile it against the innermost
  // one so that both reads and writes stay within a few cache lines.
  const auto m = static_cast<std::size_t>(std::find(is.begin(), is.end(), std::uint64_t{1}) - is.begin());
  if (m == is.size()) {  // no contiguous input dimension: a plain strided inner loop
    std::vector<std::size_t> dims(k);
    for (std::size_t d = 0; d < k; ++d) dims[d] = d;
    const auto n = s[k];
    const auto step = is[k];
    for_each_offset(dims, s, is, os, [&](std::uint64_t i, std::uint64_t o) {
      for (std::uint64_t j = 0; j < n; ++j) out[o + j] = in[i + j * step];
    });
    return;
  }
  std::vector<std::size_t> dims;
  for (std::size_t d = 0; d < k; ++d)
    if (d != m) dims.push_back(d);
  // 16 x 16 tiles: the 16 input and 16 output lines of a tile stay in L1 while it is copied.
  // (Measured on 4096 x 4096: wider tiles for 1-byte elements, and staging tiles in a local
  // buffer, were both slower: lines 4 KiB apart share L1 sets.)
  constexpr std::uint64_t tile = 16;
  const auto rows = s[m];
  const auto cols = s[k];
  const auto out_row = os[m];
  const auto in_col = is[k];
  for_each_offset(dims, s, is, os, [&](std::uint64_t i, std::uint64_t o) {
    const T* src = in + i;
    T* dst = out + o;
    for (std::uint64_t r0 = 0; r0 < rows; r0 += tile) {
      const auto r1 = std::min(r0 + tile, rows);
      for (std::uint64_t c0 = 0; c0 < cols; c0 += tile) {
        const auto c1 = std::min(c0 + tile, cols);
        for (auto r = r0; r < r1; ++r)
          for (auto c = c0; c < c1; ++c) dst[r * out_row + c] = src[r + c * in_col];
      }
    }
  });
}

}  // namespace

void permute_elements(std::byte* out, const std::byte* in, std::size_t element_size,
                      std::span<const std::uint64_t> shape, std::span<const std::uint64_t> in_strides) {
  std::vector<std::uint64_t> sh(shape.begin(), shape.end());
  std::vector<std::uint64_t> st(in_strides.begin(), in_strides.end());
  switch (element_size) {
    case 1: permute_typed(reinterpret_cast<std::uint8_t*>(out), reinterpret_cast<const std::uint8_t*>(in), sh, st); break;
    case 2: permute_typed(reinterpret_cast<element<2>*>(out), reinterpret_cast<const element<2>*>(in), sh, st); break;
    case 4: permute_typed(reinterpret_cast<element<4>*>(out), reinterpret_cast<const element<4>*>(in), sh, st); break;
    case 8: permute_typed(reinterpret_cast<element<8>*>(out), reinterpret_cast<const element<8>*>(in), sh, st); break;
    case 16: permute_typed(reinterpret_cast<element<16>*>(out), reinterpret_cast<const element<16>*>(in), sh, st); break;
    default: {
      // Any other size: permute element indices, then copy whole elements.
      std::uint64_t n = 1;
      for (auto d : sh) n *= d;
      std::vector<std::uint64_t> index(n);
      std::vector<std::uint64_t> iota(n);
      for (std::uint64_t i = 0; i < n; ++i) iota[i] = i;
      permute_typed(index.data(), iota.data(), sh, st);
      for (std::uint64_t i = 0; i < n; ++i) std::memcpy(out + i * element_size, in + index[i] * element_size, element_size);
    }
  }
}

transpose_configuration transpose_configuration::parse(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"order"});
  const auto at = ctx.where + ".configuration.order";
  const auto* v = config.if_contains("order");
  if (v == nullptr) throw error(errc::invalid_metadata, at + ": expected an array of dimension indices, got nothing");
  if (const auto* s = v->if_string(); s != nullptr && (*s == "C" || *s == "F"))
    throw error(errc::invalid_metadata, at + ": expected an array of dimension indices (the \"C\" and \"F\" constants " +
                                            "were removed from the transpose codec), got " + json::serialize(*v));
  const auto* list = v->if_array();
  if (list == nullptr) throw error(errc::invalid_metadata, at + ": expected an array of dimension indices, got " + json::serialize(*v));
  transpose_configuration out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto& item = (*list)[i];
    const auto index = non_negative_integer(item);
    if (!index)
      throw error(errc::invalid_metadata, at + "[" + std::to_string(i) + "]: expected a non-negative integer, got " +
                                              json::serialize(item));
    const auto n = *index;
    if (std::find(out.order.begin(), out.order.end(), n) != out.order.end())
      throw error(errc::invalid_metadata, at + ": expected distinct dimension indices, got " + json::serialize(*v) + " (" +
                                              std::to_string(n) + " appears twice)");
    out.order.push_back(static_cast<std::size_t>(n));
  }
  return out;
}

transpose_codec::transpose_codec(const transpose_configuration& config, const chunk_spec& decoded, std::string where)
    : array_to_array_codec(std::move(where)), decoded_(decoded), encoded_(decoded), order_(config.order) {
  const auto rank = decoded_.shape.size();
  bool permutation = order_.size() == rank;
  std::vector<bool> seen(rank, false);
  for (auto o : order_) {
    if (o >= rank || seen[o]) {
      permutation = false;
      break;
    }
    seen[o] = true;
  }
  if (!permutation)
    throw error(errc::invalid_metadata, where_ + ".configuration.order: expected a permutation of 0.." +
                                            (rank == 0 ? std::string("-1 (no dimensions)") : std::to_string(rank - 1)) +
                                            " for a chunk of " + std::to_string(rank) + " dimensions, got " +
                                            order_text(order_));
  for (std::size_t i = 0; i < rank; ++i) encoded_.shape[i] = decoded_.shape[order_[i]];
}

json::value transpose_configuration::to_json() const {
  json::array list;
  for (auto o : order) list.push_back(static_cast<std::uint64_t>(o));
  return json::object{{"name", "transpose"}, {"configuration", json::object{{"order", std::move(list)}}}};
}

json::value transpose_codec::to_json() const { return transpose_configuration{order_}.to_json(); }

std::pair<const std::vector<std::uint64_t>&, std::vector<std::uint64_t>> transpose_codec::walk(bool encoding) const {
  std::vector<std::uint64_t> stride(order_.size());
  if (encoding) {  // B[b] = A[a] with b[i] = a[order[i]]: B's dimension i walks A's dimension order[i].
    const auto a = c_strides(decoded_.shape);
    for (std::size_t i = 0; i < order_.size(); ++i) stride[i] = a[order_[i]];
    return {encoded_.shape, std::move(stride)};
  }
  const auto b = c_strides(encoded_.shape);  // A's dimension order[i] walks B's dimension i.
  for (std::size_t i = 0; i < order_.size(); ++i) stride[order_[i]] = b[i];
  return {decoded_.shape, std::move(stride)};
}

bytes transpose_codec::do_encode(bytes in) const {
  if (std::is_sorted(order_.begin(), order_.end())) return in;  // the identity
  const auto [shape, stride] = walk(true);
  bytes out(in.size());
  permute_elements(out.data(), in.data(), static_cast<std::size_t>(decoded_.element_size()), shape, stride);
  return out;
}

bytes transpose_codec::do_decode(bytes in) const {
  if (std::is_sorted(order_.begin(), order_.end())) return in;
  const auto [shape, stride] = walk(false);
  bytes out(in.size());
  permute_elements(out.data(), in.data(), static_cast<std::size_t>(decoded_.element_size()), shape, stride);
  return out;
}

std::vector<std::uint64_t> transpose_codec::element_sources(bool encoding) const {
  const auto n = decoded_.num_elements();
  std::vector<std::uint64_t> iota(static_cast<std::size_t>(n)), sources(static_cast<std::size_t>(n));
  for (std::uint64_t i = 0; i < n; ++i) iota[i] = i;
  const auto [shape, stride] = walk(encoding);
  permute_elements(reinterpret_cast<std::byte*>(sources.data()), reinterpret_cast<const std::byte*>(iota.data()),
                   sizeof(std::uint64_t), shape, stride);
  return sources;
}

std::unique_ptr<array_to_array_codec> make_transpose_codec(const codec_context& ctx) {
  return std::make_unique<transpose_codec>(transpose_configuration::parse(ctx), ctx.decoded, ctx.where);
}

namespace {

// A box of the decoded array is the permuted box of the encoded one (B[i] = A[order[i]]), and
// the output's view, its strides permuted alike, takes the encoded elements in place.
class transpose_reader final : public array_reader {
 public:
  transpose_reader(std::span<const std::size_t> order, std::unique_ptr<array_reader> below)
      : order_(order.begin(), order.end()), below_(std::move(below)) {}

  [[nodiscard]] bool read(const region& box, const array_view& out) const override {
    array_view permuted = out;
    for (std::size_t i = 0; i < order_.size(); ++i) {
      permuted.shape[i] = out.shape[order_[i]];
      permuted.strides[i] = out.strides[order_[i]];
    }
    return below_->read(mapped(box), permuted);
  }
  [[nodiscard]] bool reads_whole(const region& box) const override { return below_->reads_whole(mapped(box)); }

 private:
  [[nodiscard]] region mapped(const region& box) const {
    region r{std::vector<std::uint64_t>(order_.size()), std::vector<std::uint64_t>(order_.size())};
    for (std::size_t i = 0; i < order_.size(); ++i) {
      r.start[i] = box.start[order_[i]];
      r.stop[i] = box.stop[order_[i]];
    }
    return r;
  }

  std::vector<std::size_t> order_;
  std::unique_ptr<array_reader> below_;
};

}  // namespace

std::unique_ptr<array_reader> transpose_codec::reader(std::unique_ptr<array_reader> below) const {
  return std::make_unique<transpose_reader>(order_, std::move(below));
}

}  // namespace zarr
