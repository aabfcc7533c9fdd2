#include "store/manifest.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

#include "invidx/error.hpp"
#include "store/crc32.hpp"
#include "invidx/input_format.hpp"
#include "store/index_layout.hpp"

namespace invidx {
namespace {

using nlohmann::json;

// Looks up `key` in `object` and converts it, naming the key on failure.
template <typename T>
T get(const json& object, const char* key, const std::string& file, const std::string& where = "") {
    const std::string name = where + "/" + key;
    if (!object.is_object() || !object.contains(key)) throw FormatError(file, "key '" + name + "' is missing");
    try {
        return object.at(key).get<T>();
    } catch (const json::exception&) {
        throw FormatError(file, "key '" + name + "' has the wrong type");
    }
}

json analysis_to_json(const AnalysisSettings& analysis) {
    json html = json::object();
    for (const auto& row : kInputFormats) html[std::string(row.name)] = analysis.html[row.format];
    json object{{"stopwords_name", analysis.stopwords_name},
                {"stopwords", analysis.stopwords},
                {"stemmer", analysis.stemmer},
                {"html", html},
                {"positions", analysis.positions}};
    // Written for pre-weighted indexes only, so a text index's manifest is
    // as before (FORMAT.md "Pre-weighted documents (jsonvector)").
    if (analysis.pre_weighted) {
        object["pre_weighted"] = true;
        object["vector_scale"] = analysis.vector_scale;
    }
    return object;
}

AnalysisSettings analysis_from_json(const json& object, const std::string& file) {
    AnalysisSettings analysis;
    analysis.stopwords_name = get<std::string>(object, "stopwords_name", file, "/analysis");
    analysis.stopwords = get<std::vector<std::string>>(object, "stopwords", file, "/analysis");
    analysis.stemmer = get<std::string>(object, "stemmer", file, "/analysis");
    const auto html = get<json>(object, "html", file, "/analysis");
    // A format added after an index was written (html) has no key there:
    // that index holds none of its documents, so its default stands.
    for (const auto& row : kInputFormats) {
        const std::string name(row.name);
        if (html.is_object() && !html.contains(name)) continue;
        analysis.html[row.format] = get<bool>(html, name.c_str(), file, "/analysis/html");
    }
    analysis.positions = get<bool>(object, "positions", file, "/analysis");
    if (object.contains("pre_weighted")) {
        analysis.pre_weighted = get<bool>(object, "pre_weighted", file, "/analysis");
        analysis.vector_scale = get<uint32_t>(object, "vector_scale", file, "/analysis");
    }
    return analysis;
}

constexpr const char* kChecksumKey = "crc32";

// An older invidx wrote no checksum; a changed average_length (scores and
// ranks change) is still caught where it disagrees with the totals.
void check_average_length(const Manifest& manifest, const std::string& file) {
    const double expected = manifest.documents == 0 ? 0.0
                                                    : static_cast<double>(manifest.total_length) / static_cast<double>(manifest.documents);
    if (!(std::abs(manifest.average_length - expected) <= 1e-9 * std::max(1.0, expected))) {
        throw FormatError(file, "key '/counts/average_length' is " + std::to_string(manifest.average_length) +
                                    " but total_length / documents is " + std::to_string(expected) +
                                    "; manifest.json was changed or is damaged");
    }
}

}  // namespace

uint32_t manifest_checksum(const json& object) {
    json rest = object;
    if (rest.is_object()) rest.erase(kChecksumKey);
    // ASCII only (every other character escaped), so the text does not depend
    // on how the file spelled its strings; a parsed manifest is valid UTF-8.
    return crc32(rest.dump(-1, ' ', true, json::error_handler_t::replace));
}

void seal_manifest(json& object) { object[kChecksumKey] = manifest_checksum(object); }

json manifest_to_json(const Manifest& manifest) {
    json files = json::array();
    for (const auto& file : manifest.files) {
        files.push_back({{"path", file.path}, {"size_bytes", file.size_bytes}, {"crc32", file.crc32}});
    }
    json inputs = json::array();
    for (const auto& input : manifest.inputs) {
        inputs.push_back({{"ordinal", input.ordinal},
                          {"path", input.path},
                          {"name", input.name},
                          {"format", input.format},
                          {"size_bytes", input.size_bytes}});
    }
    json object{{"format", manifest.format},
                {"format_version", manifest.format_version},
                {"analysis", analysis_to_json(manifest.analysis)},
                {"positional", manifest.positional},
                {"counts", {{"documents", manifest.documents},
                            {"terms", manifest.terms},
                            {"postings", manifest.postings},
                            {"total_length", manifest.total_length},
                            {"average_length", manifest.average_length},
                            {"runs", manifest.runs.size()}}},
                {"runs", manifest.runs},
                {"files", files},
                {"inputs", inputs}};
    // Only where a base is nonzero: an index without bases keeps version 1's bytes.
    if (!manifest.run_docid_bases.empty()) object["run_docid_bases"] = manifest.run_docid_bases;
    seal_manifest(object);
    return object;
}

Manifest manifest_from_json(const json& object, const std::string& file) {
    Manifest manifest;
    manifest.format = get<std::string>(object, "format", file);
    if (manifest.format != layout::kFormatName) {
        throw FormatError(file, "key '/format' is \"" + manifest.format + "\", not \"invidx\"");
    }
    manifest.format_version = get<uint32_t>(object, "format_version", file);
    if (manifest.format_version != layout::kFormatVersion && manifest.format_version != layout::kFormatVersionRunBases) {
        throw FormatError(file, "key '/format_version': version " + std::to_string(manifest.format_version) +
                                    " is not supported (expected " + std::to_string(layout::kFormatVersion) + " or " +
                                    std::to_string(layout::kFormatVersionRunBases) + ")");
    }
    // Before any other key is read: an edited manifest is named as such, not
    // by the first value that happens to look wrong.
    if (object.contains(kChecksumKey)) {
        const auto stored = get<uint32_t>(object, kChecksumKey, file);
        const uint32_t computed = manifest_checksum(object);
        if (stored != computed) {
            throw FormatError(file, "key '/crc32': stored checksum " + std::to_string(stored) +
                                        " does not match the manifest's content (" + std::to_string(computed) +
                                        "); manifest.json was changed or is damaged");
        }
        manifest.checksummed = true;
    }
    manifest.analysis = analysis_from_json(get<json>(object, "analysis", file), file);
    manifest.positional = get<bool>(object, "positional", file);
    const auto counts = get<json>(object, "counts", file);
    manifest.documents = get<uint64_t>(counts, "documents", file, "/counts");
    manifest.terms = get<uint64_t>(counts, "terms", file, "/counts");
    manifest.postings = get<uint64_t>(counts, "postings", file, "/counts");
    manifest.total_length = get<uint64_t>(counts, "total_length", file, "/counts");
    manifest.average_length = get<double>(counts, "average_length", file, "/counts");
    check_average_length(manifest, file);
    manifest.runs = get<std::vector<uint32_t>>(object, "runs", file);
    if (get<uint64_t>(counts, "runs", file, "/counts") != manifest.runs.size()) {
        throw FormatError(file, "key '/counts/runs' does not match the length of '/runs'");
    }
    // Version 2 and run bases come together: a version-1 reader must not
    // take docids relative to a base for absolute ones.
    if (manifest.format_version == layout::kFormatVersionRunBases) {
        manifest.run_docid_bases = get<std::vector<uint64_t>>(object, "run_docid_bases", file);
        if (manifest.run_docid_bases.size() != manifest.runs.size()) {
            throw FormatError(file, "key '/run_docid_bases' does not hold one base per run of '/runs'");
        }
    } else if (object.contains("run_docid_bases")) {
        throw FormatError(file, "key '/run_docid_bases' needs format_version " +
                                    std::to_string(layout::kFormatVersionRunBases));
    }
    for (const auto& entry : get<json>(object, "files", file)) {
        manifest.files.push_back({get<std::string>(entry, "path", file, "/files"),
                                  get<uint64_t>(entry, "size_bytes", file, "/files"),
                                  get<uint32_t>(entry, "crc32", file, "/files")});
    }
    for (const auto& entry : get<json>(object, "inputs", file)) {
        InputFile input;
        input.ordinal = get<uint32_t>(entry, "ordinal", file, "/inputs");
        input.path = get<std::string>(entry, "path", file, "/inputs");
        input.name = get<std::string>(entry, "name", file, "/inputs");
        input.format = get<std::string>(entry, "format", file, "/inputs");
        input.size_bytes = get<uint64_t>(entry, "size_bytes", file, "/inputs");
        manifest.inputs.push_back(std::move(input));
    }
    return manifest;
}

Manifest read_manifest(const std::filesystem::path& directory) {
    const auto path = directory / layout::kManifestFile;
    std::error_code error;
    if (!std::filesystem::is_directory(directory, error)) {
        throw FormatError(directory.string(), "not a directory; expected an invidx index");
    }
    if (!std::filesystem::is_regular_file(path, error)) {
        throw FormatError(directory.string(), "not a complete invidx index (no manifest.json)");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw FormatError(path.string(), "cannot open");
    json object;
    try {
        object = json::parse(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const json::exception& failure) {
        throw FormatError(path.string(), std::string("not valid JSON: ") + failure.what());
    }
    return manifest_from_json(object, path.string());
}

bool is_invidx_index(const std::filesystem::path& directory) {
    const auto path = directory / layout::kManifestFile;
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    const auto object = json::parse(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), nullptr, false);
    return object.is_object() && object.contains("format") && object["format"] == layout::kFormatName;
}

}  // namespace invidx
