// A cluster rank's batches trade their read token for an exchange credit as
// soon as one is free, keep the token while none is, and give the credit
// back when the last destination is done with them.
#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "pipelines/cluster/exchange_credits.hpp"

using namespace invidx;

namespace {

// A batch's hold that records when it is let go.
struct Hold {
    std::shared_ptr<bool> released = std::make_shared<bool>(false);
    Lease lease() const {
        return Lease(new char(0), [flag = released](void* p) {
            delete static_cast<char*>(p);
            *flag = true;
        });
    }
};

}  // namespace

TEST_CASE("exchange credits: tokens go back while credits last, then when a credit frees up, in order") {
    auto credits = std::make_shared<ExchangeCredits>(2);
    std::vector<Hold> holds(4);
    std::vector<Lease> outstanding;
    for (const Hold& hold : holds) outstanding.push_back(credits->admit(hold.lease()));
    CHECK(*holds[0].released);
    CHECK(*holds[1].released);
    CHECK_FALSE(*holds[2].released);
    CHECK_FALSE(*holds[3].released);
    CHECK(credits->figures().wait_seconds == 0);  // nobody has finished waiting yet
    std::this_thread::sleep_for(std::chrono::milliseconds(20));

    outstanding[1].reset();  // batch 1 acknowledged everywhere: its credit goes to batch 2
    CHECK(*holds[2].released);
    CHECK_FALSE(*holds[3].released);

    // Batch 3 done before any credit came: its token goes, no credit taken.
    outstanding[3].reset();
    CHECK(*holds[3].released);
    ExchangeCreditFigures figures = credits->figures();
    CHECK(figures.capacity == 2);
    CHECK(figures.peak_in_use == 2);
    CHECK(figures.batches == 4);
    CHECK(figures.waited == 2);
    CHECK(figures.wait_seconds >= 0.04);  // batches 2 and 3 each waited 20 ms or more

    // The credits held by batches 0 and 2 come back: a new batch passes at once.
    outstanding[0].reset();
    outstanding[2].reset();
    Hold next;
    const Lease more = credits->admit(next.lease());
    CHECK(*next.released);
    CHECK(credits->figures().waited == 2);
}

TEST_CASE("exchange credits: a batch's several messages hold one credit until the last of them is done") {
    auto credits = std::make_shared<ExchangeCredits>(1);
    Hold first, second;
    Lease message_a = credits->admit(first.lease());
    Lease message_b = message_a;  // the same batch to another destination
    const Lease waiting = credits->admit(second.lease());
    message_a.reset();
    CHECK_FALSE(*second.released);
    message_b.reset();
    CHECK(*second.released);
}

TEST_CASE("exchange credits: leases kept after the build let go of its credits still return them") {
    Hold hold;
    Lease kept;
    {
        auto credits = std::make_shared<ExchangeCredits>(1);
        Hold other;
        const Lease first = credits->admit(other.lease());
        kept = credits->admit(hold.lease());
    }
    CHECK(*hold.released);  // the first batch's credit came back as the scope ended
    kept.reset();
}
