#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/tokenize.hpp"

namespace {

std::vector<std::string> tokens(std::string_view text) {
    std::vector<std::string> out;
    invidx::tokenize(text, [&](std::string_view token) { out.emplace_back(token); });
    return out;
}

using Tokens = std::vector<std::string>;

}  // namespace

TEST_CASE("tokenize: ASCII letters and digits form tokens, the rest separates") {
    CHECK(tokens("Hello, World! 42nd-street_x") == Tokens{"hello", "world", "42nd", "street", "x"});
    CHECK(tokens("").empty());
    CHECK(tokens(" \t\r\n.,;").empty());
    CHECK(tokens("a<3b") == Tokens{"a", "3b"});
    CHECK(tokens(std::string("a\0b", 3)) == Tokens{"a", "b"});
    CHECK(tokens("a\x7f" "b") == Tokens{"a", "b"});  // DEL is a control byte
}

TEST_CASE("tokenize: only ASCII A-Z are lowercased") {
    // U+00C9 (C3 89) is kept as is; U+00E9 (C3 A9) is a different token.
    CHECK(tokens("\xC3\x89" "COLE \xC3\xA9" "cole") == Tokens{"\xC3\x89" "cole", "\xC3\xA9" "cole"});
    CHECK(tokens("\xD0\x9C\xD0\x98\xD0\xA0") == Tokens{"\xD0\x9C\xD0\x98\xD0\xA0"});  // Cyrillic capitals kept
}

TEST_CASE("tokenize: boundaries of the excepted code point ranges") {
    // U+0080 and U+00BF separate; U+00C0 is a token character.
    CHECK(tokens("a\xC2\x80" "b") == Tokens{"a", "b"});
    CHECK(tokens("a\xC2\xBF" "b") == Tokens{"a", "b"});
    CHECK(tokens("a\xC3\x80" "b") == Tokens{"a\xC3\x80" "b"});
    // U+00D7 and U+00F7 separate, their neighbours do not.
    CHECK(tokens("a\xC3\x97" "b") == Tokens{"a", "b"});
    CHECK(tokens("a\xC3\x96" "b") == Tokens{"a\xC3\x96" "b"});
    CHECK(tokens("a\xC3\x98" "b") == Tokens{"a\xC3\x98" "b"});
    CHECK(tokens("a\xC3\xB7" "b") == Tokens{"a", "b"});
    CHECK(tokens("a\xC3\xB6" "b") == Tokens{"a\xC3\xB6" "b"});
    CHECK(tokens("a\xC3\xB8" "b") == Tokens{"a\xC3\xB8" "b"});
    // U+1FFF token, U+2000..U+206F separate, U+2070 token.
    CHECK(tokens("a\xE1\xBF\xBF" "b") == Tokens{"a\xE1\xBF\xBF" "b"});
    CHECK(tokens("a\xE2\x80\x80" "b") == Tokens{"a", "b"});
    CHECK(tokens("a\xE2\x80\x94" "b") == Tokens{"a", "b"});  // em dash
    CHECK(tokens("a\xE2\x81\xAF" "b") == Tokens{"a", "b"});
    CHECK(tokens("a\xE2\x81\xB0" "b") == Tokens{"a\xE2\x81\xB0" "b"});
    // U+2FFF token, U+3000..U+303F separate, U+3040 token.
    CHECK(tokens("a\xE2\xBF\xBF" "b") == Tokens{"a\xE2\xBF\xBF" "b"});
    CHECK(tokens("a\xE3\x80\x80" "b") == Tokens{"a", "b"});
    CHECK(tokens("a\xE3\x80\x82" "b") == Tokens{"a", "b"});  // ideographic full stop
    CHECK(tokens("a\xE3\x80\xBF" "b") == Tokens{"a", "b"});
    CHECK(tokens("a\xE3\x81\x80" "b") == Tokens{"a\xE3\x81\x80" "b"});
    // Four-byte characters, up to U+10FFFF, are token characters.
    CHECK(tokens("a\xF0\x9F\x98\x80" "b") == Tokens{"a\xF0\x9F\x98\x80" "b"});
    CHECK(tokens("a\xF4\x8F\xBF\xBF" "b") == Tokens{"a\xF4\x8F\xBF\xBF" "b"});
    // Just outside the surrogates.
    CHECK(tokens("a\xED\x9F\xBF" "b") == Tokens{"a\xED\x9F\xBF" "b"});
    CHECK(tokens("a\xEE\x80\x80" "b") == Tokens{"a\xEE\x80\x80" "b"});
}

TEST_CASE("tokenize: every byte of an ill-formed sequence separates") {
    CHECK(tokens("a\xC0\x80" "b") == Tokens{"a", "b"});          // overlong NUL
    CHECK(tokens("a\xC1\xBF" "b") == Tokens{"a", "b"});          // overlong
    CHECK(tokens("a\xE0\x80\x80" "b") == Tokens{"a", "b"});      // overlong 3-byte
    CHECK(tokens("a\xE0\x9F\xBF" "b") == Tokens{"a", "b"});      // overlong 3-byte, top
    CHECK(tokens("a\xF0\x8F\xBF\xBF" "b") == Tokens{"a", "b"});  // overlong 4-byte
    CHECK(tokens("a\xED\xA0\x80" "b") == Tokens{"a", "b"});      // surrogate U+D800
    CHECK(tokens("a\xED\xBF\xBF" "b") == Tokens{"a", "b"});      // surrogate U+DFFF
    CHECK(tokens("a\xF4\x90\x80\x80" "b") == Tokens{"a", "b"});  // U+110000
    CHECK(tokens("a\xF5\x80\x80\x80" "b") == Tokens{"a", "b"});
    CHECK(tokens("a\xFF" "b") == Tokens{"a", "b"});
    CHECK(tokens("a\x80" "b\xBF" "c") == Tokens{"a", "b", "c"});  // stray continuation bytes
    // Truncated sequences: at the end, and followed by ASCII.
    CHECK(tokens("ab\xE3\x81") == Tokens{"ab"});
    CHECK(tokens("ab\xF0\x9F\x98") == Tokens{"ab"});
    CHECK(tokens("a\xE3\x81" "b") == Tokens{"a", "b"});
    CHECK(tokens("a\xC3" "b") == Tokens{"a", "b"});
    // After a rejected lead byte the next byte is tried afresh: here it starts
    // a valid U+00E9, which is a token of its own.
    CHECK(tokens("a\xE3\xC3\xA9" "b") == Tokens{"a", "\xC3\xA9" "b"});
    CHECK(tokens("\xF0\xE3\x81\x80") == Tokens{"\xE3\x81\x80"});
}

TEST_CASE("tokenize: tokens longer than 255 bytes are dropped") {
    const std::string a255(255, 'a');
    const std::string a256(256, 'a');
    CHECK(tokens("x " + a255 + " y") == Tokens{"x", a255, "y"});
    CHECK(tokens("x " + a256 + " y") == Tokens{"x", "y"});
    CHECK(tokens(a256) == Tokens{});
    CHECK(tokens(std::string(100000, 'Q') + " end") == Tokens{"end"});
    // Multibyte characters count by their bytes.
    const std::string e = "\xC3\xA9";
    CHECK(tokens(std::string(253, 'a') + e) == Tokens{std::string(253, 'a') + e});
    CHECK(tokens(std::string(254, 'a') + e + " z") == Tokens{"z"});
    // Uppercase beyond the cut is not written past the buffer, and the
    // following token is intact.
    CHECK(tokens(std::string(300, 'A') + "." + std::string(255, 'B')) == Tokens{std::string(255, 'b')});
}

TEST_CASE("token bytes: the ASCII table is ascii_token_byte, letters and digits only") {
    for (int c = 0; c < 128; ++c) {
        INFO("byte " << c);
        char expected = 0;
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')) expected = static_cast<char>(c);
        if (c >= 'A' && c <= 'Z') expected = static_cast<char>(c + 32);
        CHECK(invidx::utf8::ascii_token_byte(static_cast<unsigned char>(c)) == static_cast<unsigned char>(expected));
        CHECK(invidx::utf8::kAsciiTokenTable.lowered[c] == static_cast<unsigned char>(expected));
    }
}

// The classes are constexpr functions (device code calls them as well).
static_assert(invidx::utf8::ascii_token_byte('Q') == 'q');
static_assert(invidx::utf8::is_separator_code_point(0x2014));
static_assert(!invidx::utf8::is_separator_code_point(0x20AC));
constexpr unsigned char kEuro[] = {0xE2, 0x82, 0xAC};
static_assert(invidx::utf8::classify_multibyte(kEuro, kEuro + 3).bytes == 3);
static_assert(invidx::utf8::classify_multibyte(kEuro, kEuro + 3).token);
static_assert(!invidx::utf8::classify_multibyte(kEuro, kEuro + 2).token);
