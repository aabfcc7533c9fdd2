// invidx-run with odd flags and odd bytes (issue #28, items 2, 5 and 10):
// every case is a clear message and exit 2, or a correct index; never an
// abort (exit 134) after "terminate called".
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <sys/wait.h>

#include "store/index_reader.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;

namespace {

struct Outcome {
    int exit_code = -1;  // -1: killed by a signal (an abort)
    std::string output;  // stdout and stderr
};

Outcome run_in(const std::filesystem::path& directory, const std::string& arguments) {
    Outcome outcome;
    const std::string command = "cd '" + directory.string() + "' && '" + std::string(INVIDX_TOOLS_DIR) +
                                "/invidx-run' " + arguments + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    for (size_t n; (n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) outcome.output.append(buffer.data(), n);
    const int status = pclose(pipe);
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return outcome;
}

std::string quote(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

bool says(const Outcome& outcome, const std::string& text) { return outcome.output.find(text) != std::string::npos; }

// A folder of two WARC files and a pipeline over it.
struct Collection {
    TempDir dir;
    std::filesystem::path pipeline;
    Collection() {
        dir.write("in/a.warc", warc_response("a", "<p>hello world</p>"));
        dir.write("in/b.warc", warc_response("b", "<p>hello again</p>"));
        pipeline = dir.write("pipeline.json", standard_pipeline({(dir / "in").string()}, dir / "idx", 1, 1).dump(2));
    }
};

}  // namespace

TEST_CASE("invidx-run: --set into a value without keys is exit 2 naming the key") {
    Collection c;
    for (const char* assignment : {"input.0.format=trec", "description.x=1", "positions.x=1", "analysis.stopwords.0=the",
                                   "parse.count.x=1", "input.x=1", "index.indexers.x=1"}) {
        CAPTURE(assignment);
        nlohmann::json pipeline = standard_pipeline({(c.dir / "in").string()}, c.dir / "idx", 1, 1);
        pipeline["description"] = "d";
        pipeline["positions"] = false;
        pipeline["analysis"] = {{"stopwords", "english"}};
        const auto file = c.dir.write("set.json", pipeline.dump());
        const Outcome outcome = run_in(c.dir.path(), quote(file) + " --set " + assignment);
        INFO(outcome.output);
        CHECK(outcome.exit_code == 2);
        CHECK(says(outcome, std::string(assignment).substr(0, std::string(assignment).find('='))));
        CHECK_FALSE(says(outcome, "terminate called"));
    }
}

TEST_CASE("invidx-run: a pipeline file that is no object is exit 2, with --input and --output too") {
    Collection c;
    for (const char* text : {"[]", "\"x\"", "3"}) {
        CAPTURE(text);
        const auto file = c.dir.write("odd.json", text);
        const Outcome outcome =
            run_in(c.dir.path(), quote(file) + " --input " + quote(c.dir / "in") + " --output " + quote(c.dir / "idx"));
        INFO(outcome.output);
        CHECK(outcome.exit_code == 2);
        CHECK(says(outcome, "expected the pipeline to be a JSON object"));
        CHECK_FALSE(std::filesystem::exists(c.dir / "idx"));
    }
}

TEST_CASE("invidx-run: --output '' is a usage error, and ./index is left alone") {
    Collection c;
    c.dir.write("index/keep", "x");
    const Outcome outcome = run_in(c.dir.path(), quote(c.pipeline) + " --output ''");
    INFO(outcome.output);
    CHECK(outcome.exit_code == 2);
    CHECK(says(outcome, "--output"));
    CHECK(std::filesystem::exists(c.dir / "index" / "keep"));
    CHECK_FALSE(std::filesystem::exists(c.dir / "idx"));
}

TEST_CASE("invidx-run: paths that are not UTF-8 are bytes: input files, folders and the output index") {
    Collection c;
    const std::string odd = "b\xff\xfe.warc";
    c.dir.write("in/" + odd, warc_response("c", "<p>odd name</p>"));
    const std::filesystem::path output = c.dir / "idx\xff";
    // The folder (a file name inside it is not UTF-8) and that file named alone.
    for (const std::string& input : {(c.dir / "in").string(), (c.dir / "in" / odd).string()}) {
        const Outcome outcome = run_in(c.dir.path(), quote(c.pipeline) + " --input " + quote(input) + " --output " +
                                                         quote(output) + " --quiet --set description=caf\xe9");
        INFO(outcome.output);
        REQUIRE(outcome.exit_code == 0);
        invidx::IndexReader index(output);
        CHECK(index.num_documents() == (input == (c.dir / "in").string() ? 3u : 1u));
        // Published: both JSON files are whole and parse.
        CHECK_NOTHROW((void)nlohmann::json::parse(read_file(output / "report.json")));
        CHECK_NOTHROW((void)nlohmann::json::parse(read_file(output / "manifest.json")));
    }
}

TEST_CASE("invidx-run: a stopword file that is not UTF-8, or no regular file, fails at once naming it") {
    Collection c;
    const auto words = c.dir.write("words.txt", "the\nhel\xfflo\n");
    Outcome outcome = run_in(c.dir.path(), quote(c.pipeline) + " --set 'analysis={\"stopwords\": {\"file\": \"" +
                                               words.string() + "\"}}'");
    INFO(outcome.output);
    CHECK(outcome.exit_code == 2);
    CHECK(says(outcome, words.string()));
    CHECK(says(outcome, "line 2"));
    CHECK_FALSE(std::filesystem::exists(c.dir / "idx"));

    outcome = run_in(c.dir.path(), quote(c.pipeline) + " --set 'analysis={\"stopwords\": {\"file\": \"/dev/zero\"}}'");
    INFO(outcome.output);
    CHECK(outcome.exit_code == 2);
    CHECK(says(outcome, "/dev/zero"));
}

TEST_CASE("invidx-run: integers that would wrap and counts past the limit are exit 2 naming the key") {
    Collection c;
    for (const char* assignment : {"memory.tokens=4294967296", "memory.tokens=4294967297", "sampler.max_popular=4294967297",
                                   "index.indexers.0.count=4096", "parse.count=100000"}) {
        CAPTURE(assignment);
        const Outcome outcome = run_in(c.dir.path(), quote(c.pipeline) + " --set " + assignment);
        INFO(outcome.output);
        CHECK(outcome.exit_code == 2);
        const std::string key = std::string(assignment).substr(0, std::string(assignment).find('='));
        CHECK(says(outcome, key.substr(key.rfind('.') + 1)));
        CHECK_FALSE(std::filesystem::exists(c.dir / "idx"));
    }
}
