// invidx doc IDX ID-or-NAME: one document's record.
#include <charconv>
#include <cstdint>
#include <iostream>
#include <optional>

#include "store/index_reader.hpp"
#include "tools/invidx/command.hpp"
#include "tools/invidx/output_escaping.hpp"

namespace invidx::cli {

namespace {

int run_doc(const Invocation& invocation) {
    const IndexReader index(invocation.args[0]);
    const std::string& key = invocation.args[1];
    std::optional<uint32_t> docid;
    uint64_t number = 0;
    const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), number);
    if (error == std::errc() && end == key.data() + key.size() && number < index.num_documents()) {
        docid = static_cast<uint32_t>(number);
    } else {
        docid = index.find_document(key);
    }
    if (!docid) throw NotFound("no document with docid or name '" + key + "'");
    const auto doc = index.document(*docid);
    if (invocation.json) {
        print_json({{"docid", doc.docid},
                    {"name", doc.name},
                    {"length", doc.length},
                    {"file_ordinal", doc.file_ordinal},
                    {"file", doc.file_path},
                    {"source_offset", doc.source_offset}});
    } else {
        // Names come from the input: control bytes print as \xHH (output_escaping.hpp).
        std::cout << "docid: " << doc.docid << "\nname: " << printable(doc.name) << "\nlength: " << doc.length
                  << "\nfile: " << printable(doc.file_path) << "\nsource_offset: " << doc.source_offset << "\n";
    }
    return kOk;
}

}  // namespace

Command doc_command() {
    return {.name = "doc",
            .synopsis = "invidx doc IDX ID-or-NAME",
            .description = "Prints one document: docid, name, length, input file and byte offset of the\n"
                           "record there. A number is tried as a docid first, then as a document name.\n"
                           "Text output prints control bytes and bytes that are not UTF-8 as \\xHH;\n"
                           "json replaces bytes that are not UTF-8 by U+FFFD.",
            .example = "  $ invidx doc idx clueweb09-en0000-00-00000\n"
                       "  docid: 0\n  name: clueweb09-en0000-00-00000\n  length: 412\n"
                       "  file: data/en0000/00.warc.gz\n  source_offset: 0\n",
            .min_args = 2,
            .max_args = 2,
            .run = run_doc};
}

}  // namespace invidx::cli
