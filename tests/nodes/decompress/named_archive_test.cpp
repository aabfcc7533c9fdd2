#include "nodes/decompress/named_archive.hpp"

#include <doctest/doctest.h>

namespace invidx {
namespace {

TEST_CASE("the archive a file's name declares, outermost first, case ignored") {
    CHECK(archive_named_by_file("dir/a.tar") == NamedArchive::tar);
    CHECK(archive_named_by_file("a.TGZ") == NamedArchive::tar);
    CHECK(archive_named_by_file("a.warc.tar.gz") == NamedArchive::tar);
    CHECK(archive_named_by_file("a.tar.zst") == NamedArchive::tar);
    CHECK(archive_named_by_file("a.zip") == NamedArchive::zip);
    CHECK(archive_named_by_file("a.tar.zip") == NamedArchive::zip);
    CHECK(archive_named_by_file("a.warc.gz") == NamedArchive::none);
    CHECK(archive_named_by_file("a.txt") == NamedArchive::none);
    CHECK(archive_named_by_file("tar.d/a.txt") == NamedArchive::none);
    CHECK(archive_named_by_file(".tar") == NamedArchive::none);
}

}  // namespace
}  // namespace invidx
