// Where a node's work runs: the CPU or one CUDA GPU by ordinal. Parsed once,
// from the pipeline's "cpu" / "gpu:N" strings (parse_device), and passed on
// as this value; name() gives the string back for reports and messages.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace invidx {

struct Device {
    enum class Kind { cpu, gpu };
    Kind kind = Kind::cpu;
    int ordinal = -1;  // the CUDA ordinal of a GPU; -1 for the CPU

    static Device cpu() { return {}; }
    static Device gpu(int ordinal) { return {Kind::gpu, ordinal}; }
    bool is_gpu() const { return kind == Kind::gpu; }
    bool is_cpu() const { return kind == Kind::cpu; }
    std::string name() const { return is_gpu() ? "gpu:" + std::to_string(ordinal) : "cpu"; }

    friend auto operator<=>(const Device&, const Device&) = default;
};

// "cpu" or "gpu:N" (N up to four digits); nothing for anything else.
std::optional<Device> parse_device(std::string_view text);

// "gpu:N" only; nothing for "cpu" or anything else.
std::optional<Device> parse_gpu(std::string_view text);

}  // namespace invidx
