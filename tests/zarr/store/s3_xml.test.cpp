// The XML parser of zarr.store.s3 and the S3 documents read with it (ListObjectsV2, Error),
// and the HTTP header parsers of zarr.store.http: no server needed.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>
#include "../../support.hpp"
import zarr.error;
import zarr.store.http;
import zarr.store.s3;

BOOST_AUTO_TEST_SUITE(s3_xml)

BOOST_AUTO_TEST_CASE(reads_a_list_objects_v2_page_as_the_rados_gateway_sends_it) {
  const std::string doc =
      R"(<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">)"
      R"(<Name>b</Name><Prefix>dir/</Prefix><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>)"
      R"(<Contents><Key>dir/a&amp;b.txt</Key><ETag>&quot;5d41&quot;</ETag><Size>5</Size></Contents>)"
      R"(<Contents><Key>dir/&#x4e2d;&#20013;<![CDATA[<x>]]></Key><Size>1</Size></Contents>)"
      R"(<CommonPrefixes><Prefix>dir/sub/</Prefix></CommonPrefixes>)"
      R"(<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken></ListBucketResult>)";
  const auto page = zarr::parse_list_objects_v2(doc);
  BOOST_TEST(page.keys == (std::vector<std::string>{"dir/a&b.txt", "dir/\xe4\xb8\xad\xe4\xb8\xad<x>"}),
             boost::test_tools::per_element());
  BOOST_TEST(page.common_prefixes == std::vector<std::string>{"dir/sub/"}, boost::test_tools::per_element());
  BOOST_TEST(page.truncated);
  BOOST_TEST(page.next_continuation_token == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
}

BOOST_AUTO_TEST_CASE(reads_an_error_document_and_nothing_else_as_one) {
  const auto e = zarr::parse_s3_error(
      R"(<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchBucket</Code><Message>gone</Message>)"
      R"(<BucketName>nob</BucketName></Error>)");
  BOOST_TEST_REQUIRE(e.has_value());
  BOOST_TEST(e->code == "NoSuchBucket");
  BOOST_TEST(e->message == "gone");
  BOOST_TEST(!zarr::parse_s3_error("<ListBucketResult/>").has_value());
  BOOST_TEST(!zarr::parse_s3_error("<html>404 Not Found</html").has_value());
  BOOST_TEST(!zarr::parse_s3_error("").has_value());
}

BOOST_AUTO_TEST_CASE(rejects_malformed_documents_saying_where) {
  ZARR_CHECK_ERROR(zarr::parse_xml("<a><b></a>"), zarr::errc::io, "expected well-formed XML, got mismatched tag at line 1");
  ZARR_CHECK_ERROR(zarr::parse_xml("<a>"), zarr::errc::io, "expected well-formed XML, got no element found");
  ZARR_CHECK_ERROR(zarr::parse_xml("<a></a><b/>"), zarr::errc::io, "junk after document element");
  ZARR_CHECK_ERROR(zarr::parse_xml(""), zarr::errc::io, "expected well-formed XML, got no element found");
  // a namespace prefix with no local name after it (found by zarr.fuzz.s3_xml)
  ZARR_CHECK_ERROR(zarr::parse_xml("<F:/>"), zarr::errc::io, "expected a name after the namespace prefix");
  ZARR_CHECK_ERROR(zarr::parse_xml("<a>&bogus;</a>"), zarr::errc::io, "undefined entity");
  ZARR_CHECK_ERROR(zarr::parse_xml("<a>&#xD800;</a>"), zarr::errc::io, "reference to invalid character number");
  ZARR_CHECK_ERROR(zarr::parse_xml("<!DOCTYPE a><a/>"), zarr::errc::io, "expected no document type declaration");
  // entity expansion ("billion laughs") never starts: the declaration is refused first
  ZARR_CHECK_ERROR(zarr::parse_xml("<!DOCTYPE a [<!ENTITY x \"xxxxxxxx\"><!ENTITY y \"&x;&x;&x;&x;\">]><a>&y;</a>"),
                   zarr::errc::io, "expected no document type declaration");
  ZARR_CHECK_ERROR(zarr::parse_xml(std::string(100, '<')), zarr::errc::io, "not well-formed");
  std::string deep;
  for (int i = 0; i < 65; ++i) deep += "<a>";
  ZARR_CHECK_ERROR(zarr::parse_xml(deep), zarr::errc::io, "at most 64 levels");
  ZARR_CHECK_ERROR(zarr::parse_list_objects_v2("<Error/>"), zarr::errc::io, "expected <ListBucketResult>, got <Error>");
  ZARR_CHECK_ERROR(zarr::parse_list_objects_v2("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"),
                   zarr::errc::io, "NextContinuationToken");
  ZARR_CHECK_ERROR(zarr::parse_list_objects_v2("<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>"),
                   zarr::errc::io, "<Key>");
}

BOOST_AUTO_TEST_CASE(decodes_keys_and_prefixes_of_an_answer_with_encoding_type_url) {
  // AWS's ListObjectsV2 with encoding-type=url: Key and Prefix percent-encoded, the token not.
  const auto page = zarr::parse_list_objects_v2(
      "<ListBucketResult><EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>"
      "<Contents><Key>dir/a%20b%2Bc%E4%B8%AD%01</Key></Contents><Contents><Key>dir/x+y</Key></Contents>"
      "<CommonPrefixes><Prefix>dir/s%2Fub/</Prefix></CommonPrefixes>"
      "<NextContinuationToken>a%2Fb</NextContinuationToken></ListBucketResult>");
  BOOST_TEST(page.keys == (std::vector<std::string>{"dir/a b+c\xe4\xb8\xad\x01", "dir/x y"}), boost::test_tools::per_element());
  BOOST_TEST(page.common_prefixes == std::vector<std::string>{"dir/s/ub/"}, boost::test_tools::per_element());
  BOOST_TEST(page.next_continuation_token == "a%2Fb");
  ZARR_CHECK_ERROR(zarr::parse_list_objects_v2("<ListBucketResult><EncodingType>url</EncodingType>"
                                               "<Contents><Key>a%zz</Key></Contents></ListBucketResult>"),
                   zarr::errc::io, "expected a percent-encoded <Key>, got \"a%zz\"");
  ZARR_CHECK_ERROR(zarr::parse_list_objects_v2("<ListBucketResult><EncodingType>url</EncodingType>"
                                               "<Contents><Key>a%4</Key></Contents></ListBucketResult>"),
                   zarr::errc::io, "expected a percent-encoded <Key>");
  ZARR_CHECK_ERROR(zarr::parse_list_objects_v2("<ListBucketResult><EncodingType>base64</EncodingType></ListBucketResult>"),
                   zarr::errc::io, "expected <EncodingType> url, got \"base64\"");
}

BOOST_AUTO_TEST_CASE(parses_attributes_comments_and_namespaces_away) {
  const auto root = zarr::parse_xml("<!-- c --><s3:R a='1' b=\"x>y\"><s3:K>v</s3:K><!-- <K>w</K> --><E/></s3:R>\n");
  BOOST_TEST(root.name == "R");
  BOOST_TEST_REQUIRE(root.children.size() == 2u);
  BOOST_TEST(root.child("K")->text == "v");
  BOOST_TEST(root.child("E")->text.empty());
  BOOST_TEST(root.child("Z") == nullptr);
}

BOOST_AUTO_TEST_CASE(parses_content_range_and_header_lines) {
  const auto r = zarr::parse_content_range("bytes 10-19/100\r\n");
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->first == 10u);
  BOOST_TEST(r->last == 19u);
  BOOST_TEST(*r->total == 100u);
  BOOST_TEST(!zarr::parse_content_range("bytes 10-19/*")->total.has_value());
  BOOST_TEST(!zarr::parse_content_range("bytes */100").has_value());
  BOOST_TEST(!zarr::parse_content_range("bytes 19-10/100").has_value());
  BOOST_TEST(!zarr::parse_content_range("bytes 10-100/100").has_value());
  BOOST_TEST(!zarr::parse_content_range("items 1-2/3").has_value());
  BOOST_TEST(!zarr::parse_content_range("bytes 1-99999999999999999999/3").has_value());
  const auto h = zarr::parse_header_line("ETag:  \"abc\" \r\n");
  BOOST_TEST_REQUIRE(h.has_value());
  BOOST_TEST(h->name == "etag");
  BOOST_TEST(h->value == "\"abc\"");
  BOOST_TEST(!zarr::parse_header_line("HTTP/1.1 200 OK\r\n").has_value());
  BOOST_TEST(!zarr::parse_header_line("\r\n").has_value());
  BOOST_TEST(zarr::percent_encode("a/b c~é", true) == "a/b%20c~%C3%A9");
  BOOST_TEST(zarr::percent_encode("a/b", false) == "a%2Fb");
}

BOOST_AUTO_TEST_SUITE_END()
