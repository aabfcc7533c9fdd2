// MPI for cluster builds: the process's MPI session, and the few collective
// messages a build exchanges besides postings (the plan from rank 0, each
// rank's figures to rank 0, the outcome from rank 0), counted for the report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipelines/cluster/control_messages.hpp"

namespace invidx {

// MPI is initialized once per process and finalized at its exit, after
// every collective of every build (mpirun counts a rank that exits without
// MPI_Finalize as failed). Only the main thread calls MPI
// (MPI_THREAD_FUNNELED): the flow graphs' threads never do.
class MpiSession {
public:
    static MpiSession& get();
    int rank() const { return rank_; }
    int size() const { return size_; }

private:
    MpiSession();
    ~MpiSession();

    int rank_ = 0;
    int size_ = 1;
    bool owned_ = false;
};

class Messages {
public:
    Messages(int rank, int size) : rank_(rank), size_(size) {}

    // Rank 0's `text` on every rank.
    void broadcast(std::string& text);
    // Every rank's `text`, in rank order, on rank 0 (empty elsewhere).
    std::vector<std::string> gather(const std::string& text);
    // The same for control messages: rank 0's `message` (the others pass
    // none) on every rank; every rank's, in rank order, on rank 0.
    ControlMessage broadcast(std::optional<ControlMessage> message);
    std::vector<ControlMessage> gather(const ControlMessage& message);

    int rank() const { return rank_; }
    uint64_t sent() const { return sent_; }
    uint64_t received() const { return received_; }

private:
    int rank_;
    int size_;
    uint64_t sent_ = 0;
    uint64_t received_ = 0;
};

}  // namespace invidx
