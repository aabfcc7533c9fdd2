#include "nodes/frame/framer.hpp"

#include <algorithm>
#include <array>

#include "invidx/error.hpp"
#include "nodes/frame/jsonl.hpp"
#include "nodes/frame/text.hpp"
#include "nodes/frame/trec.hpp"
#include "nodes/frame/warc.hpp"

namespace invidx {
namespace {

bool ends_with(std::string_view name, std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
}

std::string ascii_lowercase(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

}  // namespace

std::unique_ptr<Framer> make_framer(const std::string& format, const std::string& entry_name,
                                    const AnalysisSettings& settings) {
    if (format == "warc") return std::make_unique<WarcFramer>(entry_name, settings.html_warc);
    if (format == "trec") return std::make_unique<TrecFramer>(entry_name, settings.html_trec);
    if (format == "jsonl") return std::make_unique<JsonlFramer>(entry_name, settings.html_jsonl);
    if (format == "text") return std::make_unique<TextFramer>(entry_name, settings.html_text);
    throw Error("unknown input format '" + format + "'; known: warc, trec, jsonl, text",
                ErrorContext{.node = "", .file = entry_name, .record = std::nullopt, .byte_offset = std::nullopt});
}

// Rules, on the file name's last path component, ASCII case ignored:
//  1. Container and compression suffixes are stripped, repeatedly:
//     .gz .bz2 .xz .zst .zstd .lz4 .tgz .tar .zip ("a.warc.gz" -> "a.warc").
//  2. .warc -> warc; .trec .trectext .sgml .sgm -> trec (TREC's SGML-like
//     files); .jsonl .ndjson .json -> jsonl; anything else -> text.
// .xml is deliberately text: most XML is not TREC's <DOC> layout, and TREC
// files mostly come without a telling suffix anyway (name the format in the
// pipeline JSON for those).
std::string detect_format(std::string_view file_name) {
    const size_t slash = file_name.find_last_of('/');
    std::string name = ascii_lowercase(slash == std::string_view::npos ? file_name : file_name.substr(slash + 1));
    static constexpr std::array<std::string_view, 9> kContainerSuffixes = {
        ".gz", ".bz2", ".xz", ".zst", ".zstd", ".lz4", ".tgz", ".tar", ".zip"};
    for (bool stripped = true; stripped;) {
        stripped = false;
        for (std::string_view suffix : kContainerSuffixes) {
            if (ends_with(name, suffix)) {
                name.resize(name.size() - suffix.size());
                stripped = true;
            }
        }
    }
    const auto has_suffix = [&](std::initializer_list<std::string_view> suffixes) {
        return std::any_of(suffixes.begin(), suffixes.end(), [&](std::string_view s) { return ends_with(name, s); });
    };
    if (has_suffix({".warc"})) return "warc";
    if (has_suffix({".trec", ".trectext", ".sgml", ".sgm"})) return "trec";
    if (has_suffix({".jsonl", ".ndjson", ".json"})) return "jsonl";
    return "text";
}

}  // namespace invidx
