#include "pipelines/cluster/mpi/cluster_nodes.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include "graph/build_plan.hpp"
#include "graph/guard.hpp"
#include "graph/in_order.hpp"
#include "pipelines/cluster/postings_wire.hpp"
#include "invidx/available_cores.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using Batch = std::shared_ptr<const RegroupedBatch>;

// A batch with its messages for the other ranks (empty for this rank).
struct Encoded {
    Batch batch;
    std::vector<std::string> messages;
};
using EncodedPtr = std::shared_ptr<Encoded>;

class DistributeNode final : public Stage<RegroupedBatch, RegroupedBatch> {
public:
    DistributeNode(RunState& state, unsigned concurrency, PostingsExchange& exchange,
                   std::shared_ptr<ExchangeCredits> credits, std::shared_ptr<const std::vector<uint32_t>> owner_rank)
        : graph_(state.graph),
          exchange_(exchange),
          credits_(std::move(credits)),
          owner_rank_(std::move(owner_rank)),
          positional_(state.config.analysis.positions),
          encoder_(state.graph, concurrency,
                   [this](const Batch& batch) {
                       return run_guarded(metrics_, [&] { return encode(batch); });
                   }),
          poster_(state.graph, flow::serial,
                  [this](const EncodedPtr& encoded, Poster::output_ports_type& ports) {
                      run_guarded(metrics_, [&] {
                          order_.push(encoded->batch->sequence, encoded, [&](const EncodedPtr& next) {
                              post(*next);
                              std::get<0>(ports).try_put(next->batch);
                          });
                      });
                  }) {
        metrics_.concurrency = concurrency;
        flow::make_edge(encoder_, poster_);
    }

    flow::receiver<Batch>& input_port() override { return encoder_; }
    flow::sender<Batch>& output_port() override { return flow::output_port<0>(poster_); }

private:
    using Poster = flow::multifunction_node<EncodedPtr, std::tuple<Batch>>;

    EncodedPtr encode(const Batch& batch) {
        auto busy = metrics_.busy_scope();
        ++metrics_.items_in;
        metrics_.bytes_in += batch->terms.size();
        auto encoded = std::make_shared<Encoded>();
        encoded->batch = batch;
        encoded->messages.resize(static_cast<size_t>(exchange_.ranks()));
        // Every destination's message in one pass over the batch.
        postings_wire::encode_batches(*batch, *owner_rank_, static_cast<uint32_t>(exchange_.rank()), positional_,
                                      encoded->messages);
        for (const std::string& message : encoded->messages) metrics_.bytes_out += message.size();
        return encoded;
    }

    // In batch order, so that every destination sees a source's batches in
    // sequence and its end_of_input batch last.
    void post(Encoded& encoded) {
        ++metrics_.items_out;
        // One lease for the batch's messages to all destinations: its token
        // until a credit is free, then the credit until the last
        // destination has acknowledged.
        const Lease outstanding = credits_->admit(hold(encoded.batch->lease));
        for (int d = 0; d < exchange_.ranks(); ++d) {
            if (d == exchange_.rank()) continue;
            exchange_.post_batch(d, std::move(encoded.messages[static_cast<size_t>(d)]), outstanding);
        }
        encoded.messages.clear();
    }

    // The batch's lease, kept until its messages have a credit. The graph
    // counts it as work in flight meanwhile: with every token waiting there
    // the graph has nothing to run, and would otherwise end as if the input
    // had. (A credited batch needs no such count: its token went back to the
    // read node, and the exchange waits for the acknowledgements itself.)
    Lease hold(const Lease& lease) {
        graph_.reserve_wait();
        return Lease(new char(0), [graph = &graph_, lease](void* p) {
            delete static_cast<char*>(p);
            graph->release_wait();
        });
    }

    oneapi::tbb::flow::graph& graph_;
    PostingsExchange& exchange_;
    std::shared_ptr<ExchangeCredits> credits_;
    std::shared_ptr<const std::vector<uint32_t>> owner_rank_;
    bool positional_;
    InOrder<EncodedPtr> order_;
    flow::function_node<Batch, EncodedPtr> encoder_;
    Poster poster_;
};

// The channel's messages enter through a broadcast node (put from the
// exchange thread, which only hands them over) and are decoded by a
// function node, several at once; the index node restores batch order.
class ReceiveNode final : public SourceStage<RegroupedBatch>, private ReceiveChannel::Target {
public:
    ReceiveNode(RunState& state, unsigned concurrency, ReceiveChannel& channel, int source)
        : state_(state),
          channel_(channel),
          source_(source),
          positional_(state.config.analysis.positions),
          input_(state.graph),
          decoder_(state.graph, concurrency, [this](const ReceiveChannel::Message& message) -> Batch {
              return run_guarded(metrics_, [&] { return decode(*message); });
          }) {
        metrics_.concurrency = concurrency;
        flow::make_edge(input_, decoder_);
    }
    ~ReceiveNode() override {
        channel_.detach();
        // A graph the channel never let go (it failed before the exchange
        // saw it) must not keep the engine's wait_for_all waiting.
        if (reserved_.exchange(false)) state_.graph.release_wait();
    }

    flow::sender<Batch>& output_port() override { return decoder_; }

    void start() override {
        reserved_ = true;
        state_.graph.reserve_wait();
        channel_.attach(this);
    }

private:
    Batch decode(const ReceivedMessage& message) {
        auto busy = metrics_.busy_scope();
        ++metrics_.items_in;
        metrics_.bytes_in += message.bytes.size();
        auto batch = std::make_shared<RegroupedBatch>(postings_wire::decode_batch(message.bytes, positional_, source_));
        batch->lease = message.lease;
        ++metrics_.items_out;
        metrics_.bytes_out += batch->terms.size();
        return batch;
    }

    void put(ReceiveChannel::Message message) override { input_.try_put(std::move(message)); }
    void release() override {
        if (reserved_.exchange(false)) state_.graph.release_wait();
    }
    bool cancelled() const override { return state_.graph.is_cancelled(); }

    RunState& state_;
    ReceiveChannel& channel_;
    int source_;
    bool positional_;
    std::atomic<bool> reserved_{false};
    flow::broadcast_node<ReceiveChannel::Message> input_;
    flow::function_node<ReceiveChannel::Message, Batch> decoder_;
};

}  // namespace

std::unique_ptr<Node> make_distribute_node(NodeOptions& options, RunState& state, PostingsExchange& exchange,
                                           std::shared_ptr<ExchangeCredits> credits,
                                           std::shared_ptr<const std::vector<uint32_t>> owner_rank) {
    const unsigned cores = state.plan.machine.cores;
    const unsigned count = options.count(std::max(1u, cores / 2), std::max(1u, cores / 2));
    return std::make_unique<DistributeNode>(state, count, exchange, std::move(credits), std::move(owner_rank));
}

std::unique_ptr<Node> make_receive_node(NodeOptions& options, RunState& state, ReceiveChannel& channel, int source) {
    const unsigned cores = state.plan.machine.cores;
    const unsigned count = options.count(std::max(1u, cores / 4), std::max(1u, cores / 4));
    return std::make_unique<ReceiveNode>(state, count, channel, source);
}

}  // namespace invidx
