#include "store/ciff_export.hpp"

#include <cstdint>
#include <limits>

#include "invidx/error.hpp"
#include "store/ciff_import.hpp"
#include "store/ciff_fields.hpp"
#include "store/output_path.hpp"
#include "store/protobuf_wire.hpp"
#include "store/replacing_file.hpp"

namespace invidx {
namespace {

namespace header = ciff_fields::header;
namespace postings_list = ciff_fields::postings_list;
namespace posting = ciff_fields::posting;
namespace doc_record = ciff_fields::doc_record;

int64_t as_int32(uint64_t value, const char* what) {
    ensure(value <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max()),
           std::string("CIFF export: ") + what + " " + std::to_string(value) + " does not fit CIFF's int32 field");
    return static_cast<int64_t>(value);
}

int64_t as_int64(uint64_t value, const char* what) {
    ensure(value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
           std::string("CIFF export: ") + what + " does not fit CIFF's int64 field");
    return static_cast<int64_t>(value);
}

// writeDelimitedTo: varint byte length, then the message.
void write_delimited(std::ostream& out, const std::string& message, std::string& scratch) {
    scratch.clear();
    protobuf::put_varint(scratch, message.size());
    out.write(scratch.data(), static_cast<std::streamsize>(scratch.size()));
    out.write(message.data(), static_cast<std::streamsize>(message.size()));
    ensure(static_cast<bool>(out), "CIFF export: cannot write the output stream");
}

}  // namespace

std::string default_ciff_description(const IndexReader& index) {
    // An index imported from CIFF gives back its file's description, so the
    // export of a canonical file is that file (store/ciff_import.hpp).
    if (const auto& report = index.report(); report && report->is_object() && report->contains(std::string(kCiffImportReportKey))) {
        const auto& imported = (*report)[std::string(kCiffImportReportKey)];
        if (imported.is_object() && imported.contains("header") && imported["header"].is_object() &&
            imported["header"].contains("description") && imported["header"]["description"].is_string()) {
            return imported["header"]["description"].get<std::string>();
        }
    }
    const auto& analysis = index.analysis();
    return "invidx index, format 1; stemmer " + analysis.stemmer + ", stopwords " + analysis.stopwords_name +
           (index.positional() ? ", positional" : "");
}

void export_ciff(const IndexReader& index, std::ostream& out, std::string description) {
    std::string message;
    std::string scratch;

    const int64_t terms = as_int32(index.num_terms(), "number of terms");
    const int64_t documents = as_int32(index.num_documents(), "number of documents");
    protobuf::put_int(message, header::version, 1);
    protobuf::put_int(message, header::num_postings_lists, terms);
    protobuf::put_int(message, header::num_doc_records, documents);
    protobuf::put_int(message, header::total_postings_lists, terms);
    protobuf::put_int(message, header::total_docs, documents);
    protobuf::put_int(message, header::total_terms_in_collection, as_int64(index.total_length(), "total length"));
    protobuf::put_double(message, header::average_doclength, index.average_length());
    protobuf::put_bytes(message, header::description, description);
    write_delimited(out, message, scratch);

    std::string posting_message;
    for (uint64_t i = 0; i < index.term_count(); ++i) {
        const auto info = index.term(i);
        const auto list = index.postings(i);
        message.clear();
        protobuf::put_bytes(message, postings_list::term, info.term);
        protobuf::put_int(message, postings_list::df, as_int64(info.df, "df"));
        protobuf::put_int(message, postings_list::cf, as_int64(info.cf, "cf"));
        uint32_t previous = 0;
        for (size_t k = 0; k < list.docids.size(); ++k) {
            // Docids as gaps, the first one absolute (CONTENT.md §9).
            posting_message.clear();
            protobuf::put_int(posting_message, posting::docid, as_int32(list.docids[k] - previous, "docid gap"));
            protobuf::put_int(posting_message, posting::tf, as_int32(list.tfs[k], "tf"));
            protobuf::put_bytes(message, postings_list::postings, posting_message, /*always=*/true);
            previous = list.docids[k];
        }
        write_delimited(out, message, scratch);
    }

    for (uint64_t docid = 0; docid < index.num_documents(); ++docid) {
        const auto doc = index.document(static_cast<uint32_t>(docid));
        message.clear();
        protobuf::put_int(message, doc_record::docid, static_cast<int64_t>(docid));
        protobuf::put_bytes(message, doc_record::collection_docid, doc.name);
        protobuf::put_int(message, doc_record::doclength, as_int32(doc.length, "document length"));
        write_delimited(out, message, scratch);
    }
    out.flush();
    ensure(static_cast<bool>(out), "CIFF export: cannot write the output stream");
}

void export_ciff_file(const IndexReader& index, const std::filesystem::path& file, std::string description) {
    const std::filesystem::path target = resolve_output_path(file);
    if (const auto inside = enclosing_index(target); !inside.empty()) {
        throw Error("refusing to write the CIFF file into the index directory " + inside.string() +
                        ": it would replace or add to the index's own files; write it outside the index",
                    ErrorContext{.node = "", .file = file.string(), .record = {}, .byte_offset = {}});
    }
    ReplacingFile out(target);
    try {
        export_ciff(index, out.stream(), std::move(description));
    } catch (const Error&) {
        // A failed write is best named by the system's reason ("No space
        // left on device"); any other error as it is. Either way the
        // partial file goes and the target stays as it was.
        out.throw_if_write_failed();
        throw;
    }
    out.commit();
}

}  // namespace invidx
