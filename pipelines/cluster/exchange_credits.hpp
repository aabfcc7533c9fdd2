// Credits for a rank's batches out on other ranks in a partition cluster
// build. A batch's messages to the other ranks stay outstanding until every
// destination has indexed them (its acknowledgement); while a batch held its
// read block's token for all that time, a rank with half its postings
// remote spent most of its tokens waiting on other ranks' indexers and read
// less than it could. Now a batch trades its token for a credit as soon as
// one is free: its messages then hold the credit, not the token, and the
// read node can go on. With every credit out, a batch keeps its token (the
// old bound) until a credit frees up.
//
// Memory: a credit stands for one batch's remote postings (wire bytes in the
// outbox, then the destinations' decoded slices), a small share of the
// batch's text (ranks send postings, never text: docs/PERFORMANCE.md, "Cluster builds"), so
// `capacity` credits cost far less than as many tokens.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

#include "invidx/messages.hpp"

namespace invidx {

struct ExchangeCreditFigures {
    uint32_t capacity = 0;
    uint32_t peak_in_use = 0;
    uint64_t batches = 0;          // admitted
    uint64_t waited = 0;           // admitted with every credit out (kept their token a while)
    double wait_seconds = 0;       // how long those kept their tokens, summed
};

class ExchangeCredits : public std::enable_shared_from_this<ExchangeCredits> {
public:
    explicit ExchangeCredits(uint32_t capacity);

    // `batch_hold` keeps the batch's token (and the graph's wait). Returns
    // the lease the batch's messages carry: the token is let go as soon as
    // a credit is free (at once, or when another batch's last holder goes),
    // and the credit when the returned lease's last copy dies.
    Lease admit(Lease batch_hold);

    ExchangeCreditFigures figures() const;

private:
    struct Entry {
        Lease batch_hold;     // until it has a credit
        bool credited = false;
        std::chrono::steady_clock::time_point queued{};  // when it began to wait
    };
    void finished(const std::shared_ptr<Entry>& entry);

    mutable std::mutex mutex_;
    uint32_t capacity_;
    uint32_t in_use_ = 0;
    std::deque<std::shared_ptr<Entry>> waiting_;  // oldest first
    ExchangeCreditFigures figures_;
};

}  // namespace invidx
