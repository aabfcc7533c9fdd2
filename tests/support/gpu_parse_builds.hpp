// Builds with GPU parsers (the parse node's "gpus") against the same build
// with CPU parsers only: byte-identical CIFF, and the report's "parse"
// section accounting for every batch. Shared by the host reference tests
// (tests/pipelines/gpu_parse_test.cpp) and the real GPU ones
// (tests/pipelines/gpu_parse_device_test.cpp).
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/collections.hpp"
#include "support/temp_dir.hpp"

namespace invidx::testing {

// Every input format in one build: the sample's WARC, the TREC and JSONL
// samples (HTML and plain documents), a plain text file and an archive of
// mixed entries written in `dir`.
inline std::vector<std::string> every_format_inputs(const TempDir& dir) {
    const std::string text = (dir / "notes.txt").string();
    std::ofstream(text) << "Plain text documents run through the same parsers as HTML ones,\n"
                           "with <b>no</b> markup rules &amp; no entities: running RUNS ran.\n";
    // A tar.gz of mixed entries: each entry framed by its own name, so one
    // batch holds HTML and plain documents of several formats.
    const std::string mixed = (dir / "mixed.tar.gz").string();
    std::ofstream(mixed, std::ios::binary) << write_archive(
        ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP,
        {Member{"a.warc", warc_response("w1", "<p>Warc <b>page</b> &amp; runs</p>")},
         Member{"b.trec", "<DOC><DOCNO>t1</DOCNO><div>trec running</div></DOC>\n"},
         Member{"c.jsonl", "{\"id\": \"j1\", \"contents\": \"json <p> keeps tags\"}\n"},
         Member{"d.html", "<html><p>html page</p><style>p {}</style></html>"}, Member{"e.txt", "text <p> ran"}});
    const std::string sample = std::string(INVIDX_SOURCE_DIR) + "/sample/";
    return {sample + "debian-docs.warc.gz", sample + "formats/small.trec", sample + "formats/small.jsonl", text, mixed};
}

// One parse node: CPU parsers (`count`, may be 0) and GPU parsers (`gpus`).
struct ParseConfiguration {
    std::string label;
    nlohmann::json count;
    nlohmann::json gpus;
};

inline nlohmann::json with_parsers(nlohmann::json pipeline, const ParseConfiguration& parse) {
    for (auto& node : pipeline["nodes"]) {
        if (node["kind"] != "parse") continue;
        node["count"] = parse.count;
        if (!parse.gpus.is_null()) node["gpus"] = parse.gpus;
    }
    return pipeline;
}

inline uint64_t parse_node_items(const nlohmann::json& report) {
    for (const auto& node : report.at("nodes"))
        if (node.at("kind") == "parse") return node.at("items_in").get<uint64_t>();
    FAIL("no parse node in the report");
    return 0;
}

// Every batch the parse node took is a batch of exactly one parser kind.
// Returns the document text the parsers took, all kinds together.
inline uint64_t check_parse_report(const nlohmann::json& report, bool expect_gpu) {
    const nlohmann::json& parse = report.at("parse");
    uint64_t batches = 0;
    uint64_t gpu_batches = 0;
    uint64_t text_bytes = 0;
    for (const auto& parser : parse.at("parsers")) {
        batches += parser.at("batches").get<uint64_t>();
        text_bytes += parser.at("text_bytes").get<uint64_t>();
        CHECK(parser.at("busy_seconds").get<double>() >= 0);
        if (parser.at("kind") == "gpu") gpu_batches += parser.at("batches").get<uint64_t>();
    }
    CHECK(batches == parse_node_items(report));
    if (expect_gpu) {
        CHECK(parse.at("choice") != "cpu");
        CHECK(gpu_batches > 0);
    } else {
        CHECK(parse.at("choice") == "cpu");
        CHECK(gpu_batches == 0);
    }
    return text_bytes;
}

// For each analysis setting (`--set` overrides), a CPU-only build and one
// build per configuration of `inputs`: the same CIFF, byte for byte. Small
// batches, so that there are many for the parsers to share.
inline void check_gpu_parsing_equals_cpu(const std::vector<std::string>& inputs,
                                         const std::vector<ParseConfiguration>& configurations,
                                         const std::vector<std::vector<std::string>>& settings,
                                         const std::string& batch_bytes = "16384") {
    TempDir dir;
    int built = 0;
    for (const auto& setting : settings) {
        std::string label;
        for (const auto& s : setting) label += s + " ";
        CAPTURE(label);
        std::vector<std::string> overrides = setting;
        overrides.push_back("memory.batch_bytes=" + batch_bytes);
        const auto cpu_output = dir / ("cpu-" + std::to_string(built++));
        const BuildReport cpu = build_index(standard_pipeline(inputs, cpu_output, 2, 2), overrides);
        const uint64_t cpu_text_bytes = check_parse_report(cpu.json, false);
        const std::string expected = ciff_bytes(cpu_output);
        for (const auto& configuration : configurations) {
            CAPTURE(configuration.label);
            const auto output = dir / ("gpu-" + std::to_string(built++));
            const BuildReport report =
                build_index(with_parsers(standard_pipeline(inputs, output, 2, 2), configuration), overrides);
            CHECK(check_parse_report(report.json, true) == cpu_text_bytes);
            CHECK(report.json.at("documents") == cpu.json.at("documents"));
            CHECK(report.json.at("tokens") == cpu.json.at("tokens"));
            CHECK(ciff_bytes(output) == expected);
        }
    }
}

// The analysis settings that change what parsers do.
inline std::vector<std::vector<std::string>> parse_settings() {
    return {{"positions=false"},
            {"positions=true"},
            {"positions=true", "analysis.stemmer=none"},
            {"positions=true", "analysis.stopwords=none"},
            {"positions=false", "analysis.stemmer=none", "analysis.stopwords=none"}};
}

}  // namespace invidx::testing
