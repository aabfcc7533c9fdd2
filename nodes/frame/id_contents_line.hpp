// The common JSON Lines record, {"id": "...", "contents": "..."} (Anserini's
// JsonCollection as Pyserini writes it), with or without other fields
// whose values are strings (title, url: the record's metadata), read
// without building a JSON tree: nlohmann's DOM parse was most of a JSONL
// build's CPU (its lexer builds every string a character at a time).
// Anything else (a value that is not a string, "id" or any key twice, any
// JSON error, bytes that are not UTF-8) is not read here, and the caller
// parses the line the general way, so the records and every error stay
// nlohmann's.
#pragma once

#include <string>
#include <string_view>

namespace invidx {

// True when `line` is such an object (any key order, JSON whitespace
// anywhere between tokens): `id` and `contents` then hold the decoded
// strings, and `metadata` the other fields as nlohmann writes that object
// (keys in byte order, no spaces; empty when there are none). False
// otherwise; the outputs are then unspecified.
bool read_id_contents_line(std::string_view line, std::string& id, std::string& contents, std::string& metadata);

}  // namespace invidx
