#include "pipelines/vector_detection.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "invidx/error.hpp"
#include "invidx/input_format.hpp"
#include "invidx/pre_weighted_analysis.hpp"
#include "nodes/decompress/decompress_file.hpp"

namespace invidx {
namespace {

// A first line longer than this is no vector line that detection reads.
constexpr size_t kMaxFirstLineBytes = size_t{1} << 20;

bool is_blank(std::string_view line) {
    return std::all_of(line.begin(), line.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; });
}

// The first non-blank line of the file's first entry (without its newline),
// or empty when there is none within kMaxFirstLineBytes.
std::string first_line(const InputFile& file) {
    std::string text;
    std::string line;
    size_t scanned = 0;
    decompress_file(file, size_t{64} << 10, [&](TextBlock&& block) {
        text += block.bytes;
        for (size_t newline; (newline = text.find('\n', scanned)) != std::string::npos;) {
            const std::string_view candidate = std::string_view(text).substr(0, newline);
            if (!is_blank(candidate)) {
                line = candidate;
                return false;
            }
            text.erase(0, newline + 1);
            scanned = 0;
        }
        scanned = text.size();
        if (block.entry_end) {
            if (!is_blank(text)) line = text;  // a last line without its newline
            return false;
        }
        return text.size() <= kMaxFirstLineBytes;
    });
    return line;
}

bool is_vector_line(const std::string& line) {
    const nlohmann::json object = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!object.is_object() || object.contains("contents")) return false;
    const auto vector = object.find("vector");
    return vector != object.end() && vector->is_object();
}

}  // namespace

PipelineConfig with_detected_vectors(const PipelineConfig& config, const std::vector<InputFile>& files) {
    if (config.analysis.pre_weighted) return config;
    for (const InputConfig& input : config.inputs)
        if (input.format != kAutoInputFormat) return config;  // named formats say what the pipeline reads
    const auto jsonl = std::find_if(files.begin(), files.end(), [](const InputFile& file) {
        return file.format == input_format_name(InputFormat::jsonl);
    });
    if (jsonl == files.end() || !is_vector_line(first_line(*jsonl))) return config;
    if (config.analysis.positions) {
        throw ConfigError("/positions", "the input holds pre-weighted documents (the first line of '" + jsonl->path +
                                            "' is a term vector), which have no positions: leave \"positions\" "
                                            "out or false");
    }
    PipelineConfig detected = config;
    make_pre_weighted(detected.analysis);
    return detected;
}

}  // namespace invidx
