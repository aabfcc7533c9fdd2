// documents.bin (docs/FORMAT.md) written in pieces by several processes:
// each holds a contiguous docid range and writes its records and its slice
// of the offsets table at their places, which follow from the document
// counts and record bytes of the ranges before it; one of them writes the
// header and the footer. The bytes equal IndexWriter's for the same
// documents appended in docid order.
#pragma once

#include <cstdint>
#include <string>

#include "invidx/messages.hpp"

namespace invidx {

inline constexpr uint64_t kDocumentsHeaderBytes = 16;

// Bytes of the record of a document whose name has `name_bytes` bytes.
inline uint64_t document_record_bytes(uint64_t name_bytes) { return 4 + name_bytes + 4 + 4 + 8; }
// One document's record appended to `out`.
void encode_document_record(std::string& out, const ParsedDoc& doc);
// One entry of the offsets table (where a record starts in the file)
// appended to `out`.
void encode_document_offset(std::string& out, uint64_t record_offset);
std::string encode_documents_header();
// The footer but its CRC-32: document count and table offset (16 of
// layout::kDocumentsFooterBytes).
std::string encode_documents_footer(uint64_t documents, uint64_t table_offset);

}  // namespace invidx
