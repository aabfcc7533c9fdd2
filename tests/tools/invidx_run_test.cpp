// invidx-run as a user runs it: bad input and bad configurations give a clear
// message, a non-zero exit, and no directory that looks like an index.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <sys/wait.h>

#include "devices/gpu_devices.hpp"
#include "invidx/available_cores.hpp"
#include "support/collections.hpp"
#include "support/gpu_test.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;

namespace {

struct CommandResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr
};

CommandResult run_command(const std::string& command) {
    CommandResult result;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    for (size_t n; (n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) result.output.append(buffer.data(), n);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

std::string invidx_run() { return std::string(INVIDX_TOOLS_DIR) + "/invidx-run"; }

std::string quote(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

// Nothing at `output`, and no temporary directory left beside it.
void check_no_index(const std::filesystem::path& output) {
    CHECK_FALSE(std::filesystem::exists(output / "manifest.json"));
    CHECK_FALSE(std::filesystem::exists(output));
    for (const auto& entry : std::filesystem::directory_iterator(output.parent_path()))
        CHECK_MESSAGE(entry.path().filename().string().find(output.filename().string() + ".tmp") == std::string::npos,
                      "left behind: " << entry.path());
}

std::filesystem::path write_pipeline(const TempDir& dir, const nlohmann::json& pipeline) {
    return dir.write("pipeline.json", pipeline.dump(2));
}

}  // namespace

TEST_CASE("invidx-run builds the index and writes report.json") {
    TempDir dir;
    dir.write("in/a.warc", warc_response("a", "<p>hello world</p>") + warc_response("b", "hello again"));
    const auto pipeline = write_pipeline(dir, standard_pipeline({(dir / "in").string()}, dir / "unused", 2, 1));
    const auto result = run_command(invidx_run() + " " + quote(pipeline) + " --output " + quote(dir / "idx") +
                                    " --set parse.count=3 --progress lines");
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    CHECK(std::filesystem::exists(dir / "idx" / "manifest.json"));
    CHECK(std::filesystem::exists(dir / "idx" / "report.json"));
    CHECK(result.output.find("dictionary write") != std::string::npos);
    invidx::IndexReader index(dir / "idx");
    CHECK(index.num_documents() == 2);
    REQUIRE(index.report().has_value());
    const auto& report = *index.report();
    CHECK(report.at("documents") == 2);
    bool saw_parse = false;
    for (const auto& node : report.at("nodes"))
        if (node.at("name") == "parse") saw_parse = node.at("concurrency") == 3;
    CHECK(saw_parse);
}

TEST_CASE("bad input: a clear error, a non-zero exit, no index") {
    TempDir dir;
    const std::string good = warc_response("a", "hello world");

    struct Case {
        std::string label;
        std::function<std::string()> make_input;  // returns the input path
        std::vector<std::string> expected;         // substrings of the message
    };
    const std::vector<Case> cases = {
        {"truncated gzip",
         [&] {
             const std::string compressed = gzip(good + good + good);
             return dir.write("truncated/a.warc.gz", compressed.substr(0, compressed.size() - 20)).string();
         },
         {"a.warc.gz"}},
        {"Content-Length past the end",
         [&] {
             return dir.write("past/a.warc",
                              good + "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:x>\r\nContent-Length: 9999\r\n\r\nshort").string();
         },
         {"a.warc", "Content-Length", "record 1"}},
        {"bad jsonl line",
         [&] { return dir.write("json/a.jsonl", "{\"id\": \"x\", \"contents\": \"ok\"}\nnot json\n").string(); },
         {"a.jsonl", "line 2"}},
        {"missing input", [&] { return (dir / "does-not-exist").string(); }, {"does-not-exist"}},
    };
    for (const auto& c : cases) {
        CAPTURE(c.label);
        const std::string input = c.make_input();
        const auto output = dir / (std::string("out-") + std::to_string(&c - cases.data()));
        const auto pipeline = write_pipeline(dir, standard_pipeline({input}, output, 2, 1));
        const auto result = run_command(invidx_run() + " " + quote(pipeline));
        INFO(result.output);
        CHECK(result.exit_code == 1);
        for (const auto& text : c.expected) CHECK(result.output.find(text) != std::string::npos);
        check_no_index(output);
    }
}

TEST_CASE("bad pipeline descriptions name the key") {
    TempDir dir;
    dir.write("in/a.txt", "hello");
    const auto base = standard_pipeline({(dir / "in").string()}, dir / "out", 1, 1);

    struct Case {
        std::string label;
        std::function<void(nlohmann::json&)> edit;
        std::vector<std::string> expected;
    };
    const std::vector<Case> cases = {
        {"unknown top-level key", [](nlohmann::json& j) { j["outptu"] = "x"; }, {"/outptu", "unknown key"}},
        {"unknown node key", [](nlohmann::json& j) { j["nodes"][3]["cout"] = 4; }, {"/nodes/3/cout", "unknown key"}},
        {"wrong type", [](nlohmann::json& j) { j["nodes"][3]["count"] = "many"; }, {"/nodes/3/count"}},
        {"unknown node kind", [](nlohmann::json& j) { j["nodes"][3]["kind"] = "parsr"; },
         {"unknown node kind 'parsr'", "/nodes/3/kind", "known:", "parse"}},
        {"message types do not fit", [](nlohmann::json& j) { j["nodes"].erase(j["nodes"].begin() + 2); },
         {"/nodes/2", "takes DocBatch"}},
        {"unknown indexer kind", [](nlohmann::json& j) { j["nodes"][5]["indexers"][0]["kind"] = "magic"; },
         {"/nodes/5/indexers/0/kind", "magic"}},
        {"GPU indexer on a GPU that is not there", [](nlohmann::json& j) {
             j["nodes"][5]["indexers"].push_back({{"kind", "gpu_btree"}, {"device", "gpu:99"}, {"count", 2}});
         },
         {"gpu:99", "is not available", "/nodes/5/indexers/1/device"}},
        {"GPU indexer without a GPU device", [](nlohmann::json& j) {
             j["nodes"][5]["indexers"].push_back({{"kind", "gpu_hash"}, {"device", "cpu"}});
         },
         {"gpu_hash", "runs on a GPU", "/nodes/5/indexers/1/device"}},
        {"\"auto\" device on a CPU indexer kind", [](nlohmann::json& j) { j["nodes"][5]["indexers"][0]["device"] = "auto"; },
         {"/nodes/5/indexers/0/device", "'cpu_btree' runs on"}},
        {"only \"auto\" GPU indexers where no GPU parses", [](nlohmann::json& j) {
             j["nodes"][5]["indexers"] = nlohmann::json::array({{{"kind", "gpu_hash"}, {"device", "auto"}}});
         },
         {"/nodes/5/indexers", "no indexer", "no GPU parses"}},
        {"staging on a CPU indexer", [](nlohmann::json& j) {
             j["nodes"][5]["indexers"][0]["staging_occurrences"] = 10;
         },
         {"/nodes/5/indexers/0/staging_occurrences", "unknown key"}},
        {"bad stemmer", [](nlohmann::json& j) { j["analysis"]["stemmer"] = "lovins"; }, {"/analysis/stemmer"}},
        {"no nodes", [](nlohmann::json& j) { j.erase("nodes"); }, {"/nodes"}},
    };
    for (const auto& c : cases) {
        CAPTURE(c.label);
        nlohmann::json pipeline = base;
        c.edit(pipeline);
        const auto file = write_pipeline(dir, pipeline);
        const auto result = run_command(invidx_run() + " " + quote(file));
        INFO(result.output);
        CHECK(result.exit_code == 2);
        for (const auto& text : c.expected) CHECK(result.output.find(text) != std::string::npos);
        check_no_index(dir / "out");
    }
    SUBCASE("invalid JSON") {
        const auto file = dir.write("broken.json", "{\"nodes\": [");
        const auto result = run_command(invidx_run() + " " + quote(file));
        CHECK(result.exit_code == 2);
        CHECK(result.output.find("not valid JSON") != std::string::npos);
    }
}

TEST_CASE("an unwritable output directory is an error before any work") {
    // Below a regular file: unwritable for every user, root included.
    TempDir dir;
    dir.write("in/a.txt", "hello");
    dir.write("file", "x");
    const auto pipeline = write_pipeline(dir, standard_pipeline({(dir / "in").string()}, dir / "file" / "idx", 1, 1));
    const auto result = run_command(invidx_run() + " " + quote(pipeline));
    INFO(result.output);
    CHECK(result.exit_code == 1);
    CHECK(result.output.find("idx") != std::string::npos);
}

TEST_CASE("configs/6-2-2.json builds where a GPU is, and fails clearly where none is") {
    TempDir dir;
    const auto output = dir / "index";
    const auto result = run_command("cd '" + std::string(INVIDX_SOURCE_DIR) + "' && " + invidx_run() +
                                    " configs/6-2-2.json --output " + quote(output.string()));
    INFO(result.output);
    if (invidx::list_gpus().devices.empty()) {
        CHECK(result.exit_code == 2);
        CHECK(result.output.find("/nodes/5/indexers/1/device") != std::string::npos);
        CHECK(result.output.find("\"gpu:0\" is not available") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(output));
    } else {
        CHECK(result.exit_code == 0);
        CHECK(std::filesystem::exists(output / "manifest.json"));
    }
}

TEST_CASE("--list-kinds says whether \"gpus\": \"auto\" parses on GPUs here, and --set forces either") {
    const auto kinds = run_command(invidx_run() + " --list-kinds");
    INFO(kinds.output);
    CHECK(kinds.exit_code == 0);
    CHECK(kinds.output.find("parsing with \"gpus\": \"auto\"") != std::string::npos);
    const invidx::GpuInventory gpus = invidx::list_gpus();
    if (gpus.devices.empty()) {
        CHECK(kinds.output.find("CPU parsers only: \"gpus\": \"auto\" found no GPU: " + gpus.note) != std::string::npos);
    } else {
        CHECK(kinds.output.find("GPU parsers on gpu:0") != std::string::npos);
    }

    // The choice is in report.json; --set parse.gpus=none forces the CPU, a
    // GPU named where none is fails naming the key.
    TempDir dir;
    const std::string run = "cd '" + std::string(INVIDX_SOURCE_DIR) + "' && " + invidx_run() +
                            " configs/default.json --quiet --progress off --output ";
    const auto forced_cpu = run_command(run + quote(dir / "cpu") + " --set parse.gpus=none");
    INFO(forced_cpu.output);
    REQUIRE(forced_cpu.exit_code == 0);
    const auto report = nlohmann::json::parse(read_file(dir / "cpu" / "report.json"));
    CHECK(report.at("parse").at("gpus") == "none");
    CHECK(report.at("parse").at("choice") == "cpu");
    // The plan the build settled, with its reasons.
    CHECK(report.at("plan").at("parse").at("gpus_setting") == "none");
    CHECK(report.at("plan").at("memory_tokens").at("value") == report.at("memory_tokens"));
    if (gpus.devices.empty()) {
        const auto forced_gpu = run_command(run + quote(dir / "gpu") + " --set 'parse.gpus=[\"gpu:0\"]'");
        INFO(forced_gpu.output);
        CHECK(forced_gpu.exit_code == 2);
        CHECK(forced_gpu.output.find("/nodes/3/gpus/0") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir / "gpu"));
    }
}

TEST_CASE("--plan prints what every \"auto\" becomes here, builds nothing, and names a bad key") {
    TempDir dir;
    const std::string run = "cd '" + std::string(INVIDX_SOURCE_DIR) + "' && " + invidx_run() +
                            " configs/default.json --plan --output " + quote(dir / "idx");
    const auto shown = run_command(run + " --set parse.gpus=none --set memory.tokens=24");
    INFO(shown.output);
    REQUIRE(shown.exit_code == 0);
    const auto plan = nlohmann::json::parse(shown.output);
    const unsigned cores = invidx::available_cores();
    CHECK(plan.at("machine").at("cores") == cores);
    CHECK(plan.at("parse").at("cpu_parsers") == std::max(1u, (cores * 3 + 3) / 4));
    CHECK(plan.at("parse").at("gpus").empty());
    CHECK(plan.at("memory_tokens").at("value") == 24);
    CHECK(plan.at("index").at("indexers").size() == std::max(1u, cores / 4));
    CHECK_FALSE(std::filesystem::exists(dir / "idx"));
    const auto bad = run_command(run + " --set 'index.indexers=[{\"kind\": \"cpu_btree\", \"device\": \"tpu\"}]'");
    CHECK(bad.exit_code == 2);
    CHECK(bad.output.find("/nodes/5/indexers/0/device") != std::string::npos);
}

TEST_CASE("--plan resolves as the build does: \"auto\" inputs of term vectors make the plan pre-weighted") {
    TempDir dir;
    dir.write("vectors/a.jsonl", R"({"id": "a", "vector": {"Alpha": 2, "beta": 1}})" "\n"
                                 R"({"id": "b", "vector": {"beta": 3}})" "\n");
    const auto pipeline = write_pipeline(dir, standard_pipeline({(dir / "vectors").string()}, dir / "idx", 1, 1));
    const std::string run = invidx_run() + " " + quote(pipeline);
    // Vectors take no positions: the plan refuses them as the build does
    // (before, --plan skipped the detection and printed a plan).
    const auto positional_plan = run_command(run + " --plan --set positions=true");
    CHECK(positional_plan.exit_code == 2);
    CHECK(positional_plan.output.find("/positions") != std::string::npos);
    const auto positional_build = run_command(run + " --set positions=true");
    CHECK(positional_build.exit_code == 2);
    CHECK(positional_build.output.find("/positions") != std::string::npos);
    check_no_index(dir / "idx");
    // Without positions: the plan printed is the one the build records.
    const auto shown = run_command(run + " --plan");
    INFO(shown.output);
    REQUIRE(shown.exit_code == 0);
    const auto built = run_command(run);
    INFO(built.output);
    REQUIRE(built.exit_code == 0);
    CHECK(invidx::IndexReader(dir / "idx").analysis().pre_weighted);
    const auto report = nlohmann::json::parse(read_file(dir / "idx" / "report.json"));
    CHECK(nlohmann::json::parse(shown.output) == report.at("plan"));
}

GPU_TEST_CASE("--plan of \"auto\" vector inputs on a GPU machine: CPU parsers, as the build takes") {
    TempDir dir;
    dir.write("vectors/a.jsonl", R"({"id": "a", "vector": {"Alpha": 2, "beta": 1}})" "\n");
    nlohmann::json description = standard_pipeline({(dir / "vectors").string()}, dir / "idx", 1, 1);
    description["nodes"][3]["gpus"] = "auto";
    const auto shown = run_command(invidx_run() + " " + quote(write_pipeline(dir, description)) + " --plan");
    INFO(shown.output);
    REQUIRE(shown.exit_code == 0);
    const auto plan = nlohmann::json::parse(shown.output);
    CHECK(plan.at("parse").at("gpus").empty());
    CHECK(shown.output.find("pre-weighted") != std::string::npos);
}
