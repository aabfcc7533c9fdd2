// Generated test collections, a straightforward reference index, and helpers
// to build and export indexes in-process.
#pragma once

#include <algorithm>
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "invidx/pipeline.hpp"
#include "analysis/analyzer.hpp"
#include "nodes/decompress/archive_writer.hpp"
#include "store/ciff_export.hpp"
#include "store/index_reader.hpp"
#include "support/standard_pipeline.hpp"

namespace invidx::testing {

inline std::string gzip(const std::string& bytes) {
    return write_archive(ARCHIVE_FORMAT_RAW, ARCHIVE_FILTER_GZIP, {Member{"data", bytes}});
}

// One WARC/1.0 response record (CRLF headers, HTTP header block, HTML body).
inline std::string warc_response(const std::string& name, const std::string& html, bool clueweb_name = false) {
    const std::string http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + html;
    std::string record = "WARC/1.0\r\nWARC-Type: response\r\n";
    if (clueweb_name) record += "WARC-TREC-ID: " + name + "\r\n";
    record += "WARC-Record-ID: <urn:uuid:" + name + ">\r\nContent-Length: " + std::to_string(http.size()) +
              "\r\n\r\n" + http + "\r\n\r\n";
    return record;
}

inline std::string warc_document_name(const std::string& name, bool clueweb_name) {
    return clueweb_name ? name : "<urn:uuid:" + name + ">";
}

inline std::string warc_request(const std::string& id) {
    const std::string body = "GET / HTTP/1.1\r\nHost: example.org\r\n\r\n";
    return "WARC/1.0\r\nWARC-Type: request\r\nWARC-Record-ID: <urn:uuid:req-" + id +
           ">\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body + "\r\n\r\n";
}

// A vocabulary with the cases the SPEC cares about: ASCII of every length,
// upper case, stop words, digits, non-ASCII letters, excepted code points,
// words the stemmer changes, 255- and 256-byte tokens.
inline std::vector<std::string> test_vocabulary(std::mt19937& random, size_t size) {
    std::vector<std::string> words = {"the", "and", "The", "AND", "running", "Runner", "caresses", "ponies",
                                      "relational", "généralement", "Ärger", "東京", "данные", "x", "ab", "abc",
                                      "abcd", "2024", "3b", "café", "naïve", "zzz", "a1b2", "«quoted»",
                                      std::string(255, 'q'), std::string(256, 'w'), "×times÷", "“smart”"};
    std::uniform_int_distribution<int> length(1, 12);
    std::uniform_int_distribution<int> letter(0, 25);
    while (words.size() < size) {
        std::string word;
        const int n = length(random);
        for (int i = 0; i < n; ++i) word.push_back(static_cast<char>('a' + letter(random)));
        words.push_back(word);
    }
    return words;
}

// An HTML page drawing words from `words` with a Zipf-like skew.
inline std::string random_html(std::mt19937& random, const std::vector<std::string>& words, size_t tokens) {
    std::string html = "<html><head><title>t</title><style>p { x: y }</style></head><body><p class=\"a\">";
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (size_t i = 0; i < tokens; ++i) {
        const double u = uniform(random);
        const auto index = static_cast<size_t>(static_cast<double>(words.size()) * u * u * u);
        html += words[std::min(index, words.size() - 1)];
        switch (random() % 9) {
            case 0: html += " <b>"; break;
            case 1: html += "&amp;"; break;
            case 2: html += "</b>\n"; break;
            case 3: html += ", "; break;
            case 4: html += "<!-- hidden word -->"; break;
            default: html += ' ';
        }
    }
    html += "</p><script>var hidden = 1;</script></body></html>";
    return html;
}

// `pages` WARC response records ("page-0", ...) of random HTML from a
// 3,000-word vocabulary: text that compresses about as web pages do, for
// gzip files of many deflate blocks.
inline std::string random_warc_records(unsigned seed, int pages) {
    std::mt19937 random(seed);
    const std::vector<std::string> vocabulary = test_vocabulary(random, 3000);
    std::string records;
    for (int d = 0; d < pages; ++d)
        records += warc_response("page-" + std::to_string(d), random_html(random, vocabulary, 100 + random() % 600));
    return records;
}

// The straightforward reference: documents analyzed one by one, postings in maps.
struct ReferenceIndex {
    std::map<std::string, std::map<uint32_t, uint32_t>> postings;  // term -> docid -> tf
    std::vector<std::pair<std::string, uint32_t>> documents;        // name, length

    void add(const std::string& name, std::string_view text, bool html, Analyzer& analyzer) {
        DocumentTerms terms;
        analyzer.analyze(text, html, terms);
        const auto docid = static_cast<uint32_t>(documents.size());
        for (const auto& term : terms.terms) postings[std::string(terms.term(term))][docid] += term.tf;
        documents.emplace_back(name, terms.length);
    }
};

inline void check_index_equals(const IndexReader& index, const ReferenceIndex& reference) {
    REQUIRE(index.num_documents() == reference.documents.size());
    for (uint32_t docid = 0; docid < reference.documents.size(); ++docid) {
        const DocumentInfo doc = index.document(docid);
        CHECK(doc.name == reference.documents[docid].first);
        CHECK(doc.length == reference.documents[docid].second);
    }
    REQUIRE(index.term_count() == reference.postings.size());
    uint64_t i = 0;
    for (const auto& [term, postings] : reference.postings) {
        const TermInfo info = index.term(i);
        REQUIRE(std::string(info.term) == term);
        uint64_t cf = 0;
        for (const auto& [docid, tf] : postings) cf += tf;
        CHECK(info.df == postings.size());
        CHECK(info.cf == cf);
        const auto decoded = index.postings(i);
        REQUIRE(decoded.docids.size() == postings.size());
        size_t k = 0;
        for (const auto& [docid, tf] : postings) {
            CHECK(decoded.docids[k] == docid);
            CHECK(decoded.tfs[k] == tf);
            ++k;
        }
        ++i;
    }
}

inline std::string ciff_bytes(const std::filesystem::path& index_dir) {
    IndexReader index(index_dir);
    std::ostringstream out;
    export_ciff(index, out, "test");
    return out.str();
}

// A pipeline description with the standard nodes (support/standard_pipeline.hpp).
inline nlohmann::json standard_pipeline(const std::vector<std::string>& inputs, const std::filesystem::path& output,
                                        unsigned parsers, unsigned indexers) {
    nlohmann::json input = nlohmann::json::array();
    for (const auto& path : inputs) input.push_back(path);
    return standard_pipeline_description(std::move(input), output, parsers, indexers);
}

inline BuildReport build_index(nlohmann::json description, const std::vector<std::string>& overrides = {}) {
    Pipeline pipeline(PipelineConfig::from_json(std::move(description), overrides));
    return pipeline.run();
}

}  // namespace invidx::testing
