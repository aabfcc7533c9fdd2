// What the engine's own callers give a build beyond the public RunOptions: a
// cluster rank's share of the files and its collection ownership, how its
// part is published, and the test hooks invidx-run takes from its
// environment. Not installed: an embedding program runs Pipeline::run.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/collection_assignment.hpp"
#include "invidx/messages.hpp"
#include "invidx/pipeline.hpp"

namespace invidx {

struct BuildHooks {
    // Called between the steps of publishing ("publish:1", "publish:2",
    // "publish:3": docs/FORMAT.md), so tests can stop the process there.
    std::function<void(const std::string&)> at_publish_step;
    // Publish over an old index by renameat2(RENAME_EXCHANGE) where the file
    // system allows it; false: always by two renames (tests of that path).
    bool publish_by_exchange = true;
    // false: the output is published without syncing anything but its runs
    // (as they are written): a cluster build's part, which the joined index
    // rewrites or adopts and syncs itself.
    bool durable_output = true;
    // true: the build returns its dictionary (BuildReport::dictionary) as
    // well as writing it (a cluster build's part).
    bool keep_dictionary = false;
    // false: document names are not checked for duplicates (a cluster
    // build's part: the joined index is checked whole, cluster_finish.cpp).
    bool check_duplicate_names = true;
    // Called on each rank of a cluster build as it joins its range of the
    // dictionary and as it writes its documents (with its rank and the
    // join: "dictionary" or "documents"), so tests can make one fail there.
    std::function<void(int, std::string_view)> at_cluster_join;
    // The input already expanded, instead of the configuration's "input"
    // (a cluster rank's share of the sorted file list: names as the whole
    // list gave them, ordinals 0, 1, ... within the share).
    std::optional<std::vector<InputFile>> files;
    // The collection ownership decided elsewhere (a cluster build's, over
    // the indexers of every rank): the sampling step is skipped and the
    // index node takes this one, made for its number of indexers.
    std::optional<CollectionAssignment> assignment;
};

// Pipeline::run with hooks (Pipeline::run is this with none).
BuildReport run_pipeline(const PipelineConfig& config, const RunOptions& options, const BuildHooks& hooks,
                         const NodeRegistry& registry = node_registry());

}  // namespace invidx
