#include "nodes/decompress/inflate_gpus.hpp"

#include <algorithm>
#include <set>

#include "devices/gpu_unusable.hpp"
#include "invidx/config.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

std::string names(const std::vector<int>& ordinals) {
    std::string list;
    for (const int ordinal : ordinals) list += (list.empty() ? "gpu:" : ", gpu:") + std::to_string(ordinal);
    return list;
}

// 3 or "gpu:3".
int read_ordinal(const nlohmann::json& item, const std::string& at) {
    if (item.is_number_unsigned() && item.get<uint64_t>() <= 9999) return static_cast<int>(item.get<uint64_t>());
    if (item.is_string()) {
        const std::string text = item.get<std::string>();
        const std::string digits = text.rfind("gpu:", 0) == 0 ? text.substr(4) : std::string();
        if (!digits.empty() && digits.size() <= 4 && digits.find_first_not_of("0123456789") == std::string::npos)
            return std::stoi(digits);
    }
    throw ConfigError(at, "expected a GPU ordinal such as 0 or \"gpu:0\", got " + config_value_text(item));
}

}  // namespace

InflateGpuChoice choose_inflate_gpus(const nlohmann::json& value, const std::string& pointer,
                                     const std::function<GpuInventory()>& list_inventory,
                                     const std::vector<int>& parse_gpus, bool split_gzip) {
    InflateGpuChoice choice;
    // Absent: off, so a pipeline written before GPU inflate builds as it did
    // (configs/default.json asks for "auto": with 4 MiB batches it beats the
    // CPU workers alone, docs/PERFORMANCE.md, "Decompression and stage ceilings").
    if (value.is_null()) {
        choice.setting = "none";
        choice.reason = "\"gpus\" absent: the CPU decodes everything (GPU inflate: \"auto\" or a list)";
        return choice;
    }
    if ((value.is_string() && value == "none") || (value.is_array() && value.empty())) {
        choice.setting = "none";
        choice.reason = "\"gpus\" is \"none\": the CPU decodes everything";
        return choice;
    }
    if (value.is_string() && value == "auto") {
        choice.setting = "auto";
        if (!split_gzip) {
            choice.reason = "\"gpus\": \"auto\" takes no GPU: split_gzip is off";
            return choice;
        }
        if (parse_gpus.empty()) {
            choice.reason = "\"gpus\": \"auto\" takes no GPU: the parse node parses on none";
            return choice;
        }
        const GpuInventory inventory = list_inventory();
        if (!inventory.built_with_cuda) {
            choice.reason = "\"gpus\": \"auto\" takes no GPU: " + inventory.note;
        } else {
            for (const int ordinal : parse_gpus) {
                const bool present = std::any_of(inventory.devices.begin(), inventory.devices.end(),
                                                 [&](const GpuDevice& gpu) { return gpu.ordinal == ordinal; });
                if (present) choice.ordinals.push_back(ordinal);
            }
            choice.reason = choice.ordinals.empty()
                                ? "\"gpus\": \"auto\" takes no GPU: none of the parse node's GPUs can inflate"
                                : "\"gpus\": \"auto\": the GPUs the parse node parses on (" + names(choice.ordinals) + ")";
        }
        return choice;
    }
    if (!value.is_array())
        throw ConfigError(pointer, "expected \"auto\", \"none\" or a list of GPU ordinals such as [0, 1], got " +
                                       config_value_text(value));
    choice.setting = "list";
    const GpuInventory inventory = list_inventory();
    std::set<int> seen;
    for (size_t i = 0; i < value.size(); ++i) {
        const std::string at = pointer + "/" + std::to_string(i);
        const int ordinal = read_ordinal(value[i], at);
        if (const auto reason = gpu_unusable_reason(ordinal, inventory))
            throw ConfigError(at, "\"gpu:" + std::to_string(ordinal) + "\" is not available: " + *reason +
                                      "; use \"gpus\": \"auto\" or \"none\", or a GPU that is present");
        if (!seen.insert(ordinal).second)
            throw ConfigError(at, "\"gpu:" + std::to_string(ordinal) + "\" is listed twice");
        choice.ordinals.push_back(ordinal);
    }
    if (!split_gzip)
        throw ConfigError(pointer, "GPUs inflate the chunks of split gzip files, and \"split_gzip\" is false; "
                                   "make it true, or \"gpus\" \"none\"");
    choice.reason = "\"gpus\" lists " + names(choice.ordinals);
    return choice;
}

}  // namespace invidx
