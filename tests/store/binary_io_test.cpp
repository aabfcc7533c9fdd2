#include <doctest/doctest.h>

#include <string>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/crc32.hpp"
#include "support/temp_dir.hpp"

using invidx::testing::TempDir;
using invidx::testing::read_file;

TEST_CASE("BinaryWriter writes little-endian fields and a trailing CRC-32") {
    TempDir dir;
    const auto path = dir / "fields.bin";
    invidx::BinaryWriter out(path);
    out.u32(0x01020304u);
    out.u64(0x1122334455667788ull);
    out.string("hi");
    CHECK(out.position() == 4 + 8 + 4 + 2);
    out.finish_with_crc();

    const std::string bytes = read_file(path);
    const std::string body("\x04\x03\x02\x01\x88\x77\x66\x55\x44\x33\x22\x11\x02\x00\x00\x00hi", 18);
    REQUIRE(bytes.size() == 22);
    CHECK(bytes.substr(0, 18) == body);
    const uint32_t crc = invidx::crc32(body);
    CHECK(static_cast<unsigned char>(bytes[18]) == (crc & 0xFF));
    CHECK(static_cast<unsigned char>(bytes[21]) == (crc >> 24));
    CHECK_NOTHROW(invidx::check_trailing_crc("fields.bin", bytes));

    invidx::BinaryReader in("fields.bin", bytes);
    CHECK(in.u32("a") == 0x01020304u);
    CHECK(in.u64("b") == 0x1122334455667788ull);
    CHECK(in.string("c") == "hi");
}

TEST_CASE("BinaryWriter handles writes larger than its buffer") {
    TempDir dir;
    const auto path = dir / "big.bin";
    std::string big(3 << 20, '\0');
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31);
    invidx::BinaryWriter out(path);
    out.bytes("head");
    out.bytes(big);
    out.bytes("tail");
    out.finish();
    CHECK(read_file(path) == "head" + big + "tail");
}

TEST_CASE("BinaryReader names the file and field when bytes run out") {
    const std::string bytes("\x05\x00\x00\x00" "abc", 7);  // says 5 bytes, has 3
    invidx::BinaryReader in("dir/x.bin", bytes);
    try {
        (void)in.string("name");
        FAIL("expected a FormatError");
    } catch (const invidx::FormatError& error) {
        const std::string what = error.what();
        CHECK(what.find("dir/x.bin") != std::string::npos);
        CHECK(what.find("'name'") != std::string::npos);
    }
    const std::string wrong_magic("NOTMAGIC\x01\x00\x00\x00", 12);
    invidx::BinaryReader magic("dir/y.bin", wrong_magic);
    CHECK_THROWS_AS(magic.expect_header("INVIDXPO", 1), invidx::FormatError);
    const std::string wrong_version("INVIDXPO\x02\x00\x00\x00", 12);
    invidx::BinaryReader version("dir/y.bin", wrong_version);
    CHECK_THROWS_WITH_AS(version.expect_header("INVIDXPO", 1), doctest::Contains("'version'"), invidx::FormatError);
}

TEST_CASE("check_trailing_crc rejects a changed byte and a too short file") {
    std::string bytes = "payload";
    const uint32_t crc = invidx::crc32(bytes);
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((crc >> (8 * i)) & 0xFF));
    CHECK_NOTHROW(invidx::check_trailing_crc("f", bytes));
    bytes[2] ^= 0x10;
    CHECK_THROWS_WITH_AS(invidx::check_trailing_crc("f", bytes), doctest::Contains("crc32"), invidx::FormatError);
    CHECK_THROWS_AS(invidx::check_trailing_crc("f", "ab"), invidx::FormatError);
}

TEST_CASE("BinaryWriter on an unwritable path names the file") {
    TempDir dir;
    const auto blocker = dir.write("plain-file", "x");
    CHECK_THROWS_WITH_AS(invidx::BinaryWriter(blocker / "child.bin"), doctest::Contains("plain-file/child.bin"), invidx::Error);
}
