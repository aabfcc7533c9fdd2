#include "nodes/parse/gpu_parsers.hpp"

#include <algorithm>
#include <set>

#include "devices/gpu_unusable.hpp"
#include "invidx/config.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

std::string present_list(const GpuInventory& inventory) {
    if (inventory.devices.empty()) return inventory.note;
    std::string list;
    for (const auto& gpu : inventory.devices) list += (list.empty() ? "" : ", ") + ("gpu:" + std::to_string(gpu.ordinal));
    return "present: " + list;
}

GpuParserSpec read_entry(const nlohmann::json& item, const std::string& pointer, const GpuInventory& inventory) {
    GpuParserSpec spec;
    nlohmann::json entry = item;
    if (item.is_string()) entry = {{"device", item}};  // "gpu:0" for {"device": "gpu:0"}
    if (!entry.is_object())
        throw ConfigError(pointer, "expected an object such as {\"device\": \"gpu:0\"}, got " + config_value_text(item));
    const std::string known = "device, slots, max_batch_bytes, resident_terms";
    for (auto it = entry.begin(); it != entry.end(); ++it) {
        if (it.key() != "device" && it.key() != "slots" && it.key() != "max_batch_bytes" &&
            it.key() != "resident_terms")
            throw ConfigError(pointer + "/" + it.key(), "unknown key '" + it.key() + "' for a GPU parser; known keys: " + known);
    }
    const std::string at = item.is_string() ? pointer : pointer + "/device";
    auto device = entry.find("device");
    if (device == entry.end()) throw ConfigError(at, "missing: a GPU parser needs a \"device\", e.g. \"gpu:0\"");
    if (!device->is_string()) throw ConfigError(at, "expected a device such as \"gpu:0\", got " + config_value_text(*device));
    spec.device = device->get<std::string>();
    const std::string digits = spec.device.rfind("gpu:", 0) == 0 ? spec.device.substr(4) : std::string();
    if (digits.empty() || digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string::npos)
        throw ConfigError(at, "unknown device '" + spec.device + "'; a GPU parser runs on \"gpu:0\", \"gpu:1\", ...");
    spec.ordinal = std::stoi(digits);
    if (const auto reason = gpu_unusable_reason(spec.ordinal, inventory))
        throw ConfigError(at, "\"" + spec.device + "\" is not available: " + *reason +
                                  "; use \"gpus\": \"auto\" (CPU parsers where there is no GPU) or a GPU that is present");
    if (auto slots = entry.find("slots"); slots != entry.end()) {
        if (!slots->is_number_unsigned() || slots->get<uint64_t>() < 1 || slots->get<uint64_t>() > 8)
            throw ConfigError(pointer + "/slots", "expected an integer from 1 to 8, got " + config_value_text(*slots));
        spec.slots = slots->get<unsigned>();
    }
    if (auto bytes = entry.find("max_batch_bytes"); bytes != entry.end()) {
        if (!bytes->is_number_unsigned() || bytes->get<uint64_t>() < 1 || bytes->get<uint64_t>() > (uint64_t{1} << 30))
            throw ConfigError(pointer + "/max_batch_bytes", "expected a size from 1 to 2^30 bytes, got " + config_value_text(*bytes));
        spec.max_batch_bytes = bytes->get<uint64_t>();
    }
    if (auto resident = entry.find("resident_terms"); resident != entry.end()) {
        if (!resident->is_boolean())
            throw ConfigError(pointer + "/resident_terms", "expected true or false, got " + config_value_text(*resident));
        spec.resident_terms = resident->get<bool>();
    }
    return spec;
}

}  // namespace

GpuParserChoice choose_gpu_parsers(const nlohmann::json& value, const std::string& pointer,
                                   const GpuParseBackend& backend) {
    GpuParserChoice choice;
    if (value.is_null() || (value.is_string() && value == "none") || (value.is_array() && value.empty())) {
        choice.setting = "none";
        choice.reason = "no GPU parsers configured (\"gpus\" is absent, \"none\" or empty)";
        return choice;
    }
    const GpuInventory inventory = backend.inventory();
    if (value.is_string() && value == "auto") {
        choice.setting = "auto";
        if (!inventory.built_with_cuda || inventory.devices.empty()) {
            choice.reason = "\"gpus\": \"auto\" found no GPU: " + inventory.note;
            return choice;
        }
        for (const auto& gpu : inventory.devices)
            choice.gpus.push_back(GpuParserSpec{"gpu:" + std::to_string(gpu.ordinal), gpu.ordinal});
        choice.reason = "\"gpus\": \"auto\" found " + present_list(inventory);
        return choice;
    }
    if (!value.is_array())
        throw ConfigError(pointer, "expected \"auto\", \"none\" or a list of GPU parsers such as "
                                   "[{\"device\": \"gpu:0\"}], got " + config_value_text(value));
    choice.setting = "list";
    std::set<int> seen;
    for (size_t i = 0; i < value.size(); ++i) {
        const std::string at = pointer + "/" + std::to_string(i);
        GpuParserSpec spec = read_entry(value[i], at, inventory);
        if (!seen.insert(spec.ordinal).second)
            throw ConfigError(at, "\"" + spec.device + "\" is listed twice; give one entry more \"slots\" instead");
        choice.gpus.push_back(std::move(spec));
    }
    choice.reason = "\"gpus\" lists " + std::to_string(choice.gpus.size()) + " GPU(s)";
    return choice;
}

}  // namespace invidx
