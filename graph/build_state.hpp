// What the engine's own nodes share beyond RunState: the index being
// written, the collection assignment and the routes for terms kept on a
// GPU. Not installed: a node kind of an embedding program sees RunState
// (invidx/run_state.hpp) only.
#pragma once

#include <optional>
#include <vector>

#include "invidx/collection_assignment.hpp"
#include "invidx/error.hpp"
#include "invidx/resident_terms.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

class IndexWriter;

class BuildState final : public RunState {
public:
    using RunState::RunState;

    IndexWriter* writer = nullptr;  // the index being written (publish is the pipeline's)

    // Collection ownership, decided once by the sampling step before the
    // graph runs (Wei & JaJa §III.E); empty in a pipeline without an index node.
    std::optional<CollectionAssignment> assignment;
    // The devices whose GPU indexer takes terms GPU parsers leave on the
    // device (the plan's device_terms_indexer with the collections the
    // assignment gave it), set by the index node with the assignment.
    std::vector<ResidentRoute> resident_routes;
};

// The BuildState behind a RunState the engine made.
inline BuildState& build_state(RunState& state) {
    auto* build = dynamic_cast<BuildState*>(&state);
    ensure(build != nullptr, "this node kind runs only in a build made by invidx::Pipeline");
    return *build;
}

inline const BuildState& build_state(const RunState& state) { return build_state(const_cast<RunState&>(state)); }

}  // namespace invidx
