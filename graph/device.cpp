#include "invidx/device.hpp"

namespace invidx {

std::optional<Device> parse_gpu(std::string_view text) {
    if (!text.starts_with("gpu:")) return std::nullopt;
    const std::string_view digits = text.substr(4);
    if (digits.empty() || digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
    int ordinal = 0;
    for (const char digit : digits) ordinal = ordinal * 10 + (digit - '0');
    return Device::gpu(ordinal);
}

std::optional<Device> parse_device(std::string_view text) {
    if (text == "cpu") return Device::cpu();
    return parse_gpu(text);
}

}  // namespace invidx
