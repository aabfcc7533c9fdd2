#include "query/algorithm.hpp"

#include <array>
#include <utility>

#include "invidx/error.hpp"

namespace invidx {

namespace {

constexpr std::array<std::pair<Algorithm, std::string_view>, 4> kAlgorithms = {{
    {Algorithm::kBlockMaxMaxscore, "block_max_maxscore"},
    {Algorithm::kBlockMaxWand, "block_max_wand"},
    {Algorithm::kMaxscore, "maxscore"},
    {Algorithm::kExhaustive, "exhaustive"},
}};

}  // namespace

std::string_view algorithm_name(Algorithm algorithm) {
    for (const auto& [known, name] : kAlgorithms) {
        if (known == algorithm) return name;
    }
    throw Error("unknown query algorithm " + std::to_string(static_cast<int>(algorithm)));
}

Algorithm find_algorithm(std::string_view name) {
    for (const auto& [algorithm, known] : kAlgorithms) {
        if (known == name) return algorithm;
    }
    throw Error("unknown query algorithm '" + std::string(name) + "'; known: " + algorithm_names());
}

std::string algorithm_names() {
    std::string names;
    for (const auto& [algorithm, name] : kAlgorithms) names += (names.empty() ? "" : ", ") + std::string(name);
    return names;
}

}  // namespace invidx
