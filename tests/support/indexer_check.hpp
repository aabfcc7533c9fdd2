// Shared by the indexer tests (CPU and GPU kinds): documents made into
// regrouped batches the way the parsers do, and a check of everything an
// indexer returns against a std::map index of the same documents.
#pragma once

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "invidx/indexer.hpp"
#include "invidx/messages.hpp"
#include "nodes/regroup/regroup.hpp"

namespace invidx::test {

// CONTENT.md §8, written out again here so the test does not trust the code under test.
inline uint32_t collection_of(const std::string& term) {
    const auto letter = [](char c) { return c >= 'a' && c <= 'z'; };
    if (term.size() >= 4 && letter(term[0]) && letter(term[1]) && letter(term[2])) {
        return 1024 + 676 * (term[0] - 'a') + 26 * (term[1] - 'a') + (term[2] - 'a');
    }
    uint32_t hash = 2166136261u;  // FNV-1a; any function does for a test
    for (const char c : term) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
    return hash % 1024;
}

using Document = std::vector<std::string>;  // tokens, position = index

// What a parser produces: per document, its distinct terms with tf and positions.
inline ParsedBatch parse(uint64_t sequence, uint64_t first_docid, const std::vector<Document>& docs) {
    ParsedBatch batch;
    batch.sequence = sequence;
    batch.first_docid = first_docid;
    for (uint32_t d = 0; d < docs.size(); ++d) {
        batch.docs.push_back(ParsedDoc{.name = "doc", .length = static_cast<uint32_t>(docs[d].size()),
                                       .file_ordinal = 0, .source_offset = 0});
        std::map<std::string, std::vector<uint32_t>> positions;
        for (uint32_t p = 0; p < docs[d].size(); ++p) positions[docs[d][p]].push_back(p);
        for (const auto& [term, where] : positions) {
            TermOccurrence occurrence;
            occurrence.local_docid = d;
            occurrence.collection = collection_of(term);
            occurrence.term_offset = static_cast<uint32_t>(batch.terms.size());
            occurrence.term_length = static_cast<uint32_t>(term.size());
            occurrence.tf = static_cast<uint32_t>(where.size());
            occurrence.positions_offset = static_cast<uint32_t>(batch.positions.size());
            batch.terms += term;
            batch.positions.insert(batch.positions.end(), where.begin(), where.end());
            batch.occurrences.push_back(occurrence);
        }
    }
    return batch;
}

struct Posting {
    uint32_t tf = 0;
    std::vector<uint32_t> positions;
    bool operator==(const Posting&) const = default;
};
using ReferenceIndex = std::map<std::string, std::map<uint32_t, Posting>>;

inline std::vector<std::string> vocabulary(std::mt19937& random) {
    std::vector<std::string> words = {
        "the", "and", "appl", "apple", "application", "applied", "appz", "a", "x1", "42",
        "zzzy", "zzzz", "ab", "abc", "abcd", "abcde", "\xc3\xbc" "ber", "na\xc3\xafve",
        "caf\xc3\xa9s", "aaa\xc3\xa9", "aaaa", "aaab", "3d", "-80", std::string(255, 'q'),
        std::string("qqq") + std::string(252, 'z')};
    std::uniform_int_distribution<int> letter('a', 'c');
    std::uniform_int_distribution<int> length(1, 9);
    for (int i = 0; i < 400; ++i) {
        std::string word;
        for (int n = length(random); n > 0; --n) word.push_back(static_cast<char>(letter(random)));
        if (i % 7 == 0) word += std::to_string(i);
        words.push_back(word);
    }
    return words;
}

struct RunKey {
    uint32_t run, indexer;
    auto operator<=>(const RunKey&) const = default;
};

// Runs random batches (4 runs, run 2 empty) through the given indexers and
// checks what they return against a std::map index of the same documents.
// Indexers that export in another order than (collection, key) say so.
template <class IndexerType>
void check_indexers(std::vector<IndexerType>& indexers, const std::vector<uint32_t>& owner_of, bool positional,
                    uint32_t seed, bool export_sorted = true, int documents_per_batch = 15) {
    std::mt19937 random(seed);
    const auto words = vocabulary(random);
    std::uniform_real_distribution<double> unit(0, 1);
    std::uniform_int_distribution<int> doc_length(0, 40);

    ReferenceIndex reference;
    std::map<RunKey, RunPostings> outputs;
    uint64_t next_docid = 0;
    uint64_t sequence = 0;
    const uint32_t runs = 4;
    for (uint32_t run = 0; run < runs; ++run) {
        const uint32_t batches = run == 2 ? 0 : 3;  // run 2 is empty
        for (uint32_t b = 0; b < batches; ++b) {
            std::vector<Document> docs(static_cast<size_t>(documents_per_batch));
            for (uint32_t d = 0; d < docs.size(); ++d) {
                for (int n = doc_length(random); n > 0; --n) {
                    const double u = unit(random);  // skewed like Zipf: few words dominate
                    docs[d].push_back(words[static_cast<size_t>(u * u * u * words.size())]);
                }
                for (uint32_t p = 0; p < docs[d].size(); ++p) {
                    Posting& posting = reference[docs[d][p]][static_cast<uint32_t>(next_docid + d)];
                    ++posting.tf;
                    posting.positions.push_back(p);
                }
            }
            const RegroupedBatch batch = regroup(parse(sequence++, next_docid, docs));
            next_docid += docs.size();
            for (auto& indexer : indexers) indexer.index(batch);
        }
        for (auto& indexer : indexers) {
            RunPostings out = indexer.end_run(run, static_cast<uint32_t>(indexers.size()), run + 1 == runs);
            CHECK(out.run == run);
            CHECK(out.indexer == indexer.indexer_id());
            CHECK(out.positional == positional);
            CHECK(out.end_of_input == (run + 1 == runs));
            if (batches == 0) CHECK(out.lists.empty());
            for (uint32_t slot = 0; slot < out.lists.size(); ++slot) {
                const TermRunList& list = out.lists[slot];
                REQUIRE(list.slot == slot);
                REQUIRE(!list.docids.empty());
                REQUIRE(list.tfs.size() == list.docids.size());
                for (size_t i = 1; i < list.docids.size(); ++i) REQUIRE(list.docids[i - 1] < list.docids[i]);
                if (!positional) CHECK(list.positions.empty());
            }
            outputs[RunKey{run, indexer.indexer_id()}] = std::move(out);
        }
    }

    // Decode every exported term from its partial lists and compare.
    std::map<std::string, bool> exported;
    for (const auto& indexer : indexers) {
        const auto terms = indexer.export_terms();
        uint64_t tokens = 0, postings = 0, characters = 0;
        for (size_t t = 0; t < terms.size(); ++t) {
            const DictionaryTerm& term = terms[t];
            INFO("term " << term.term);
            if (export_sorted && t > 0) {
                const auto& previous = terms[t - 1];
                REQUIRE((previous.collection < term.collection ||
                         (previous.collection == term.collection && previous.term < term.term)));
            }
            REQUIRE(exported.emplace(term.term, true).second);  // each term in one indexer only
            REQUIRE(term.collection == collection_of(term.term));
            REQUIRE(owner_of[term.collection] == indexer.indexer_id());
            REQUIRE(reference.count(term.term) == 1);
            const auto& expected = reference.at(term.term);

            std::map<uint32_t, Posting> decoded;
            uint64_t cf = 0;
            uint32_t previous_run = 0;
            for (size_t r = 0; r < term.lists.size(); ++r) {
                const PartialListRef& ref = term.lists[r];
                if (r > 0) REQUIRE(ref.run > previous_run);
                previous_run = ref.run;
                REQUIRE(ref.indexer == indexer.indexer_id());
                const RunPostings& run = outputs.at(RunKey{ref.run, ref.indexer});
                REQUIRE(ref.slot < run.lists.size());
                const TermRunList& list = run.lists[ref.slot];
                size_t position = 0;
                for (size_t i = 0; i < list.docids.size(); ++i) {
                    REQUIRE(decoded.count(list.docids[i]) == 0);
                    if (!decoded.empty()) REQUIRE(decoded.rbegin()->first < list.docids[i]);
                    Posting& posting = decoded[list.docids[i]];
                    posting.tf = list.tfs[i];
                    cf += list.tfs[i];
                    if (positional) {
                        posting.positions.assign(list.positions.begin() + position,
                                                 list.positions.begin() + position + list.tfs[i]);
                        position += list.tfs[i];
                    }
                }
                if (positional) REQUIRE(position == list.positions.size());
            }
            if (positional) {
                REQUIRE(decoded == expected);
            } else {
                REQUIRE(decoded.size() == expected.size());
                for (const auto& [docid, posting] : expected) REQUIRE(decoded.at(docid).tf == posting.tf);
            }
            CHECK(term.df == expected.size());
            CHECK(term.cf == cf);
            tokens += cf;
            postings += term.df;
            characters += term.term.size() - (term.collection >= kHashedCollections ? 3 : 0);
        }
        const auto stats = indexer.stats();
        CHECK(stats.terms == terms.size());
        CHECK(stats.tokens == tokens);
        CHECK(stats.postings == postings);
        CHECK(stats.characters == characters);
    }
    // Every term of the reference was exported by some indexer.
    CHECK(exported.size() == reference.size());
}

inline std::vector<bool> owned_by(const std::vector<uint32_t>& owner_of, uint32_t indexer) {
    std::vector<bool> owned(kCollections);
    for (uint32_t c = 0; c < kCollections; ++c) owned[c] = owner_of[c] == indexer;
    return owned;
}

inline RegroupedBatch one_doc_batch(uint64_t sequence, uint64_t docid, const Document& doc) {
    return regroup(parse(sequence, docid, {doc}));
}


}  // namespace invidx::test
