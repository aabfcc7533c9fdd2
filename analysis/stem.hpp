// Stemming (CONTENT.md §6): Snowball's `porter` algorithm through libstemmer, so
// that terms are byte-identical to what libstemmer computes.
#pragma once

#include <string>
#include <string_view>

struct sb_stemmer;  // libstemmer's handle; its header stays out of ours

namespace invidx {

// One per thread: a libstemmer handle keeps per-call state and is not
// thread-safe. Algorithm "none" stems nothing; any other name is a Snowball
// algorithm as libstemmer lists it ("porter" is the default of CONTENT.md §6).
class PorterStemmer {
public:
    explicit PorterStemmer(const std::string& algorithm = "porter");
    ~PorterStemmer();
    PorterStemmer(const PorterStemmer&) = delete;
    PorterStemmer& operator=(const PorterStemmer&) = delete;
    PorterStemmer(PorterStemmer&& other) noexcept;
    PorterStemmer& operator=(PorterStemmer&& other) noexcept;

    // The stem of `token`, valid until the next call or until the stemmer is
    // destroyed. With "none" it is `token` itself, and so it is where the
    // algorithm would leave nothing (Porter's "s"): a term is never empty.
    std::string_view stem(std::string_view token);

    bool identity() const { return stemmer_ == nullptr; }

private:
    sb_stemmer* stemmer_ = nullptr;
};

}  // namespace invidx
