// The one error type of invidx: what a user needs to act on a failure.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace invidx {

// Where in the input an error happened. Every field is optional; what() prints
// only the ones that are set, e.g. "node 'parse': data/a.warc.gz: record 12
// (byte 40960): Content-Length runs past the end of the file".
struct ErrorContext {
    std::string node;                 // flow-graph node name ("parse", "read", ...)
    std::string file;                 // input file (or archive path + "!" + entry)
    std::optional<uint64_t> record;   // 0-based record number within the file
    std::optional<uint64_t> byte_offset;  // byte offset in the (decompressed) file
};

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message, ErrorContext context = {});

    const std::string& message() const noexcept { return message_; }
    const ErrorContext& context() const noexcept { return context_; }

    // Returns a copy with empty context fields filled from `outer`.
    Error with_defaults(const ErrorContext& outer) const;

private:
    std::string message_;
    ErrorContext context_;
};

// A bad pipeline description; the message names the JSON pointer of the key.
class ConfigError : public Error {
public:
    ConfigError(const std::string& json_pointer, const std::string& message);
    const std::string& json_pointer() const noexcept { return pointer_; }

private:
    std::string pointer_;
};

// A damaged or incompatible index on disk; names the file and the field.
class FormatError : public Error {
public:
    FormatError(const std::string& file, const std::string& message);
};

// A build stopped because its caller asked it to (RunOptions::stop): the
// graph was cancelled and drained and the temporary directory removed, so
// nothing was published. Distinct from a failure: the input is not at fault.
class Interrupted : public Error {
public:
    Interrupted();
};

std::string format_error_message(const std::string& message, const ErrorContext& context);

// One-line checks: ensure(n > 0, "count must be positive").
inline void ensure(bool condition, const std::string& message, ErrorContext context = {}) {
    if (!condition) throw Error(message, std::move(context));
}

// The same for a message that is a literal: the string is made only when the
// check fails, so hot loops (once per token or term) allocate nothing.
inline void ensure(bool condition, const char* message, ErrorContext context = {}) {
    if (!condition) throw Error(message, std::move(context));
}

}  // namespace invidx
