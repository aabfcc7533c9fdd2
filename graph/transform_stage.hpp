// A stage that maps each message to one message, `concurrency` at a time:
// the shape of the parse, regroup and compress nodes. It keeps what every
// such node must do the same way: the node's name on any failure
// (graph/guard.hpp), its busy time, and its item and byte counts.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

#include <oneapi/tbb/flow_graph.h>

#include "graph/guard.hpp"
#include "invidx/node.hpp"

namespace invidx {

template <class In, class Out>
class TransformStage final : public Stage<In, Out> {
public:
    using Input = std::shared_ptr<const In>;
    using Output = std::shared_ptr<const Out>;
    // Takes the message by reference: a body may move from a message that
    // no one else holds (use_count() == 1), which a copy would prevent.
    using Transform = std::function<std::shared_ptr<Out>(const Input&)>;

    // The byte figures of the node's metrics (report.json "bytes_in",
    // "bytes_out"); either may be left empty, counting none. The input is
    // measured before the transform, which may move from it.
    struct ByteCounts {
        std::function<uint64_t(const In&)> in;
        std::function<uint64_t(const Out&)> out;
    };

    TransformStage(oneapi::tbb::flow::graph& graph, unsigned concurrency, Transform transform, ByteCounts bytes = {})
        : transform_(std::move(transform)),
          bytes_(std::move(bytes)),
          node_(graph, concurrency, [this](const Input& message) -> Output {
              return run_guarded(this->metrics_, [&] { return apply(message); });
          }) {
        this->metrics_.concurrency = concurrency;
    }

    oneapi::tbb::flow::receiver<Input>& input_port() override { return node_; }
    oneapi::tbb::flow::sender<Output>& output_port() override { return node_; }

private:
    Output apply(const Input& message) {
        NodeMetrics& metrics = this->metrics_;
        auto busy = metrics.busy_scope();
        ++metrics.items_in;
        if (bytes_.in) metrics.bytes_in += bytes_.in(*message);
        std::shared_ptr<Out> out = transform_(message);
        ++metrics.items_out;
        if (bytes_.out) metrics.bytes_out += bytes_.out(*out);
        return out;
    }

    Transform transform_;
    ByteCounts bytes_;
    oneapi::tbb::flow::function_node<Input, Output> node_;
};

}  // namespace invidx
