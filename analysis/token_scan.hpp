// The vector token scan: CONTENT.md §3-4 (HTML constructs, token boundaries, ASCII
// lowercasing) found 64 bytes at a time with Google Highway, dispatched at
// run time to the best instruction set of the CPU. It gives exactly the
// tokens of strip_html + tokenize (the scalar reference, and the only path
// of a build without Highway), in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace invidx {

// Bytes readable after the end of TokenScanner's lowered text.
inline constexpr size_t kTokenReadPadding = 16;

// One token of the last scanned text, in TokenScanner::lowered().
struct TokenSpan {
    uint32_t offset;
    uint32_t length;  // 1..kMaxTokenBytes
};

// One per thread; its buffers grow to the largest document and are reused.
class TokenScanner {
public:
    // Finds the tokens of `text` (CONTENT.md §3 applied first when `html`). Throws
    // invidx::Error in a build without Highway.
    void scan(std::string_view text, bool html);

    // The tokens, in order, and the text they point into: the scanned text
    // with ASCII A-Z lowercased (markup included: only the spans are tokens),
    // followed by kTokenReadPadding readable bytes (of no meaning), so that
    // 16 bytes may be read from any token's start.
    const TokenSpan* begin() const { return spans_.get(); }
    const TokenSpan* end() const { return spans_.get() + count_; }
    size_t size() const { return count_; }
    std::string_view token(const TokenSpan& span) const { return {lowered_.get() + span.offset, span.length}; }

private:
    std::unique_ptr<char[]> lowered_;
    std::unique_ptr<TokenSpan[]> spans_;
    size_t capacity_ = 0;  // bytes of lowered_; spans_ holds capacity_ / 2 + 1
    size_t count_ = 0;
};

// Whether this build has the vector scan (it was built with Highway).
bool vector_scan_built();

// An instruction set the vector scan can run on here.
struct ScanTarget {
    int64_t id;        // Highway's target bit
    std::string name;  // "SSE4", "AVX2", "AVX3" (AVX-512), "NEON", ...
};

// The instruction sets that were compiled in and that this CPU supports,
// best last; empty without Highway. Call it before use_vector_scan_target.
std::vector<ScanTarget> vector_scan_targets();

// Makes every later scan, in every thread, use `target` (one of
// vector_scan_targets()), or the best supported one again for 0: for tests
// and benchmarks that compare instruction sets.
void use_vector_scan_target(int64_t target);

// The instruction set scans use now ("" without Highway).
std::string vector_scan_target_name();

}  // namespace invidx
