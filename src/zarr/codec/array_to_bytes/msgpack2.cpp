// zarr.codec.msgpack2: numcodecs' MessagePack of object arrays (numcodecs documentation,
// "MsgPack": its encode packs array.tolist() + [dtype.str, shape] with Python's msgpack). The
// format is MessagePack's specification (github.com/msgpack/msgpack, spec.md): a first byte
// naming the type and the length's size, lengths and integers big-endian. zarr-python 2
// flattens a decoded chunk in C order and lays it out in the array's order, the order this codec
// receives a chunk's elements in (docs/decisions.md 75).
module;
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.codec.msgpack2;

import zarr.text;

namespace zarr {
namespace json = boost::json;

namespace {

constexpr int max_depth = 64;  // arrays in arrays; a chunk nests one level per dimension

// One value of the stream, as much of it as a chunk can hold.
struct item {
  enum class kind { str, bin, uint, sint, array, other } type = kind::other;
  std::size_t at = 0;          // offset of its first byte
  std::string_view payload;    // str, bin
  std::uint64_t number = 0;    // uint; sint as two's complement
  const char* what = "";       // other: what it is, for messages
  std::vector<item> items;     // array
};

std::string describe(const item& i) {
  switch (i.type) {
    case item::kind::str: return "a str";
    case item::kind::bin: return "a bin";
    case item::kind::uint: return "the integer " + std::to_string(i.number);
    case item::kind::sint: return "the integer " + std::to_string(static_cast<std::int64_t>(i.number));
    case item::kind::array: return "an array";
    case item::kind::other: return i.what;
  }
  return "";
}

class unpacker {
 public:
  unpacker(std::span<const std::byte> in, const std::string& label) : in_(in), label_(label) {}

  item value(int depth) {
    if (depth > max_depth) throw bad(pos_, "expected arrays nested at most " + std::to_string(max_depth) + " deep, got deeper");
    item i;
    i.at = pos_;
    const auto b = byte();
    const auto str = [&](std::uint64_t n) { i.type = item::kind::str, i.payload = take(n); };
    const auto bin = [&](std::uint64_t n) { i.type = item::kind::bin, i.payload = take(n); };
    const auto array = [&](std::uint64_t n) {
      i.type = item::kind::array;
      if (n > in_.size() - pos_) throw bad(i.at, "expected " + std::to_string(n) + " values, got " + std::to_string(in_.size() - pos_) + " bytes left");
      i.items.reserve(n);
      for (std::uint64_t k = 0; k < n; ++k) i.items.push_back(value(depth + 1));
    };
    const auto skip = [&](const char* what, std::uint64_t values, std::uint64_t octets) {
      i.what = what;
      take(octets);
      if (values > in_.size() - pos_) throw bad(i.at, std::string("expected ") + what + " of " + std::to_string(values) + " values, got fewer bytes");
      for (std::uint64_t k = 0; k < values; ++k) value(depth + 1);
    };
    if (b <= 0x7F) return i.type = item::kind::uint, i.number = b, i;
    if (b >= 0xE0) return i.type = item::kind::sint, i.number = static_cast<std::uint64_t>(static_cast<std::int64_t>(b) - 256), i;
    if (b >= 0xA0 && b <= 0xBF) return str(b & 0x1F), i;
    if (b >= 0x90 && b <= 0x9F) return array(b & 0x0F), i;
    if (b >= 0x80 && b <= 0x8F) return skip("a map", 2 * (b & 0x0F), 0), i;
    switch (b) {
      case 0xC0: i.what = "nil"; break;
      case 0xC2: i.what = "false"; break;
      case 0xC3: i.what = "true"; break;
      case 0xC4: bin(be(1)); break;
      case 0xC5: bin(be(2)); break;
      case 0xC6: bin(be(4)); break;
      case 0xC7: skip("an extension", 0, be(1) + 1); break;
      case 0xC8: skip("an extension", 0, be(2) + 1); break;
      case 0xC9: skip("an extension", 0, be(4) + 1); break;
      case 0xCA: skip("a float", 0, 4); break;
      case 0xCB: skip("a float", 0, 8); break;
      case 0xCC: i.type = item::kind::uint, i.number = be(1); break;
      case 0xCD: i.type = item::kind::uint, i.number = be(2); break;
      case 0xCE: i.type = item::kind::uint, i.number = be(4); break;
      case 0xCF: i.type = item::kind::uint, i.number = be(8); break;
      case 0xD0: i.type = item::kind::sint, i.number = static_cast<std::uint64_t>(static_cast<std::int8_t>(be(1))); break;
      case 0xD1: i.type = item::kind::sint, i.number = static_cast<std::uint64_t>(static_cast<std::int16_t>(be(2))); break;
      case 0xD2: i.type = item::kind::sint, i.number = static_cast<std::uint64_t>(static_cast<std::int32_t>(be(4))); break;
      case 0xD3: i.type = item::kind::sint, i.number = be(8); break;
      case 0xD4: skip("an extension", 0, 2); break;
      case 0xD5: skip("an extension", 0, 3); break;
      case 0xD6: skip("an extension", 0, 5); break;
      case 0xD7: skip("an extension", 0, 9); break;
      case 0xD8: skip("an extension", 0, 17); break;
      case 0xD9: str(be(1)); break;
      case 0xDA: str(be(2)); break;
      case 0xDB: str(be(4)); break;
      case 0xDC: array(be(2)); break;
      case 0xDD: array(be(4)); break;
      case 0xDE: skip("a map", 2 * be(2), 0); break;
      case 0xDF: skip("a map", 2 * be(4), 0); break;
      default: throw bad(i.at, "expected a MessagePack value, got 0xc1, a byte MessagePack never uses");
    }
    return i;
  }

  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  [[nodiscard]] error bad(std::size_t at, const std::string& what) const {
    return error(errc::corrupt_chunk, label_ + ": byte " + std::to_string(at) + ": " + what);
  }

 private:
  std::uint8_t byte() {
    if (pos_ == in_.size()) throw bad(pos_, "expected a MessagePack value, got the end of the chunk");
    return static_cast<std::uint8_t>(in_[pos_++]);
  }
  std::uint64_t be(int n) {
    if (in_.size() - pos_ < static_cast<std::size_t>(n))
      throw bad(pos_, "expected " + std::to_string(n) + " bytes of a length or number, got the end of the chunk");
    std::uint64_t v = 0;
    for (int k = 0; k < n; ++k) v = (v << 8) | static_cast<std::uint8_t>(in_[pos_++]);
    return v;
  }
  std::string_view take(std::uint64_t n) {
    if (n > in_.size() - pos_)
      throw bad(pos_, "expected " + std::to_string(n) + " bytes, got " + std::to_string(in_.size() - pos_) + " before the end of the chunk");
    const std::string_view s(reinterpret_cast<const char*>(in_.data()) + pos_, n);
    pos_ += n;
    return s;
  }

  std::span<const std::byte> in_;
  const std::string& label_;
  std::size_t pos_ = 0;
};

void put_be(std::string& out, std::uint8_t first, std::uint64_t v, int n) {
  out += static_cast<char>(first);
  for (int k = n - 1; k >= 0; --k) out += static_cast<char>((v >> (8 * k)) & 0xFF);
}

void put_uint(std::string& out, std::uint64_t v) {
  if (v <= 0x7F) out += static_cast<char>(v);
  else if (v <= 0xFF) put_be(out, 0xCC, v, 1);
  else if (v <= 0xFFFF) put_be(out, 0xCD, v, 2);
  else if (v <= 0xFFFFFFFF) put_be(out, 0xCE, v, 4);
  else put_be(out, 0xCF, v, 8);
}

void put_array(std::string& out, std::uint64_t n) {
  if (n <= 0x0F) out += static_cast<char>(0x90 | n);
  else if (n <= 0xFFFF) put_be(out, 0xDC, n, 2);
  else put_be(out, 0xDD, n, 4);  // n < 2^32: chunk dimensions and element counts are checked
}

// Python's msgpack: str 8 only with use_bin_type (without it the str family is the old raw).
void put_str(std::string& out, std::string_view s, bool bin_type) {
  const auto n = s.size();
  if (n <= 0x1F) out += static_cast<char>(0xA0 | n);
  else if (n <= 0xFF && bin_type) put_be(out, 0xD9, n, 1);
  else if (n <= 0xFFFF) put_be(out, 0xDA, n, 2);
  else put_be(out, 0xDB, n, 4);
  out += s;
}

void put_bin(std::string& out, std::string_view s) {
  const auto n = s.size();
  if (n <= 0xFF) put_be(out, 0xC4, n, 1);
  else if (n <= 0xFFFF) put_be(out, 0xC5, n, 2);
  else put_be(out, 0xC6, n, 4);
  out += s;
}

}  // namespace

msgpack2_codec::msgpack2_codec(const chunk_spec& decoded, json::object configuration, std::string where)
    : array_to_bytes_codec(std::move(where)), decoded_(decoded), configuration_(std::move(configuration)) {
  const auto* b = configuration_.if_contains("use_bin_type");
  bin_type_ = b == nullptr || b->is_null() || b->as_bool();
}

json::value msgpack2_codec::to_json() const { return json::object{{"name", name()}, {"configuration", configuration_}}; }

void msgpack2_codec::encode_elements(std::span<const std::string> elements, bytes& out) const {
  if (elements.size() != decoded_.num_elements())
    throw error(errc::invalid_argument, label() + ": expected " + std::to_string(decoded_.num_elements()) +
                                            " elements, got " + std::to_string(elements.size()));
  for (std::size_t k = 0; k < elements.size(); ++k) {
    if (elements[k].size() > 0xFFFFFFFF)
      throw error(errc::invalid_argument, label() + ": element " + std::to_string(k) + ": expected fewer than 2^32 bytes, got " +
                                              std::to_string(elements[k].size()));
    if (decoded_.type == data_type::string)
      if (const auto problem = utf8_problem(elements[k]))
        throw error(errc::invalid_argument, label() + ": element " + std::to_string(k) + ": " + *problem);
  }
  std::string packed;
  std::size_t next = 0;
  const auto element = [&] {
    const auto& e = elements[next++];
    if (decoded_.type == data_type::bytes && bin_type_) put_bin(packed, e);
    else put_str(packed, e, bin_type_);
  };
  // The nested arrays of NumPy's tolist: one per axis after the first, elements in C order.
  const auto lists = [&](auto&& self, std::size_t axis) -> void {
    put_array(packed, decoded_.shape[axis]);
    for (std::uint64_t k = 0; k < decoded_.shape[axis]; ++k) axis + 1 < decoded_.shape.size() ? self(self, axis + 1) : element();
  };
  if (decoded_.shape.empty()) {
    put_array(packed, 3);
    element();
  } else {
    put_array(packed, decoded_.shape[0] + 2);
    for (std::uint64_t k = 0; k < decoded_.shape[0]; ++k) decoded_.shape.size() > 1 ? lists(lists, 1) : element();
  }
  put_str(packed, "|O", bin_type_);
  put_array(packed, decoded_.shape.size());
  for (const auto d : decoded_.shape) put_uint(packed, d);
  out.resize(packed.size());
  std::memcpy(out.data(), packed.data(), packed.size());
}

void msgpack2_codec::decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const {
  if (out.size() != decoded_.num_elements())
    throw error(errc::invalid_argument, label() + ": expected room for " + std::to_string(decoded_.num_elements()) +
                                            " elements, got " + std::to_string(out.size()));
  const auto where = label();
  unpacker r(encoded, where);
  const auto top = r.value(0);
  if (r.position() != encoded.size())
    throw r.bad(r.position(), "expected the end of the chunk after one value, got " + std::to_string(encoded.size() - r.position()) +
                                  " more bytes");
  if (top.type != item::kind::array || top.items.size() < 2)
    throw r.bad(0, "expected an array of the elements, the type and the shape, got " + describe(top));
  const auto& type = top.items[top.items.size() - 2];
  if (type.type != item::kind::str || type.payload != "|O")
    throw r.bad(type.at, "expected the type \"|O\", got " + (type.type == item::kind::str ? "\"" + std::string(type.payload.substr(0, 32)) + "\"" : describe(type)));
  const auto& shape = top.items.back();
  std::vector<std::uint64_t> dims;
  std::uint64_t count = 1;
  bool ok = shape.type == item::kind::array;
  for (std::size_t d = 0; ok && d < shape.items.size(); ++d) {
    const auto& n = shape.items[d];
    ok = n.type == item::kind::uint || (n.type == item::kind::sint && static_cast<std::int64_t>(n.number) >= 0);
    ok = ok && (n.number == 0 || count <= ~std::uint64_t{0} / n.number);
    if (ok) count *= n.number, dims.push_back(n.number);
  }
  // zarr-python 2 lays the elements out in C order whatever the shape; a shape that is not the
  // chunk's is taken when it has as many elements.
  if (!ok || count != out.size())
    throw r.bad(shape.at, "expected a shape of " + std::to_string(out.size()) + " elements, got another");
  std::size_t next = 0;
  const auto element = [&](const item& e) {
    const auto fail = [&](const std::string& what) {
      return r.bad(e.at, "element " + std::to_string(next) + ": " + what);
    };
    if (e.type == item::kind::str || (e.type == item::kind::bin && decoded_.type == data_type::bytes)) {
      if (decoded_.type == data_type::string)
        if (const auto problem = utf8_problem(e.payload)) throw fail(*problem);
      out[next].assign(e.payload);
    } else if ((e.type == item::kind::uint || e.type == item::kind::sint) && e.number == 0) {
      out[next].clear();  // zarr-python 2's fill of object arrays
    } else {
      throw fail(std::string("expected ") + (decoded_.type == data_type::string ? "a str" : "a bin or str") + ", got " + describe(e));
    }
    ++next;
  };
  // top.items[0 .. size-2) nest as the shape says: one array per axis after the first.
  const auto walk = [&](auto&& self, const item& e, std::size_t axis) -> void {
    if (axis == dims.size()) return element(e);
    if (e.type != item::kind::array || e.items.size() != dims[axis])
      throw r.bad(e.at, "expected arrays nested as the shape, " + std::to_string(dims[axis]) + " values along axis " +
                            std::to_string(axis) + ", got " + (e.type == item::kind::array ? std::to_string(e.items.size()) + " values" : describe(e)));
    for (const auto& x : e.items) self(self, x, axis + 1);
  };
  const auto values = top.items.size() - 2;
  if (dims.empty()) {
    if (values != 1) throw r.bad(0, "expected one element for the shape [], got " + std::to_string(values));
    element(top.items[0]);
  } else {
    if (values != dims[0])
      throw r.bad(0, "expected " + std::to_string(dims[0]) + " values along the first axis, got " + std::to_string(values));
    for (std::size_t k = 0; k < values; ++k) walk(walk, top.items[k], 1);
  }
}

void msgpack2_codec::do_encode_into(std::span<const std::byte> /*array*/, bytes& /*out*/) const {
  throw error(errc::invalid_argument, label() + ": expected the elements as strings (zarr::array::write_strings), got a buffer");
}

void msgpack2_codec::do_decode_into(std::span<const std::byte> /*encoded*/, std::span<std::byte> /*out*/) const {
  throw error(errc::invalid_argument, label() + ": decodes to strings (zarr::array::read_strings), not to a buffer");
}

std::unique_ptr<array_to_bytes_codec> make_msgpack2_codec(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"raw", "use_bin_type", "use_single_float"});
  if (ctx.decoded.type != data_type::string && ctx.decoded.type != data_type::bytes)
    throw error(errc::unsupported, ctx.where + " (numcodecs.msgpack2): expected an array of data type string or bytes, got " +
                                       std::string(name(ctx.decoded.type)));
  for (const char* key : {"raw", "use_bin_type", "use_single_float"})
    if (const auto* b = config.if_contains(key); b != nullptr && !b->is_bool() && !b->is_null())
      throw error(errc::invalid_metadata, ctx.where + ".configuration." + key + ": expected true or false, got " + json::serialize(*b));
  return std::make_unique<msgpack2_codec>(ctx.decoded, config, ctx.where);
}

}  // namespace zarr
