#include "pipelines/cluster/written_run_json.hpp"

#include <string>
#include <vector>

namespace invidx {

using nlohmann::json;

json written_run_to_json(const WrittenRun& written, bool with_slots) {
    json run = {{"run", written.run},   {"path", written.path},   {"size_bytes", written.size_bytes},
                {"crc32", written.crc32}, {"block_crcs", written.block_crcs},
                {"postings", written.postings}, {"docid_base", written.docid_base}};
    if (with_slots) {
        json slots = json::object();
        for (const auto& [indexer, counts] : written.slots) slots[std::to_string(indexer)] = counts;
        run["slots"] = std::move(slots);
    }
    return run;
}

WrittenRun written_run_from_json(const json& w) {
    WrittenRun written{.run = w.at("run").get<uint32_t>(),
                       .path = w.at("path").get<std::string>(),
                       .size_bytes = w.at("size_bytes").get<uint64_t>(),
                       .crc32 = w.at("crc32").get<uint32_t>(),
                       .block_crcs = w.at("block_crcs").get<std::vector<uint32_t>>(),
                       .slots = {},
                       .postings = w.at("postings").get<uint64_t>(),
                       .docid_base = w.at("docid_base").get<uint64_t>()};
    if (!w.contains("slots")) return written;
    for (const auto& [indexer, counts] : w.at("slots").items())
        written.slots[static_cast<uint32_t>(std::stoul(indexer))] = counts.get<std::vector<uint32_t>>();
    return written;
}

}  // namespace invidx
