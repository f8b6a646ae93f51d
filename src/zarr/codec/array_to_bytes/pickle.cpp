// zarr.codec.pickle: numcodecs' Pickle of object arrays, read by an interpreter that builds values
// and calls nothing. The opcodes and their arguments are those CPython documents in
// Lib/pickletools.py (protocols 0 to 5); NumPy pickles an object array as
// numpy.core.multiarray._reconstruct(numpy.ndarray, (0,), b'b') with the state
// (1, shape, numpy.dtype('O8', False, True) with its own state, is_fortran, [elements]), the
// elements in C order of the shape. zarr-python 2 flattens a decoded chunk in its memory order
// (Fortran order when is_fortran) and lays that out in the array's order, which is the order
// this codec receives a chunk's elements in (a Zarr v2 array of order "F" has a reversing
// transpose before it), whatever the shape (docs/decisions.md 73).
module;
#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>
#include <boost/json.hpp>
module zarr.codec.pickle;

import zarr.text;

namespace zarr {
namespace json = boost::json;

namespace {

// --- Values ----------------------------------------------------------------------------------

// What the interpreter builds: a value per node of an arena, referred to by index, so that memo
// entries and repeated references share a node without owning cycles.
enum class kind : std::uint8_t { none, boolean, integer, real, text, binary, tuple, list, dict, global, call };

std::string_view kind_name(kind k) {
  switch (k) {
    case kind::none: return "None";
    case kind::boolean: return "a bool";
    case kind::integer: return "an int";
    case kind::real: return "a float";
    case kind::text: return "a str";
    case kind::binary: return "bytes";
    case kind::tuple: return "a tuple";
    case kind::list: return "a list";
    case kind::dict: return "a dict";
    case kind::global: return "a global";
    case kind::call: return "an object";
  }
  return "a value";
}

struct node {
  kind k = kind::none;
  std::int64_t number = 0;           // boolean, integer
  std::string text;                  // text (UTF-8 as stored), binary; global: "module name"
  std::vector<std::size_t> items;    // tuple, list; call: the callable, the arguments
  std::optional<std::size_t> state;  // call: what BUILD gave it
};

constexpr std::size_t max_protocol = 5;

// --- Reading ---------------------------------------------------------------------------------

class unpickler {
 public:
  unpickler(std::span<const std::byte> in, std::string label) : in_(in), label_(std::move(label)) {}

  // Runs the stream to its STOP; the value it leaves.
  std::size_t run();
  [[nodiscard]] const node& at(std::size_t i) const { return nodes_[i]; }
  [[noreturn]] void fail(const std::string& what) const {
    throw error(errc::corrupt_chunk, label_ + ": byte " + std::to_string(op_at_) + ": " + what);
  }

 private:
  std::span<const std::byte> in_;
  std::string label_;
  std::size_t at_ = 0, op_at_ = 0;
  std::vector<node> nodes_;
  std::vector<std::size_t> stack_;
  std::vector<std::size_t> marks_;  // stack sizes at each MARK
  std::unordered_map<std::uint64_t, std::size_t> memo_;

  std::span<const std::byte> take(std::uint64_t n) {
    if (n > in_.size() - at_) fail("expected " + std::to_string(n) + " more bytes, got the end of the chunk");
    const auto out = in_.subspan(at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
    return out;
  }
  std::uint64_t little(std::size_t n) {
    const auto b = take(n);
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < n; ++k) v |= static_cast<std::uint64_t>(b[k]) << (8 * k);
    return v;
  }
  std::string_view line() {  // protocol 0's arguments: up to a newline, which is consumed
    const auto* begin = reinterpret_cast<const char*>(in_.data()) + at_;
    const std::string_view rest(begin, in_.size() - at_);
    const auto end = rest.find('\n');
    if (end == std::string_view::npos) fail("expected a line ending in a newline, got the end of the chunk");
    at_ += end + 1;
    return rest.substr(0, end);
  }
  std::string_view chars(std::uint64_t n) {
    const auto b = take(n);
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }

  std::size_t push(node n) {
    nodes_.push_back(std::move(n));
    stack_.push_back(nodes_.size() - 1);
    return nodes_.size() - 1;
  }
  std::size_t pop() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("expected a value on the stack, got none");
    const auto v = stack_.back();
    stack_.pop_back();
    return v;
  }
  std::size_t& top() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("expected a value on the stack, got none");
    return stack_.back();
  }
  std::vector<std::size_t> pop_mark() {  // the values since the last MARK, and the MARK
    if (marks_.empty()) fail("expected a MARK before this opcode, got none");
    std::vector<std::size_t> out(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return out;
  }
  void push_integer(std::int64_t v) { push(node{kind::integer, v, {}, {}, {}}); }
  void push_text(std::string_view s, kind k) { push(node{k, 0, std::string(s), {}, {}}); }
  void push_sequence(kind k, std::vector<std::size_t> items) { push(node{k, 0, {}, std::move(items), {}}); }
  std::int64_t decimal(std::string_view s) {
    std::int64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) fail("expected a decimal integer that fits 64 bits, got \"" + std::string(s.substr(0, 32)) + "\"");
    return v;
  }
  void memo_put(std::uint64_t key) { memo_[key] = top(); }
  void memo_get(std::uint64_t key) {
    const auto found = memo_.find(key);
    if (found == memo_.end()) fail("expected a memo entry " + std::to_string(key) + ", got none");
    stack_.push_back(found->second);
  }
  void append_to(std::size_t list, std::span<const std::size_t> values) {
    if (nodes_[list].k != kind::list) fail("expected a list to append to, got " + std::string(kind_name(nodes_[list].k)));
    nodes_[list].items.insert(nodes_[list].items.end(), values.begin(), values.end());
  }
  std::string raw_unicode_escape(std::string_view s);
  void step(std::uint8_t op);
  bool stopped_ = false;
};

// Python's raw-unicode-escape: each byte a code point (Latin-1), but \uXXXX and \UXXXXXXXX.
std::string unpickler::raw_unicode_escape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t digits = b == '\\' && i + 1 < s.size() ? (s[i + 1] == 'u' ? 4 : s[i + 1] == 'U' ? 8 : 0) : 0;
    if (digits == 0) {
      append_utf8(out, b);
      continue;
    }
    std::uint32_t c = 0;
    const auto hex = s.substr(i + 2, digits);
    const auto r = std::from_chars(hex.data(), hex.data() + hex.size(), c, 16);
    if (hex.size() != digits || r.ptr != hex.data() + hex.size() || c > 0x10FFFF)
      fail("expected " + std::to_string(digits) + " hexadecimal digits of a code point after \\" + s[i + 1]);
    append_utf8(out, c);
    i += 1 + digits;
  }
  return out;
}

// One opcode (CPython's Lib/pickletools.py names them); those a NumPy object array of strings or
// byte strings never holds (dict items, sets, persistent ids, extension codes, out-of-band
// buffers, NEWOBJ) are refused.
void unpickler::step(std::uint8_t op) {
  switch (op) {
    case 0x80: {  // PROTO
      const auto v = little(1);
      if (v > max_protocol) fail("expected pickle protocol 0 to 5, got " + std::to_string(v));
      return;
    }
    case 0x95: static_cast<void>(little(8)); return;  // FRAME: a length; the opcodes follow as ever
    case '.': stopped_ = true; return;                 // STOP
    case '(': marks_.push_back(stack_.size()); return;  // MARK
    case '0': static_cast<void>(pop()); return;         // POP
    case '1': static_cast<void>(pop_mark()); return;    // POP_MARK
    case '2': stack_.push_back(top()); return;          // DUP
    case 'N': push(node{}); return;                     // NONE
    case 0x88: push(node{kind::boolean, 1, {}, {}, {}}); return;  // NEWTRUE
    case 0x89: push(node{kind::boolean, 0, {}, {}, {}}); return;  // NEWFALSE
    case 'I': {  // INT: "01" and "00" are True and False
      const auto s = line();
      if (s == "01" || s == "00") push(node{kind::boolean, s == "01", {}, {}, {}});
      else push_integer(decimal(s));
      return;
    }
    case 'L': {  // LONG: decimal digits, then "L"
      auto s = line();
      if (!s.empty() && s.back() == 'L') s.remove_suffix(1);
      push_integer(decimal(s));
      return;
    }
    case 'J': push_integer(static_cast<std::int32_t>(little(4))); return;  // BININT
    case 'K': push_integer(static_cast<std::int64_t>(little(1))); return;  // BININT1
    case 'M': push_integer(static_cast<std::int64_t>(little(2))); return;  // BININT2
    case 0x8a:                                                               // LONG1
    case 0x8b: {                                                             // LONG4
      const auto n = little(op == 0x8a ? 1 : 4);
      if (n > 8) fail("expected an integer of at most 8 bytes, got " + std::to_string(n));
      auto v = n == 0 ? 0 : little(static_cast<std::size_t>(n));
      if (n > 0 && n < 8 && (v >> (8 * n - 1)) != 0) v |= ~std::uint64_t{0} << (8 * n);  // two's complement
      push_integer(static_cast<std::int64_t>(v));
      return;
    }
    case 'F': static_cast<void>(line()); push(node{kind::real, 0, {}, {}, {}}); return;      // FLOAT
    case 'G': static_cast<void>(take(8)); push(node{kind::real, 0, {}, {}, {}}); return;     // BINFLOAT
    case 'V': push_text(raw_unicode_escape(line()), kind::text); return;                     // UNICODE
    case 'X': push_text(chars(little(4)), kind::text); return;                               // BINUNICODE
    case 0x8c: push_text(chars(little(1)), kind::text); return;                              // SHORT_BINUNICODE
    case 0x8d: push_text(chars(little(8)), kind::text); return;                              // BINUNICODE8
    case 'B': push_text(chars(little(4)), kind::binary); return;                             // BINBYTES
    case 'C': push_text(chars(little(1)), kind::binary); return;                             // SHORT_BINBYTES
    case 0x8e:                                                                               // BINBYTES8
    case 0x96: push_text(chars(little(8)), kind::binary); return;                            // BYTEARRAY8
    case ')': push_sequence(kind::tuple, {}); return;                                        // EMPTY_TUPLE
    case 't': push_sequence(kind::tuple, pop_mark()); return;                                // TUPLE
    case 0x85:                                                                               // TUPLE1
    case 0x86:                                                                               // TUPLE2
    case 0x87: {                                                                             // TUPLE3
      std::vector<std::size_t> items(op - 0x84u);
      for (auto i = items.size(); i-- > 0;) items[i] = pop();
      push_sequence(kind::tuple, std::move(items));
      return;
    }
    case ']': push_sequence(kind::list, {}); return;          // EMPTY_LIST
    case 'l': push_sequence(kind::list, pop_mark()); return;  // LIST
    case 'a': {                                               // APPEND
      const auto v = pop();
      append_to(top(), std::span<const std::size_t>(&v, 1));
      return;
    }
    case 'e': {  // APPENDS
      const auto values = pop_mark();
      append_to(top(), values);
      return;
    }
    case '}': push_sequence(kind::dict, {}); return;  // EMPTY_DICT (holds nothing here)
    case 'c': {                                       // GLOBAL
      std::string name(line());
      name += ' ';
      name += line();
      push_text(name, kind::global);
      return;
    }
    case 0x93: {  // STACK_GLOBAL
      const auto n = pop(), m = pop();
      if (nodes_[m].k != kind::text || nodes_[n].k != kind::text) fail("expected a module and a name as str, got other values");
      push_text(nodes_[m].text + ' ' + nodes_[n].text, kind::global);
      return;
    }
    case 'R': {  // REDUCE: recorded, never called
      const auto args = pop(), callable = pop();
      if (nodes_[callable].k != kind::global || nodes_[args].k != kind::tuple)
        fail("expected a global and a tuple of arguments, got " + std::string(kind_name(nodes_[callable].k)) + " and " +
             std::string(kind_name(nodes_[args].k)));
      push(node{kind::call, 0, {}, {callable, args}, {}});
      return;
    }
    case 'b': {  // BUILD
      const auto state = pop();
      auto& object = nodes_[top()];
      if (object.k != kind::call || object.state) fail("expected an object to give a state, got " + std::string(kind_name(object.k)));
      object.state = state;
      return;
    }
    case 'p': memo_put(static_cast<std::uint64_t>(decimal(line()))); return;  // PUT
    case 'q': memo_put(little(1)); return;                                    // BINPUT
    case 'r': memo_put(little(4)); return;                                    // LONG_BINPUT
    case 0x94: memo_put(memo_.size()); return;                                // MEMOIZE
    case 'g': memo_get(static_cast<std::uint64_t>(decimal(line()))); return;  // GET
    case 'h': memo_get(little(1)); return;                                    // BINGET
    case 'j': memo_get(little(4)); return;                                    // LONG_BINGET
    default: {
      char hex[4];
      const auto r = std::to_chars(hex, hex + sizeof hex, op, 16);
      fail("expected an opcode of NumPy's pickle of an object array, got 0x" + std::string(hex, r.ptr));
    }
  }
}

std::size_t unpickler::run() {
  while (!stopped_) {
    op_at_ = at_;
    step(static_cast<std::uint8_t>(little(1)));
  }
  if (at_ != in_.size()) fail("expected the chunk to end after STOP, got " + std::to_string(in_.size() - at_) + " more bytes");
  if (stack_.size() != 1 || !marks_.empty()) fail("expected one value at STOP, got " + std::to_string(stack_.size()));
  return stack_.back();
}

// --- NumPy's object array in the values --------------------------------------------------------

class object_array {
 public:
  object_array(const unpickler& u, std::size_t root) : u_(u) {
    const auto& call = u_.at(root);
    expect_call(call, {"numpy.core.multiarray _reconstruct", "numpy._core.multiarray _reconstruct"}, "_reconstruct");
    const auto& args = tuple(call.items[1], 3, "its arguments");
    expect_global(args[0], "numpy ndarray");
    if (!call.state) bad("numpy.core.multiarray._reconstruct without a state");
    const auto& state = tuple(*call.state, 5, "its state");
    if (!is_integer(state[0], 1)) bad("its state's version is not 1");
    for (const auto d : tuple(state[1], ~std::size_t{0}, "its shape")) {
      const auto& n = u_.at(d);
      if (n.k != kind::integer || n.number < 0) bad("its shape holds other than integers of at least 0");
      shape_.push_back(static_cast<std::uint64_t>(n.number));
    }
    const auto& dtype = u_.at(state[2]);
    expect_call(dtype, {"numpy dtype"}, "numpy.dtype");
    const auto& dtype_args = tuple(dtype.items[1], 3, "numpy.dtype's arguments");
    if (u_.at(dtype_args[0]).k != kind::text || u_.at(dtype_args[0]).text != "O8")
      bad("its data type is not NumPy's object type \"O8\"");
    fortran_ = is_integer(state[3], 1);
    const auto& list = u_.at(state[4]);
    if (list.k != kind::list) bad("its elements are " + std::string(kind_name(list.k)) + ", not a list");
    elements_ = &list.items;
  }
  [[nodiscard]] const std::vector<std::uint64_t>& shape() const { return shape_; }
  [[nodiscard]] const std::vector<std::size_t>& elements() const { return *elements_; }
  // The elements in the array's memory order: C order, or Fortran order when is_fortran.
  [[nodiscard]] std::vector<std::size_t> in_memory_order() const {
    if (!fortran_ || shape_.size() < 2) return *elements_;
    std::vector<std::size_t> out;
    out.reserve(elements_->size());
    std::vector<std::uint64_t> index(shape_.size(), 0);
    for (std::size_t k = 0; k < elements_->size(); ++k) {
      std::uint64_t offset = 0;  // the C-order offset of `index`
      for (std::size_t d = 0; d < shape_.size(); ++d) offset = offset * shape_[d] + index[d];
      out.push_back((*elements_)[static_cast<std::size_t>(offset)]);
      for (std::size_t d = 0; d < shape_.size() && ++index[d] == shape_[d]; ++d) index[d] = 0;  // first axis fastest
    }
    return out;
  }

 private:
  const unpickler& u_;
  std::vector<std::uint64_t> shape_;
  bool fortran_ = false;
  const std::vector<std::size_t>* elements_ = nullptr;

  [[noreturn]] void bad(const std::string& what) const { u_.fail("expected NumPy's pickle of an object array, got " + what); }
  void expect_global(std::size_t i, std::string_view name) const {
    const auto& g = u_.at(i);
    if (g.k != kind::global || g.text != name) bad(std::string(kind_name(g.k)) + " where " + std::string(name) + " belongs");
  }
  void expect_call(const node& n, std::initializer_list<std::string_view> names, std::string_view shown) const {
    const auto& callable = n.k == kind::call ? u_.at(n.items[0]) : n;
    if (n.k != kind::call || std::find(names.begin(), names.end(), callable.text) == names.end())
      bad(std::string(kind_name(n.k)) + (n.k == kind::call ? " of " + callable.text : "") + " where " + std::string(shown) +
          "(...) belongs");
  }
  const std::vector<std::size_t>& tuple(std::size_t i, std::size_t size, std::string_view what) const {
    const auto& t = u_.at(i);
    if (t.k != kind::tuple || (size != ~std::size_t{0} && t.items.size() != size))
      bad(std::string(what) + ": " + std::string(kind_name(t.k)) + (t.k == kind::tuple ? " of " + std::to_string(t.items.size()) : ""));
    return t.items;
  }
  bool is_integer(std::size_t i, std::int64_t v) const {
    const auto& n = u_.at(i);
    return (n.k == kind::integer || n.k == kind::boolean) && n.number == v;
  }
};

// The bytes of `text` (UTF-8), each code point one byte: Python's str.encode('latin1').
std::optional<std::string> latin1(std::string_view text) {
  if (invalid_utf8_at(text)) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = next_code_point(text, i);
    if (c > 0xFF) return std::nullopt;
    out += static_cast<char>(c);
  }
  return out;
}

// --- Writing -----------------------------------------------------------------------------------

class pickler {
 public:
  explicit pickler(bytes& out, int protocol) : out_(out), protocol_(protocol) {}
  void op(char c) { out_.push_back(static_cast<std::byte>(c)); }
  void raw(std::string_view s) {
    const auto at = out_.size();
    out_.resize(at + s.size());
    if (!s.empty()) std::memcpy(out_.data() + at, s.data(), s.size());
  }
  void little(std::uint64_t v, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) out_.push_back(static_cast<std::byte>((v >> (8 * k)) & 0xFF));
  }
  void global(std::string_view module, std::string_view name) {
    op('c');
    raw(module);
    op('\n');
    raw(name);
    op('\n');
  }
  void integer(std::int64_t v) {
    if (v >= 0 && v < 256) {
      op('K');
      little(static_cast<std::uint64_t>(v), 1);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');
      little(static_cast<std::uint32_t>(v), 4);
    } else {
      op('\x8a');  // LONG1: 8 bytes, two's complement
      little(8, 1);
      little(static_cast<std::uint64_t>(v), 8);
    }
  }
  void boolean(bool v) {
    if (protocol_ >= 2) op(v ? '\x88' : '\x89');
    else raw(v ? "I01\n" : "I00\n");
  }
  void text(std::string_view utf8) {  // BINUNICODE
    op('X');
    little(utf8.size(), 4);
    raw(utf8);
  }
  void binary(std::string_view b) {
    if (protocol_ >= 3) {  // BINBYTES
      op('B');
      little(b.size(), 4);
      raw(b);
      return;
    }
    // Protocols 0 to 2 have no bytes: _codecs.encode(the Latin-1 text of the bytes, 'latin1'), as Python writes them.
    std::string utf8;
    for (const char c : b) append_utf8(utf8, static_cast<unsigned char>(c));
    global("_codecs", "encode");
    op('(');
    text(utf8);
    text("latin1");
    op('t');
    op('R');
  }

 private:
  bytes& out_;
  int protocol_;
};

}  // namespace

pickle_codec::pickle_codec(const chunk_spec& decoded, int protocol, std::string where)
    : array_to_bytes_codec(std::move(where)), decoded_(decoded), protocol_(protocol) {}

json::value pickle_codec::to_json() const {
  return json::object{{"name", name()}, {"configuration", json::object{{"protocol", protocol_}}}};
}

void pickle_codec::encode_elements(std::span<const std::string> elements, bytes& out) const {
  if (elements.size() != decoded_.num_elements())
    throw error(errc::invalid_argument, label() + ": expected " + std::to_string(decoded_.num_elements()) +
                                            " elements, got " + std::to_string(elements.size()));
  const bool strings = decoded_.type == data_type::string;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (elements[i].size() > 0xFFFFFFFFu)
      throw error(errc::invalid_argument, label() + ": element " + std::to_string(i) + ": expected at most 2^32 - 1 bytes, got " +
                                              std::to_string(elements[i].size()));
    if (strings)
      if (const auto problem = utf8_problem(elements[i]))
        throw error(errc::invalid_argument, label() + ": element " + std::to_string(i) + ": " + *problem);
  }
  out.clear();
  pickler p(out, protocol_);
  if (protocol_ >= 2) {
    p.op('\x80');
    p.little(static_cast<std::uint64_t>(protocol_), 1);
  }
  // _reconstruct(ndarray, (0,), b'b')
  p.global("numpy.core.multiarray", "_reconstruct");
  p.op('(');
  p.global("numpy", "ndarray");
  p.op('(');
  p.integer(0);
  p.op('t');
  p.binary("b");
  p.op('t');
  p.op('R');
  // .__setstate__((1, shape, dtype('O8', False, True), False, [elements]))
  p.op('(');
  p.integer(1);
  p.op('(');
  for (const auto d : decoded_.shape) p.integer(static_cast<std::int64_t>(d));
  p.op('t');
  p.global("numpy", "dtype");
  p.op('(');
  p.text("O8");
  p.boolean(false);
  p.boolean(true);
  p.op('t');
  p.op('R');
  p.op('(');  // the dtype's state, as NumPy writes it for "|O"
  p.integer(3);
  p.text("|");
  p.op('N');
  p.op('N');
  p.op('N');
  p.integer(-1);
  p.integer(-1);
  p.integer(63);
  p.op('t');
  p.op('b');
  p.boolean(false);
  p.op(']');
  p.op('(');
  for (const auto& e : elements) {
    if (strings) p.text(e);
    else p.binary(e);
  }
  p.op('e');
  p.op('t');
  p.op('b');
  p.op('.');
}

void pickle_codec::decode_elements(std::span<const std::byte> encoded, std::span<std::string> out) const {
  if (out.size() != decoded_.num_elements())
    throw error(errc::invalid_argument, label() + ": expected room for " + std::to_string(decoded_.num_elements()) +
                                            " elements, got " + std::to_string(out.size()));
  unpickler u(encoded, label());
  const object_array array(u, u.run());
  std::uint64_t count = 1;
  for (const auto d : array.shape()) count = d != 0 && count > ~std::uint64_t{0} / d ? ~std::uint64_t{0} : count * d;
  if (count != out.size() || array.elements().size() != out.size())
    u.fail("expected " + std::to_string(out.size()) + " elements, got a shape of " + std::to_string(count) + " and " +
           std::to_string(array.elements().size()) + " elements");
  const bool strings = decoded_.type == data_type::string;
  const auto elements = array.in_memory_order();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto& e = u.at(elements[i]);
    const auto where = [&] { return label() + ": element " + std::to_string(i); };
    std::optional<std::string> value;
    if (e.k == kind::integer && e.number == 0) value.emplace();  // zarr-python 2's fill of object arrays
    else if (strings && e.k == kind::text) value = e.text;
    else if (!strings && e.k == kind::binary) value = e.text;
    else if (!strings && e.k == kind::call && u.at(e.items[0]).text == "_codecs encode") {
      const auto& args = u.at(e.items[1]).items;  // (text, 'latin1'): protocols 0 to 2's bytes
      if (args.size() == 2 && u.at(args[0]).k == kind::text && u.at(args[1]).k == kind::text && u.at(args[1]).text == "latin1")
        value = latin1(u.at(args[0]).text);
    } else if (!strings && e.k == kind::call && u.at(e.items[1]).items.empty() &&
               (u.at(e.items[0]).text == "__builtin__ bytes" || u.at(e.items[0]).text == "builtins bytes")) {
      value.emplace();  // bytes(): protocols 0 to 2's empty bytes
    }
    if (!value)
      throw error(errc::corrupt_chunk, where() + ": expected " + (strings ? "a str" : "bytes") + ", got " +
                                           std::string(kind_name(e.k)) +
                                           (e.k == kind::call ? " made by " + u.at(e.items[0]).text : std::string()));
    if (strings)
      if (const auto problem = utf8_problem(*value)) throw error(errc::corrupt_chunk, where() + ": " + *problem);
    out[i] = std::move(*value);
  }
}

void pickle_codec::do_encode_into(std::span<const std::byte> /*array*/, bytes& /*out*/) const {
  throw error(errc::invalid_argument, label() + ": expected the elements as strings (zarr::array::write_strings), got a buffer");
}

void pickle_codec::do_decode_into(std::span<const std::byte> /*encoded*/, std::span<std::byte> /*out*/) const {
  throw error(errc::invalid_argument, label() + ": decodes to strings (zarr::array::read_strings), not to a buffer");
}

std::unique_ptr<array_to_bytes_codec> make_pickle_codec(const codec_context& ctx) {
  const auto& config = configuration_object(ctx, {"protocol"});
  if (ctx.decoded.type != data_type::string && ctx.decoded.type != data_type::bytes)
    throw error(errc::unsupported, ctx.where + " (numcodecs.pickle): expected an array of data type string or bytes, got " +
                                       std::string(name(ctx.decoded.type)));
  int protocol = static_cast<int>(max_protocol);
  if (const auto* p = config.if_contains("protocol"); p != nullptr && !p->is_null()) {
    const auto* i = p->if_int64();
    if (i == nullptr || *i < 0 || *i > static_cast<std::int64_t>(max_protocol))
      throw error(errc::invalid_metadata, ctx.where + ".configuration.protocol: expected a pickle protocol from 0 to 5, got " +
                                              json::serialize(*p));
    protocol = static_cast<int>(*i);
  }
  return std::make_unique<pickle_codec>(ctx.decoded, protocol, ctx.where);
}

}  // namespace zarr
