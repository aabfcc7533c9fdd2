#include "invidx/node.hpp"

namespace invidx {

void Node::link_to(Node& next) {
    throw Error("node '" + metrics_.name + "' has no output, but node '" + next.metrics().name +
                "' follows it in the pipeline");
}

}  // namespace invidx
