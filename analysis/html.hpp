// HTML text extraction (CONTENT.md §3): markup is cut out, each removed construct
// becoming one space so that it separates the tokens on either side. The
// rules themselves are in html_rules.hpp, shared with device code.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace invidx {

// Appends `in` to `out` with every CONTENT.md §3 construct replaced by one space:
//   1. `<!--` up to the next `-->` (searched after the `<!--`);
//   2. `<script` / `<style` (ASCII case-insensitive) followed by whitespace,
//      `>` or `/`, up to the next `</script` / `</style` and its closing `>`;
//   3. `<` followed by an ASCII letter, `/`, `!` or `?`, up to the next `>`;
//   4. `&` + 1..31 bytes of [A-Za-z0-9#] + `;` (a character reference).
// An unterminated construct runs to the end of `in`. Any other `<` or `&` is
// ordinary text. Rules are tried in that order, so `<!--` wins over rule 3.
void strip_html(std::string_view in, std::string& out);

// End (one past) of the construct that the '<' or '&' at `at` starts, or 0
// when that byte is ordinary text: what strip_html does at each '<' and '&',
// for scanners that find those bytes their own way.
size_t html_construct_end(std::string_view in, size_t at);

}  // namespace invidx
