#include "pipelines/cluster/file_ranges.hpp"

#include <algorithm>

#include "invidx/error.hpp"
#include "nodes/frame/framer.hpp"
#include "nodes/read/input_files.hpp"
#include "pipelines/cluster/file_work.hpp"

namespace invidx {

std::vector<InputFile> expand_pipeline_inputs(const PipelineConfig& config) {
    if (config.inputs.empty())
        throw ConfigError("/input", "no input: name files or directories in \"input\" or with --input");
    std::vector<InputSpec> specs;
    for (const auto& input : config.inputs) specs.push_back(InputSpec{input.path, input.format});
    return expand_inputs(specs, [](std::string_view name) { return detect_format(name); });
}

std::vector<uint64_t> assignment_weights(const std::vector<InputFile>& files, FileAssignment mode, double stream_weight) {
    if (mode == FileAssignment::by_work) return file_work(files, stream_weight);
    std::vector<uint64_t> weights(files.size(), 1);
    if (mode == FileAssignment::by_size)
        for (size_t i = 0; i < files.size(); ++i) weights[i] = std::max<uint64_t>(1, files[i].size_bytes);
    return weights;
}

std::vector<FileRange> assign_file_ranges(const std::vector<uint64_t>& weights, uint32_t ranks) {
    ensure(ranks > 0, "a cluster build needs at least one rank");
    // weight_before[i]: the weights of the files before file i.
    std::vector<uint64_t> weight_before(weights.size() + 1, 0);
    for (size_t i = 0; i < weights.size(); ++i) weight_before[i + 1] = weight_before[i] + std::max<uint64_t>(1, weights[i]);
    const uint64_t total = weight_before.back();
    std::vector<FileRange> ranges(ranks);
    uint32_t file = 0;
    for (uint32_t r = 0; r < ranks; ++r) {
        ranges[r].begin = file;
        // A file goes to the rank whose share holds its middle (equal files
        // split evenly); the last rank takes the rest. Doubled to stay integral.
        const unsigned __int128 share_end = static_cast<unsigned __int128>(total) * (r + 1) * 2;
        while (file < weights.size() &&
               (r + 1 == ranks ||
                static_cast<unsigned __int128>(weight_before[file] + weight_before[file + 1]) * ranks < share_end))
            ++file;
        ranges[r].end = file;
    }
    return ranges;
}

std::vector<InputFile> files_of_range(const std::vector<InputFile>& files, FileRange range) {
    std::vector<InputFile> share(files.begin() + range.begin, files.begin() + range.end);
    for (uint32_t i = 0; i < share.size(); ++i) share[i].ordinal = i;
    return share;
}

nlohmann::json files_to_json(const std::vector<InputFile>& files) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& file : files)
        list.push_back({{"ordinal", file.ordinal}, {"path", file.path}, {"name", file.name}, {"format", file.format},
                        {"size_bytes", file.size_bytes}});
    return list;
}

std::vector<InputFile> files_from_json(const nlohmann::json& list) {
    std::vector<InputFile> files;
    for (const auto& value : list)
        files.push_back(InputFile{.ordinal = value.at("ordinal").get<uint32_t>(),
                                  .path = value.at("path").get<std::string>(),
                                  .name = value.at("name").get<std::string>(),
                                  .format = value.at("format").get<std::string>(),
                                  .size_bytes = value.at("size_bytes").get<uint64_t>()});
    return files;
}

}  // namespace invidx
