// The input formats (CONTENT.md §1-2), one row each: the format's name (in the
// pipeline JSON's input[].format and analysis.html, and in manifest.json),
// the file-name suffixes that "auto" takes for it, and whether the HTML rules
// of CONTENT.md §3 apply to its text by default. The config, the analysis settings,
// file-name detection (of each file, and of each archive entry), the manifest
// and the framers all read this table, so nothing else knows a format by name.
//
// Adding a format:
//  1. an enumerator in InputFormat and its row in kInputFormats, in the same
//     order (checked below); input[].format, analysis.html.<name>, detection
//     and what the manifest writes follow from the row;
//  2. its framer in nodes/frame/ and its case in make_framer
//     (nodes/frame/framer.cpp; -Wswitch flags a missing case);
//  3. indexes written before it have no key for it in manifest.json's
//     analysis.html: decide in store/manifest.cpp how those read.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace invidx {

enum class InputFormat : uint8_t { warc, trec, jsonl, text, html, jsonvector };

struct InputFormatRow {
    InputFormat format;
    std::string_view name;                       // lowercase; as the JSON and the manifest spell it
    std::span<const std::string_view> suffixes;  // lowercase, with the dot; what "auto" takes for it
    bool html_rules_by_default;                  // CONTENT.md §3 on its text unless analysis.html says otherwise
};

// Each format's suffixes. No suffix of one format may end another's, so the
// rows' order never decides (input_format_test checks).
namespace input_format_suffixes {
inline constexpr std::string_view kWarc[] = {".warc"};
// TREC's SGML-like files. .xml is deliberately not here: most XML is not
// TREC's <DOC> layout, and TREC files mostly come without a telling suffix
// anyway (name the format in the pipeline JSON for those).
inline constexpr std::string_view kTrec[] = {".trec", ".trectext", ".sgml"};
inline constexpr std::string_view kJsonl[] = {".jsonl", ".ndjson", ".json"};
inline constexpr std::string_view kHtml[] = {".html", ".htm", ".xhtml"};
}  // namespace input_format_suffixes

inline constexpr std::array<InputFormatRow, 6> kInputFormats{{
    {InputFormat::warc, "warc", input_format_suffixes::kWarc, true},
    {InputFormat::trec, "trec", input_format_suffixes::kTrec, true},
    {InputFormat::jsonl, "jsonl", input_format_suffixes::kJsonl, false},
    {InputFormat::text, "text", {}, false},
    // Framed as text (one document per file or entry), HTML rules on.
    {InputFormat::html, "html", input_format_suffixes::kHtml, true},
    // Pre-weighted documents (Anserini's JsonVectorCollection): JSONL lines
    // with a "vector" of term weights, framed by the jsonl framer. No suffix:
    // named in the pipeline JSON, which makes the whole build pre-weighted
    // (AnalysisSettings::pre_weighted); "auto" .jsonl files follow it.
    {InputFormat::jsonvector, "jsonvector", {}, false},
}};

inline constexpr std::size_t kInputFormatCount = kInputFormats.size();

// Row i is the format with enumerator value i, so a format finds its row by index.
constexpr bool input_format_rows_in_enum_order() {
    for (std::size_t i = 0; i < kInputFormatCount; ++i)
        if (static_cast<std::size_t>(kInputFormats[i].format) != i) return false;
    return true;
}
static_assert(input_format_rows_in_enum_order(), "kInputFormats must list the formats in InputFormat's order");

// What "auto" takes for a file whose name has none of the rows' suffixes.
inline constexpr InputFormat kFallbackInputFormat = InputFormat::text;

// input[].format's value for "from each file's name, and each archive
// entry's own name". An InputFile (messages.hpp) of an archive keeps it, so
// that its framers detect each entry's format (nodes/frame/framer.hpp).
inline constexpr std::string_view kAutoInputFormat = "auto";

// Compression suffixes that detection strips first, over and over
// ("a.warc.gz" -> "a.warc"). An archive suffix is no format's: a tar or zip
// is never a format of its own, its entries are detected one by one.
inline constexpr std::string_view kCompressionSuffixes[] = {".gz", ".bz2", ".xz", ".zst", ".lz4"};

// Container and compression suffixes that say a file is an archive
// (nodes/decompress/named_archive.hpp strips them, outermost first).
inline constexpr std::string_view kContainerSuffixes[] = {".gz",  ".bz2", ".xz",  ".zst", ".zstd",
                                                          ".lz4", ".tgz", ".tar", ".zip"};

constexpr const InputFormatRow& input_format_row(InputFormat format) {
    return kInputFormats[static_cast<std::size_t>(format)];
}

constexpr std::string_view input_format_name(InputFormat format) { return input_format_row(format).name; }

// The format named exactly `name`, if any.
constexpr std::optional<InputFormat> find_input_format(std::string_view name) {
    for (const auto& row : kInputFormats)
        if (row.name == name) return row.format;
    return std::nullopt;
}

// The known names in the table's order, "warc, trec, jsonl, text, html, jsonvector", for messages.
std::string input_format_names();

// An input[].format setting: empty for "auto", else the named format; throws
// ConfigError at `json_pointer` that lists "auto" and the known names.
std::optional<InputFormat> input_format_setting(std::string_view name, const std::string& json_pointer);

// The format of a file, or of an archive entry, from its path. Only the last
// path component counts, ASCII case ignored: compression suffixes
// (kCompressionSuffixes) are stripped, then the format whose suffix ends the
// rest; none: kFallbackInputFormat (so "a.tar.gz" is text: an archive's
// entries are detected by their own names). A suffix must leave a nonempty
// name (".warc" alone is text).
InputFormat input_format_of_file(std::string_view path);

// One bool per input format, indexed by the format.
class InputFormatFlags {
public:
    constexpr bool& operator[](InputFormat format) { return flags_[static_cast<std::size_t>(format)]; }
    constexpr bool operator[](InputFormat format) const { return flags_[static_cast<std::size_t>(format)]; }
    bool operator==(const InputFormatFlags&) const = default;

private:
    std::array<bool, kInputFormatCount> flags_{};
};

// Each format's html_rules_by_default.
constexpr InputFormatFlags default_html_rules() {
    InputFormatFlags flags;
    for (const auto& row : kInputFormats) flags[row.format] = row.html_rules_by_default;
    return flags;
}

}  // namespace invidx
