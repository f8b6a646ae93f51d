// zarr.text: UTF-8 validity (RFC 3629, section 4 "Syntax of UTF-8 Byte Sequences"), code points
// as UTF-8 (RFC 3629's examples, section 7) and as JSON escapes (RFC 8259, section 7's G clef),
// and base64 with padding (RFC 4648, section 4; the test vectors of its section 10).
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>
import zarr.text;

BOOST_AUTO_TEST_SUITE(text)

BOOST_AUTO_TEST_CASE(encodes_and_decodes_the_test_vectors_of_rfc_4648) {
  const std::vector<std::pair<std::string, std::string>> vectors{
      {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},        {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [data, text] : vectors) {
    BOOST_TEST(zarr::base64_encode(data) == text);
    BOOST_TEST(zarr::base64_decode(text).value_or("(refused)") == data);
  }
  BOOST_TEST(zarr::base64_encode(std::string("\x00\xff\xfe", 3)) == "AP/+");
}

BOOST_AUTO_TEST_CASE(refuses_base64_text_with_any_other_form) {
  for (const std::string bad : {"Zg", "Zg=", "Z===", "Zm9v=", "Zh==", "Zm9*", "Zg==Zg==", "=Zg="})
    BOOST_TEST(!zarr::base64_decode(bad).has_value(), bad);
}

BOOST_AUTO_TEST_CASE(finds_the_first_byte_that_is_no_utf_8) {
  // RFC 3629's examples: "A<NOT IDENTICAL TO><ALPHA>.", Korean, Japanese, a U+233B4 character.
  for (const std::string good : {"\x41\xE2\x89\xA2\xCE\x91\x2E", "\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4",
                                 "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", "\xEF\xBB\xBF\xF0\xA3\x8E\xB4", ""})
    BOOST_TEST(!zarr::invalid_utf8_at(good).has_value());
  const std::vector<std::pair<std::string, std::size_t>> bad{
      {"ab\xC0\x80", 2},          // an overlong NUL
      {"\xED\xA0\x80", 0},        // a surrogate (U+D800)
      {"x\xF4\x90\x80\x80", 1},   // above U+10FFFF
      {"\xE2\x89", 0},            // cut short
      {"ok\x80", 2},              // a continuation byte alone
      {"\xFF", 0}};
  for (const auto& [s, at] : bad) BOOST_TEST(zarr::invalid_utf8_at(s).value_or(~std::size_t{0}) == at);
  BOOST_TEST(zarr::utf8_problem("ok\xff").value_or("") == "expected UTF-8, got the byte 0xff at offset 2");
  BOOST_TEST(!zarr::utf8_problem("ok").has_value());
}

BOOST_AUTO_TEST_CASE(code_points_go_to_and_from_utf_8_as_rfc_3629s_examples_show) {
  // RFC 3629, section 7: U+0041 U+2262 U+0391 U+002E; U+D55C U+AD6D U+C5B4; U+65E5 U+672C U+8A9E;
  // U+FEFF U+233B4.
  const std::vector<std::pair<std::vector<std::uint32_t>, std::string>> examples{
      {{0x41, 0x2262, 0x391, 0x2E}, "\x41\xE2\x89\xA2\xCE\x91\x2E"},
      {{0xD55C, 0xAD6D, 0xC5B4}, "\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4"},
      {{0x65E5, 0x672C, 0x8A9E}, "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"},
      {{0xFEFF, 0x233B4}, "\xEF\xBB\xBF\xF0\xA3\x8E\xB4"},
      {{0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF},  // each length's first and last
       "\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF"}};
  for (const auto& [points, text] : examples) {
    std::string written;
    for (const auto c : points) zarr::append_utf8(written, c);
    BOOST_TEST(written == text);
    std::vector<std::uint32_t> read;
    for (std::size_t i = 0; i < text.size();) read.push_back(zarr::next_code_point(text, i));
    BOOST_TEST(read == points, boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(json_escapes_are_four_lowercase_digits_and_surrogate_pairs_past_u_ffff) {
  // RFC 8259, section 7: the G clef U+1D11E is "\ud834\udd1e" (Python's json.dumps writes
  // lowercase digits, as zarr-python 2's .zarray files and numcodecs' JSON chunks show).
  std::string out;
  for (const std::uint32_t c : {0x1Fu, 0xE9u, 0x2262u, 0x1D11Eu, 0x10FFFFu}) zarr::append_json_escape(out, c);
  BOOST_TEST(out == R"(\u001f\u00e9\u2262\ud834\udd1e\udbff\udfff)");
}

BOOST_AUTO_TEST_SUITE_END()
