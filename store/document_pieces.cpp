#include "store/document_pieces.hpp"

#include "invidx/error.hpp"
#include "store/index_layout.hpp"
#include "store/little_endian_append.hpp"

namespace invidx {
void encode_document_record(std::string& out, const ParsedDoc& doc) {
    ensure(doc.name.size() <= UINT32_MAX, "a document name of " + std::to_string(doc.name.size()) + " bytes is too long");
    put_u32(out, static_cast<uint32_t>(doc.name.size()));
    out += doc.name;
    put_u32(out, doc.length);
    put_u32(out, doc.file_ordinal);
    put_u64(out, doc.source_offset);
}

void encode_document_offset(std::string& out, uint64_t record_offset) { put_u64(out, record_offset); }

std::string encode_documents_header() {
    std::string out(layout::kDocumentsMagic);
    put_u32(out, layout::kFileVersion);
    put_u32(out, 0);  // reserved
    return out;
}

std::string encode_documents_footer(uint64_t documents, uint64_t table_offset) {
    std::string out;
    put_u64(out, documents);
    put_u64(out, table_offset);
    return out;
}

}  // namespace invidx
