#include "pipelines/cluster/mpi/postings_exchange.hpp"

#include <mpi.h>

#include <chrono>
#include <list>

#include "graph/seconds_since.hpp"
#include "invidx/error.hpp"
#include "pipelines/cluster/postings_wire.hpp"

namespace invidx {
namespace {

// Tags of the build's point-to-point messages (the stop notices of the
// files mode use their own).
constexpr int kDataTag = 0x1d60;  // a batch or an end marker, in order per source
constexpr int kAckTag = 0x1d61;   // u64: how many of the receiver's batches from us it is done with

using postings_wire::kEndFailed;
using postings_wire::kLastBatchMessage;
using postings_wire::kEndOk;

}  // namespace

void ReceiveChannel::attach(Target* target) {
    std::lock_guard lock(mutex_);
    target_ = target;
    while (!waiting_.empty() && !released_) {
        auto message = std::move(waiting_.front());
        waiting_.pop_front();
        const bool last = message->last;
        target_->put(std::move(message));
        if (last) released_ = true, target_->release();
    }
    if (closed_ && !released_) released_ = true, target_->release();
}

void ReceiveChannel::detach() {
    std::lock_guard lock(mutex_);
    target_ = nullptr;
}

void ReceiveChannel::deliver(Message message) {
    std::lock_guard lock(mutex_);
    if (closed_) return;  // dropped: its lease acknowledges it
    const bool last = message->last;
    if (last) closed_ = true;
    if (!target_) {
        waiting_.push_back(std::move(message));
        return;
    }
    target_->put(std::move(message));
    if (last && !released_) released_ = true, target_->release();
}

void ReceiveChannel::close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    waiting_.clear();
    if (target_ && !released_) released_ = true, target_->release();
}

void ReceiveChannel::release_if_cancelled() {
    std::lock_guard lock(mutex_);
    if (target_ && !released_ && target_->cancelled()) {
        closed_ = true;
        waiting_.clear();
        released_ = true;
        target_->release();
    }
}

// The MPI side: requests in flight and what each keeps alive.
struct PostingsExchange::Impl {
    struct Sending {
        Outgoing message;
        MPI_Request request = MPI_REQUEST_NULL;
    };
    struct AckSending {
        uint64_t count = 0;
        MPI_Request request = MPI_REQUEST_NULL;
    };
    std::list<Sending> sending;
    std::list<AckSending> acks_sending;
    std::vector<std::deque<Lease>> unacknowledged;  // per destination, oldest first
    // Acknowledgements that came before MPI_Test saw their send complete.
    std::vector<uint64_t> acknowledged_early;
    uint64_t unacknowledged_total = 0;
    int ends_received = 0;
    std::string first_error;
};

PostingsExchange::PostingsExchange(int rank, int ranks)
    : rank_(rank), ranks_(ranks), acks_owed_(static_cast<size_t>(ranks), 0),
      impl_(std::make_unique<Impl>()) {
    for (int r = 0; r < ranks; ++r) channels_.push_back(std::make_unique<ReceiveChannel>());
    impl_->unacknowledged.resize(static_cast<size_t>(ranks));
    impl_->acknowledged_early.assign(static_cast<size_t>(ranks), 0);
}

PostingsExchange::~PostingsExchange() = default;

void PostingsExchange::post_batch(int destination, std::string message, Lease hold) {
    {
        std::lock_guard lock(mutex_);
        outbox_.push_back(Outgoing{.destination = destination, .bytes = std::move(message), .hold = std::move(hold),
                                   .batch = true});
    }
    wake_.notify_one();
}

void PostingsExchange::finish_local(bool ok) {
    {
        std::lock_guard lock(mutex_);
        if (local_finished_) return;
        local_finished_ = true;
        for (int r = 0; r < ranks_; ++r)
            if (r != rank_) outbox_.push_back(Outgoing{.destination = r, .bytes = std::string(1, ok ? kEndOk : kEndFailed),
                                                      .hold = {}, .batch = false});
    }
    wake_.notify_one();
}

void PostingsExchange::acknowledge_later(int source) {
    {
        std::lock_guard lock(mutex_);
        ++acks_owed_[static_cast<size_t>(source)];
    }
    wake_.notify_one();
}

void PostingsExchange::run(const std::function<bool()>& step, const std::function<void(int)>& on_peer_failed) {
    Impl& m = *impl_;
    const int peers = ranks_ - 1;
    for (;;) {
        bool progressed = false;
        const auto round_start = std::chrono::steady_clock::now();

        // 1. New messages out, in the order they were posted (MPI keeps the
        // order per destination and tag: a stream's end marker comes last).
        std::deque<Outgoing> out;
        std::vector<uint64_t> acks(static_cast<size_t>(ranks_), 0);
        {
            std::lock_guard lock(mutex_);
            out.swap(outbox_);
            acks.swap(acks_owed_);
            acks_owed_.assign(static_cast<size_t>(ranks_), 0);
        }
        for (auto& message : out) {
            auto& sending = m.sending.emplace_back();
            sending.message = std::move(message);
            const auto& bytes = sending.message.bytes;
            MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, sending.message.destination, kDataTag,
                      MPI_COMM_WORLD, &sending.request);
            figures_.bytes_sent += bytes.size();
            if (sending.message.batch) ++figures_.batch_messages_sent, figures_.batch_bytes_sent += bytes.size();
            progressed = true;
        }
        for (int r = 0; r < ranks_; ++r) {
            if (acks[static_cast<size_t>(r)] == 0) continue;
            auto& ack = m.acks_sending.emplace_back();
            ack.count = acks[static_cast<size_t>(r)];
            MPI_Isend(&ack.count, 1, MPI_UINT64_T, r, kAckTag, MPI_COMM_WORLD, &ack.request);
            figures_.bytes_sent += sizeof ack.count;
            progressed = true;
        }

        // 2. Sends done: a batch's lease waits for its acknowledgement.
        for (auto it = m.sending.begin(); it != m.sending.end();) {
            int done = 0;
            MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
            if (!done) {
                ++it;
                continue;
            }
            uint64_t& early = m.acknowledged_early[static_cast<size_t>(it->message.destination)];
            if (it->message.batch && early > 0) {
                --early;
            } else if (it->message.batch) {
                m.unacknowledged[static_cast<size_t>(it->message.destination)].push_back(std::move(it->message.hold));
                ++m.unacknowledged_total;
                figures_.peak_unacknowledged = std::max(figures_.peak_unacknowledged, m.unacknowledged_total);
            }
            it = m.sending.erase(it);
            progressed = true;
        }
        for (auto it = m.acks_sending.begin(); it != m.acks_sending.end();) {
            int done = 0;
            MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
            it = done ? m.acks_sending.erase(it) : std::next(it);
        }

        // 3. Messages in: batches to their source's pipeline, end markers.
        for (;;) {
            int waiting = 0;
            MPI_Status status;
            MPI_Iprobe(MPI_ANY_SOURCE, kDataTag, MPI_COMM_WORLD, &waiting, &status);
            if (!waiting) break;
            int size = 0;
            MPI_Get_count(&status, MPI_BYTE, &size);
            std::string bytes(static_cast<size_t>(size), '\0');
            const int source = status.MPI_SOURCE;
            MPI_Recv(bytes.data(), size, MPI_BYTE, source, kDataTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            figures_.bytes_received += bytes.size();
            progressed = true;
            if (postings_wire::is_batch_message(bytes)) {
                ++figures_.batch_messages_received;
                figures_.batch_bytes_received += bytes.size();
                auto message = std::make_shared<ReceivedMessage>();
                message->last = bytes[0] == kLastBatchMessage;
                message->bytes = std::move(bytes);
                // Acknowledged when the last holder (the indexers) lets go.
                message->lease = Lease(new char(0), [this, source](void* p) {
                    delete static_cast<char*>(p);
                    acknowledge_later(source);
                });
                channel(source).deliver(std::move(message));
            } else if (!bytes.empty() && (bytes[0] == kEndOk || bytes[0] == kEndFailed)) {
                ++m.ends_received;
                if (bytes[0] == kEndFailed) on_peer_failed(source);
            } else {
                // Nothing this build sends: the stream cannot be trusted.
                if (m.first_error.empty())
                    m.first_error = "a message of unknown kind came from rank " + std::to_string(source);
                channel(source).close();
            }
        }
        for (;;) {
            int waiting = 0;
            MPI_Status status;
            MPI_Iprobe(MPI_ANY_SOURCE, kAckTag, MPI_COMM_WORLD, &waiting, &status);
            if (!waiting) break;
            uint64_t count = 0;
            MPI_Recv(&count, 1, MPI_UINT64_T, status.MPI_SOURCE, kAckTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            figures_.bytes_received += sizeof count;
            auto& held = m.unacknowledged[static_cast<size_t>(status.MPI_SOURCE)];
            for (; count > 0 && !held.empty(); --count) held.pop_front(), --m.unacknowledged_total;
            m.acknowledged_early[static_cast<size_t>(status.MPI_SOURCE)] += count;
            progressed = true;
        }
        for (auto& channel : channels_) channel->release_if_cancelled();
        if (progressed) figures_.busy_seconds += seconds_since(round_start);

        // 4. Done when this rank's pipelines are and nothing is in flight.
        const bool pipelines_done = step();
        if (pipelines_done && m.ends_received == peers && m.sending.empty() && m.acks_sending.empty() &&
            m.unacknowledged_total == 0) {
            std::lock_guard lock(mutex_);
            bool owed = false;
            for (const uint64_t count : acks_owed_) owed = owed || count != 0;
            if (outbox_.empty() && !owed && local_finished_) break;
        }
        if (!progressed) {
            std::unique_lock lock(mutex_);
            wake_.wait_for(lock, std::chrono::milliseconds(1));
        }
    }
    for (auto& channel : channels_) channel->close();
    if (!impl_->first_error.empty()) throw Error(impl_->first_error);
}

}  // namespace invidx
