// Pre-weighted documents end to end (docs/PIPELINE.md and FORMAT.md,
// "Pre-weighted documents (jsonvector)"): vectors built into an index whose
// postings are the given weights, checked against the vectors themselves;
// the same index (CIFF export) from any number of parsers and indexers;
// the configuration errors of mixing text and vectors.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/error.hpp"
#include "store/query_postings.hpp"
#include "support/collections.hpp"
#include "support/gpu_test.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// Terms as learned sparse models write them (word pieces, any case, stop
// words, non-ASCII, a 255-byte one) and plain words of every collection kind.
std::vector<std::string> vector_vocabulary(std::mt19937& random) {
    std::vector<std::string> terms = {"Running", "running", "##ing", "the", "東京", "été", "a b", "connect",
                                      "connection", "Connect", "x", "[CLS]", std::string(255, 'z'), "3com"};
    std::uniform_int_distribution<int> length(1, 9), letter(0, 25);
    while (terms.size() < 300) {
        std::string term;
        for (int i = length(random); i > 0; --i) term.push_back(static_cast<char>('a' + letter(random)));
        terms.push_back(term);
    }
    return terms;
}

struct VectorCollection {
    std::vector<std::string> files;  // JSONL text per file
    ReferenceIndex reference;        // postings and lengths straight from the weights
};

// `documents` vectors over three files, integer weights 0-255 and some
// floats (quantized at scale 100 for the reference).
VectorCollection vector_collection(uint32_t documents, uint32_t seed) {
    std::mt19937 random(seed);
    const auto vocabulary = vector_vocabulary(random);
    VectorCollection collection;
    collection.files.resize(3);
    std::uniform_int_distribution<int> terms_per_doc(0, 120), weight(0, 255);
    for (uint32_t docid = 0; docid < documents; ++docid) {
        nlohmann::json vector = nlohmann::json::object();
        std::map<std::string, uint32_t> tfs;
        for (int t = terms_per_doc(random); t > 0; --t) {
            const std::string& term = vocabulary[std::min<size_t>(vocabulary.size() - 1, random() % 40 + random() % vocabulary.size())];
            if (random() % 7 == 0) {
                const double w = static_cast<double>(random() % 1000) / 137.0;
                vector[term] = w;
                tfs[term] = static_cast<uint32_t>(std::round(w * 100));
            } else {
                const int w = weight(random);
                vector[term] = w;
                tfs[term] = static_cast<uint32_t>(w);
            }
        }
        const std::string name = "doc-" + std::to_string(docid);
        collection.files[docid * 3 / documents] += nlohmann::json{{"id", name}, {"vector", vector}}.dump() + "\n";
        uint32_t length = 0;
        for (const auto& [term, tf] : tfs) {
            if (tf == 0) continue;
            collection.reference.postings[term][docid] = tf;
            length += tf;
        }
        collection.reference.documents.emplace_back(name, length);
    }
    return collection;
}

nlohmann::json vector_inputs(const TempDir& dir, const VectorCollection& collection) {
    nlohmann::json inputs = nlohmann::json::array();
    for (size_t f = 0; f < collection.files.size(); ++f) {
        const auto path = dir.write("vectors/part-" + std::to_string(f) + ".jsonl", collection.files[f]);
        inputs.push_back({{"path", path.string()}, {"format", "jsonvector"}});
    }
    return inputs;
}

nlohmann::json vector_pipeline(const nlohmann::json& inputs, const std::filesystem::path& output, unsigned parsers,
                               unsigned indexers) {
    nlohmann::json description = standard_pipeline({}, output, parsers, indexers);
    description["input"] = inputs;
    return description;
}

std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

// The JSON pointer of the ConfigError that reading `description` raises.
std::string config_error_pointer(const nlohmann::json& description, std::string* message = nullptr) {
    try {
        PipelineConfig::from_json(description);
    } catch (const ConfigError& error) {
        if (message) *message = error.what();
        return error.json_pointer();
    }
    return "no error";
}

}  // namespace

TEST_CASE("jsonvector build: postings are the weights, lengths their sums, terms verbatim; the manifest says so") {
    TempDir dir;
    const VectorCollection collection = vector_collection(300, 7);
    build_index(vector_pipeline(vector_inputs(dir, collection), dir / "idx", 2, 2));
    const IndexReader index(dir / "idx");
    check_index_equals(index, collection.reference);
    CHECK(index.analysis().pre_weighted);
    CHECK(index.analysis().vector_scale == 100);
    CHECK(index.analysis().stemmer == "none");  // nothing of CONTENT.md §4-7 applies
    CHECK(index.analysis().stopwords.empty());
    CHECK_FALSE(index.positional());
    CHECK(index.find_term("Running").has_value());
    CHECK(index.find_term("##ing").has_value());
    CHECK(index.find_term("the").has_value());
    CHECK(index.find_term("東京").has_value());

    // `invidx term` looks words up verbatim on a pre-weighted index.
    const auto running = run_invidx(dir, "term " + quoted(dir / "idx") + " Running");
    CHECK(running.exit_code == 0);
    CHECK(running.out.rfind("term: Running\ndf: " + std::to_string(collection.reference.postings.at("Running").size()), 0) == 0);
    const auto pieces = run_invidx(dir, "term " + quoted(dir / "idx") + " '##ing' the");
    CHECK(pieces.exit_code == 0);
    CHECK(pieces.out.find("term: ##ing\n") != std::string::npos);
    CHECK(pieces.out.find("term: the\n") != std::string::npos);
    CHECK(run_invidx(dir, "term " + quoted(dir / "idx") + " RUNNING").exit_code != 0);  // no case folding
}

TEST_CASE("jsonvector build, weight --impacts tf: search --scoring impact ranks by the sum of the weights (brute force)") {
    TempDir dir;
    const VectorCollection collection = vector_collection(300, 5);
    build_index(vector_pipeline(vector_inputs(dir, collection), dir / "idx", 2, 2));
    const auto weighted = run_invidx(dir, "weight " + quoted(dir / "idx") + " --impacts tf");
    INFO(weighted.err);
    REQUIRE(weighted.exit_code == 0);
    const auto& postings = collection.reference.postings;
    for (const std::vector<std::string> query : {std::vector<std::string>{"Running", "##ing", "the"},
                                                 std::vector<std::string>{"東京", "connect", "Connect", "x"},
                                                 std::vector<std::string>{"été", "absentterm"}}) {
        std::string text;
        std::map<std::string, double> expected;  // document name -> sum of its tfs of the query's terms
        for (const auto& term : query) {
            text += (text.empty() ? "" : " ") + term;
            if (!postings.count(term)) continue;
            for (const auto& [docid, tf] : postings.at(term)) expected[collection.reference.documents[docid].first] += tf;
        }
        CAPTURE(text);
        REQUIRE_FALSE(expected.empty());
        const auto search =
            run_invidx(dir, "search " + quoted(dir / "idx") + " --scoring impact --k 1000 --format json '" + text + "'");
        INFO(search.err);
        REQUIRE(search.exit_code == 0);
        const auto results = nlohmann::json::parse(search.out).at(0).at("results");
        REQUIRE(results.size() == expected.size());
        double previous = 1e300;
        for (const auto& result : results) {
            const double score = result["score"].get<double>();
            CHECK(score == doctest::Approx(expected.at(result["name"].get<std::string>())));
            CHECK(score <= previous);
            previous = score;
        }
    }
}

TEST_CASE("jsonvector build: search --scoring impact ranks at once, as after weight --impacts tf") {
    TempDir dir;
    const VectorCollection collection = vector_collection(300, 7);
    const auto inputs = vector_inputs(dir, collection);
    const BuildReport report = build_index(vector_pipeline(inputs, dir / "idx", 2, 2));
    CHECK(report.json.at("query_layout").at("impacts") == "tf");
    {
        const IndexReader index(dir / "idx");
        REQUIRE(QueryPostings::present(index));
        const QueryPostings layout(index);
        CHECK(layout.impacts_are_tfs());
    }
    // The same collection weighted the old way: built, then weight --impacts tf (which rewrites it).
    build_index(vector_pipeline(inputs, dir / "explicit", 2, 2));
    const auto weighted = run_invidx(dir, "weight " + quoted(dir / "explicit") + " --impacts tf");
    INFO(weighted.err);
    REQUIRE(weighted.exit_code == 0);
    for (const std::string query : {"Running ##ing the", "東京 connect Connect x", "été absentterm", "[CLS] 3com a"}) {
        CAPTURE(query);
        const std::string flags = " --scoring impact --k 50 --format json '" + query + "'";
        const auto direct = run_invidx(dir, "search " + quoted(dir / "idx") + flags);
        INFO(direct.err);
        REQUIRE(direct.exit_code == 0);
        const auto explicit_step = run_invidx(dir, "search " + quoted(dir / "explicit") + flags);
        REQUIRE(explicit_step.exit_code == 0);
        CHECK(direct.out == explicit_step.out);
        CHECK_FALSE(nlohmann::json::parse(direct.out).at(0).at("results").empty());
    }
}

TEST_CASE("jsonvector build: a weight too large for an impact leaves the index without impacts, with a notice") {
    TempDir dir;
    const auto input = dir.write("v.jsonl", R"({"id": "a", "vector": {"big": 70000, "small": 2}})" "\n"
                                            R"({"id": "b", "vector": {"small": 3}})" "\n");
    std::vector<std::string> notices;
    Pipeline pipeline(PipelineConfig::from_json(vector_pipeline(
        nlohmann::json::array({{{"path", input.string()}, {"format", "jsonvector"}}}), dir / "idx", 1, 1)));
    RunOptions options;
    options.notice = [&](const std::string& line) { notices.push_back(line); };
    const BuildReport report = pipeline.run(options);
    CHECK(report.json.at("query_layout").at("impacts") == "none");
    const IndexReader index(dir / "idx");
    CHECK_FALSE(QueryPostings::present(index));
    REQUIRE(notices.size() == 1);
    CHECK(notices[0].find("term 'big' has tf 70000") != std::string::npos);
    const auto search = run_invidx(dir, "search " + quoted(dir / "idx") + " --scoring impact small");
    CHECK(search.exit_code == 2);
}

TEST_CASE("jsonvector build: the same index from 1 or several parsers, 1, 2 or 4 indexers, small batches and runs") {
    TempDir dir;
    const VectorCollection collection = vector_collection(400, 11);
    const nlohmann::json inputs = vector_inputs(dir, collection);
    build_index(vector_pipeline(inputs, dir / "one", 1, 1));
    check_index_equals(IndexReader(dir / "one"), collection.reference);
    const std::string expected = ciff_bytes(dir / "one");

    struct Shape {
        unsigned parsers, indexers;
        uint64_t batch_bytes, run_bytes;
    };
    for (const Shape shape : {Shape{2, 2, 0, 0}, Shape{3, 4, 3000, 0}, Shape{2, 2, 1000, 20000}}) {
        CAPTURE(shape.parsers);
        CAPTURE(shape.indexers);
        CAPTURE(shape.batch_bytes);
        const auto output = dir / ("idx-" + std::to_string(shape.parsers) + "-" + std::to_string(shape.indexers) + "-" +
                                   std::to_string(shape.batch_bytes));
        nlohmann::json description = vector_pipeline(inputs, output, shape.parsers, shape.indexers);
        if (shape.batch_bytes) description["memory"]["batch_bytes"] = shape.batch_bytes;
        if (shape.run_bytes) description["memory"]["run_bytes"] = shape.run_bytes;
        build_index(description);
        CHECK(ciff_bytes(output) == expected);
    }
}

TEST_CASE("jsonvector build: analysis.vector_scale sets the float quantization and is recorded") {
    TempDir dir;
    const auto input = dir.write("v.jsonl", R"({"id": "a", "vector": {"w": 0.25, "v": 0.0004, "i": 3}})" "\n");
    nlohmann::json description =
        vector_pipeline(nlohmann::json::array({{{"path", input.string()}, {"format", "jsonvector"}}}), dir / "idx", 1, 1);
    description["analysis"]["vector_scale"] = 10000;
    build_index(description);
    const IndexReader index(dir / "idx");
    CHECK(index.analysis().vector_scale == 10000);
    ReferenceIndex reference;
    reference.postings["i"][0] = 3;
    reference.postings["v"][0] = 4;
    reference.postings["w"][0] = 2500;
    reference.documents.emplace_back("a", 2507);
    check_index_equals(index, reference);

    description["analysis"]["vector_scale"] = 0;
    CHECK(config_error_pointer(description) == "/analysis/vector_scale");
}

TEST_CASE("jsonvector build: invidx stats says the index is pre-weighted, with its vector_scale") {
    TempDir dir;
    const auto input = dir.write("v.jsonl", R"({"id": "a", "vector": {"w": 0.5, "i": 3}})" "\n");
    nlohmann::json description =
        vector_pipeline(nlohmann::json::array({{{"path", input.string()}, {"format", "jsonvector"}}}), dir / "idx", 1, 1);
    description["analysis"]["vector_scale"] = 1000;
    build_index(description);
    const auto text = run_invidx(dir, "stats " + quoted(dir / "idx"));
    REQUIRE(text.exit_code == 0);
    CHECK(text.out.find("analysis        pre-weighted vectors (vector_scale 1000)\n") != std::string::npos);
    CHECK(text.out.find("stemmer         none\n") != std::string::npos);
    const auto json = run_invidx(dir, "stats --format json " + quoted(dir / "idx"));
    REQUIRE(json.exit_code == 0);
    const auto stats = nlohmann::json::parse(json.out);
    CHECK(stats["pre_weighted"] == true);
    CHECK(stats["vector_scale"] == 1000);
    CHECK(stats["total_length"] == 503);
}

TEST_CASE("jsonvector build: auto takes .jsonl files as vectors beside jsonvector; a text file there is an error") {
    TempDir dir;
    const auto named = dir.write("a/v.jsonl", R"({"id": "a", "vector": {"Alpha": 2}})" "\n");
    dir.write("b/w.jsonl", R"({"id": "b", "vector": {"Beta": 5}})" "\n");
    const nlohmann::json inputs = nlohmann::json::array({{{"path", named.string()}, {"format", "jsonvector"}},
                                                        (dir / "b").string()});
    build_index(vector_pipeline(inputs, dir / "idx", 1, 1));
    const IndexReader index(dir / "idx");
    REQUIRE(index.num_documents() == 2);
    CHECK(index.document(1).name == "b");
    CHECK(index.document(1).length == 5);
    CHECK(index.find_term("Beta").has_value());

    dir.write("c/notes.txt", "plain text");
    nlohmann::json with_text = inputs;
    with_text.push_back((dir / "c").string());
    try {
        build_index(vector_pipeline(with_text, dir / "idx-text", 1, 1));
        FAIL("no error");
    } catch (const Error& error) {
        CHECK(std::string(error.what()).find("a text document (format text) in a pipeline of pre-weighted documents") !=
              std::string::npos);
        CHECK(std::string(error.what()).find("notes.txt") != std::string::npos);
    }
}

TEST_CASE("jsonvector build: auto finds vectors from the first JSONL file's first line") {
    TempDir dir;
    const VectorCollection collection = vector_collection(200, 17);
    build_index(vector_pipeline(vector_inputs(dir, collection), dir / "named", 2, 2));
    dir.write("auto/a.jsonl", "\n  \n" + collection.files[0]);
    dir.write("auto/b.jsonl.gz", gzip(collection.files[1]));
    dir.write("auto/c.ndjson", collection.files[2]);
    build_index(vector_pipeline(nlohmann::json::array({(dir / "auto").string()}), dir / "detected", 2, 2));
    CHECK(IndexReader(dir / "detected").analysis().pre_weighted);
    CHECK(ciff_bytes(dir / "detected") == ciff_bytes(dir / "named"));

    nlohmann::json positional = vector_pipeline(nlohmann::json::array({(dir / "auto").string()}), dir / "pos", 1, 1);
    positional["positions"] = true;
    try {
        build_index(positional);
        FAIL("no error");
    } catch (const ConfigError& error) {
        CHECK(error.json_pointer() == "/positions");
        CHECK(std::string(error.what()).find("a.jsonl") != std::string::npos);
    }
    // A first line with "contents" too is text: the build is a text build.
    dir.write("both/a.jsonl", R"({"id": "a", "contents": "Running dogs", "vector": {"Running": 2}})" "\n");
    build_index(vector_pipeline(nlohmann::json::array({(dir / "both").string()}), dir / "text", 1, 1));
    CHECK_FALSE(IndexReader(dir / "text").analysis().pre_weighted);
    CHECK(IndexReader(dir / "text").find_term("run").has_value());
}

TEST_CASE("jsonvector build: a text pipeline meeting vector lines says to name the jsonvector format") {
    TempDir dir;
    const auto input = dir.write("v.jsonl", R"({"id": "t", "contents": "text first"})" "\n"
                                            R"({"id": "a", "vector": {"Alpha": 2}})" "\n");
    try {
        build_index(standard_pipeline({input.string()}, dir / "idx", 1, 1));
        FAIL("no error");
    } catch (const Error& error) {
        CHECK(std::string(error.what()).find("\"format\": \"jsonvector\"") != std::string::npos);
        CHECK(std::string(error.what()).find("v.jsonl") != std::string::npos);
    }
}

TEST_CASE("jsonvector config: text formats beside jsonvector, and positions, are errors naming the key") {
    TempDir dir;
    const nlohmann::json vector_input = {{"path", (dir / "v.jsonl").string()}, {"format", "jsonvector"}};
    std::string message;
    for (const std::string text_format : {"jsonl", "warc", "trec", "text", "html"}) {
        CAPTURE(text_format);
        const nlohmann::json inputs =
            nlohmann::json::array({vector_input, {{"path", (dir / "t").string()}, {"format", text_format}}});
        CHECK(config_error_pointer(vector_pipeline(inputs, dir / "idx", 1, 1), &message) == "/input/1/format");
        CHECK(message.find("beside jsonvector (/input/0/format)") != std::string::npos);
    }
    nlohmann::json positional = vector_pipeline(vector_input, dir / "idx", 1, 1);
    positional["positions"] = true;
    CHECK(config_error_pointer(positional, &message) == "/positions");
    CHECK(message.find("/input/format") != std::string::npos);
    positional["positions"] = false;
    CHECK(config_error_pointer(positional) == "no error");
    CHECK(PipelineConfig::from_json(positional).analysis.pre_weighted);
    CHECK_FALSE(PipelineConfig::from_json(standard_pipeline({"x.jsonl"}, dir / "idx", 1, 1)).analysis.pre_weighted);
}

GPU_TEST_CASE("jsonvector build on a GPU: GPU indexers index CPU-parsed vectors as the CPU does, and GPU parsers are refused") {
    TempDir dir;
    const VectorCollection collection = vector_collection(400, 13);
    const nlohmann::json inputs = vector_inputs(dir, collection);
    build_index(vector_pipeline(inputs, dir / "cpu", 2, 2));
    const std::string expected = ciff_bytes(dir / "cpu");
    for (const std::string kind : {"gpu_btree", "gpu_hash"}) {
        CAPTURE(kind);
        nlohmann::json description = vector_pipeline(inputs, dir / kind, 2, 1);
        for (auto& node : description["nodes"]) {
            if (node["kind"] == "index") node["indexers"] = {{{"kind", kind}, {"device", "gpu:0"}}};
            if (node["kind"] == "parse") node["gpus"] = "auto";  // takes no GPU for vectors
        }
        const BuildReport report = build_index(description);
        CHECK(report.json["parse"]["choice"] == "cpu");
        CHECK(ciff_bytes(dir / kind) == expected);
    }
    nlohmann::json gpu_parsers = vector_pipeline(inputs, dir / "gpu-parsers", 0, 1);
    gpu_parsers["nodes"][3]["gpus"] = {{{"device", "gpu:0"}}};
    gpu_parsers["nodes"][3].erase("count");
    try {
        build_index(gpu_parsers);
        FAIL("no error");
    } catch (const ConfigError& error) {
        CHECK(error.json_pointer() == "/nodes/3/gpus");
    }
}
