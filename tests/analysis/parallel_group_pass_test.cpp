// The parallel steps of pass 2 (analysis/parallel_group_pass.hpp), run here
// in host loops in the order the GPU kernels run them (the insertions in a
// shuffled order, as threads may run them), against the per-document pass
// (group_document_terms): the same terms, tf, collections and positions.
#include "analysis/parallel_group_pass.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "analysis/document_passes.hpp"
#include "analysis/stopwords.hpp"
#include "devices/analysis_batch.hpp"
#include "devices/gpu_analysis.hpp"
#include "support/analysis_inputs.hpp"
#include "support/batch_analysis.hpp"

namespace {

using namespace invidx;
using document_passes::GroupedTerm;
using document_passes::TermOccurrence;

struct PlainAtomics {
    static uint32_t compare_and_swap(uint32_t* p, uint32_t expected, uint32_t desired) {
        const uint32_t held = *p;
        if (held == expected) *p = desired;
        return held;
    }
    static void min(uint32_t* p, uint32_t v) { *p = std::min(*p, v); }
    static void add(uint32_t* p, uint32_t v) { *p += v; }
};

struct Grouped {
    std::vector<uint32_t> unique;
    std::vector<GroupedTerm> terms;  // in the regions of `begin`
    std::vector<uint32_t> positions;
};

void check_batch(const std::vector<testing::AnalysisDocument>& docs, std::mt19937& random) {
    for (const AnalysisSettings& settings : testing::batch_settings()) {
        std::string storage;
        const GpuAnalysisInput input = testing::batch_input(docs, settings, storage, 3);
        const StopwordSet stopwords(input.stopwords);
        const auto documents = static_cast<uint32_t>(input.documents());
        const auto* text = reinterpret_cast<const unsigned char*>(input.text.data());
        // Pass 1, per document.
        std::vector<uint64_t> occurrence_begin(documents + 1, 0);
        for (uint32_t d = 0; d < documents; ++d)
            occurrence_begin[d + 1] = occurrence_begin[d] + document_passes::token_bound(input.lengths[d]);
        std::vector<unsigned char> term_bytes(input.text.size());
        std::vector<TermOccurrence> occurrences(occurrence_begin.back());
        std::vector<uint64_t> begin(documents + 1, 0), table_begin(documents + 1, 0);
        for (uint32_t d = 0; d < documents; ++d) {
            const auto counts = document_passes::collect_document_tokens(
                text + input.offsets[d], input.lengths[d], input.html[d] != 0, stopwords.table(),
                input.stemmer == GpuStemmer::porter, term_bytes.data() + input.offsets[d],
                occurrences.data() + occurrence_begin[d]);
            begin[d + 1] = begin[d] + counts.indexed;
            table_begin[d + 1] = table_begin[d] + document_passes::table_slots(counts.indexed);
        }
        const uint64_t total = begin.back();

        // Per document, as the reference.
        Grouped expected{std::vector<uint32_t>(documents), std::vector<GroupedTerm>(total),
                         std::vector<uint32_t>(total)};
        {
            std::vector<uint32_t> table(table_begin.back(), 0), occurrence_terms(total);
            for (uint32_t d = 0; d < documents; ++d) {
                expected.unique[d] = document_passes::group_document_terms(
                    term_bytes.data() + input.offsets[d], occurrences.data() + occurrence_begin[d],
                    static_cast<uint32_t>(begin[d + 1] - begin[d]), table.data() + table_begin[d], input.positional,
                    occurrence_terms.data() + begin[d], expected.terms.data() + begin[d],
                    expected.positions.data() + begin[d]);
            }
        }

        // The steps.
        using namespace parallel_group_pass;
        const GroupView view{term_bytes.data(), input.offsets.data(), occurrence_begin.data(), occurrences.data(),
                             begin.data(), table_begin.data(), documents};
        std::vector<uint32_t> table(table_begin.back(), 0), first(table_begin.back(), kNoOccurrence),
            tf(table_begin.back(), 0);
        std::vector<uint64_t> slot_of(total);
        std::vector<uint64_t> order(total);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), random);
        for (uint64_t g : order) slot_of[g] = insert_occurrence<PlainAtomics>(view, g, table.data(), first.data(), tf.data());
        std::vector<uint32_t> is_first(total + 1, 0), first_tf(total + 1, 0);
        for (uint64_t g = 0; g < total; ++g)
            first_occurrence_flags(view, g, slot_of.data(), first.data(), tf.data(), is_first.data(), first_tf.data());
        std::vector<uint32_t> unique_before(total + 1, 0), tf_before(total + 1, 0);
        std::exclusive_scan(is_first.begin(), is_first.end(), unique_before.begin(), 0u);
        std::exclusive_scan(first_tf.begin(), first_tf.end(), tf_before.begin(), 0u);
        // The terms themselves are checked in the batch's layout below
        // (write_batch_term, what the kernels write), against the host reference.
        Grouped got{std::vector<uint32_t>(documents), {}, std::vector<uint32_t>(total)};
        for (uint32_t d = 0; d < documents; ++d) got.unique[d] = unique_terms(view, unique_before.data(), d);
        if (input.positional) {
            std::vector<std::pair<uint32_t, uint32_t>> keyed(total);  // (term number, position)
            for (uint64_t g = 0; g < total; ++g) {
                const uint32_t d = document_of_occurrence(view, g);
                keyed[g] = {term_number(view, g, slot_of.data(), first.data(), unique_before.data()),
                            occurrences[occurrence_begin[d] + (g - begin[d])].position};
            }
            std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            for (uint64_t g = 0; g < total; ++g) got.positions[g] = keyed[g].second;
        }

        // The batch layout straight from the steps (what the GPU hands the
        // parse node): equal to the host reference's packed result.
        {
            std::vector<uint32_t> lengths_of_firsts(total + 1, 0), bytes_before(total + 1, 0);
            for (uint64_t g = 0; g < total; ++g) lengths_of_firsts[g] = first_length(view, g, is_first.data());
            std::exclusive_scan(lengths_of_firsts.begin(), lengths_of_firsts.end(), bytes_before.begin(), 0u);
            std::vector<document_passes::BatchTerm> batch_terms(unique_before[total]);
            std::vector<unsigned char> arena(bytes_before[total]);
            for (uint64_t g = 0; g < total; ++g) {
                write_batch_term(view, g, slot_of.data(), tf.data(), is_first.data(), unique_before.data(),
                                 tf_before.data(), bytes_before.data(), input.positional, batch_terms.data(),
                                 arena.data());
            }
            std::vector<uint32_t> indexed(documents), tokens(documents);
            for (uint32_t d = 0; d < documents; ++d) indexed[d] = static_cast<uint32_t>(begin[d + 1] - begin[d]);
            const GpuAnalysisResult reference = analyze_batch_on_host(input);
            for (uint32_t d = 0; d < documents; ++d) tokens[d] = static_cast<uint32_t>(reference.tokens[d]);
            analysis_batch::BatchOutput output;
            output.indexed = indexed.data();
            output.tokens = tokens.data();
            output.unique = got.unique.data();
            output.terms = batch_terms.data();
            output.term_count = batch_terms.size();
            output.term_bytes = arena.data();
            output.term_byte_count = arena.size();
            output.positions = got.positions.data();
            output.position_count = total;
            CHECK(same_analysis_result(analysis_batch::pack_batch_result(input, output), reference));
        }

        CHECK(got.unique == expected.unique);
        if (input.positional) CHECK(got.positions == expected.positions);
    }
}

}  // namespace

TEST_CASE("parallel group pass: the sample collection gives the per-document pass's terms and positions") {
    std::mt19937 random(5);
    const auto docs = testing::sample_documents();
    REQUIRE(docs.size() > 50);
    check_batch(docs, random);
}

TEST_CASE("parallel group pass: broken HTML, repeated words and empty documents, insertions in any order") {
    std::mt19937 random(9);
    auto docs = testing::broken_html_documents(random, 300);
    std::string repeated;
    for (int i = 0; i < 5000; ++i) repeated += (i % 7 == 0 ? "running " : "ran runs ") + std::to_string(i % 50) + " ";
    docs.push_back({repeated, false});
    docs.push_back({"", true});
    docs.push_back({"the and of", true});  // stop words only
    for (int round = 0; round < 3; ++round) check_batch(docs, random);
}
