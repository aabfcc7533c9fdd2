// Holding a batch analysis (devices/gpu_analysis.hpp: on the device, or its
// host reference) against Analyzer::analyze, document by document, under
// each analysis setting that changes the passes' work.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "devices/gpu_analysis.hpp"
#include "support/analysis_inputs.hpp"

namespace invidx::testing {

// The documents back to back, with `gap` filler bytes before each (the
// batch must not read or write outside a document).
inline GpuAnalysisInput batch_input(const std::vector<AnalysisDocument>& docs, const AnalysisSettings& settings,
                                    std::string& storage, size_t gap = 0) {
    storage.clear();
    GpuAnalysisInput input;
    for (const auto& doc : docs) {
        storage.append(gap, 'g');
        input.offsets.push_back(storage.size());
        input.lengths.push_back(static_cast<uint32_t>(doc.text.size()));
        input.html.push_back(doc.html ? 1 : 0);
        storage += doc.text;
    }
    input.text = storage;
    input.stopwords = settings.stopwords;
    input.stemmer = gpu_stemmer_named(settings.stemmer);
    input.positional = settings.positions;
    return input;
}

// Document d of `result` as DocumentTerms.
inline DocumentTerms document_terms(const GpuAnalysisResult& result, size_t d) {
    DocumentTerms terms;
    for (uint64_t t = result.term_begin[d]; t < result.term_begin[d + 1]; ++t) {
        const auto& term = result.terms[t];
        CHECK(term.local_docid == d);
        // The result's offsets are the batch's; a document's start at its own.
        const auto first_position_index = static_cast<uint32_t>(term.positions_offset - result.position_begin[d]);
        terms.terms.push_back(DocumentTerms::Term{static_cast<uint32_t>(term.term_offset - result.byte_begin[d]),
                                                  term.term_length, term.tf, term.collection, first_position_index});
    }
    terms.bytes = result.bytes.substr(result.byte_begin[d], result.byte_begin[d + 1] - result.byte_begin[d]);
    terms.positions.assign(result.positions.begin() + static_cast<std::ptrdiff_t>(result.position_begin[d]),
                           result.positions.begin() + static_cast<std::ptrdiff_t>(result.position_begin[d + 1]));
    terms.length = result.lengths[d];
    terms.tokens = result.tokens[d];
    return terms;
}

// The settings that change what the passes do: positions or not, porter or
// no stemming, the English stop words or none.
inline std::vector<AnalysisSettings> batch_settings() {
    std::vector<AnalysisSettings> all;
    for (const bool positions : {true, false}) {
        for (const char* stemmer : {"porter", "none"}) {
            for (const bool stopwords : {true, false}) {
                if (!positions && !stopwords) continue;  // positions are what stop words change most
                AnalysisSettings settings = AnalysisSettings::defaults();
                settings.positions = positions;
                settings.stemmer = stemmer;
                if (!stopwords) settings.stopwords.clear();
                all.push_back(settings);
            }
        }
    }
    return all;
}

using BatchAnalysis = std::function<GpuAnalysisResult(const GpuAnalysisInput&)>;

// Checks that `analyze` gives every document of `docs` the terms the
// scalar and the default Analyzer give it, byte for byte, laid out alike.
inline void check_batch_against_analyzer(const std::vector<AnalysisDocument>& docs, const BatchAnalysis& analyze,
                                         size_t gap = 0) {
    for (const AnalysisSettings& settings : batch_settings()) {
        CAPTURE(settings.positions);
        CAPTURE(settings.stemmer);
        CAPTURE(settings.stopwords.size());
        Analyzer scalar(settings, TokenScan::scalar);
        Analyzer fastest(settings);
        std::string storage;
        const GpuAnalysisResult result = analyze(batch_input(docs, settings, storage, gap));
        REQUIRE(result.documents() == docs.size());
        REQUIRE(result.term_begin.size() == docs.size() + 1);
        REQUIRE(result.byte_begin.back() == result.bytes.size());
        REQUIRE(result.position_begin.back() == result.positions.size());
        size_t differing = 0;
        DocumentTerms expected;
        DocumentTerms other;
        for (size_t d = 0; d < docs.size(); ++d) {
            scalar.analyze(docs[d].text, docs[d].html, expected);
            fastest.analyze(docs[d].text, docs[d].html, other);
            const DocumentTerms actual = document_terms(result, d);
            const std::vector<std::string> expected_lines = terms_lines(expected);
            const bool same = terms_lines(actual) == expected_lines && terms_lines(other) == expected_lines &&
                              actual.bytes == expected.bytes && actual.positions == expected.positions;
            bool same_layout = actual.terms.size() == expected.terms.size();
            for (size_t t = 0; same_layout && t < actual.terms.size(); ++t) {
                same_layout = actual.terms[t].term_offset == expected.terms[t].term_offset &&
                              actual.terms[t].first_position_index == expected.terms[t].first_position_index;
            }
            if ((!same || !same_layout) && ++differing <= 3) {
                FAIL_CHECK("document " << d << " (html=" << docs[d].html << ", " << docs[d].text.size()
                                       << " bytes) differs: " << docs[d].text.substr(0, 200));
            }
        }
        CHECK(differing == 0);
    }
}

}  // namespace invidx::testing
