#include "store/ciff_import.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/error.hpp"
#include "invidx/messages.hpp"
#include "store/binary_io.hpp"
#include "store/codecs/vbyte.hpp"
#include "store/index_writer.hpp"
#include "store/output_path.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;

ErrorContext at_byte(const std::string& file, uint64_t offset) {
    ErrorContext context = in_file(file);
    context.byte_offset = offset;
    return context;
}

// Run files of one part (indexer 0) whose slots are filled in file order.
// A list that does not fit the current run continues in the next one: its
// partial lists concatenate in run order (docs/FORMAT.md, "dictionary.bin").
class RunBuilder {
public:
    RunBuilder(IndexWriter& writer, uint64_t run_bytes) : writer_(writer), run_bytes_(std::max<uint64_t>(run_bytes, 1)) {
        start_part();
    }

    // A new term's list; its partial lists are added to `lists`.
    void start_list(std::vector<PartialListRef>& lists) {
        if (part_.bytes.size() >= run_bytes_ && !part_.list_counts.empty()) write_part();
        lists_ = &lists;
        open_slot();
    }

    void add(std::span<const CiffPosting> postings) {
        for (const CiffPosting& posting : postings) {
            if (part_.bytes.size() >= run_bytes_ && slot_postings_ > 0) {
                close_slot();
                write_part();
                open_slot();
            }
            // A partial list's first gap is from the run's docid base, 0.
            vbyte::put(part_.bytes, slot_postings_ == 0 ? posting.docid : posting.gap);
            vbyte::put(part_.bytes, posting.tf);
            ++slot_postings_;
        }
    }

    void end_list() { close_slot(); }

    // Writes what is held; an index without postings still has run 0.
    void finish() {
        if (!part_.list_counts.empty() || next_run_ == 0) write_part();
    }

    uint32_t runs() const { return next_run_; }

private:
    void start_part() {
        part_ = CompressedRun{};
        part_.run = next_run_;
        part_.indexer = 0;
        part_.indexer_count = 1;
        part_.end_of_input = true;
        part_.list_offsets = {0};
    }

    void open_slot() {
        lists_->push_back(PartialListRef{.run = next_run_, .indexer = 0, .slot = static_cast<uint32_t>(part_.list_counts.size())});
        slot_postings_ = 0;
    }

    void close_slot() {
        part_.list_counts.push_back(static_cast<uint32_t>(slot_postings_));
        part_.list_offsets.push_back(part_.bytes.size());
        part_.postings += slot_postings_;
    }

    void write_part() {
        std::vector<CompressedRun> parts;
        if (!part_.list_counts.empty()) parts.push_back(std::move(part_));
        writer_.write_run(next_run_, std::move(parts));
        ++next_run_;
        start_part();
    }

    IndexWriter& writer_;
    uint64_t run_bytes_;
    CompressedRun part_;
    uint32_t next_run_ = 0;
    uint64_t slot_postings_ = 0;
    std::vector<PartialListRef>* lists_ = nullptr;
};

// True when `file` lies inside `directory` (both with links followed).
bool inside(const fs::path& file, const fs::path& directory) {
    std::error_code error;
    const fs::path real_file = fs::weakly_canonical(file, error);
    if (error) return false;
    const fs::path real_dir = fs::weakly_canonical(directory, error);
    if (error) return false;
    const auto mismatch = std::mismatch(real_dir.begin(), real_dir.end(), real_file.begin(), real_file.end());
    return mismatch.first == real_dir.end();
}

nlohmann::json header_json(const CiffHeader& header) {
    return {{"version", header.version},
            {"num_postings_lists", header.num_postings_lists},
            {"num_doc_records", header.num_doc_records},
            {"total_postings_lists", header.total_postings_lists},
            {"total_docs", header.total_docs},
            {"total_terms_in_collection", header.total_terms_in_collection},
            {"average_doclength", header.average_doclength},
            {"description", header.description}};
}

// A term that came twice in a file whose terms are not in order; found
// after the stream, by sorting.
void refuse_duplicate_terms(const std::vector<DictionaryTerm>& terms, const std::vector<uint64_t>& offsets, const std::string& file) {
    std::vector<uint32_t> order(terms.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return terms[a].term < terms[b].term; });
    for (size_t i = 1; i < order.size(); ++i) {
        if (terms[order[i]].term != terms[order[i - 1]].term) continue;
        throw Error("PostingsList " + std::to_string(order[i] + 1) + ": term '" + terms[order[i]].term +
                        "' again (PostingsList " + std::to_string(order[i - 1] + 1) + " at byte " +
                        std::to_string(offsets[order[i - 1]]) + " holds it): each term has one PostingsList",
                    at_byte(file, offsets[order[i]]));
    }
}

}  // namespace

std::optional<AnalysisSettings> analysis_from_ciff_description(std::string_view description) {
    // default_ciff_description's words (store/ciff_export.cpp).
    constexpr std::string_view kStart = "invidx index, format 1; stemmer ";
    constexpr std::string_view kStopwords = ", stopwords ";
    if (!description.starts_with(kStart)) return std::nullopt;
    description.remove_prefix(kStart.size());
    const size_t split = description.find(kStopwords);
    if (split == std::string_view::npos) return std::nullopt;
    const std::string_view stemmer = description.substr(0, split);
    std::string_view stopwords = description.substr(split + kStopwords.size());
    if (stopwords.ends_with(", positional")) stopwords.remove_suffix(std::string_view(", positional").size());
    if ((stemmer != "porter" && stemmer != "none") || (stopwords != "english" && stopwords != "none")) return std::nullopt;
    AnalysisSettings analysis = AnalysisSettings::defaults();
    analysis.stemmer = std::string(stemmer);
    if (stopwords == "none") {
        analysis.stopwords.clear();
        analysis.stopwords_name = "none";
    }
    return analysis;
}

std::optional<AnalysisSettings> ciff_import_analysis(std::string_view name) {
    if (name == "auto") return std::nullopt;
    AnalysisSettings analysis = AnalysisSettings::defaults();
    if (name == "default") return analysis;
    analysis.stopwords.clear();
    analysis.stopwords_name = "none";
    analysis.stemmer = "none";
    if (name == "none") return analysis;
    if (name == "verbatim") {
        // As a pre-weighted (jsonvector) index's: query words are terms as
        // they are, split at whitespace only.
        analysis.pre_weighted = true;
        return analysis;
    }
    throw Error("unknown analysis '" + std::string(name) + "'; known: auto, default, none, verbatim");
}

CiffImportSummary import_ciff(const fs::path& file, const fs::path& index_dir, const CiffImportOptions& options) {
    ensure(static_cast<bool>(options.term_collection), "import_ciff: CiffImportOptions::term_collection is required");
    const fs::path target = resolve_output_path(index_dir);
    if (inside(file, target)) {
        throw Error("refusing to import a CIFF file that lies inside the output directory " + target.string() +
                        ": publishing the index would remove it; move it elsewhere first",
                    in_file(file.string()));
    }
    // The Header is read (and checked) before anything is created.
    CiffReader reader(file, options.read_buffer_bytes);
    CiffImportSummary summary;
    summary.header = reader.header();
    if (options.analysis) {
        summary.analysis = *options.analysis;
        summary.analysis_source = "options";
    } else if (auto named = analysis_from_ciff_description(reader.header().description)) {
        summary.analysis = *named;
        summary.analysis_source = "description";
    } else {
        summary.analysis = AnalysisSettings::defaults();
        summary.analysis_source = "default";
    }
    summary.analysis.positions = false;

    const InputFile input{.ordinal = 0, .path = file.string(), .name = file.filename().string(), .format = "ciff",
                          .size_bytes = reader.file_bytes()};
    PublishOptions publish;
    publish.notice = options.notice;
    IndexWriter writer(index_dir, summary.analysis, {input}, publish);
    const auto stop_if_asked = [&] {
        if (options.stop.stop_requested()) throw Interrupted();
    };

    std::vector<DictionaryTerm> terms;
    std::vector<uint64_t> term_offsets;  // for naming a duplicate term
    bool sorted = true;
    RunBuilder runs(writer, options.run_bytes);
    CiffPostingsList list;
    DictionaryTerm entry;
    for (;;) {
        if (terms.size() % 4096 == 0) stop_if_asked();
        entry.lists.clear();
        runs.start_list(entry.lists);
        const auto take = [&](std::span<const CiffPosting> postings) {
            for (const CiffPosting& posting : postings) {
                if (posting.tf <= summary.largest_tf) continue;
                summary.largest_tf = posting.tf;
                if (options.max_tf && posting.tf > *options.max_tf) {
                    throw Error("PostingsList " + std::to_string(terms.size() + 1) + ": docid " + std::to_string(posting.docid) +
                                    " has tf " + std::to_string(posting.tf) + ", over the largest allowed, " +
                                    std::to_string(*options.max_tf) + " (tf impacts have at most 16 bits)",
                                at_byte(file.string(), list.offset));
                }
            }
            runs.add(postings);
        };
        if (!reader.next_postings_list(list, take)) break;
        runs.end_list();
        if (!terms.empty() && !(terms.back().term < list.term)) sorted = false;
        entry.term = list.term;
        entry.collection = options.term_collection(list.term);
        entry.df = list.df;
        entry.cf = list.cf;
        summary.postings += list.df;
        terms.push_back(entry);
        term_offsets.push_back(list.offset);
    }
    // start_list opened a slot for a list that did not come: runs.finish()
    // writes only slots that were closed.
    runs.finish();
    if (!sorted) refuse_duplicate_terms(terms, term_offsets, file.string());

    constexpr size_t kBatch = 4096;
    std::vector<ParsedDoc> batch;
    batch.reserve(kBatch);
    CiffDocRecord record;
    while (reader.next_doc_record(record)) {
        batch.push_back(ParsedDoc{.name = std::move(record.collection_docid), .length = record.doclength, .file_ordinal = 0,
                                  .source_offset = record.offset});
        if (batch.size() == kBatch) {
            stop_if_asked();
            writer.append_documents(batch);
            batch.clear();
        }
    }
    writer.append_documents(batch);
    reader.finish();
    stop_if_asked();

    summary.terms = terms.size();
    summary.documents = static_cast<uint64_t>(reader.header().num_doc_records);
    summary.runs = runs.runs();
    summary.canonicality = reader.canonicality();

    nlohmann::json report = {{"file", file.string()},
                             {"size_bytes", reader.file_bytes()},
                             {"header", header_json(reader.header())},
                             {"analysis_from", summary.analysis_source},
                             {"canonical", summary.canonicality.canonical},
                             {"runs", summary.runs},
                             {"postings", summary.postings},
                             {"run_bytes", options.run_bytes},
                             {"read_buffer_bytes", options.read_buffer_bytes}};
    if (!summary.canonicality.canonical) {
        report["not_canonical"] = {{"reason", summary.canonicality.reason}, {"byte", summary.canonicality.offset}};
    }
    writer.write_report({{std::string(kCiffImportReportKey), report}});
    writer.write_dictionary(std::move(terms));
    stop_if_asked();
    writer.publish();
    return summary;
}

}  // namespace invidx
