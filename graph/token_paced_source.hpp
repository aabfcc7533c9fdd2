// A source node that makes one RawBlock per token of memory.tokens, on one
// thread: input_node -> limiter -> reader. The input_node only hands out
// tickets: it keeps a copy of the last item it produced, and a copy of a
// block would hold that block's token until the next block was made, which
// (with few tokens) could never happen. The reader, after the limiter,
// takes a token and calls make_block, which gives the block (or the
// end-of-input sentinel) that token's lease. The file read node
// (nodes/read) and the pushed-documents read node (nodes/source) are two.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <tuple>

#include <oneapi/tbb/flow_graph.h>

#include "graph/guard.hpp"
#include "graph/token_pool.hpp"
#include "invidx/messages.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

class TokenPacedSource : public SourceStage<RawBlock> {
public:
    using Message = std::shared_ptr<const RawBlock>;

    ~TokenPacedSource() override { state_.tokens.on_release(nullptr); }

    oneapi::tbb::flow::sender<Message>& output_port() override { return oneapi::tbb::flow::output_port<0>(reader_node_); }
    void start() override { tickets_.activate(); }

protected:
    using ReaderBody = oneapi::tbb::flow::multifunction_node<uint64_t, std::tuple<Message>>;
    using Out = std::tuple_element_t<0, ReaderBody::output_ports_type>;

    explicit TokenPacedSource(RunState& state)
        : state_(state),
          tickets_(state.graph,
                   [this](oneapi::tbb::flow_control& control) -> uint64_t {
                       if (finished_.load()) control.stop();
                       return next_ticket_++;
                   }),
          limiter_(state.graph, state.tokens.capacity()),
          reader_node_(state.graph, oneapi::tbb::flow::serial, [this](const uint64_t&, ReaderBody::output_ports_type& ports) {
              run_guarded(metrics_, [&] {
                  // Every ticket passed the limiter; its token returns with the lease.
                  Lease lease = state_.tokens.acquire();
                  if (finished_.load()) return;  // a ticket handed out before the end was seen
                  make_block(std::move(lease), std::get<0>(ports));
              });
          }) {
        oneapi::tbb::flow::make_edge(tickets_, limiter_);
        oneapi::tbb::flow::make_edge(limiter_, reader_node_);
        state_.tokens.on_release([this] { limiter_.decrementer().try_put(oneapi::tbb::flow::continue_msg()); });
        metrics_.concurrency = 1;
    }

    // On the reader's one thread: puts the next block, or the end-of-input
    // sentinel, with `lease` to `out`; calls finish() once there is nothing
    // more to make. May put nothing (then the token goes back).
    virtual void make_block(Lease lease, Out& out) = 0;

    // No tickets after this one.
    void finish() { finished_ = true; }

    RunState& state_;

private:
    std::atomic<bool> finished_{false};
    uint64_t next_ticket_ = 0;
    oneapi::tbb::flow::input_node<uint64_t> tickets_;
    oneapi::tbb::flow::limiter_node<uint64_t> limiter_;
    ReaderBody reader_node_;
};

}  // namespace invidx
