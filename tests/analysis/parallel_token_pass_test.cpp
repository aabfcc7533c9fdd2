// The parallel steps of pass 1 (analysis/parallel_token_pass.hpp), run here
// in host loops in the order the GPU kernels run them, against the
// per-document pass (collect_document_tokens): the same occurrences, terms
// and counts on the sample, broken HTML, every piece of CONTENT.md §3-4 input, and
// search caps small enough that most constructs are resolved by the walk.
#include "analysis/parallel_token_pass.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <random>
#include <string>
#include <vector>

#include "analysis/document_passes.hpp"
#include "analysis/html_rules.hpp"
#include "analysis/stopwords.hpp"
#include "support/analysis_inputs.hpp"
#include "support/batch_analysis.hpp"

namespace {

using namespace invidx;
using document_passes::TermOccurrence;
using document_passes::TokenCounts;

struct DocumentPass {
    TokenCounts counts{0, 0};
    std::vector<TermOccurrence> occurrences;
    std::vector<std::string> terms;  // each occurrence's term bytes
};

bool same_pass(const DocumentPass& a, const DocumentPass& b) {
    if (a.counts.indexed != b.counts.indexed || a.counts.tokens != b.counts.tokens) return false;
    if (a.occurrences.size() != b.occurrences.size() || a.terms != b.terms) return false;
    for (size_t i = 0; i < a.occurrences.size(); ++i) {
        const TermOccurrence& x = a.occurrences[i];
        const TermOccurrence& y = b.occurrences[i];
        if (x.start != y.start || x.length != y.length || x.position != y.position) return false;
    }
    return true;
}

std::string term_of(const std::vector<unsigned char>& term_bytes, uint64_t offset, const TermOccurrence& o) {
    return std::string(reinterpret_cast<const char*>(term_bytes.data() + offset + o.start), o.length);
}

// collect_document_tokens, document by document.
std::vector<DocumentPass> per_document(const GpuAnalysisInput& input, const StopwordTable& stopwords, bool stem) {
    std::vector<DocumentPass> out;
    std::vector<unsigned char> term_bytes(input.text.size());
    const auto* text = reinterpret_cast<const unsigned char*>(input.text.data());
    for (size_t d = 0; d < input.documents(); ++d) {
        DocumentPass pass;
        pass.occurrences.resize(document_passes::token_bound(input.lengths[d]));
        pass.counts = document_passes::collect_document_tokens(text + input.offsets[d], input.lengths[d],
                                                               input.html[d] != 0, stopwords, stem,
                                                               term_bytes.data() + input.offsets[d],
                                                               pass.occurrences.data());
        pass.occurrences.resize(pass.counts.indexed);
        for (const auto& o : pass.occurrences) pass.terms.push_back(term_of(term_bytes, input.offsets[d], o));
        out.push_back(std::move(pass));
    }
    return out;
}

// A warp's search as the GPU makes it: 32 positions tested a step, the
// first that holds wins.
struct ChunkedFirst {
    template <class Size, class Predicate>
    Size operator()(Size from, Size length, const Predicate& holds) const {
        for (Size base = from; base < length; base += 32) {
            for (Size lane = 0; lane < 32 && base + lane < length; ++lane) {
                if (holds(length, static_cast<Size>(base + lane))) return base + lane;
            }
        }
        return length;
    }
};
using WarpLikeSearch = html_rules::PredicateSearch<ChunkedFirst>;

// The kernels' schedule in loops: each loop is one launch, each iteration
// one thread, and the compactions and the scan are what CUB does there.
std::vector<DocumentPass> in_parallel_steps(const GpuAnalysisInput& input, const StopwordTable& stopwords, bool stem,
                                            uint32_t thread_cap, uint32_t warp_cap) {
    using namespace parallel_token_pass;
    const size_t bytes = input.text.size();
    const auto documents = static_cast<uint32_t>(input.documents());
    // With the chunk index of document_of, as the kernels run.
    std::vector<uint32_t> chunk_first(document_chunk_count(bytes) + 1);
    document_chunks(input.offsets.data(), input.lengths.data(), documents, bytes, chunk_first.data());
    const BatchView batch{reinterpret_cast<const unsigned char*>(input.text.data()),
                          input.offsets.data(),
                          input.lengths.data(),
                          input.html.data(),
                          documents,
                          chunk_first.data()};
    std::vector<uint32_t> candidates;
    for (uint64_t i = 0; i < bytes; ++i) {
        if (is_markup_candidate(batch, i)) candidates.push_back(static_cast<uint32_t>(i));
    }
    const auto count = static_cast<uint32_t>(candidates.size());
    std::vector<uint32_t> ends(count);
    for (uint32_t k = 0; k < count; ++k) ends[k] = capped_construct_end(batch, candidates[k], thread_cap);
    for (uint32_t k = 0; k < count; ++k) {
        if (ends[k] == kUnresolved) ends[k] = capped_construct_end(batch, candidates[k], warp_cap, WarpLikeSearch{});
    }
    for (uint32_t d = 0; d < documents; ++d)
        keep_reached_constructs(batch, d, candidates.data(), count, ends.data(), WarpLikeSearch{});
    std::vector<uint8_t> covered(bytes, 0);
    for (uint32_t k = 0; k < count; ++k) {
        if (ends[k] == 0) continue;
        const uint64_t offset = input.offsets[document_of(batch, candidates[k])];
        for (uint64_t i = candidates[k]; i < offset + ends[k]; ++i) covered[i] = 1;
    }
    // Step 4 as flags, step 5 over them, as the kernels run; each answer
    // checked against the direct test of the byte.
    std::vector<uint8_t> flags(bytes);
    for (uint64_t i = 0; i < bytes; ++i) flags[i] = token_byte_flag(batch, covered.data(), i);
    std::vector<uint32_t> token_starts;
    size_t differing = 0;
    for (uint64_t i = 0; i < bytes; ++i) {
        const bool starts = starts_kept_run(flags.data(), bytes, i);
        differing += starts != starts_kept_token(batch, covered.data(), i);
        if (starts) {
            token_starts.push_back(static_cast<uint32_t>(i));
            differing += flag_run(flags.data(), bytes, i) != token_run(batch, covered.data(), document_of(batch, i), i);
        }
    }
    CHECK(differing == 0);
    const auto tokens = static_cast<uint32_t>(token_starts.size());
    std::vector<unsigned char> term_bytes(bytes);
    std::vector<uint32_t> term_lengths(tokens);
    for (uint32_t t = 0; t < tokens; ++t) {
        term_lengths[t] =
            make_term_from_flags(batch, flags.data(), bytes, stopwords, stem, token_starts[t], term_bytes.data());
    }
    std::vector<uint32_t> indexed_before(tokens + 1, 0);
    for (uint32_t t = 0; t < tokens; ++t) indexed_before[t + 1] = indexed_before[t] + (term_lengths[t] != parallel_token_pass::kStopWord ? 1 : 0);
    std::vector<uint32_t> first_token(documents + 1, tokens);
    for (uint32_t d = 0; d < documents; ++d) first_token[d] = lower_bound(token_starts.data(), tokens, input.offsets[d]);
    std::vector<uint64_t> occurrence_begin(documents + 1, 0);
    for (uint32_t d = 0; d < documents; ++d) {
        occurrence_begin[d + 1] = occurrence_begin[d] + document_passes::token_bound(input.lengths[d]);
    }
    std::vector<TermOccurrence> occurrences(occurrence_begin.back());
    for (uint32_t t = 0; t < tokens; ++t) {
        write_occurrence(batch, token_starts.data(), first_token.data(), term_lengths.data(), indexed_before.data(),
                         occurrence_begin.data(), t, occurrences.data());
    }
    std::vector<DocumentPass> out(documents);
    for (uint32_t d = 0; d < documents; ++d) {
        out[d].counts = document_counts(first_token.data(), indexed_before.data(), d);
        for (uint32_t j = 0; j < out[d].counts.indexed; ++j) {
            out[d].occurrences.push_back(occurrences[occurrence_begin[d] + j]);
            out[d].terms.push_back(term_of(term_bytes, input.offsets[d], out[d].occurrences.back()));
        }
    }
    return out;
}

void check_same(const std::vector<testing::AnalysisDocument>& docs, size_t gap) {
    for (const AnalysisSettings& settings : testing::batch_settings()) {
        std::string storage;
        const GpuAnalysisInput input = testing::batch_input(docs, settings, storage, gap);
        const StopwordSet stopwords(input.stopwords);
        const bool stem = input.stemmer == GpuStemmer::porter;
        const auto expected = per_document(input, stopwords.table(), stem);
        using parallel_token_pass::kMinSearchCap;
        using parallel_token_pass::kThreadSearchCap;
        using parallel_token_pass::kWarpSearchCap;
        const std::pair<uint32_t, uint32_t> caps[] = {
            {kThreadSearchCap, kWarpSearchCap}, {kMinSearchCap, 100u}, {kMinSearchCap, kMinSearchCap}, {1u, 1u}};
        for (const auto& [thread_cap, warp_cap] : caps) {
            const uint32_t cap = thread_cap;
            const auto got = in_parallel_steps(input, stopwords.table(), stem, thread_cap, warp_cap);
            REQUIRE(got.size() == expected.size());
            size_t differing = 0;
            for (size_t d = 0; d < got.size(); ++d) {
                if (!same_pass(got[d], expected[d])) {
                    if (differing++ == 0) {
                        MESSAGE("document " << d << " differs (caps " << cap << ", " << warp_cap << ", gap " << gap << "): "
                                            << got[d].counts.tokens << " tokens, " << got[d].counts.indexed
                                            << " indexed; expected " << expected[d].counts.tokens << " and "
                                            << expected[d].counts.indexed);
                        for (size_t j = 0; j < std::min(got[d].terms.size(), expected[d].terms.size()); ++j) {
                            if (got[d].terms[j] != expected[d].terms[j] ||
                                got[d].occurrences[j].position != expected[d].occurrences[j].position) {
                                MESSAGE("first difference at occurrence " << j << ": '" << got[d].terms[j] << "' at "
                                        << got[d].occurrences[j].position << ", expected '" << expected[d].terms[j]
                                        << "' at " << expected[d].occurrences[j].position);
                                break;
                            }
                        }
                    }
                }
            }
            CHECK(differing == 0);
        }
    }
}

}  // namespace

TEST_CASE("parallel token pass: the sample collection gives the per-document pass's occurrences") {
    const auto docs = testing::sample_documents();
    REQUIRE(docs.size() > 50);
    check_same(docs, 0);
}

TEST_CASE("parallel token pass: broken HTML, every SPEC piece and long tokens, with gaps between documents") {
    std::mt19937 random(41);
    auto docs = testing::broken_html_documents(random, 400);
    for (const std::string& piece : testing::html_pieces()) docs.push_back({piece, true});
    for (const std::string& token : testing::long_tokens()) docs.push_back({token + " x " + token, true});
    docs.push_back({"", true});
    docs.push_back({"", false});
    check_same(docs, 0);
    check_same(docs, 5);
}

TEST_CASE("parallel token pass: constructs far longer than the search cap, and many candidates inside them") {
    std::string script = "<script>";
    for (int i = 0; i < 3000; ++i) script += "if (a<b && c<d) { s = '<p>x</p>'; } &amp; ";
    script += "</script> after the script";
    std::string comment = "<!-- " + std::string(20000, '-') + " <b> &lt; --> after the comment";
    std::string unclosed = "text <a " + std::string(10000, 'y') + " never closed";
    std::string lts;
    for (int i = 0; i < 5000; ++i) lts += "<a&b";
    const std::vector<testing::AnalysisDocument> docs = {
        {script, true}, {comment, true}, {unclosed, true}, {lts + " tail words", true}, {script, false},
        {"<style>" + std::string(9000, 'z') + "</style\n>styled away", true}};
    check_same(docs, 0);
}

TEST_CASE("parallel token pass: document_of with the chunk index equals the search over every document") {
    using namespace parallel_token_pass;
    std::mt19937 random(23);
    for (int round = 0; round < 200; ++round) {
        CAPTURE(round);
        // Documents of 0 bytes to several chunks, with gaps of 0 to a chunk
        // and more between them, many to a chunk or one over many.
        std::vector<uint64_t> offsets;
        std::vector<uint32_t> lengths;
        std::vector<uint8_t> html;
        uint64_t at = random() % 3 == 0 ? random() % 9000 : 0;
        const int documents = static_cast<int>(random() % 60);
        const uint32_t scale = round % 3 == 0 ? 20 : (round % 3 == 1 ? 3000 : 20000);
        for (int d = 0; d < documents; ++d) {
            if (random() % 4 == 0) at += random() % (round % 2 == 0 ? 50 : 6000);
            const uint32_t length = random() % 7 == 0 ? 0 : static_cast<uint32_t>(random() % scale);
            offsets.push_back(at);
            lengths.push_back(length);
            html.push_back(0);
            at += length;
        }
        const uint64_t bytes = at + (random() % 2 == 0 ? random() % 5000 : 0);
        std::vector<uint32_t> chunk_first(document_chunk_count(bytes) + 1);
        document_chunks(offsets.data(), lengths.data(), static_cast<uint32_t>(documents), bytes, chunk_first.data());
        const BatchView all{nullptr, offsets.data(), lengths.data(), html.data(), static_cast<uint32_t>(documents)};
        BatchView indexed = all;
        indexed.chunk_first = chunk_first.data();
        size_t differing = 0;
        for (uint64_t i = 0; i < bytes; ++i) differing += document_of(all, i) != document_of(indexed, i);
        CHECK(differing == 0);
    }
}
