// Issue #28, items 2 and 10: --set into a value that has no keys, pipelines
// that are no object, integers out of range and stopword files that are no
// regular file are ConfigErrors naming the key, never an abort or a wrap.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <sys/stat.h>

#include "graph/utf8_check.hpp"
#include "graph/word_list_file.hpp"
#include "invidx/config.hpp"
#include "invidx/error.hpp"
#include "support/temp_dir.hpp"

using invidx::ConfigError;
using invidx::PipelineConfig;
using nlohmann::json;

namespace {

json pipeline() {
    return {{"description", "d"},
            {"input", {"sample/debian-docs.warc.gz"}},
            {"positions", false},
            {"analysis", {{"stopwords", "english"}}},
            {"nodes",
             {{{"kind", "read"}},
              {{"kind", "parse"}, {"count", 2}, {"gpus", "auto"}},
              {{"kind", "index"}, {"indexers", {{{"kind", "cpu_btree"}, {"count", 1}}}}},
              {{"kind", "flush"}}}}};
}

// The ConfigError's message (empty when none), for any other exception a
// marker that fails the checks.
std::string error_of(const json& description, const std::vector<std::string>& overrides = {}) {
    try {
        PipelineConfig::from_json(description, overrides);
    } catch (const ConfigError& error) {
        return error.what();
    } catch (const std::exception& error) {
        return std::string("NOT A ConfigError: ") + error.what();
    }
    return "";
}

bool names(const std::string& message, const std::string& text) { return message.find(text) != std::string::npos; }

}  // namespace

TEST_CASE("--set through a string, number or boolean is a ConfigError naming the key") {
    struct Case {
        const char* assignment;
        const char* pointer;
    };
    for (const Case& c : {Case{"input.0.format=trec", "/input/0"}, Case{"description.x=1", "/description"},
                          Case{"positions.x=1", "/positions"}, Case{"analysis.stopwords.0=the", "/analysis/stopwords"},
                          Case{"parse.gpus.0=gpu:0", "/nodes/1/gpus"}, Case{"parse.count.x=1", "/nodes/1/count"}}) {
        CAPTURE(c.assignment);
        const std::string message = error_of(pipeline(), {c.assignment});
        CHECK(names(message, "pipeline config "));
        CHECK(names(message, c.pointer));
        CHECK(names(message, std::string(c.assignment).substr(0, std::string(c.assignment).find('='))));
    }
}

TEST_CASE("--set with a key that is no index of an array is a ConfigError naming the key") {
    for (const char* assignment : {"input.x=1", "index.indexers.x=1", "input.7=a", "input.-1=a",
                                   "index.indexers.99999999999999999999999=1"}) {
        CAPTURE(assignment);
        const std::string message = error_of(pipeline(), {assignment});
        CHECK(names(message, "pipeline config "));
        CHECK(names(message, std::string(assignment).substr(0, std::string(assignment).find('='))));
    }
    // Into arrays and objects it still works, making objects where null.
    const auto config = PipelineConfig::from_json(pipeline(), {"input.0=other.warc", "index.indexers.0.count=3",
                                                               "memory.tokens=8"});
    CHECK(config.inputs.at(0).path == "other.warc");
    CHECK(config.nodes.at(2).options["indexers"][0]["count"] == 3);
    CHECK(config.memory.tokens == 8u);
}

TEST_CASE("a pipeline that is no JSON object is a ConfigError, with or without overrides") {
    for (const json& root : {json::array(), json("x"), json(3), json()}) {
        CAPTURE(root.dump());
        CHECK(names(error_of(root), "expected the pipeline to be a JSON object"));
        CHECK(names(error_of(root, {"input=[\"a\"]", "output=\"b\""}), "expected the pipeline to be a JSON object"));
        json copy = root;
        CHECK_THROWS_AS(invidx::apply_override(copy, "output", "b"), ConfigError);
    }
}

TEST_CASE("overrides given as JSON values keep paths that are not UTF-8 as bytes") {
    json root = pipeline();
    const std::string input = "in/b\xff\xfe.txt";
    const std::string output = "out\xff";
    invidx::apply_override(root, "input", json(std::vector<std::string>{input}));
    invidx::apply_override(root, "output", output);
    const auto config = PipelineConfig::from_json(root);
    CHECK(config.inputs.at(0).path == input);
    CHECK(config.output.string() == output);
    // A message about such a value does not fail itself.
    CHECK(names(error_of(pipeline(), {"memory.tokens=\xff"}), "/memory/tokens"));
}

TEST_CASE("integer keys are range-checked before they are narrowed: no wrap") {
    struct Case {
        const char* assignment;
        const char* pointer;
    };
    for (const Case& c : {Case{"memory.tokens=4294967296", "/memory/tokens"},
                          Case{"memory.tokens=4294967297", "/memory/tokens"},
                          Case{"memory.tokens=1", "/memory/tokens"},
                          Case{"memory.tokens=-3", "/memory/tokens"},
                          Case{"memory.tokens=2.5", "/memory/tokens"},
                          Case{"sampler.max_popular=4294967296", "/sampler/max_popular"},
                          Case{"sampler.max_popular=4294967297", "/sampler/max_popular"},
                          Case{"memory.read_block_bytes=18446744073709551615", "/memory/read_block_bytes"},
                          Case{"memory.text_block_bytes=0", "/memory/text_block_bytes"},
                          Case{"memory.run_bytes=18446744073709551615", "/memory/run_bytes"},
                          Case{"sampler.bytes_per_file=4294967296", "/sampler/bytes_per_file"},
                          Case{"cluster.exchange_credits=4294967297", "/cluster/exchange_credits"}}) {
        CAPTURE(c.assignment);
        const std::string message = error_of(pipeline(), {c.assignment});
        CHECK(names(message, c.pointer));
        const bool says_range = names(message, "must lie in [") || names(message, "expected an integer in [");
        CHECK(says_range);
    }
    const auto config = PipelineConfig::from_json(pipeline(), {"memory.tokens=65536", "sampler.max_popular=18600"});
    CHECK(config.memory.tokens == 65536u);
    CHECK(config.sampler.max_popular == 18600u);
}

TEST_CASE("a node's count is at most kMaxNodeCount") {
    json j = pipeline();
    j["nodes"][1]["count"] = 4096;
    const auto config = PipelineConfig::from_json(j);
    invidx::NodeOptions options(config.nodes[1]);
    try {
        options.count(1, 1);
        FAIL("expected a ConfigError");
    } catch (const ConfigError& error) {
        CHECK(names(error.what(), "/nodes/1/count"));
        CHECK(names(error.what(), std::to_string(invidx::kMaxNodeCount)));
    }
    j["nodes"][1]["count"] = invidx::kMaxNodeCount;
    const auto largest = PipelineConfig::from_json(j);
    invidx::NodeOptions largest_options(largest.nodes[1]);
    CHECK(largest_options.count(1, 1) == invidx::kMaxNodeCount);
}

TEST_CASE("stopword files: regular files only, bounded, UTF-8, errors name the file") {
    const invidx::testing::TempDir dir;
    const auto stopwords_from = [](const std::string& path) {
        json j = pipeline();
        j["analysis"]["stopwords"] = {{"file", path}};
        return j;
    };
    const auto good = dir.write("words.txt", "# comment\nthe\r\nfoo \n\nbar");
    CHECK(PipelineConfig::from_json(stopwords_from(good.string())).analysis.stopwords ==
          std::vector<std::string>{"the", "foo", "bar"});

    std::string message = error_of(stopwords_from(dir.path().string()));
    CHECK(names(message, "/analysis/stopwords/file"));
    CHECK(names(message, dir.path().string()));
    CHECK(names(message, "directory"));

    // Neither reads forever nor waits for a writer.
    message = error_of(stopwords_from("/dev/zero"));
    CHECK(names(message, "/dev/zero"));
    CHECK(names(message, "not a regular file"));
    const auto fifo = dir / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    message = error_of(stopwords_from(fifo.string()));
    CHECK(names(message, fifo.string()));
    CHECK(names(message, "not a regular file"));

    const auto big = dir.write("big.txt", std::string(invidx::kMaxWordListFileBytes + 1, 'a'));
    message = error_of(stopwords_from(big.string()));
    CHECK(names(message, big.string()));
    CHECK(names(message, "16 MiB"));

    const auto bad = dir.write("bad.txt", "the\nca\xfft\n");
    message = error_of(stopwords_from(bad.string()));
    CHECK(names(message, bad.string()));
    CHECK(names(message, "line 2 (byte 6)"));
    CHECK(names(message, "not UTF-8"));

    CHECK(names(error_of(stopwords_from((dir / "missing").string())), "cannot open"));
}

TEST_CASE("stop words given in the pipeline that are not UTF-8 are a ConfigError naming the word") {
    json j = pipeline();
    j["analysis"]["stopwords"] = {"the", "a"};
    CHECK(names(error_of(j, {"analysis.stopwords.1=b\xc3("}), "/analysis/stopwords/1"));
    CHECK(error_of(j, {"analysis.stopwords.1=b\xc3\xa9"}).empty());
}

TEST_CASE("first_invalid_utf8: the rule a JSON writer applies") {
    CHECK_FALSE(invidx::first_invalid_utf8("plain ascii").has_value());
    CHECK_FALSE(invidx::first_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80").has_value());
    CHECK(invidx::first_invalid_utf8("ab\xff") == 2u);
    CHECK(invidx::first_invalid_utf8("\xc0\xaf") == 0u);          // overlong
    CHECK(invidx::first_invalid_utf8("x\xed\xa0\x80") == 1u);      // surrogate
    CHECK(invidx::first_invalid_utf8("\xf4\x90\x80\x80") == 0u);   // above U+10FFFF
    CHECK(invidx::first_invalid_utf8("ok\xe2\x82") == 2u);         // truncated
    for (const char* text : {"ab\xff", "\xc0\xaf", "x\xed\xa0\x80", "\xf4\x90\x80\x80", "ok\xe2\x82"})
        CHECK_THROWS_AS(json(text).dump(), json::type_error);
}
