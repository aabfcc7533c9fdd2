// BlockCursor over query.post, with every codec: it must walk exactly the
// list's postings (next, next_geq against a binary search of the decoded
// list, tf), decode a block's docids only when it stops in it and its tfs only
// when asked, and report block maxima that bound every posting of the block.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "query/block_cursor.hpp"
#include "query/searcher.hpp"
#include "store/codecs/registry.hpp"
#include "store/query_postings.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"
#include "query/long_lists.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

constexpr uint32_t kDocuments = 6000;

// "everyx" in every document (47 blocks) with tfs 1..7, "thirdx" in every
// third, "sparsex" in four far-apart documents; lengths vary with the filler.
std::vector<std::string> cursor_texts() {
    std::vector<std::string> texts(kDocuments);
    for (uint32_t d = 0; d < kDocuments; ++d) {
        std::string& text = texts[d];
        for (uint32_t r = 0; r <= d % 7; ++r) text += "everyx ";
        if (d % 3 == 0) text += "thirdx ";
        if (d == 5 || d == 2000 || d == 4001 || d == 5999) text += "sparsex ";
        for (uint32_t r = 0; r < d % 13; ++r) text += "filler" + std::to_string(r) + "x ";
    }
    return texts;
}

uint64_t term_of(const IndexReader& index, const std::string& word) {
    Analyzer analyzer(index.analysis());
    const auto terms = analyzer.analyze_query(word);
    REQUIRE(terms.size() == 1);
    const auto found = index.find_term(terms[0]);
    REQUIRE(found.has_value());
    return *found;
}

}  // namespace

TEST_CASE("BlockCursor walks a list as the decoded list, decoding only the blocks it stops in, every codec") {
    TempDir dir;
    const auto standard = build_text_index(dir, cursor_texts());
    std::mt19937 random(41);
    for (const auto& codec : codecs::all_codecs()) {
        CAPTURE(codec.name);
        const IndexReader index(with_query_layout(dir, standard, codec.name));
        const QueryPostings layout(index);
        for (const std::string word : {"everyx", "thirdx", "sparsex"}) {
            CAPTURE(word);
            const QueryList list = layout.list(term_of(index, word));
            const auto decoded = list.decode();
            const auto& docids = decoded.docids;
            const size_t blocks = list.blocks().size();
            REQUIRE(blocks == (docids.size() + 127) / 128);

            // A fresh cursor has decoded its first block's docids, no tfs.
            BlockCursor jump(list, 1.0);
            CHECK(jump.docid() == docids.front());
            CHECK(jump.docid_blocks_decoded() == 1);
            CHECK(jump.tf_blocks_decoded() == 0);
            // Straight to the last posting: only the last block is decoded on the way.
            jump.next_geq(docids.back());
            CHECK(jump.docid() == docids.back());
            CHECK(jump.docid_blocks_decoded() == std::min<size_t>(blocks, 2));
            CHECK(jump.tf_blocks_decoded() == 0);
            CHECK(jump.tf() == decoded.tfs.back());
            CHECK(jump.tf_blocks_decoded() == 1);
            jump.next();
            CHECK(jump.docid() == kNoDocument);
            jump.next_geq(3);  // stays past the end
            CHECK(jump.docid() == kNoDocument);

            // A random walk of next and next_geq against a binary search of the decoded list.
            for (int walk = 0; walk < 20; ++walk) {
                BlockCursor cursor(list, 1.0);
                size_t position = 0;
                uint32_t target = 0;
                while (position < docids.size()) {
                    if (random() % 3 == 0) {
                        cursor.next();
                        ++position;
                    } else {
                        // Small steps inside a block and long jumps over many.
                        target += random() % 2 ? 1 + random() % 8 : 1 + random() % 900;
                        cursor.next_geq(target);
                        position = std::max<size_t>(
                            position, static_cast<size_t>(std::lower_bound(docids.begin(), docids.end(), target) - docids.begin()));
                    }
                    REQUIRE(cursor.docid() == (position < docids.size() ? docids[position] : kNoDocument));
                    if (position < docids.size()) {
                        target = std::max(target, docids[position]);
                        if (random() % 4 == 0) CHECK(cursor.tf() == decoded.tfs[position]);
                    }
                }
                CHECK(cursor.docid_blocks_decoded() <= blocks);
                CHECK(cursor.tf_blocks_decoded() <= cursor.docid_blocks_decoded());
            }
        }
    }
}

TEST_CASE("BlockCursor block maxima bound every posting of their block and move only forward") {
    TempDir dir;
    const IndexReader index(with_query_layout(dir, build_text_index(dir, cursor_texts()), "bp128"));
    const Searcher searcher(index);
    const QueryPostings& layout = *searcher.query_postings();
    const auto norms = searcher.length_norms();
    for (const std::string word : {"everyx", "thirdx", "sparsex"}) {
        CAPTURE(word);
        const QueryList list = layout.list(term_of(index, word));
        const auto decoded = list.decode();
        const double idf = searcher.bm25().idf(list.df());
        BlockCursor cursor(list, idf);
        double largest = 0.0;
        for (uint32_t target = 0; target < kDocuments + 10; target += 37) {
            const double bound = cursor.block_max_score(target);
            const auto found = std::lower_bound(decoded.docids.begin(), decoded.docids.end(), target);
            if (found == decoded.docids.end()) {
                CHECK(bound == 0.0);
                CHECK(cursor.block_last_docid() == kNoDocument);
                continue;
            }
            // The block holding the first docid >= target, and every posting in it.
            const auto block = static_cast<size_t>(found - decoded.docids.begin()) / 128;
            CHECK(cursor.block_last_docid() == list.blocks()[block].last_docid);
            CHECK(cursor.block_last_docid() >= target);
            double best = 0.0;
            for (size_t p = block * 128; p < std::min(decoded.docids.size(), block * 128 + 128); ++p) {
                best = std::max(best, searcher.bm25().score(idf, decoded.tfs[p], norms[decoded.docids[p]]));
            }
            CHECK(bound == best);  // exact: the stored maximum is the block's own
            largest = std::max(largest, bound);
        }
        CHECK(largest <= cursor.max_score());
        CHECK(cursor.docid_blocks_decoded() == 1);  // shallow moves decode nothing
        CHECK(cursor.docid() == decoded.docids.front());
    }
}
