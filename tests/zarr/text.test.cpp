// zarr.text: UTF-8 validity (RFC 3629, section 4 "Syntax of UTF-8 Byte Sequences") and base64
// with padding (RFC 4648, section 4; the test vectors of its section 10).
#include <boost/test/unit_test.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>
import zarr;

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

BOOST_AUTO_TEST_SUITE_END()
