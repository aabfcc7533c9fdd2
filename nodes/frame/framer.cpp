#include "nodes/frame/framer.hpp"

#include "invidx/error.hpp"
#include "nodes/decompress/named_archive.hpp"
#include "nodes/frame/jsonl.hpp"
#include "nodes/frame/text.hpp"
#include "nodes/frame/trec.hpp"
#include "nodes/frame/warc.hpp"

namespace invidx {

// The one place that knows which framer frames which format.
std::unique_ptr<Framer> make_framer(InputFormat format, const std::string& entry_name,
                                    const AnalysisSettings& settings) {
    const bool html = settings.html[format];
    // A pre-weighted build indexes vectors only (docs/PIPELINE.md): JSONL
    // files that "auto" found are read as jsonvector, any other format is an
    // error. The config has already refused explicit text formats beside jsonvector.
    if (settings.pre_weighted && format != InputFormat::jsonl && format != InputFormat::jsonvector) {
        throw Error("a text document (format " + std::string(input_format_name(format)) +
                        ") in a pipeline of pre-weighted documents (jsonvector): a pipeline indexes either text or "
                        "term vectors, not both",
                    ErrorContext{.node = "", .file = entry_name, .record = std::nullopt, .byte_offset = std::nullopt});
    }
    switch (format) {
        case InputFormat::warc: return std::make_unique<WarcFramer>(entry_name, html);
        case InputFormat::trec: return std::make_unique<TrecFramer>(entry_name, html);
        case InputFormat::jsonl:
            if (settings.pre_weighted) return std::make_unique<JsonlFramer>(entry_name, false, settings.vector_scale);
            return std::make_unique<JsonlFramer>(entry_name, html);
        case InputFormat::jsonvector: return std::make_unique<JsonlFramer>(entry_name, false, settings.vector_scale);
        case InputFormat::text:
        case InputFormat::html: return std::make_unique<TextFramer>(entry_name, html);
    }
    throw Error("no framer for input format " + std::to_string(static_cast<int>(format)),
                ErrorContext{.node = "", .file = entry_name, .record = std::nullopt, .byte_offset = std::nullopt});
}

std::unique_ptr<Framer> make_framer(const std::string& format_name, const std::string& entry_name,
                                    const AnalysisSettings& settings) {
    if (format_name == kAutoInputFormat) return make_framer(input_format_of_file(entry_name), entry_name, settings);
    const auto format = find_input_format(format_name);
    if (!format) {
        throw Error("unknown input format '" + format_name + "'; known: " + input_format_names(),
                    ErrorContext{.node = "", .file = entry_name, .record = std::nullopt, .byte_offset = std::nullopt});
    }
    return make_framer(*format, entry_name, settings);
}

std::string detect_format(std::string_view file_name) {
    if (archive_named_by_file(file_name) != NamedArchive::none) return std::string(kAutoInputFormat);
    return std::string(input_format_name(input_format_of_file(file_name)));
}

}  // namespace invidx
