#include "nodes/compress/compress_node.hpp"

#include <algorithm>
#include <thread>

#include "graph/guard.hpp"
#include "store/run_list.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using In = std::shared_ptr<const RunPostings>;
using Out = std::shared_ptr<const CompressedRun>;

class CompressNode final : public Stage<RunPostings, CompressedRun> {
public:
    CompressNode(RunState& state, unsigned count)
        : node_(state.graph, count, [this](const In& run) {
              return run_guarded(metrics_, [&] {
                  auto busy = metrics_.busy_scope();
                  ++metrics_.items_in;
                  auto out = std::make_shared<CompressedRun>(run_list::encode_run(*run));
                  ++metrics_.items_out;
                  metrics_.bytes_out += out->bytes.size();
                  return Out(std::move(out));
              });
          }) {
        metrics_.concurrency = count;
    }

    flow::receiver<In>& input_port() override { return node_; }
    flow::sender<Out>& output_port() override { return node_; }

private:
    flow::function_node<In, Out> node_;
};

}  // namespace

std::unique_ptr<Node> make_compress_node(NodeOptions& options, RunState& state) {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    return std::make_unique<CompressNode>(state, options.count(std::max(1u, hardware / 4), 1));
}

}  // namespace invidx
