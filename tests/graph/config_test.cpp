#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "invidx/config.hpp"
#include "invidx/error.hpp"
#include "invidx/available_cores.hpp"

using invidx::ConfigError;
using invidx::PipelineConfig;
using nlohmann::json;

namespace {

json minimal() {
    return {{"input", {"x"}}, {"nodes", {{{"kind", "read"}}, {{"kind", "parse"}, {"count", 3}}, {{"kind", "flush"}}}}};
}

std::string error_of(const json& description, const std::vector<std::string>& overrides = {}) {
    try {
        PipelineConfig::from_json(description, overrides);
    } catch (const ConfigError& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("defaults are the SPEC's analysis and a bounded memory budget") {
    const auto config = PipelineConfig::from_json(minimal());
    CHECK(config.analysis.stemmer == "porter");
    CHECK(config.analysis.stopwords.size() == 33);
    CHECK(config.analysis.html[invidx::InputFormat::warc]);
    CHECK(config.analysis.html[invidx::InputFormat::trec]);
    CHECK_FALSE(config.analysis.html[invidx::InputFormat::jsonl]);
    CHECK_FALSE(config.analysis.html[invidx::InputFormat::text]);
    CHECK_FALSE(config.analysis.positions);
    CHECK(config.output == "index");
    CHECK_FALSE(config.memory.tokens.has_value());  // "auto": the build's plan settles it
    REQUIRE(config.nodes.size() == 3);
    CHECK(config.nodes[1].name == "parse");
    CHECK(config.nodes[1].pointer == "/nodes/1");
}

TEST_CASE("analysis settings") {
    json j = minimal();
    j["analysis"] = {{"stopwords", {"foo", "bar"}}, {"stemmer", "none"}, {"html", {{"text", true}}}};
    j["positions"] = true;
    const auto config = PipelineConfig::from_json(j);
    CHECK(config.analysis.stopwords == std::vector<std::string>{"foo", "bar"});
    CHECK(config.analysis.stemmer == "none");
    CHECK(config.analysis.html[invidx::InputFormat::text]);
    CHECK(config.analysis.positions);
    j["analysis"] = {{"stopwords", "none"}};
    CHECK(PipelineConfig::from_json(j).analysis.stopwords.empty());
}

TEST_CASE("overrides: dotted paths, nodes by name, JSON values or bare strings") {
    const auto config = PipelineConfig::from_json(
        minimal(), {"memory.tokens=4", "parse.count=7", "output=/tmp/x", "positions=true", "input=[\"a\",\"b\"]"});
    CHECK(config.memory.tokens == 4u);
    CHECK(config.nodes[1].options["count"] == 7);
    CHECK(config.output == "/tmp/x");
    CHECK(config.analysis.positions);
    REQUIRE(config.inputs.size() == 2);
    CHECK(config.inputs[1].path == "b");
    CHECK(error_of(minimal(), {"memory.tokens"}).find("key=value") != std::string::npos);
}

TEST_CASE("errors name the JSON pointer") {
    json j = minimal();
    j["memory"] = {{"tokens", 1}};
    CHECK(error_of(j).find("/memory/tokens") != std::string::npos);
    j = minimal();
    j["memory"] = {{"tokns", 8}};
    CHECK(error_of(j).find("/memory/tokns") != std::string::npos);
    j = minimal();
    j["input"] = {{{"path", "a"}, {"format", "pdf"}}};
    CHECK(error_of(j).find("/input/0/format") != std::string::npos);
    j = minimal();
    j["nodes"][0].erase("kind");
    CHECK(error_of(j).find("/nodes/0/kind") != std::string::npos);
    j = minimal();
    j["nodes"][2]["kind"] = "parse";
    CHECK(error_of(j).find("used twice") != std::string::npos);
    j = minimal();
    j["progress"] = "loud";
    CHECK(error_of(j).find("/progress") != std::string::npos);
    j = minimal();
    j["analysis"] = {{"html", {{"pdf", true}}}};
    CHECK(error_of(j).find("/analysis/html/pdf") != std::string::npos);
}

TEST_CASE("node options reject keys nobody read") {
    json j = minimal();
    j["nodes"][1]["colour"] = "red";
    const auto config = PipelineConfig::from_json(j);
    invidx::NodeOptions options(config.nodes[1]);
    CHECK(options.count(4, 1) == 3);
    try {
        options.reject_unread();
        FAIL("expected an error");
    } catch (const ConfigError& error) {
        CHECK(std::string(error.what()).find("/nodes/1/colour") != std::string::npos);
    }
    j["nodes"][1].erase("colour");
    j["nodes"][1]["count"] = "auto";
    const auto automatic = PipelineConfig::from_json(j);
    invidx::NodeOptions auto_options(automatic.nodes[1]);
    CHECK(auto_options.count(5, 1) == 5);
    j["nodes"][1]["count"] = 0;
    const auto zero = PipelineConfig::from_json(j);
    invidx::NodeOptions zero_options(zero.nodes[1]);
    CHECK_THROWS_AS(zero_options.count(5, 1), ConfigError);
}

TEST_CASE("every shipped pipeline description (configs/, bench/configs/) parses") {
    size_t seen = 0;
    for (const char* folder : {"configs", "bench/configs"}) {
        for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(INVIDX_SOURCE_DIR) / folder)) {
            if (entry.path().extension() != ".json") continue;
            CAPTURE(entry.path().string());
            const auto config = invidx::PipelineConfig::from_file(entry.path());
            CHECK_FALSE(config.nodes.empty());
            ++seen;
        }
    }
    CHECK(seen >= 20);
}

TEST_CASE("sampler.popular_token_fraction is \"auto\" unless a share is given") {
    nlohmann::json j = {{"input", "x"}, {"nodes", {{{"kind", "read"}}}}};
    CHECK_FALSE(invidx::PipelineConfig::from_json(j).sampler.popular_token_fraction.has_value());
    j["sampler"] = {{"popular_token_fraction", "auto"}};
    CHECK_FALSE(invidx::PipelineConfig::from_json(j).sampler.popular_token_fraction.has_value());
    j["sampler"] = {{"popular_token_fraction", 0.3}};
    CHECK(invidx::PipelineConfig::from_json(j).sampler.popular_token_fraction == 0.3);
    j["sampler"] = {{"popular_token_fraction", 1.5}};
    CHECK_THROWS_WITH_AS(invidx::PipelineConfig::from_json(j), doctest::Contains("/sampler/popular_token_fraction"),
                         invidx::ConfigError);
}

TEST_CASE("memory.text_block_bytes and batch_bytes: \"auto\" is left to the plan, a number is kept, \"big\" names the key") {
    const auto memory = [](const std::vector<std::string>& overrides) {
        return PipelineConfig::from_json(minimal(), overrides).memory;
    };
    CHECK_FALSE(memory({}).text_block_bytes.has_value());
    CHECK_FALSE(memory({"memory.text_block_bytes=auto"}).text_block_bytes.has_value());
    CHECK(memory({"memory.text_block_bytes=65536"}).text_block_bytes == uint64_t{65536});
    CHECK(error_of(minimal(), {"memory.text_block_bytes=big"}).find("/memory/text_block_bytes") != std::string::npos);
    CHECK(memory({"memory.batch_bytes=auto"}).batch_bytes_auto);
    CHECK_FALSE(memory({"memory.batch_bytes=auto"}).text_block_bytes.has_value());
    const invidx::MemoryConfig given = memory({"memory.batch_bytes=1048576"});
    CHECK_FALSE(given.batch_bytes_auto);
    CHECK(given.batch_bytes == 1048576);
    CHECK(error_of(minimal(), {"memory.batch_bytes=big"}).find("/memory/batch_bytes") != std::string::npos);
}

TEST_CASE("modes are parsed once into enums, and name themselves back") {
    json j = minimal();
    j["progress"] = "lines";
    j["cluster"] = {{"mode", "files"}, {"assign_files", "count"}, {"join", "serial"}};
    const auto config = PipelineConfig::from_json(j);
    CHECK(config.progress == invidx::ProgressMode::lines);
    CHECK(config.cluster->mode == invidx::ClusterMode::files);
    CHECK(config.cluster->assign_files == invidx::FileAssignment::by_count);
    CHECK(config.cluster->join == invidx::DictionaryJoinMode::serial);
    CHECK(invidx::mode_name(config.progress) == "lines");
    CHECK(invidx::mode_name(config.cluster->mode) == "files");
    CHECK(invidx::mode_name(config.cluster->assign_files) == "count");
    CHECK(invidx::mode_name(invidx::ProgressMode::automatic) == "auto");
    CHECK(PipelineConfig::from_json(minimal()).progress == invidx::ProgressMode::automatic);
    j["cluster"]["join"] = "both";
    CHECK(error_of(j, {}).find("unknown way to join the dictionary 'both'; known: parallel, serial") != std::string::npos);
}
