// The distributor's transport in a partition-and-index cluster build
// (Wei & JaJa §IV): the parsed, regrouped postings a rank's parsers made
// for collections that other ranks' indexers own go to those ranks, one
// message per destination per batch ("round"), and the batches other ranks
// send here go to the pipeline indexing that source's stream.
//
// Only the thread that runs run() calls MPI (MPI_THREAD_FUNNELED: it is the
// main thread). The flow graphs hand it messages through post() and take
// batches from a ReceiveChannel; neither ever blocks a graph thread.
//
// Memory is bounded by the lease a message carries until the destination
// acknowledges that its indexers are done with it: one of the rank's
// exchange credits (exchange_credits.hpp), or its batch's token while every
// credit is out, so at most exchange_credits + memory.tokens batches are
// outstanding per rank, whatever the destinations' speed; a receiver holds
// at most what its sources' credits and pools allow.
//
// Ending: every rank sends each other rank an end marker after its last
// batch, saying whether its parsing succeeded. run() returns once this
// rank's pipelines are done, every peer's end marker has arrived, every send
// has completed and every message has been acknowledged both ways, so
// nothing is left in flight (also after a failure: a peer's batches that
// arrive after a stop are dropped and acknowledged). A failed peer's end
// marker reaches the caller at once, so no rank waits for a stream that will
// not come.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "invidx/messages.hpp"

namespace invidx {

// A batch message as received, still encoded (postings_wire): the receive
// node decodes it in the flow graph, several at once, not the exchange
// thread. `lease` acknowledges it to its source when the last holder lets go.
struct ReceivedMessage {
    std::string bytes;
    bool last = false;   // the source's end_of_input batch
    Lease lease;
};

// One source rank's batches on their way into the pipeline that indexes
// them here. Batches that come before the pipeline has started wait here.
class ReceiveChannel {
public:
    using Message = std::shared_ptr<const ReceivedMessage>;

    // What the pipeline's receive node offers the channel.
    class Target {
    public:
        virtual ~Target() = default;
        virtual void put(Message message) = 0;
        // No more batches: the node lets its graph finish.
        virtual void release() = 0;
        virtual bool cancelled() const = 0;
    };

    // Receive node side: from its start() until it is destroyed.
    void attach(Target* target);
    void detach();

    // Exchange side. No message comes after the last one.
    void deliver(Message message);
    // Stopped: batches waiting are dropped, the pipeline is let go.
    void close();
    // A pipeline that failed on its own is let go too.
    void release_if_cancelled();

private:
    std::mutex mutex_;
    Target* target_ = nullptr;
    bool closed_ = false;     // end_of_input delivered, or close()
    bool released_ = false;
    std::deque<Message> waiting_;
};

struct ExchangeFigures {
    uint64_t bytes_sent = 0;          // payload bytes of every message this rank sent
    uint64_t bytes_received = 0;
    uint64_t batch_messages_sent = 0;
    uint64_t batch_messages_received = 0;
    uint64_t batch_bytes_sent = 0;    // of postings messages only
    uint64_t batch_bytes_received = 0;
    uint64_t peak_unacknowledged = 0; // messages sent and not yet acknowledged, at most
    double busy_seconds = 0;          // the exchange thread's own work (MPI calls)
};

class PostingsExchange {
public:
    // MPI must be initialized.
    PostingsExchange(int rank, int ranks);
    ~PostingsExchange();
    PostingsExchange(const PostingsExchange&) = delete;
    PostingsExchange& operator=(const PostingsExchange&) = delete;

    int rank() const { return rank_; }
    int ranks() const { return ranks_; }
    ReceiveChannel& channel(int source) { return *channels_.at(static_cast<size_t>(source)); }

    // Any thread: `message` (a postings_wire batch message) for `destination`;
    // `hold` is kept until the destination has acknowledged it.
    void post_batch(int destination, std::string message, Lease hold);
    // Any thread, once: this rank sends no more batches; `ok`: its parsing
    // succeeded (false tells every peer to stop).
    void finish_local(bool ok);

    // The exchange thread: moves messages until `step()` (called every
    // round, where the caller watches its pipelines) says this rank's
    // pipelines are done and nothing is in flight. `on_peer_failed(source)`
    // is called once per peer whose end marker says it failed. A message of
    // an unknown kind makes run() throw after draining: it never leaves
    // messages behind.
    void run(const std::function<bool()>& step, const std::function<void(int)>& on_peer_failed);

    ExchangeFigures figures() const { return figures_; }

private:
    struct Outgoing {
        int destination = 0;
        std::string bytes;
        Lease hold;          // batches only
        bool batch = false;
    };
    struct Impl;

    void acknowledge_later(int source);

    int rank_;
    int ranks_;
    std::vector<std::unique_ptr<ReceiveChannel>> channels_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Outgoing> outbox_;
    std::vector<uint64_t> acks_owed_;   // per source: batches released, not yet acknowledged
    bool local_finished_ = false;
    ExchangeFigures figures_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace invidx
