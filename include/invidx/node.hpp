// What a node kind offers the engine. A node is one flow-graph stage with a
// typed input and/or output port; the builder links consecutive nodes of the
// pipeline description and checks that their message types match, so a user's
// own kind (see examples/embed_custom_node.cpp) plugs in anywhere its types fit.
#pragma once

#include <memory>
#include <string>
#include <typeindex>
#include <typeinfo>

#include <oneapi/tbb/flow_graph.h>

#include "invidx/error.hpp"
#include "invidx/metrics.hpp"

namespace invidx {

class RunState;

class Node {
public:
    virtual ~Node() = default;

    // Message types, for the builder's check; typeid(void) when there is none.
    virtual std::type_index input_type() const { return typeid(void); }
    virtual std::type_index output_type() const { return typeid(void); }
    // Makes the edge from this node's output to `next`'s input.
    virtual void link_to(Node& next);

    // Called once, before any message flows (sources start here).
    virtual void start() {}
    // Called in pipeline order after the graph has drained, on success only:
    // the place for end-of-build work (an indexer's dictionary export, say).
    virtual void finish(RunState&) {}

    NodeMetrics& metrics() { return metrics_; }
    const NodeMetrics& metrics() const { return metrics_; }

protected:
    NodeMetrics metrics_;
};

template <class T>
class Receives;

// Makes the edge from `port` (of node `from`) to `next`'s input, or says why not.
template <class T>
void link_port(Node& from, oneapi::tbb::flow::sender<std::shared_ptr<const T>>& port, Node& next) {
    auto* receiver = dynamic_cast<Receives<T>*>(&next);
    if (!receiver)
        throw Error("cannot link node '" + from.metrics().name + "' to '" + next.metrics().name +
                    "': message types differ");
    oneapi::tbb::flow::make_edge(port, receiver->input_port());
}

// Mixins naming the typed ports. Messages are shared_ptr<const T>, so the
// graph copies pointers, not payloads.
template <class T>
class Receives {
public:
    using input_message = std::shared_ptr<const T>;
    virtual ~Receives() = default;
    virtual oneapi::tbb::flow::receiver<input_message>& input_port() = 0;
};

template <class T>
class Sends {
public:
    using output_message = std::shared_ptr<const T>;
    virtual ~Sends() = default;
    virtual oneapi::tbb::flow::sender<output_message>& output_port() = 0;
};

// Convenience bases for the usual shapes.
template <class In, class Out>
class Stage : public Node, public Receives<In>, public Sends<Out> {
public:
    std::type_index input_type() const override { return typeid(In); }
    std::type_index output_type() const override { return typeid(Out); }
    void link_to(Node& next) override { link_port<Out>(*this, this->output_port(), next); }
};

template <class Out>
class SourceStage : public Node, public Sends<Out> {
public:
    std::type_index output_type() const override { return typeid(Out); }
    void link_to(Node& next) override { link_port<Out>(*this, this->output_port(), next); }
};

template <class In>
class SinkStage : public Node, public Receives<In> {
public:
    std::type_index input_type() const override { return typeid(In); }
};

}  // namespace invidx
