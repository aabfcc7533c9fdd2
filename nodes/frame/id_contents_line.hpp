// The common JSON Lines record, {"id": "...", "contents": "..."} (Anserini's
// JsonCollection as Pyserini writes it), read without building a JSON tree:
// nlohmann's DOM parse was most of a JSONL build's CPU (its lexer builds
// every string a character at a time). Anything else (another key, a
// number for "id", a key twice or escaped, any JSON error, bytes that are
// not UTF-8) is not read here, and the caller parses the line the general
// way, so the records and every error stay nlohmann's.
#pragma once

#include <string>
#include <string_view>

namespace invidx {

// True when `line` is exactly such an object (either key order, JSON
// whitespace anywhere between tokens): `id` and `contents` then hold the
// decoded strings. False otherwise; `id` and `contents` are then unspecified.
bool read_id_contents_line(std::string_view line, std::string& id, std::string& contents);

}  // namespace invidx
