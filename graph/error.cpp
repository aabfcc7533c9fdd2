#include "invidx/error.hpp"

namespace invidx {

std::string format_error_message(const std::string& message, const ErrorContext& c) {
    std::string out;
    if (!c.node.empty()) out += "node '" + c.node + "': ";
    if (!c.file.empty()) out += c.file + ": ";
    if (c.record) out += "record " + std::to_string(*c.record) + (c.byte_offset ? " " : ": ");
    if (c.byte_offset) {
        out += c.record ? "(byte " + std::to_string(*c.byte_offset) + "): "
                        : "byte " + std::to_string(*c.byte_offset) + ": ";
    }
    return out + message;
}

Error::Error(const std::string& message, ErrorContext context)
    : std::runtime_error(format_error_message(message, context)),
      message_(message),
      context_(std::move(context)) {}

Error Error::with_defaults(const ErrorContext& outer) const {
    ErrorContext merged = context_;
    if (merged.node.empty()) merged.node = outer.node;
    if (merged.file.empty()) merged.file = outer.file;
    if (!merged.record) merged.record = outer.record;
    if (!merged.byte_offset) merged.byte_offset = outer.byte_offset;
    return Error(message_, merged);
}

ConfigError::ConfigError(const std::string& json_pointer, const std::string& message)
    : Error("pipeline config " + (json_pointer.empty() ? std::string("/") : json_pointer) + ": " + message),
      pointer_(json_pointer) {}

Interrupted::Interrupted() : Error("interrupted: the build was stopped before it published anything") {}

FormatError::FormatError(const std::string& file, const std::string& message)
    : Error(message, ErrorContext{.node = "", .file = file, .record = std::nullopt, .byte_offset = std::nullopt}) {}

}  // namespace invidx
