// How names, terms and query text are written where their bytes could break
// the output (docs/QUERY.md "Output"):
//  - text output (doc, term, search): control bytes (C0, DEL, the C1
//    controls U+0080..U+009F) and bytes that are not UTF-8 become \xHH, so
//    a name cannot move the cursor, change colours or split a line, on a
//    terminal or in a file alike;
//  - TREC run lines (search --format trec): whitespace and control bytes in
//    a document name become %HH, so the line keeps its six fields;
//  - JSON: bytes that are not UTF-8 become U+FFFD (print_json, command.hpp).
#pragma once

#include <string>
#include <string_view>

namespace invidx::cli {

// `text` for a human reader: valid, printable UTF-8 unchanged; every other
// byte as \xHH.
std::string printable(std::string_view text);

// `name` as one field of a TREC run line: bytes up to and including space,
// and DEL, as %HH; every other byte unchanged (so every name that was a
// valid TREC docno prints as it is).
std::string trec_field(std::string_view name);

}  // namespace invidx::cli
