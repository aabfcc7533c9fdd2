#include "pipelines/cluster/rank_figures.hpp"

#include <algorithm>

namespace invidx {

using nlohmann::json;

double busy_of_kind(const json& nodes, const std::string& kind, const char* figure) {
    double total = 0;
    for (const auto& node : nodes)
        if (node.value("kind", "") == kind) total += node.value(figure, 0.0);
    return total;
}

json share_figures(int rank, FileRange range, const std::vector<InputFile>& files, const json& report) {
    uint64_t bytes_in = 0;
    for (uint32_t f = range.begin; f < range.end; ++f) bytes_in += files[f].size_bytes;
    return {{"rank", rank},
            {"first_file", range.begin},
            {"files", range.end - range.begin},
            {"bytes_in", bytes_in},
            {"text_bytes", report.value("input_bytes_uncompressed", uint64_t{0})},
            {"documents", report.value("documents", uint64_t{0})},
            {"tokens", report.value("tokens", uint64_t{0})},
            {"parse_busy_seconds", busy_of_kind(report.value("nodes", json::array()), "parse")},
            // CPU time (no waiting for a core or a device): the share's
            // inflating and parsing, and the whole rank's while it built.
            {"decompress_busy_cpu_seconds",
             busy_of_kind(report.value("nodes", json::array()), "decompress", "busy_cpu_seconds")},
            {"parse_busy_cpu_seconds", busy_of_kind(report.value("nodes", json::array()), "parse", "busy_cpu_seconds")},
            {"cpu_seconds", report.value("cpu_seconds", 0.0)}};
}

uint64_t sum_over_ranks(const json& per_rank, const char* figure) {
    uint64_t total = 0;
    for (const auto& r : per_rank) total += r.value(figure, uint64_t{0});
    return total;
}

double largest_over_ranks(const json& per_rank, const char* figure) {
    double largest = 0;
    for (const auto& r : per_rank) largest = std::max(largest, r.value(figure, 0.0));
    return largest;
}

}  // namespace invidx
