// zarr.codec.json2: numcodecs' JSON of object arrays (numcodecs documentation, "JSON"; its
// encode is json.dumps(array.tolist() + [dtype.str, shape]) with Python's JSON encoder, RFC 8259
// text). zarr-python 2 flattens a decoded chunk in C order and lays it out in the array's order,
// the order this codec receives a chunk's elements in (docs/decisions.md 74).
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
module zarr.codec.json2;

import zarr.text;

namespace zarr {
namespace json = boost::json;

namespace {

// Python's json.dumps of a str: ASCII with \uXXXX (surrogate pairs past U+FFFF) when `ascii`.
void put_string(std::string& out, std::string_view s, bool ascii) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80 && ascii) {  // a UTF-8 sequence (checked before): its code point
      append_json_escape(out, next_code_point(s, i));
      continue;
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) append_json_escape(out, c);
        else out += static_cast<char>(c);
    }
  }
  out += '"';
}

}  // namespace

json2_codec::json2_codec(const chunk_spec& decoded, json::object configuration, std::string where)
    : array_to_bytes_codec(std::move(where)), decoded_(decoded), configuration_(std::move(configuration)) {
  const auto* ascii = configuration_.if_contains("ensure_ascii");
  ascii_ = ascii == nullptr || ascii->is_null() || (ascii->is_bool() && ascii->as_bool());
  separator_ = ",";
  if (const auto* s = configuration_.if_contains("separators"); s != nullptr && s->is_array() && !s->as_array().empty())
    separator_ = std::string(s->as_array()[0].as_string());
}

json::value json2_codec::to_json() const { return json::object{{"name", name()}, {"configuration", configuration_}}; }

void json2_codec::encode_elements(std::span<const std::string> elements, bytes& out) const {
  if (elements.size() != decoded_.num_elements())
    throw error(errc::invalid_argument, label() + ": expected " + std::to_string(decoded_.num_elements()) +
                                            " elements, got " + std::to_string(elements.size()));
  std::string text;
  std::size_t next = 0;
  // The nested lists of NumPy's tolist: one list per axis, elements in C order.
  const auto lists = [&](auto&& self, std::size_t axis) -> void {
    text += '[';
    for (std::uint64_t k = 0; k < decoded_.shape[axis]; ++k) {
      if (k > 0) text += separator_;
      if (axis + 1 < decoded_.shape.size()) {
        self(self, axis + 1);
        continue;
      }
      const auto& e = elements[next];
      if (const auto problem = utf8_problem(e))
        throw error(errc::invalid_argument, label() + ": element " + std::to_string(next) + ": " + *problem);
      put_string(text, e, ascii_);
      ++next;
    }
    text += ']';
  };
  if (decoded_.shape.empty()) {
    text = "[";
    put_string(text, elements[0], ascii_);
  } else {
    lists(lists, 0);
    text.pop_back();  // the outer list goes on with the type and the shape
  }
  text += separator_ + "\"|O\"" + separator_ + "[";
  for (std::size_t d = 0; d < decoded_.shape.size(); ++d) text += (d > 0 ? separator_ : "") + std::to_string(decoded_.shape[d]);
  text += "]]";
  out.resize(text.size());
  std::memcpy(out.data(), text.data(), text.size());
}

void json2_codec::decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const {
  if (out.size() != decoded_.num_elements())
    throw error(errc::invalid_argument, label() + ": expected room for " + std::to_string(decoded_.num_elements()) +
                                            " elements, got " + std::to_string(out.size()));
  const auto bad = [&](const std::string& what) { return error(errc::corrupt_chunk, label() + ": " + what); };
  json::value v;
  {
    boost::system::error_code ec;
    v = json::parse(std::string_view(reinterpret_cast<const char*>(encoded.data()), encoded.size()), ec);
    if (ec) throw bad("expected JSON text, got text that is not (" + ec.message() + ")");
  }
  const auto* items = v.if_array();
  if (items == nullptr || items->size() < 2) throw bad("expected a list of the elements, the type and the shape, got other JSON");
  if ((*items)[items->size() - 2] != json::value("|O"))
    throw bad("expected the type \"|O\", got " + json::serialize((*items)[items->size() - 2]));
  const auto* shape = items->back().if_array();
  bool same = shape != nullptr && shape->size() == decoded_.shape.size();
  for (std::size_t d = 0; same && d < shape->size(); ++d) {
    const auto* n = (*shape)[d].if_int64();
    same = n != nullptr && *n >= 0 && static_cast<std::uint64_t>(*n) == decoded_.shape[d];
  }
  // zarr-python 2 lays the elements out in C order whatever the shape; a shape that is not the
  // chunk's is taken when it has as many elements.
  if (!same) {
    std::uint64_t count = 1;
    bool ok = shape != nullptr;
    for (std::size_t d = 0; ok && d < shape->size(); ++d) {
      const auto* n = (*shape)[d].if_int64();
      ok = n != nullptr && *n >= 0 && (*n == 0 || count <= ~std::uint64_t{0} / static_cast<std::uint64_t>(*n));
      if (ok) count *= static_cast<std::uint64_t>(*n);
    }
    if (!ok || count != out.size())
      throw bad("expected a shape of " + std::to_string(out.size()) + " elements, got " + json::serialize(items->back()));
  }
  std::vector<std::uint64_t> dims;
  for (const auto& d : *shape) dims.push_back(static_cast<std::uint64_t>(d.as_int64()));
  std::size_t next = 0;
  const auto element = [&](const json::value& e) {
    if (next >= out.size()) throw bad("expected " + std::to_string(out.size()) + " elements, got more");
    if (const auto* s = e.if_string()) {
      if (const auto problem = utf8_problem(*s)) throw bad("element " + std::to_string(next) + ": " + *problem);
      out[next].assign(s->data(), s->size());
    } else if (e == json::value(0)) {
      out[next].clear();  // zarr-python 2's fill of object arrays
    } else {
      throw bad("element " + std::to_string(next) + ": expected a string, got " + json::serialize(e).substr(0, 64));
    }
    ++next;
  };
  // items[0 .. size-2) nest as the shape says: one list per axis after the first.
  const auto walk = [&](auto&& self, const json::value& e, std::size_t axis) -> void {
    if (axis == dims.size()) return element(e);
    const auto* list = e.if_array();
    if (list == nullptr || list->size() != dims[axis])
      throw bad("expected lists nested as the shape " + json::serialize(items->back()) + ", got other lists");
    for (const auto& x : *list) self(self, x, axis + 1);
  };
  if (dims.empty()) {
    if (items->size() != 3) throw bad("expected one element for the shape [], got " + std::to_string(items->size() - 2));
    element((*items)[0]);
  } else {
    if (items->size() - 2 != dims[0])
      throw bad("expected " + std::to_string(dims[0]) + " items along the first axis, got " + std::to_string(items->size() - 2));
    for (std::size_t k = 0; k + 2 < items->size(); ++k) walk(walk, (*items)[k], 1);
  }
  if (next != out.size()) throw bad("expected " + std::to_string(out.size()) + " elements, got " + std::to_string(next));
}

void json2_codec::do_encode_into(std::span<const std::byte> /*array*/, bytes& /*out*/) const {
  throw error(errc::invalid_argument, label() + ": expected the elements as strings (zarr::array::write_strings), got a buffer");
}

void json2_codec::do_decode_into(std::span<const std::byte> /*encoded*/, std::span<std::byte> /*out*/) const {
  throw error(errc::invalid_argument, label() + ": decodes to strings (zarr::array::read_strings), not to a buffer");
}

std::unique_ptr<array_to_bytes_codec> make_json2_codec(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"encoding", "skipkeys", "ensure_ascii", "check_circular", "allow_nan",
                                                  "indent", "separators", "sort_keys", "strict"});
  const auto at = ctx.where + ".configuration.";
  if (ctx.decoded.type != data_type::string)
    throw error(errc::unsupported, ctx.where + " (numcodecs.json2): expected an array of data type string, got " +
                                       std::string(name(ctx.decoded.type)));
  if (const auto* e = config.if_contains("encoding"); e != nullptr && *e != json::value("utf-8") && *e != json::value("utf8"))
    throw error(errc::unsupported, at + "encoding: expected \"utf-8\", got " + json::serialize(*e));
  for (const char* key : {"skipkeys", "ensure_ascii", "check_circular", "allow_nan", "sort_keys", "strict"})
    if (const auto* b = config.if_contains(key); b != nullptr && !b->is_bool())
      throw error(errc::invalid_metadata, at + key + ": expected true or false, got " + json::serialize(*b));
  if (const auto* s = config.if_contains("separators"); s != nullptr && !s->is_null()) {
    const auto* pair = s->if_array();
    if (pair == nullptr || pair->size() != 2 || !(*pair)[0].is_string() || !(*pair)[1].is_string())
      throw error(errc::invalid_metadata, at + "separators: expected two strings, got " + json::serialize(*s));
    for (const char c : (*pair)[0].as_string())
      if (c != ',' && c != ' ' && c != '\n' && c != '\t')
        throw error(errc::invalid_metadata, at + "separators: expected an item separator of a comma and white space, got " +
                                                json::serialize((*pair)[0]));
  }
  return std::make_unique<json2_codec>(ctx.decoded, config, ctx.where);
}

}  // namespace zarr
