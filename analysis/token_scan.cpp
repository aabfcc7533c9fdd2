// The vector token scan. Each step classifies 64 bytes with vector compares
// into three bit masks (ASCII letters and digits, bytes >= 0x80, '<' and
// '&'), stores them lowercased, and walks the masks with countr_zero:
//  - only '<' and '&' can start an CONTENT.md §3 construct; at each one the scalar
//    rules of html.cpp decide (constructs are rare per byte), and scanning
//    goes on after the construct, which separates tokens as the space that
//    strip_html puts in its place does;
//  - a byte >= 0x80 goes to the scalar UTF-8 classifier, which marks the
//    bytes of a well-formed token character as token bytes (a character cut
//    by the end of the 64 bytes starts the next step instead);
//  - tokens are the runs of token bits; a run longer than kMaxTokenBytes is
//    dropped, as tokenize() does.
// Highway compiles this file once per instruction set (foreach_target.h) and
// HWY_DYNAMIC_DISPATCH picks the best one the CPU has at run time.

#include "analysis/token_scan.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "invidx/error.hpp"

#if INVIDX_HAVE_HWY

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "analysis/token_scan.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "analysis/html.hpp"
#include "analysis/html_rules.hpp"
#include "analysis/tokenize.hpp"

HWY_BEFORE_NAMESPACE();
namespace invidx {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr size_t kBlockBytes = 64;  // one bit per byte in a uint64_t

struct BlockMasks {
    uint64_t token;   // ASCII letter or digit
    uint64_t high;    // byte >= 0x80: part of a UTF-8 sequence, or ill-formed
    uint64_t markup;  // '<' or '&'
    uint64_t close;   // '>': where most tags end, found without leaving the block
};

// Bits [from, to) set; from <= to <= 64.
inline uint64_t bit_range(size_t from, size_t to) {
    const uint64_t below_to = to >= 64 ? ~uint64_t{0} : (uint64_t{1} << to) - 1;
    const uint64_t below_from = from >= 64 ? ~uint64_t{0} : (uint64_t{1} << from) - 1;
    return below_to & ~below_from;
}

// Classifies the 64 bytes at `in` and stores them, ASCII A-Z lowercased, at `lowered`.
HWY_INLINE BlockMasks classify_block(const uint8_t* HWY_RESTRICT in, uint8_t* HWY_RESTRICT lowered) {
    const hn::CappedTag<uint8_t, kBlockBytes> d;  // lanes never exceed the block
    const hn::RebindToSigned<decltype(d)> di;
    const size_t lanes = hn::Lanes(d);
    BlockMasks masks{0, 0, 0, 0};
    for (size_t i = 0; i < kBlockBytes; i += lanes) {
        const auto v = hn::LoadU(d, in + i);
        // Unsigned v - lo < count tests lo <= v < lo + count in one compare.
        const auto upper = hn::Lt(hn::Sub(v, hn::Set(d, 'A')), hn::Set(d, 26));
        const auto folded = hn::Or(v, hn::Set(d, 0x20));  // ASCII letters to lowercase
        const auto letter = hn::Lt(hn::Sub(folded, hn::Set(d, 'a')), hn::Set(d, 26));
        const auto digit = hn::Lt(hn::Sub(v, hn::Set(d, '0')), hn::Set(d, 10));
        const auto high = hn::RebindMask(d, hn::Lt(hn::BitCast(di, v), hn::Zero(di)));
        const auto markup = hn::Or(hn::Eq(v, hn::Set(d, '<')), hn::Eq(v, hn::Set(d, '&')));
        hn::StoreU(hn::IfThenElse(upper, folded, v), d, lowered + i);

        const auto bits = [&](auto mask) {
            uint8_t bytes[8] = {};
            hn::StoreMaskBits(d, mask, bytes);
            uint64_t word;
            std::memcpy(&word, bytes, sizeof(word));
            return (lanes >= 64 ? word : word & ((uint64_t{1} << lanes) - 1)) << i;
        };
        masks.token |= bits(hn::Or(letter, digit));
        masks.high |= bits(high);
        masks.markup |= bits(markup);
        masks.close |= bits(hn::Eq(v, hn::Set(d, '>')));
    }
    return masks;
}

// Whether the '<' at `at` starts a plain tag (CONTENT.md §3 rule 3) that neither
// a comment (rule 1) nor a script or style element (rule 2) could take: then
// it ends at the first '>' after at + 1, which the block's masks often show.
// (false: html_construct_end decides, for every rule.)
inline bool plain_tag_start(const uint8_t* in, size_t size, size_t at) {
    if (at + 1 >= size) return false;
    const uint8_t next = in[at + 1];
    const uint8_t folded = next | 0x20;
    if (folded >= 'a' && folded <= 'z') {
        if (folded != 's') return true;
        // <span, <strong, <small, <sup...: only "<scr" and "<sty" may open
        // a raw-text element.
        if (size - at < 4) return false;
        const uint8_t second = in[at + 2] | 0x20, third = in[at + 3] | 0x20;
        return !((second == 'c' && third == 'r') || (second == 't' && third == 'y'));
    }
    if (next == '/' || next == '?') return true;
    return next == '!' && !(at + 3 < size && in[at + 2] == '-' && in[at + 3] == '-');
}

// Returns the number of spans written; `spans` has room for size / 2 + 1
// (tokens are separated by at least one byte, so even the span of a dropped
// token is written inside it) and `lowered` for size bytes.
size_t ScanTokens(const char* text, size_t size, bool html, char* lowered_out, TokenSpan* spans) {
    const auto* const in = reinterpret_cast<const uint8_t*>(text);
    auto* const lowered = reinterpret_cast<uint8_t*>(lowered_out);
    const std::string_view whole(text, size);
    size_t count = 0;
    bool in_token = false;
    size_t token_start = 0;
    const auto end_token = [&](size_t end) {
        const size_t length = end - token_start;
        if (length <= kMaxTokenBytes) {
            spans[count++] = TokenSpan{static_cast<uint32_t>(token_start), static_cast<uint32_t>(length)};
        }
        in_token = false;
    };

    alignas(64) uint8_t tail_in[kBlockBytes];
    alignas(64) uint8_t tail_lowered[kBlockBytes];
    // Blocks start at multiples of 64 from the text's start, so each byte is
    // classified once. Each block is done in three passes over its masks:
    // constructs (which clear their bytes from `live`), then UTF-8
    // characters outside them, then the runs of token bits.
    size_t pos = 0;  // the block's first byte
    size_t off = 0;  // bytes of the block before it are inside a construct begun earlier
    // Bits of the next block that continue a character begun in this one:
    // all of them, and those that are token bytes.
    uint64_t carried = 0, carried_token = 0;
    // A plain tag began in an earlier block and its '>' is still to come:
    // the next block's '>' mask finds it (no search past the block).
    bool in_plain_tag = false;
    while (pos < size) {
        const size_t n = size - pos < kBlockBytes ? size - pos : kBlockBytes;
        BlockMasks masks;
        if (n == kBlockBytes) {
            hwy::Prefetch(in + pos + 8 * kBlockBytes);  // a hint only: never faults past the end
            masks = classify_block(in + pos, lowered + pos);
        } else {  // the last bytes: NUL padding is neither token, high nor markup
            std::memset(tail_in, 0, sizeof(tail_in));
            std::memcpy(tail_in, in + pos, n);
            masks = classify_block(tail_in, tail_lowered);
            std::memcpy(lowered + pos, tail_lowered, n);
        }
        if (in_plain_tag) {  // off is 0: the tag ends at this block's first '>', if any
            const uint64_t close = masks.close & bit_range(0, n);
            in_plain_tag = close == 0;
            off = in_plain_tag ? n : static_cast<size_t>(std::countr_zero(close)) + 1;
        }
        uint64_t live = bit_range(off, n);  // bytes outside constructs
        uint64_t token = (masks.token | carried_token) & live;
        uint64_t high = masks.high & ~carried & live;
        carried = carried_token = 0;
        size_t next_block = pos + n;
        off = 0;

        // Constructs, left to right; an ordinary '<' or '&' is a separator
        // byte already (no token bit).
        uint64_t markup = html ? masks.markup & live : 0;
        while (markup != 0) {
            const auto r = static_cast<size_t>(std::countr_zero(markup));
            const size_t at = pos + r;
            size_t construct_end;
            if (in[at] == '<' && plain_tag_start(in, size, at)) {
                // The '>' is searched after "<x"; when the block has none,
                // the tag runs into the next block (x is never '>').
                const size_t from = r + 2;
                const uint64_t close = from < n ? masks.close & bit_range(from, n) : 0;
                if (close == 0) {
                    live &= bit_range(0, r);
                    in_plain_tag = true;
                    break;
                }
                construct_end = pos + static_cast<size_t>(std::countr_zero(close)) + 1;
            } else if (in[at] == '&') {
                construct_end = html_rules::reference_end(in, size, at);
                if (construct_end == 0) {  // ordinary text
                    markup &= markup - 1;
                    continue;
                }
            } else {
                construct_end = html_construct_end(whole, at);
                if (construct_end == 0) {  // ordinary text
                    markup &= markup - 1;
                    continue;
                }
            }
            if (construct_end - pos < n) {
                const uint64_t done = bit_range(0, construct_end - pos);
                live &= ~(done & ~bit_range(0, r));
                markup &= ~done;
                continue;
            }
            // The construct runs past the block: scanning goes on in the
            // block that holds its end (whole blocks inside it are never read).
            live &= bit_range(0, r);
            next_block = pos + (construct_end - pos) / kBlockBytes * kBlockBytes;
            off = construct_end - next_block;
            break;
        }
        token &= live;
        high &= live;

        // Bytes >= 0x80 outside constructs: one UTF-8 character at a time.
        // Only the block's last character can run past its end (a
        // well-formed character holds no '<' or '&'; an ill-formed byte is one).
        while (high != 0) {
            const auto i = static_cast<size_t>(std::countr_zero(high));
            const utf8::Character character = utf8::classify_multibyte(in + pos + i, in + size);
            if (i + character.bytes > n) {  // into the next block
                carried = bit_range(0, i + character.bytes - n);
                if (character.token) {
                    token |= bit_range(i, n);
                    carried_token = carried;
                }
                break;
            }
            const uint64_t character_bits = bit_range(i, i + character.bytes);
            if (character.token) token |= character_bits;
            high &= ~character_bits;
        }

        // Tokens: the runs of token bits; one open at the block's start
        // continues when bit 0 is set. Starts and ends alternate, so they
        // pair up without a branch per token.
        const uint64_t before = (token << 1) | (in_token ? 1 : 0);
        uint64_t starts = token & ~before;
        uint64_t ends = ~token & before & bit_range(0, n);
        if (in_token && ends != 0) {
            end_token(pos + static_cast<size_t>(std::countr_zero(ends)));
            ends &= ends - 1;
        }
        while (starts != 0) {
            const size_t start = pos + static_cast<size_t>(std::countr_zero(starts));
            starts &= starts - 1;
            if (ends == 0) {  // runs on into the next block
                token_start = start;
                in_token = true;
                break;
            }
            const size_t length = pos + static_cast<size_t>(std::countr_zero(ends)) - start;
            ends &= ends - 1;
            // Written always, kept only when short enough (CONTENT.md §4).
            spans[count] = TokenSpan{static_cast<uint32_t>(start), static_cast<uint32_t>(length)};
            count += length <= kMaxTokenBytes ? 1 : 0;
        }
        pos = next_block;
    }
    if (in_token) end_token(size);
    return count;
}

// The instruction set this copy was compiled for.
int64_t CompiledTarget() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace invidx
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace invidx {

HWY_EXPORT(ScanTokens);
HWY_EXPORT(CompiledTarget);

void TokenScanner::scan(std::string_view text, bool html) {
    ensure(text.size() < std::numeric_limits<uint32_t>::max(), "a document of 4 GiB or more");
    if (text.size() > capacity_) {
        capacity_ = text.size() + text.size() / 2;
        lowered_ = std::make_unique_for_overwrite<char[]>(capacity_ + kTokenReadPadding);
        spans_ = std::make_unique_for_overwrite<TokenSpan[]>(capacity_ / 2 + 1);
    }
    count_ = HWY_DYNAMIC_DISPATCH(ScanTokens)(text.data(), text.size(), html, lowered_.get(), spans_.get());
}

bool vector_scan_built() { return true; }

std::vector<ScanTarget> vector_scan_targets() {
    std::vector<ScanTarget> targets;
    for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
        targets.push_back(ScanTarget{target, hwy::TargetName(target)});
    }
    // Highway's bits run from the best target to the most basic one.
    std::sort(targets.begin(), targets.end(), [](const ScanTarget& a, const ScanTarget& b) { return a.id > b.id; });
    return targets;
}

void use_vector_scan_target(int64_t target) {
    hwy::SetSupportedTargetsForTest(target);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}

std::string vector_scan_target_name() { return hwy::TargetName(HWY_DYNAMIC_DISPATCH(CompiledTarget)()); }

}  // namespace invidx
#endif  // HWY_ONCE

#else  // no Highway: the scalar scan of the analyzer is the only one

namespace invidx {

void TokenScanner::scan(std::string_view, bool) { throw Error("this build has no vector token scan (no Highway)"); }
bool vector_scan_built() { return false; }
std::vector<ScanTarget> vector_scan_targets() { return {}; }
void use_vector_scan_target(int64_t) {}
std::string vector_scan_target_name() { return ""; }

}  // namespace invidx

#endif  // INVIDX_HAVE_HWY
