// BM25 (CONTENT.md §10): the parameters and the score of one posting.
//   idf(t)  = ln(1 + (N - df + 0.5) / (df + 0.5))
//   part    = tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))
//   score   = Σ over distinct query terms t in d of idf(t)·part
// The per-document factor k1·(1 − b + b·dl/avgdl) is computed once per
// document (Bm25::length_norm) so that scoring a posting is one division.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>

namespace invidx {

struct Bm25Parameters {
    double k1 = 0.9;
    double b = 0.4;
};

class Bm25 {
public:
    Bm25(Bm25Parameters parameters, uint64_t documents, double average_length)
        : parameters_(parameters),
          documents_(static_cast<double>(documents)),
          // An empty index has no postings to score; 1 keeps the formula finite.
          average_length_(average_length > 0.0 ? average_length : 1.0) {}

    const Bm25Parameters& parameters() const { return parameters_; }

    double idf(uint64_t df) const {
        const double d = static_cast<double>(df);
        return std::log(1.0 + (documents_ - d + 0.5) / (d + 0.5));
    }

    // k1·(1 − b + b·dl/avgdl): the document's part of the denominator.
    double length_norm(uint32_t length) const {
        return parameters_.k1 * (1.0 - parameters_.b + parameters_.b * static_cast<double>(length) / average_length_);
    }

    // tf·(k1+1) / (tf + norm): the term-frequency part, without idf.
    double tf_part(uint32_t tf, double norm) const {
        const double f = static_cast<double>(tf);
        return f * (parameters_.k1 + 1.0) / (f + norm);
    }

    // One posting's contribution to a document's score.
    double score(double idf, uint32_t tf, double norm) const { return idf * tf_part(tf, norm); }

private:
    Bm25Parameters parameters_;
    double documents_;
    double average_length_;
};

// A document's score is the sum of its terms' contributions in query-term
// order (the order of QueryTerms), absent terms contributing 0.0. Every
// algorithm sums the same way, so pruned and exhaustive evaluation give
// bit-identical scores, and documents with the same postings tie exactly.
inline double sum_in_query_order(std::span<const double> contributions) {
    double score = 0.0;
    for (const double c : contributions) score += c;
    return score;
}

}  // namespace invidx
