// How the CPU evaluates a query, picked by name as PISA's tools pick theirs.
// Every algorithm returns exactly the exhaustive top k (the same documents,
// scores and tie order); they differ in what they read and what they skip.
// The query mode is separate: in AND mode each algorithm evaluates with
// daat_and (block skipping on the query layout), whatever it does for OR.
#pragma once

#include <string>
#include <string_view>

namespace invidx {

enum class Algorithm {
    // The default. On the query layout (query.post), BlockCursors: OR by
    // block-max MaxScore, AND by daat_and with block skipping. Without a
    // query layout, or with block maxima made for other k1 and b, as kMaxscore
    // (lists decoded from query.post when the index has it).
    kBlockMaxMaxscore,
    // As kBlockMaxMaxscore with OR by Block-Max WAND (slower on the benchmark
    // collections; kept for comparisons, docs/PERFORMANCE.md, "Query latency on the CPU").
    kBlockMaxWand,
    // Every list decoded whole from the run files, even where the index has
    // a query layout: OR by MaxScore with exact list maxima, AND by daat_and.
    kMaxscore,
    // Every list decoded whole (from query.post when present): OR scores
    // every posting without pruning, the reference the others equal; AND by
    // daat_and.
    kExhaustive,
};

// "block_max_maxscore", "block_max_wand", "maxscore", "exhaustive".
std::string_view algorithm_name(Algorithm algorithm);
// The algorithm of a name; an Error naming the known ones otherwise.
Algorithm find_algorithm(std::string_view name);
// Every name, comma-separated, for help texts and errors.
std::string algorithm_names();

}  // namespace invidx
