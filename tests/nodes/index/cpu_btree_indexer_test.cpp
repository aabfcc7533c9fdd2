#include "nodes/index/cpu_btree_indexer.hpp"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "nodes/index/indexer.hpp"
#include "nodes/regroup/regroup.hpp"

namespace {

using namespace invidx;

static_assert(Indexer<CpuBtreeIndexer>, "the CPU indexer must satisfy the indexer contract");

// SPEC §5, written out again here so the test does not trust the code under test.
uint32_t collection_of(const std::string& term) {
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
ParsedBatch parse(uint64_t sequence, uint64_t first_docid, const std::vector<Document>& docs) {
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

std::vector<std::string> vocabulary(std::mt19937& random) {
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

// Runs `runs` x `batches_per_run` random batches through the given indexers and
// checks what they return against a std::map index of the same documents.
void check_indexers(std::vector<CpuBtreeIndexer>& indexers, const std::vector<uint32_t>& owner_of,
                    bool positional, uint32_t seed) {
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
            std::vector<Document> docs(15);
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
            if (t > 0) {
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

std::vector<bool> owned_by(const std::vector<uint32_t>& owner_of, uint32_t indexer) {
    std::vector<bool> owned(kCollections);
    for (uint32_t c = 0; c < kCollections; ++c) owned[c] = owner_of[c] == indexer;
    return owned;
}

RegroupedBatch one_doc_batch(uint64_t sequence, uint64_t docid, const Document& doc) {
    return regroup(parse(sequence, docid, {doc}));
}

}  // namespace

TEST_CASE("cpu indexer: one indexer owning everything matches a std::map index") {
    const std::vector<uint32_t> owner_of(kCollections, 0);
    std::vector<CpuBtreeIndexer> indexers;
    indexers.emplace_back(0, owned_by(owner_of, 0), false);
    check_indexers(indexers, owner_of, false, 11);
}

TEST_CASE("cpu indexer: three indexers split the collections; positional lists") {
    std::vector<uint32_t> owner_of(kCollections);
    for (uint32_t c = 0; c < kCollections; ++c) owner_of[c] = (c * 7 + c / 5) % 3;
    std::vector<CpuBtreeIndexer> indexers;
    for (uint32_t i = 0; i < 3; ++i) indexers.emplace_back(i, owned_by(owner_of, i), true);
    check_indexers(indexers, owner_of, true, 12);
}

TEST_CASE("cpu indexer: ignores collections it does not own") {
    std::vector<bool> owned(kCollections, false);
    owned[collection_of("apple")] = true;
    CpuBtreeIndexer indexer(4, owned, false);
    indexer.index(one_doc_batch(0, 10, {"apple", "ab", "banana", "apple"}));
    const RunPostings run = indexer.end_run(0, 1, true);
    REQUIRE(run.lists.size() == 1);
    CHECK(run.lists[0].docids == std::vector<uint32_t>{10});
    CHECK(run.lists[0].tfs == std::vector<uint32_t>{2});
    const auto terms = indexer.export_terms();
    REQUIRE(terms.size() == 1);
    CHECK(terms[0].term == "apple");
    CHECK(terms[0].lists.size() == 1);
    CHECK(terms[0].lists[0].indexer == 4);
    CHECK(indexer.stats().characters == 2);  // "le": the trie holds "app"
}

TEST_CASE("cpu indexer: a (term, document) pair given twice adds to one posting") {
    // A batch the parser did not merge per document: "apple" twice in doc 0.
    ParsedBatch parsed;
    parsed.first_docid = 5;
    parsed.docs.resize(2);
    parsed.terms = "apple";
    parsed.positions = {7, 2, 4, 1};
    const uint32_t c = collection_of("apple");
    parsed.occurrences = {
        TermOccurrence{.local_docid = 0, .collection = c, .term_offset = 0, .term_length = 5, .tf = 1, .positions_offset = 0},
        TermOccurrence{.local_docid = 0, .collection = c, .term_offset = 0, .term_length = 5, .tf = 2, .positions_offset = 1},
        TermOccurrence{.local_docid = 1, .collection = c, .term_offset = 0, .term_length = 5, .tf = 1, .positions_offset = 3}};
    CpuBtreeIndexer indexer(0, std::vector<bool>(kCollections, true), true);
    indexer.index(regroup(std::move(parsed)));
    const RunPostings run = indexer.end_run(3, 1, false);
    REQUIRE(run.lists.size() == 1);
    CHECK(run.lists[0].docids == std::vector<uint32_t>{5, 6});
    CHECK(run.lists[0].tfs == std::vector<uint32_t>{3, 1});
    CHECK(run.lists[0].positions == std::vector<uint32_t>{2, 4, 7, 1});
    const auto terms = indexer.export_terms();
    REQUIRE(terms.size() == 1);
    CHECK(terms[0].df == 2);
    CHECK(terms[0].cf == 4);
    CHECK(indexer.stats().postings == 2);
}

TEST_CASE("cpu indexer: bad input is an error, not a crash") {
    CpuBtreeIndexer indexer(0, std::vector<bool>(kCollections, true), true);

    SUBCASE("ownership table of the wrong size") {
        CHECK_THROWS_AS(CpuBtreeIndexer(0, std::vector<bool>(10, true), false), Error);
    }
    SUBCASE("batches out of docid order") {
        indexer.index(one_doc_batch(0, 100, {"apple"}));
        try {
            indexer.index(one_doc_batch(1, 50, {"apple"}));
            FAIL("expected an error");
        } catch (const Error& error) {
            CHECK(error.context().node == "index");
            CHECK(std::string(error.what()).find("batch 1") != std::string::npos);
            CHECK(std::string(error.what()).find("docid 50") != std::string::npos);
        }
    }
    SUBCASE("the same document again in a later run") {
        indexer.index(one_doc_batch(0, 100, {"apple"}));
        indexer.end_run(0, 1, false);
        CHECK_THROWS_AS(indexer.index(one_doc_batch(1, 100, {"apple"})), Error);
    }
    SUBCASE("a term outside its collection") {
        RegroupedBatch batch = one_doc_batch(0, 0, {"apple"});
        batch.terms = "pearl";
        CHECK_THROWS_WITH_AS(indexer.index(batch), doctest::Contains("does not belong"), Error);
    }
    SUBCASE("term bytes past the arena") {
        RegroupedBatch batch = one_doc_batch(0, 0, {"apple"});
        batch.occurrences[0].term_offset = 3;
        CHECK_THROWS_AS(indexer.index(batch), Error);
    }
    SUBCASE("positions past the arena") {
        RegroupedBatch batch = one_doc_batch(0, 0, {"apple", "apple"});
        batch.positions.pop_back();
        CHECK_THROWS_AS(indexer.index(batch), Error);
    }
    SUBCASE("slice past the occurrences") {
        RegroupedBatch batch = one_doc_batch(0, 0, {"apple"});
        batch.slices[0].end = 5;
        CHECK_THROWS_AS(indexer.index(batch), Error);
    }
    SUBCASE("docid beyond 32 bits") {
        CHECK_THROWS_AS(indexer.index(one_doc_batch(0, uint64_t{1} << 33, {"apple"})), Error);
    }
    SUBCASE("runs that do not increase") {
        indexer.end_run(2, 1, false);
        CHECK_THROWS_AS(indexer.end_run(2, 1, false), Error);
        CHECK_THROWS_AS(indexer.end_run(1, 1, false), Error);
    }
}
