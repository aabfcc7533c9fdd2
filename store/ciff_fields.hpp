// Field numbers of CIFF's CommonIndexFileFormat.proto, shared by the
// exporter (store/ciff_export) and the importer (store/ciff_reader).
#pragma once

#include <cstdint>

namespace invidx::ciff_fields {

namespace header {
constexpr uint32_t version = 1, num_postings_lists = 2, num_doc_records = 3, total_postings_lists = 4,
                   total_docs = 5, total_terms_in_collection = 6, average_doclength = 7, description = 8;
}
namespace postings_list {
constexpr uint32_t term = 1, df = 2, cf = 3, postings = 4;
}
namespace posting {
constexpr uint32_t docid = 1, tf = 2;
}
namespace doc_record {
constexpr uint32_t docid = 1, collection_docid = 2, doclength = 3;
}

}  // namespace invidx::ciff_fields
