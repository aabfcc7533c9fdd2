#include "store/merge.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "invidx/error.hpp"
#include "store/run_list.hpp"
#include "store/codecs/registry.hpp"
#include "store/document_store_layout.hpp"
#include "store/impacts.hpp"
#include "store/index_layout.hpp"
#include "store/index_reader.hpp"
#include "store/index_writer.hpp"
#include "store/query_postings_writer.hpp"
#include "store/verified_file.hpp"

namespace invidx {

void merge_runs(const std::filesystem::path& index_dir, const MergeOptions& options) {
    const codecs::Codec* query_codec = options.query_codec ? &codecs::find_codec(*options.query_codec) : nullptr;
    ensure(query_codec || (!options.impact_bits && !options.impacts && !options.tf_impacts), "impacts live in the query layout: they need a query codec");
    ensure(int{options.impact_bits.has_value()} + int{options.impacts != nullptr} + int{options.tf_impacts} <= 1,
           "impact bits, precomputed impacts or tf impacts, one at most");
    // Bad bits or a bad largest weight fail before anything is written.
    if (options.impact_bits) (void)ImpactQuantizer(1.0, *options.impact_bits);
    if (options.impacts) (void)ImpactQuantizer(options.impacts->max_weight, options.impacts->bits);
    std::optional<IndexWriter> writer;
    {
        const IndexReader old_index(index_dir);
        writer.emplace(index_dir, old_index.analysis(), old_index.files());
        if (options.at_step) options.at_step("merge:writing");
        // Unwinding removes the temporary directory (~IndexWriter).
        const auto stop_if_asked = [&] {
            if (options.stop.stop_requested()) throw Interrupted();
        };
        stop_if_asked();

        // One run (0) with one part (indexer 0) whose slot i is term i.
        CompressedRun part;
        part.indexer_count = 1;
        part.end_of_input = true;
        std::vector<DictionaryTerm> terms;
        terms.reserve(old_index.term_count());
        for (uint64_t i = 0; i < old_index.term_count(); ++i) {
            if (i % 4096 == 0) stop_if_asked();
            const auto info = old_index.term(i);
            const auto list = old_index.postings(i);
            TermRunList merged{.slot = static_cast<uint32_t>(i), .docids = list.docids, .tfs = list.tfs, .positions = list.positions};
            part.list_offsets.push_back(part.bytes.size());
            part.list_counts.push_back(static_cast<uint32_t>(list.docids.size()));
            part.postings += list.docids.size();
            run_list::encode(merged, old_index.positional(), part.bytes);
            terms.push_back(DictionaryTerm{.term = std::string(info.term),
                                           .collection = info.collection,
                                           .df = info.df,
                                           .cf = info.cf,
                                           .lists = {PartialListRef{.run = 0, .indexer = 0, .slot = static_cast<uint32_t>(i)}}});
        }
        part.list_offsets.push_back(part.bytes.size());
        std::vector<CompressedRun> parts;
        if (!terms.empty()) parts.push_back(std::move(part));
        writer->write_run(0, std::move(parts));

        constexpr uint32_t kBatch = 4096;
        std::vector<ParsedDoc> batch;
        for (uint64_t docid = 0; docid < old_index.num_documents(); ++docid) {
            auto doc = old_index.document(static_cast<uint32_t>(docid));
            batch.push_back(ParsedDoc{.name = std::move(doc.name), .length = doc.length,
                                      .file_ordinal = doc.file_ordinal, .source_offset = doc.source_offset});
            if (batch.size() == kBatch) {
                stop_if_asked();
                writer->append_documents(batch);
                batch.clear();
            }
        }
        writer->append_documents(batch);
        // The document store, if any, as it is: docids do not change.
        if (const VerifiedFile* store = old_index.index_file(layout::kDocumentTextFile)) {
            writer->write_whole_file(std::string(layout::kDocumentTextFile), [&](BinaryWriter& out) {
                constexpr uint64_t kChunk = uint64_t{16} << 20;
                for (uint64_t offset = 0; offset < store->size(); offset += kChunk) {
                    stop_if_asked();
                    out.bytes(store->range(offset, std::min(kChunk, store->size() - offset)));  // verified as read
                }
            });
        }
        writer->write_dictionary(std::move(terms));
        if (old_index.report()) writer->write_report(*old_index.report());
        if (query_codec) {
            // From the old index: the same postings, documents and lengths.
            writer->write_binary_file(std::string(layout::kQueryPostingsFile),
                                      [&](BinaryWriter& out) {
                                          write_query_postings(old_index, *query_codec, out,
                                                               {.parameters = options.query_parameters,
                                                                .impact_bits = options.impact_bits,
                                                                .impacts = options.impacts,
                                                                .tf_impacts = options.tf_impacts,
                                                                .stop = options.stop});
                                      });
        }
    }
    // The old index is closed before it is replaced; past here the merge
    // runs to its end (publishing is quick and never half done).
    if (options.stop.stop_requested()) throw Interrupted();
    writer->publish();
}

}  // namespace invidx
