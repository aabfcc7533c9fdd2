// A pipeline description with the standard nodes (read, decompress, frame,
// parse, regroup, index with cpu_btree indexers, compress, flush), for the
// tests (support/collections.hpp) and the benchmarks that build an index
// from a generated collection (bench/learned_sparse_bench.cpp includes it
// as "tests/support/standard_pipeline.hpp"). No test framework here, so
// benchmarks can include it.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

namespace invidx {

// `input`: what the description's "input" holds (paths, or objects with a
// "format"); `parsers` parse and regroup nodes, `indexers` cpu_btree indexers.
inline nlohmann::json standard_pipeline_description(nlohmann::json input, const std::filesystem::path& output,
                                                    unsigned parsers, unsigned indexers) {
    return {
        {"input", std::move(input)},
        {"output", output.string()},
        {"progress", "off"},
        {"nodes",
         {{{"kind", "read"}},
          {{"kind", "decompress"}},
          {{"kind", "frame"}},
          {{"kind", "parse"}, {"count", parsers}},
          {{"kind", "regroup"}, {"count", parsers}},
          {{"kind", "index"}, {"indexers", {{{"kind", "cpu_btree"}, {"count", indexers}}}}},
          {{"kind", "compress"}, {"count", 2}},
          {{"kind", "flush"}}}},
    };
}

}  // namespace invidx
