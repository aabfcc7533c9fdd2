#include "pipelines/cluster/mpi/mpi_session.hpp"

#include <mpi.h>

namespace invidx {

MpiSession& MpiSession::get() {
    static MpiSession session;
    return session;
}

MpiSession::MpiSession() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
        int provided = 0;
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
        owned_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owned_ && !finalized) MPI_Finalize();
}

void Messages::broadcast(std::string& text) {
    uint64_t length = text.size();
    MPI_Bcast(&length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    text.resize(length);
    MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank_ == 0) {
        sent_ += (length + 8) * static_cast<uint64_t>(size_ - 1);
    } else {
        received_ += length + 8;
    }
}

std::vector<std::string> Messages::gather(const std::string& text) {
    const int length = static_cast<int>(text.size());
    std::vector<int> lengths(rank_ == 0 ? size_ : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> displacements(lengths.size(), 0);
    int total = 0;
    for (size_t r = 0; r < lengths.size(); ++r) displacements[r] = total, total += lengths[r];
    std::string all(static_cast<size_t>(total), '\0');
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), displacements.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    if (rank_ != 0) {
        sent_ += static_cast<uint64_t>(length) + 4;
        return {};
    }
    std::vector<std::string> texts;
    for (size_t r = 0; r < lengths.size(); ++r) {
        texts.push_back(all.substr(static_cast<size_t>(displacements[r]), static_cast<size_t>(lengths[r])));
        if (r != 0) received_ += static_cast<uint64_t>(lengths[r]) + 4;
    }
    return texts;
}

ControlMessage Messages::broadcast(std::optional<ControlMessage> message) {
    std::string text = message ? encode(*message) : std::string();
    broadcast(text);
    return decode(text);
}

std::vector<ControlMessage> Messages::gather(const ControlMessage& message) {
    std::vector<ControlMessage> messages;
    for (const auto& text : gather(encode(message))) messages.push_back(decode(text));
    return messages;
}

}  // namespace invidx
