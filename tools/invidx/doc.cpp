// invidx doc IDX (--docid N | --name NAME | KEY): one document's record.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "store/document_store_reader.hpp"
#include "store/index_reader.hpp"
#include "tools/invidx/command.hpp"
#include "tools/invidx/output_escaping.hpp"

namespace invidx::cli {

namespace {

bool all_digits(const std::string& word) {
    return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The docid that --docid, --name or a bare KEY asks for. A bare KEY is a
// name unless it is all digits; digits are a docid when no document has
// that name, a name when it is no docid, and ambiguous (a usage error) when
// both, so a name is never read as a number.
uint32_t resolve_docid(const Invocation& invocation, const IndexReader& index) {
    const auto by_docid = [&](const std::string& text) -> uint32_t {
        uint64_t number = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
        if (!all_digits(text) || error != std::errc() || end != text.data() + text.size())
            throw UsageError("--docid expects a docid (0, 1, ...), not '" + text + "'");
        if (number >= index.num_documents())
            throw NotFound("no document with docid " + text + " (the index has " +
                           std::to_string(index.num_documents()) + " documents)");
        return static_cast<uint32_t>(number);
    };
    const auto by_name = [&](const std::string& name) -> uint32_t {
        const std::vector<uint32_t> named = index.find_documents_by_name(name);
        if (named.empty()) throw NotFound("no document named '" + name + "'");
        if (named.size() > 1) {
            // Names should be unique; where not, the lowest docid is shown, and said so.
            std::cerr << "invidx: note: " << named.size() << " documents have this name (docids";
            for (const uint32_t other : named) std::cerr << " " << other;
            std::cerr << "); showing docid " << named.front() << "\n";
        }
        return named.front();
    };
    if (const auto docid = invocation.flags.value("--docid")) return by_docid(*docid);
    if (const auto name = invocation.flags.value("--name")) return by_name(*name);
    const std::string& key = invocation.args[1];
    if (!all_digits(key)) return by_name(key);
    const bool is_name = index.find_document_by_name(key).has_value();
    uint64_t number = 0;
    const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), number);
    const bool is_docid = error == std::errc() && end == key.data() + key.size() && number < index.num_documents();
    if (is_name && is_docid)
        throw UsageError("'" + key + "' is ambiguous: both a docid and a document name; use --docid " + key +
                         " or --name " + key);
    if (is_name) return by_name(key);
    if (is_docid) return static_cast<uint32_t>(number);
    throw NotFound("no document with docid or name '" + key + "'");
}

void check_doc(const Invocation& invocation) {
    const bool docid = invocation.flags.has("--docid"), name = invocation.flags.has("--name");
    if (invocation.flags.has("--help")) return;
    if (docid && name) throw UsageError("give --docid or --name, not both");
    const size_t keys = invocation.args.size() > 1 ? invocation.args.size() - 1 : 0;
    if ((docid || name) && keys > 0) throw UsageError("give --docid N, --name NAME or a bare KEY, not two of them");
    if (!docid && !name && keys == 0) throw UsageError("which document? give --docid N or --name NAME");
}

int run_doc(const Invocation& invocation) {
    const IndexReader index(invocation.args[0]);
    const std::optional<uint32_t> docid = resolve_docid(invocation, index);
    const auto doc = index.document(*docid);
    // --text: the text and metadata from the document store (an Error
    // saying how to build one when the index has none).
    std::optional<StoredDocument> stored;
    if (invocation.flags.has("--text")) stored = DocumentStoreReader(index).document(*docid);
    if (invocation.json) {
        nlohmann::json out = {{"docid", doc.docid},
                              {"name", doc.name},
                              {"length", doc.length},
                              {"file_ordinal", doc.file_ordinal},
                              {"file", doc.file_path},
                              {"source_offset", doc.source_offset}};
        if (stored) {
            out["text"] = stored->text;
            out["metadata"] = stored->metadata.empty() ? nlohmann::json::object() : nlohmann::json::parse(stored->metadata);
        }
        print_json(out);
    } else if (stored) {
        // The bytes as indexed, unescaped: for a reader or a reranker.
        std::cout << stored->text;
        if (stored->text.empty() || stored->text.back() != '\n') std::cout << '\n';
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
            .synopsis = "invidx doc IDX (--docid N | --name NAME | KEY)",
            .description = "Prints one document: docid, name, length, input file and byte offset of the\n"
                           "record there. --docid N takes a docid, --name NAME a document name (digits\n"
                           "too: MS MARCO's \"0\" is a name). A bare KEY is a name unless it is all\n"
                           "digits; digits are the docid when no document has that name, the name\n"
                           "when they are no docid, and an error (exit 2) when they are both.\n"
                           "A name that several documents have gives the lowest docid, with a note on\n"
                           "stderr listing them all (the build reported them: report.json\n"
                           "\"duplicate_names\").\n"
                           "Text output prints control bytes and bytes that are not UTF-8 as \\xHH;\n"
                           "json replaces bytes that are not UTF-8 by U+FFFD.",
            .example = "  $ invidx doc idx clueweb09-en0000-00-00000\n"
                       "  docid: 0\n  name: clueweb09-en0000-00-00000\n  length: 412\n"
                       "  file: data/en0000/00.warc.gz\n  source_offset: 0\n",
            .min_args = 1,
            .max_args = 2,
            .flags = {{.name = "--docid", .value_name = "N", .help = "the document with this docid (0, 1, ...)"},
                      {.name = "--name", .value_name = "NAME", .help = "the document with this name (digits are a name)"},
                      {.name = "--text",
                       .help = "the document's text as indexed (and with --format json its JSONL metadata);\n"
                               "needs an index built with \"store\": {\"documents\": true}"}},
            .check = check_doc,
            .run = run_doc};
}

}  // namespace invidx::cli
