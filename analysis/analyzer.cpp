#include "analysis/analyzer.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "invidx/error.hpp"
#include "analysis/collection.hpp"
#include "analysis/html.hpp"
#include "analysis/term_hash.hpp"
#include "analysis/term_vector_terms.hpp"
#include "analysis/tokenize.hpp"

namespace invidx {
namespace {

constexpr size_t kInitialSlots = 1024;
// The fewest slots a document's term table uses.
constexpr size_t kMinSlots = 64;

// Larger documents take the scalar scan (the same tokens): the vector scan's
// buffers (lowered text and token spans) hold about 5.5 bytes per byte of
// the largest document seen, and a record may be up to 1 GiB.
constexpr size_t kMaxVectorScanBytes = size_t{16} << 20;

}  // namespace

void DocumentTerms::clear() {
    terms.clear();
    bytes.clear();
    positions.clear();
    length = 0;
    tokens = 0;
}

TokenScan default_token_scan() { return vector_scan_built() ? TokenScan::vector : TokenScan::scalar; }

Analyzer::Analyzer(const AnalysisSettings& settings, TokenScan scan)
    : settings_(settings), scan_(scan), cache_(settings.stopwords, settings.stemmer) {
    ensure(scan_ == TokenScan::scalar || vector_scan_built(), "this build has no vector token scan (no Highway)");
    slots_.resize(kInitialSlots);
    mask_ = kInitialSlots - 1;
}

void Analyzer::start_table(size_t max_terms) {
    // Only the first slots of the table, enough for the document's terms at
    // load 1/2, so that a short document's terms stay in a few cache lines
    // of the table a long one grew. Slots of earlier documents in that
    // range are told apart by their stamps.
    const size_t wanted = std::bit_ceil(std::max(kMinSlots, 2 * max_terms));
    mask_ = std::min(wanted, slots_.size()) - 1;
}

void Analyzer::grow_table(const DocumentTerms& out) {
    const size_t size = 2 * (mask_ + 1);
    if (size > slots_.size()) slots_.resize(size);
    std::fill(slots_.begin(), slots_.begin() + static_cast<ptrdiff_t>(size), Slot{});
    mask_ = size - 1;
    for (uint32_t index = 0; index < out.terms.size(); ++index) {
        uint64_t slot = term_hashes_[index] & mask_;
        while (slots_[slot].stamp == stamp_) slot = (slot + 1) & mask_;
        slots_[slot] = Slot{stamp_, index, term_hashes_[index]};
    }
}

uint32_t Analyzer::find_or_add(std::string_view term, uint64_t h, DocumentTerms& out) {
    uint64_t slot = h & mask_;
    for (; slots_[slot].stamp == stamp_; slot = (slot + 1) & mask_) {
        if (slots_[slot].hash != h) continue;
        const uint32_t index = slots_[slot].term_index;
        const DocumentTerms::Term& known = out.terms[index];
        if (known.term_length == term.size() &&
            same_bytes(out.bytes.data() + known.term_offset, term.data(), term.size())) {
            return index;
        }
    }
    ensure(out.bytes.size() + term.size() <= std::numeric_limits<uint32_t>::max(),
           "a document's distinct terms exceed 4 GiB");
    const auto index = static_cast<uint32_t>(out.terms.size());
    out.terms.push_back(DocumentTerms::Term{static_cast<uint32_t>(out.bytes.size()),
                                            static_cast<uint32_t>(term.size()), 0, collection_of(term), 0});
    out.bytes.append(term);
    term_hashes_.push_back(h);
    slots_[slot] = Slot{stamp_, index, h};
    if (2 * out.terms.size() > mask_ + 1) grow_table(out);  // keep the load at most 1/2
    return index;
}

void Analyzer::analyze(std::string_view text, bool html, DocumentTerms& out) {
    if (settings_.pre_weighted) return read_term_vector(text, out);  // terms verbatim, tf = weight
    out.clear();
    term_hashes_.clear();
    occurrences_.clear();
    if (++stamp_ == 0) {  // stamps wrapped: old slots could look current
        slots_.assign(slots_.size(), Slot{});
        cache_.clear_stamps();
        stamp_ = 1;
    }
    const bool positional = settings_.positions;
    uint64_t position = 0;
    // Inlined into both token loops: a call per token is a measurable share
    // of the parse node's time.
    const auto on_entry = [&](TokenCache::Entry& entry) __attribute__((always_inline)) {
        const uint64_t this_position = position++;
        if (entry.stopword) return;  // CONTENT.md §5: before stemming
        if (entry.stamp != stamp_) {  // the token's first occurrence in this document
            entry.term_index = find_or_add(cache_.stem(entry), entry.stem_hash, out);
            entry.stamp = stamp_;
        }
        const uint32_t index = entry.term_index;
        ++out.terms[index].tf;
        if (positional) {
            ensure(this_position <= std::numeric_limits<uint32_t>::max(),
                   "a document has more than 2^32 token positions");
            occurrences_.emplace_back(index, static_cast<uint32_t>(this_position));
        }
    };
    if (scan_ == TokenScan::vector && text.size() <= kMaxVectorScanBytes) {
        scanner_.scan(text, html);
        start_table(scanner_.size());
        // All tokens are known before the first is looked up: each one's
        // cache entry is fetched kAhead tokens early, so that its (random)
        // cache line is there when the token's turn comes.
        constexpr size_t kAhead = 8;
        uint64_t ahead[kAhead];
        const TokenSpan* const spans = scanner_.begin();
        const size_t count = scanner_.size();
        // The scanner's text is padded (kTokenReadPadding), so short tokens
        // hash and compare as two masked words, without a branch on length.
        static_assert(kTokenReadPadding >= kShortTermBytes);
        const auto hash_of = [&](const TokenSpan& span) {
            return hash_padded_term(scanner_.token(span).data(), span.length);
        };
        for (size_t i = 0; i < kAhead && i < count; ++i) {
            ahead[i] = hash_of(spans[i]);
            cache_.prefetch(ahead[i]);
        }
        for (size_t i = 0; i < count; ++i) {
            const uint64_t h = ahead[i % kAhead];
            if (i + kAhead < count) {
                ahead[i % kAhead] = hash_of(spans[i + kAhead]);
                cache_.prefetch(ahead[i % kAhead]);
            }
            const std::string_view token = scanner_.token(spans[i]);
            on_entry(token.size() <= kShortTermBytes
                         ? cache_.lookup_short(token, padded_short_term_words(token.data(), token.size()), h)
                         : cache_.lookup(token, h));
        }
    } else {
        start_table(text.size() / 2 + 1);  // tokens are at least a byte apart
        if (html) {
            html_text_.clear();
            strip_html(text, html_text_);
            text = html_text_;
        }
        tokenize(text, [&](std::string_view token) { on_entry(cache_.lookup(token, hash_term(token))); });
    }
    out.tokens = position;

    uint64_t length = 0;
    for (auto& term : out.terms) {
        term.first_position_index = static_cast<uint32_t>(positional ? length : 0);
        length += term.tf;
    }
    ensure(length <= std::numeric_limits<uint32_t>::max(), "a document is longer than 2^32 - 1 terms");
    out.length = static_cast<uint32_t>(length);
    if (positional) lay_out_positions(out);
}

// Occurrences arrive in position order; a counting pass places each one in
// its term's range, so every term's positions come out increasing.
void Analyzer::lay_out_positions(DocumentTerms& out) {
    out.positions.resize(out.length);
    cursor_.resize(out.terms.size());
    for (size_t i = 0; i < out.terms.size(); ++i) cursor_[i] = out.terms[i].first_position_index;
    for (const auto& [index, position] : occurrences_) out.positions[cursor_[index]++] = position;
}

std::vector<std::string> Analyzer::analyze_query(std::string_view text) {
    if (settings_.pre_weighted) return split_verbatim_query(text);
    std::vector<std::string> terms;
    tokenize(text, [&](std::string_view token) {
        const TokenCache::Entry& entry = cache_.lookup(token, hash_term(token));
        if (!entry.stopword) terms.emplace_back(cache_.stem(entry));
    });
    return terms;
}

}  // namespace invidx
