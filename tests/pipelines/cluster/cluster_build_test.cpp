// Cluster builds: invidx-run under mpirun gives the single machine's index
// whatever the number of ranks, in both modes (partition-and-index, the
// default, and files), and a rank's bad input fails the whole job without a
// hang. Without MPI in the build a "cluster" pipeline is a ConfigError;
// without mpirun the job tests are not compiled.
#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <sys/wait.h>

#include "store/index_check.hpp"
#include "support/collections.hpp"
#include "support/generated_warc.hpp"
#include "support/possessives.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

nlohmann::json cluster_pipeline(const std::vector<std::string>& inputs, const std::filesystem::path& output,
                                const std::string& mode = "partition") {
    nlohmann::json pipeline = standard_pipeline(inputs, output, 2, 2);
    pipeline["cluster"] = {{"mode", mode}, {"assign_files", "size"}};
    pipeline["positions"] = true;
    pipeline["memory"] = {{"batch_bytes", 4000}, {"run_bytes", 30000}, {"tokens", 4}};
    return pipeline;
}

}  // namespace

TEST_CASE("an unknown cluster mode is a ConfigError naming the key") {
    nlohmann::json pipeline = cluster_pipeline({"in"}, "idx");
    pipeline["cluster"]["mode"] = "scatter";
    try {
        PipelineConfig::from_json(pipeline);
        FAIL("expected a ConfigError");
    } catch (const ConfigError& error) {
        CHECK(error.json_pointer() == "/cluster/mode");
        CHECK(std::string(error.what()).find("partition") != std::string::npos);
    }
    pipeline["cluster"].erase("mode");
    CHECK(PipelineConfig::from_json(pipeline).cluster->mode == ClusterMode::partition);
}

TEST_CASE("exchange credits default to memory.tokens; a count or \"auto\", anything else a ConfigError") {
    nlohmann::json pipeline = cluster_pipeline({"in"}, "idx");
    CHECK_FALSE(PipelineConfig::from_json(pipeline).cluster->exchange_credits.has_value());
    pipeline["cluster"]["exchange_credits"] = "auto";
    CHECK_FALSE(PipelineConfig::from_json(pipeline).cluster->exchange_credits.has_value());
    pipeline["cluster"]["exchange_credits"] = 12;
    CHECK(PipelineConfig::from_json(pipeline).cluster->exchange_credits == 12u);
    for (const nlohmann::json& bad : {nlohmann::json(0), nlohmann::json("many"), nlohmann::json(-3)}) {
        CAPTURE(bad.dump());
        pipeline["cluster"]["exchange_credits"] = bad;
        try {
            PipelineConfig::from_json(pipeline);
            FAIL("expected a ConfigError");
        } catch (const ConfigError& error) {
            CHECK(error.json_pointer() == "/cluster/exchange_credits");
        }
    }
}

TEST_CASE("the dictionary join is parallel unless the pipeline says serial, anything else a ConfigError") {
    nlohmann::json pipeline = cluster_pipeline({"in"}, "idx");
    CHECK(PipelineConfig::from_json(pipeline).cluster->join == DictionaryJoinMode::parallel);
    pipeline["cluster"]["join"] = "serial";
    CHECK(PipelineConfig::from_json(pipeline).cluster->join == DictionaryJoinMode::serial);
    pipeline["cluster"]["join"] = "rank0";
    try {
        PipelineConfig::from_json(pipeline);
        FAIL("expected a ConfigError");
    } catch (const ConfigError& error) {
        CHECK(error.json_pointer() == "/cluster/join");
        CHECK(std::string(error.what()).find("parallel, serial") != std::string::npos);
    }
}

#if !defined(INVIDX_HAVE_MPI)
TEST_CASE("a cluster pipeline without MPI in the build is a ConfigError naming the key") {
    TempDir dir;
    dir.write("in/a.txt", "some words");
    try {
        build_index(cluster_pipeline({(dir / "in").string()}, dir / "idx"));
        FAIL("expected a ConfigError");
    } catch (const ConfigError& error) {
        CHECK(error.json_pointer() == "/cluster");
        CHECK(std::string(error.what()).find("without MPI") != std::string::npos);
    }
    CHECK(!std::filesystem::exists(dir / "idx"));
}
#endif

#if defined(INVIDX_MPIEXEC)
namespace {

struct JobResult {
    int exit_code = -1;
    std::string err;
};

// invidx-run on `ranks` ranks of one machine, over TCP (no shared-memory
// transport needed), as root too.
JobResult run_job(const TempDir& dir, unsigned ranks, const std::filesystem::path& pipeline,
                  const std::filesystem::path& output, const std::string& environment = "") {
    const auto err = dir / "job.err";
    // timeout: a job that hangs fails the test (exit 124) instead of ctest.
    const std::string command =
        environment + " OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 timeout 120 '" +
        std::string(INVIDX_MPIEXEC) + "' --oversubscribe -np " + std::to_string(ranks) + " --mca btl tcp,self '" +
        INVIDX_TOOLS_DIR + "/invidx-run' '" + pipeline.string() + "' --output '" + output.string() +
        "' --quiet >/dev/null 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    return {WEXITSTATUS(status), read_file(err)};
}

std::filesystem::path write_pipeline(const TempDir& dir, const nlohmann::json& pipeline) {
    return dir.write("cluster.json", pipeline.dump());
}


// Every format the framers know, in one collection: generated WARC.gz
// parts of unequal size, a JSONL file and a TREC file.
std::filesystem::path mixed_collection(TempDir& dir) {
    const GeneratedWarc warc = generate_warc(31, 150, 3);
    write_parts(dir, "in", warc);
    std::mt19937 random(7);
    const auto words = test_vocabulary(random, 300);
    std::string jsonl, trec;
    for (int d = 0; d < 40; ++d) {
        std::string text;
        for (int w = 0; w < 30 + d; ++w) text += words[random() % words.size()] + " ";
        jsonl += "{\"id\": \"j" + std::to_string(d) + "\", \"contents\": \"" + text + "\"}\n";
        trec += "<DOC>\n<DOCNO>t" + std::to_string(d) + "</DOCNO>\n<TEXT>" + text + "</TEXT>\n</DOC>\n";
    }
    dir.write("in/part-04.jsonl", jsonl);
    dir.write("in/part-05.trec", trec);
    return dir / "in";
}

std::string single_machine_ciff(TempDir& dir, const std::filesystem::path& input, bool positions) {
    nlohmann::json single = cluster_pipeline({input.string()}, dir / "single");
    single.erase("cluster");
    single["positions"] = positions;
    build_index(single);
    const std::string ciff = ciff_bytes(dir / "single");
    std::filesystem::remove_all(dir / "single");
    return ciff;
}

uint64_t sum_of(const nlohmann::json& per_rank, const char* key) {
    uint64_t total = 0;
    for (const auto& rank : per_rank) total += rank.at(key).get<uint64_t>();
    return total;
}

}  // namespace

TEST_CASE("a partition cluster build on 1, 2, 3 and 4 ranks exports the single machine's CIFF, positions on and off") {
    TempDir dir;
    const auto input = mixed_collection(dir);
    for (const bool positions : {true, false}) {
        CAPTURE(positions);
        const std::string single_ciff = single_machine_ciff(dir, input, positions);
        nlohmann::json pipeline = cluster_pipeline({input.string()}, dir / "unused");
        pipeline["positions"] = positions;
        const auto pipeline_file = write_pipeline(dir, pipeline);
        for (unsigned ranks = 1; ranks <= 4; ++ranks) {
            CAPTURE(ranks);
            const auto output = dir / ("cluster-" + std::to_string(ranks) + (positions ? "-positions" : ""));
            const JobResult job = run_job(dir, ranks, pipeline_file, output);
            INFO(job.err);
            REQUIRE(job.exit_code == 0);
            CHECK(ciff_bytes(output) == single_ciff);
            CheckOptions full;
            full.full = true;
            const IndexCheckReport checked = check_index(output, full);
            CHECK(checked.ok());
            CHECK(checked.terms > 0);
            IndexReader index(output);
            const nlohmann::json& report = *index.report();
            CHECK(report.at("ranks") == ranks);
            CHECK(report.at("cluster").at("mode") == "partition");
            const nlohmann::json& per_rank = report.at("per_rank");
            REQUIRE(per_rank.size() == ranks);
            CHECK(sum_of(per_rank, "documents") == index.num_documents());
            CHECK(sum_of(per_rank, "terms_owned") == index.term_count());
            CHECK(sum_of(per_rank, "postings_owned") == index.num_postings());
            // Every part's run files are runs of the index, moved, not
            // rewritten: each keeps its source's first docid as its base.
            CHECK(sum_of(per_rank, "part_runs") == index.manifest().runs.size());
            CHECK(sum_of(per_rank, "runs") == index.manifest().runs.size());
            CHECK(index.manifest().format_version == (ranks > 1 ? 2u : 1u));
            CHECK(index.manifest().run_docid_bases.empty() == (ranks == 1));
            // Every postings byte sent arrived; one rank sends none.
            CHECK(sum_of(per_rank, "postings_bytes_sent") == sum_of(per_rank, "postings_bytes_received"));
            CHECK((sum_of(per_rank, "postings_bytes_sent") > 0) == (ranks > 1));
            // Batches out on other ranks hold credits (memory.tokens of them), not tokens.
            for (const auto& figures : per_rank) {
                CHECK(figures.at("exchange_credits") == 4);
                CHECK(figures.at("peak_exchange_credits_in_use").get<uint64_t>() <= 4);
                // Each rank inflates and parses its files: CPU time, within the rank's.
                const double parse_cpu = figures.at("parse_busy_cpu_seconds").get<double>();
                const double decompress_cpu = figures.at("decompress_busy_cpu_seconds").get<double>();
                CHECK(parse_cpu > 0);
                CHECK(decompress_cpu >= 0);
                CHECK(parse_cpu + decompress_cpu <= figures.at("cpu_seconds").get<double>());
            }
            // Ownership over every rank's 2 indexers, each collection once.
            const nlohmann::json& indexers = report.at("cluster").at("ownership").at("indexers");
            CHECK(indexers.size() == 2 * ranks);
            uint64_t owned = 0;
            for (const auto& indexer : indexers) owned += indexer.at("collections_owned").get<uint64_t>();
            CHECK(owned == kCollections);
            CHECK(!std::filesystem::exists(output / "cluster-parts"));
            std::filesystem::remove_all(output);
        }
    }
}

TEST_CASE("a partition cluster build with a single exchange credit waits for it and exports the single machine's CIFF") {
    TempDir dir;
    const auto input = mixed_collection(dir);
    const std::string single_ciff = single_machine_ciff(dir, input, true);
    nlohmann::json pipeline = cluster_pipeline({input.string()}, dir / "unused");
    pipeline["cluster"]["exchange_credits"] = 1;
    const auto pipeline_file = write_pipeline(dir, pipeline);
    const auto output = dir / "cluster-3";
    const JobResult job = run_job(dir, 3, pipeline_file, output);
    INFO(job.err);
    REQUIRE(job.exit_code == 0);
    CHECK(ciff_bytes(output) == single_ciff);
    IndexReader index(output);
    const nlohmann::json& per_rank = index.report()->at("per_rank");
    for (const auto& figures : per_rank) {
        CHECK(figures.at("exchange_credits") == 1);
        CHECK(figures.at("peak_exchange_credits_in_use").get<uint64_t>() <= 1);
    }
    // Hundreds of 4 kB batches a rank, each acknowledged only once another
    // rank has indexed it: some batch found the one credit out.
    CHECK(sum_of(per_rank, "batches_waiting_for_credit") > 0);
    // ... and kept its token meanwhile, for a time the figures add up.
    double credit_wait = 0;
    for (const auto& figures : per_rank) credit_wait += figures.at("credit_wait_seconds").get<double>();
    CHECK(credit_wait > 0);
    // Each rank's plan came after MPI's start, from a machine listed beside it.
    for (const auto& figures : per_rank) CHECK(figures.at("rank_plan_seconds").get<double>() >= 0);
}

TEST_CASE("a files cluster build on 1, 2 and 4 ranks exports the single machine's CIFF, its parts' runs moved in") {
    TempDir dir;
    const auto input = mixed_collection(dir);
    const std::string single_ciff = single_machine_ciff(dir, input, true);
    const auto pipeline = write_pipeline(dir, cluster_pipeline({input.string()}, dir / "unused", "files"));
    for (const unsigned ranks : {1u, 2u, 4u}) {
        CAPTURE(ranks);
        const auto output = dir / ("cluster-" + std::to_string(ranks));
        const JobResult job = run_job(dir, ranks, pipeline, output);
        INFO(job.err);
        REQUIRE(job.exit_code == 0);
        CHECK(ciff_bytes(output) == single_ciff);
        IndexReader index(output);
        CHECK(index.report()->at("cluster").at("mode") == "files");
        const nlohmann::json& per_rank = index.report()->at("per_rank");
        CHECK(per_rank.size() == ranks);
        CHECK(sum_of(per_rank, "documents") == index.num_documents());
        // Every part's run files are runs of the index, moved, not
        // rewritten into one run a part: each keeps its part's first docid
        // as its base (30 kB runs: several a part).
        CHECK(index.manifest().runs.size() > ranks);
        CHECK(index.manifest().run_docid_bases.size() == (ranks > 1 ? index.manifest().runs.size() : 0));
        CHECK(index.manifest().format_version == (ranks > 1 ? 2u : 1u));
        CheckOptions full;
        full.full = true;
        CHECK(check_index(output, full).ok());
        CHECK(!std::filesystem::exists(output / "cluster-parts"));
    }
}

TEST_CASE("cut by work, one-stream gzip files weigh more: the cut moves, the index is the single machine's") {
    TempDir dir;
    // Files of gzip members first (a-*), then files of one gzip stream (b-*).
    const GeneratedWarc warc = generate_warc(41, 120, 4);
    for (size_t f = 0; f < warc.file_contents.size(); ++f)
        dir.write("in/a-" + std::to_string(f) + ".warc.gz", warc.file_contents[f]);
    std::mt19937 random(9);
    const auto words = test_vocabulary(random, 300);
    for (int f = 0; f < 4; ++f) {
        std::string text;
        for (int d = 0; d < 30; ++d)
            text += warc_response("s" + std::to_string(f) + "-" + std::to_string(d), random_html(random, words, 150));
        dir.write("in/b-" + std::to_string(f) + ".warc.gz", gzip(text));
    }
    const auto input = dir / "in";
    const std::string single_ciff = single_machine_ciff(dir, input, true);
    for (const std::string mode : {"partition", "files"}) {
        CAPTURE(mode);
        std::map<std::string, uint64_t> first_rank_files;
        for (const std::string assign : {"size", "work"}) {
            CAPTURE(assign);
            nlohmann::json pipeline = cluster_pipeline({input.string()}, dir / "unused", mode);
            pipeline["cluster"]["assign_files"] = assign;
            if (assign == "work") pipeline["cluster"]["stream_file_weight"] = 4;
            const auto output = dir / ("cluster-" + mode + "-" + assign);
            const JobResult job = run_job(dir, 2, write_pipeline(dir, pipeline), output);
            INFO(job.err);
            REQUIRE(job.exit_code == 0);
            CHECK(ciff_bytes(output) == single_ciff);
            IndexReader index(output);
            const nlohmann::json& report = *index.report();
            CHECK(report.at("cluster").at("assign_files") == assign);
            CHECK(report.at("cluster").at("stream_file_weight") == (assign == "work" ? 4.0 : 1.0));
            const nlohmann::json& per_rank = report.at("per_rank");
            REQUIRE(per_rank.size() == 2);
            CHECK(per_rank[1].at("first_file") == per_rank[0].at("files"));
            first_rank_files[assign] = per_rank[0].at("files").get<uint64_t>();
        }
        // The stream files' bytes count four times: the first rank takes
        // more of the list, the second fewer of the stream files.
        CHECK(first_rank_files["work"] > first_rank_files["size"]);
    }
}

TEST_CASE("a partition cluster build with one file much larger than the rest and a rank without files") {
    TempDir dir;
    // Sorted: the big file first; by size it goes to rank 1 of 3, the two
    // small ones to rank 2, and rank 0 (which joins) parses nothing.
    const GeneratedWarc big = generate_warc(41, 400, 1);
    const GeneratedWarc small = generate_warc(43, 10, 2);
    dir.write("in/a-big.warc.gz", big.file_contents[0]);
    dir.write("in/b-small.warc.gz", small.file_contents[0]);
    dir.write("in/c-small.warc.gz", small.file_contents[1]);
    const std::string single_ciff = single_machine_ciff(dir, dir / "in", true);
    const auto pipeline = write_pipeline(dir, cluster_pipeline({(dir / "in").string()}, dir / "unused"));
    const auto output = dir / "idx";
    const JobResult job = run_job(dir, 3, pipeline, output);
    INFO(job.err);
    REQUIRE(job.exit_code == 0);
    CHECK(ciff_bytes(output) == single_ciff);
    IndexReader index(output);
    const nlohmann::json& per_rank = index.report()->at("per_rank");
    REQUIRE(per_rank.size() == 3);
    CHECK(per_rank[0].at("files") == 0);
    CHECK(per_rank[0].at("documents") == 0);
    CHECK(per_rank[1].at("files") == 1);
    CHECK(per_rank[2].at("files") == 2);
    // The rank without files still indexes the collections it owns.
    CHECK(per_rank[0].at("postings_bytes_received").get<uint64_t>() > 0);
    CHECK(per_rank[0].at("terms_owned").get<uint64_t>() > 0);
    CheckOptions full;
    full.full = true;
    CHECK(check_index(output, full).ok());
}

// `file` (dictionary.bin, documents.bin) of a partition build joined
// `join`ly on `ranks` ranks, with the manifest's size and CRC-32 of it; the
// index checked in full.
struct JoinedFile {
    std::string bytes;
    uint64_t size_bytes = 0;
    uint32_t crc32 = 0;
    nlohmann::json per_rank;
};

JoinedFile file_joined(TempDir& dir, const std::filesystem::path& input, unsigned ranks, const std::string& join,
                       const std::string& file) {
    nlohmann::json pipeline = cluster_pipeline({input.string()}, dir / "unused");
    pipeline["cluster"]["join"] = join;
    const auto output = dir / ("joined-" + join + "-" + std::to_string(ranks));
    const JobResult job = run_job(dir, ranks, write_pipeline(dir, pipeline), output);
    INFO(job.err);
    REQUIRE(job.exit_code == 0);
    CheckOptions full;
    full.full = true;
    CHECK(check_index(output, full).ok());
    JoinedFile joined{.bytes = read_file(output / file)};
    IndexReader index(output);
    for (const auto& listed : index.manifest().files)
        if (listed.path == file) joined.size_bytes = listed.size_bytes, joined.crc32 = listed.crc32;
    CHECK(index.report()->at("cluster").at("join") == join);
    joined.per_rank = index.report()->at("per_rank");
    std::filesystem::remove_all(output);
    return joined;
}

JoinedFile dictionary_joined(TempDir& dir, const std::filesystem::path& input, unsigned ranks, const std::string& join) {
    return file_joined(dir, input, ranks, join, "dictionary.bin");
}

TEST_CASE("the parallel dictionary join writes the serial join's dictionary.bin byte for byte on 3 and 4 ranks") {
    TempDir dir;
    const auto input = mixed_collection(dir);
    for (const unsigned ranks : {3u, 4u}) {
        CAPTURE(ranks);
        const JoinedFile serial = dictionary_joined(dir, input, ranks, "serial");
        const JoinedFile parallel = dictionary_joined(dir, input, ranks, "parallel");
        CHECK(parallel.bytes.size() > 1000);
        CHECK(parallel.bytes == serial.bytes);
        CHECK(parallel.size_bytes == serial.size_bytes);
        CHECK(parallel.crc32 == serial.crc32);
        // Every rank joined a range of the terms, together all of them.
        uint64_t terms = 0, ranges_with_terms = 0;
        for (const auto& rank : parallel.per_rank) {
            terms += rank.at("join").at("terms").get<uint64_t>();
            ranges_with_terms += rank.at("join").at("terms").get<uint64_t>() > 0;
        }
        CHECK(terms == sum_of(parallel.per_rank, "terms_owned"));
        CHECK(ranges_with_terms == ranks);
        CHECK(parallel.per_rank[0].at("end_seconds").contains("dictionary_join_all_ranks"));
        CHECK(serial.per_rank[0].at("end_seconds").contains("dictionary_read"));
    }
}

TEST_CASE("the parallel dictionary join with ranges that hold no terms") {
    TempDir dir;
    // Two terms in all: at most two of the four ranges hold one.
    dir.write("in/a.txt", "alpha beta alpha");
    const JoinedFile serial = dictionary_joined(dir, dir / "in", 4, "serial");
    const JoinedFile parallel = dictionary_joined(dir, dir / "in", 4, "parallel");
    CHECK(parallel.bytes == serial.bytes);
    CHECK(parallel.crc32 == serial.crc32);
    uint64_t terms = 0, empty_ranges = 0;
    for (const auto& rank : parallel.per_rank) {
        terms += rank.at("join").at("terms").get<uint64_t>();
        empty_ranges += rank.at("join").at("terms").get<uint64_t>() == 0;
    }
    CHECK(terms == 2);
    CHECK(empty_ranges >= 2);
}

// The parallel documents join gives the serial join's documents.bin: every
// rank's documents at their places, a rank without documents writing none.
void check_documents_joins(TempDir& dir, const std::filesystem::path& input, unsigned ranks) {
    const JoinedFile serial = file_joined(dir, input, ranks, "serial", "documents.bin");
    const JoinedFile parallel = file_joined(dir, input, ranks, "parallel", "documents.bin");
    CHECK(parallel.bytes.size() > 100);
    CHECK(parallel.bytes == serial.bytes);
    CHECK(parallel.size_bytes == serial.size_bytes);
    CHECK(parallel.crc32 == serial.crc32);
    uint64_t documents = 0;
    for (const auto& rank : parallel.per_rank) {
        const nlohmann::json& joined = rank.at("documents_join");
        CHECK(joined.at("documents") == rank.at("documents"));
        CHECK((joined.at("record_bytes").get<uint64_t>() > 0) == (rank.at("documents").get<uint64_t>() > 0));
        documents += joined.at("documents").get<uint64_t>();
    }
    CHECK(documents == sum_of(parallel.per_rank, "documents"));
    CHECK(parallel.per_rank[0].at("end_seconds").contains("documents_join_all_ranks"));
    CHECK(!serial.per_rank[0].contains("documents_join"));
}

TEST_CASE("the parallel documents join writes the serial join's documents.bin byte for byte, ranks uneven or without documents") {
    TempDir dir;
    SUBCASE("uneven ranks of every format, 2 to 4 ranks") {
        const auto input = mixed_collection(dir);
        for (const unsigned ranks : {2u, 3u, 4u}) {
            CAPTURE(ranks);
            check_documents_joins(dir, input, ranks);
        }
    }
    SUBCASE("rank 0, which writes the header and footer, and another rank without files") {
        // Sorted: the big file first, to rank 1 of 4 by size, the two small
        // ones to one rank after it: rank 0 and one more parse nothing.
        const GeneratedWarc big = generate_warc(41, 400, 1);
        const GeneratedWarc small = generate_warc(43, 10, 2);
        dir.write("in/a-big.warc.gz", big.file_contents[0]);
        dir.write("in/b-small.warc.gz", small.file_contents[0]);
        dir.write("in/c-small.warc.gz", small.file_contents[1]);
        const JoinedFile parallel = file_joined(dir, dir / "in", 4, "parallel", "documents.bin");
        CHECK(parallel.per_rank[0].at("documents") == 0);
        int without_documents = 0;
        for (const auto& rank : parallel.per_rank) without_documents += rank.at("documents") == 0;
        CHECK(without_documents == 2);
        check_documents_joins(dir, dir / "in", 4);
    }
}

TEST_CASE("a rank that fails while writing its documents stops every rank, nothing published") {
    TempDir dir;
    const auto input = mixed_collection(dir);
    const auto pipeline = write_pipeline(dir, cluster_pipeline({input.string()}, dir / "unused"));
    const auto output = dir / "idx";
    const JobResult job =
        run_job(dir, 3, pipeline, output, "INVIDX_TEST_FAIL_JOIN_RANK=1 INVIDX_TEST_FAIL_JOIN=documents");
    INFO(job.err);
    CHECK(job.exit_code != 0);
    CHECK(job.exit_code != 124);  // not a hang
    CHECK(job.err.find("rank 1 of 3: joining the documents failed: failing while joining") != std::string::npos);
    CHECK(job.err.find("rank 2 of 3: stopped because the build failed elsewhere") != std::string::npos);
    CHECK(!std::filesystem::exists(output));
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        CHECK(entry.path().filename().string().rfind("idx.tmp-", 0) != 0);
}

TEST_CASE("a rank that fails while joining the dictionary stops every rank, nothing published") {
    TempDir dir;
    const auto input = mixed_collection(dir);
    const auto pipeline = write_pipeline(dir, cluster_pipeline({input.string()}, dir / "unused"));
    const auto output = dir / "idx";
    const JobResult job = run_job(dir, 3, pipeline, output, "INVIDX_TEST_FAIL_JOIN_RANK=2");
    INFO(job.err);
    CHECK(job.exit_code != 0);
    CHECK(job.exit_code != 124);  // not a hang
    CHECK(job.err.find("rank 2 of 3: joining the dictionary failed: failing while joining") != std::string::npos);
    CHECK(job.err.find("rank 1 of 3: stopped because the build failed elsewhere") != std::string::npos);
    CHECK(!std::filesystem::exists(output));
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        CHECK(entry.path().filename().string().rfind("idx.tmp-", 0) != 0);
}

TEST_CASE("bad input on one rank fails the cluster build naming the rank and the file, nothing published") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(37, 60, 3);
    write_parts(dir, "in", warc);
    // The last file of the sorted list, so rank 1 of 2 holds it: a damaged gzip.
    std::string damaged = warc.file_contents[2];
    damaged.resize(damaged.size() / 2);
    dir.write("in/part-03.warc.gz", damaged + "garbage");
    for (const std::string mode : {"partition", "files"}) {
        CAPTURE(mode);
        const auto output = dir / "idx";
        const auto pipeline = write_pipeline(dir, cluster_pipeline({(dir / "in").string()}, dir / "unused", mode));
        const JobResult job = run_job(dir, 2, pipeline, output);
        INFO(job.err);
        CHECK(job.exit_code != 0);
        CHECK(job.exit_code != 124);  // not a hang
        CHECK(job.err.find("rank 1 of 2") != std::string::npos);
        CHECK(job.err.find("part-03.warc.gz") != std::string::npos);
        CHECK(!std::filesystem::exists(output));
        // No temporary directory or part is left beside the output either.
        for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
            CHECK(entry.path().filename().string().rfind("idx.tmp-", 0) != 0);
    }
}
#endif

#if defined(INVIDX_MPIEXEC)
TEST_CASE("when one rank fails the others stop their shares early") {
    TempDir dir;
    // Rank 0's share: one big file that takes seconds to index; rank 1's:
    // a damaged gzip that fails soon.
    std::mt19937 random(5);
    std::string big;
    while (big.size() < (24u << 20)) {
        big += "{\"id\": \"d" + std::to_string(big.size()) + "\", \"contents\": \"";
        for (int w = 0; w < 200; ++w) big += "w" + std::to_string(random() % 50000) + " ";
        big += "\"}\n";
    }
    dir.write("in/a.jsonl", big);
    SUBCASE("files mode: rank 1's file is not gzip at all") {
        dir.write("in/b.jsonl.gz", "\x1f\x8b\x08\x00 not really gzip");
        const auto pipeline = write_pipeline(dir, cluster_pipeline({(dir / "in").string()}, dir / "unused", "files"));
        const JobResult job = run_job(dir, 2, pipeline, dir / "idx");
        INFO(job.err);
        CHECK(job.exit_code != 0);
        CHECK(job.err.find("rank 1 of 2 (input files 1-1)") != std::string::npos);
        CHECK(job.err.find("b.jsonl.gz") != std::string::npos);
        CHECK(job.err.find("rank 0 of 2: stopped early: rank 1 failed") != std::string::npos);
    }
    SUBCASE("partition mode: rank 1's gzip ends after the sampled start, while postings are being exchanged") {
        // 3 MB of JSON whose gzip is cut at 80%: the sampler's first 1 MB
        // reads well, the build fails on the cut member.
        std::string text;
        while (text.size() < (3u << 20)) {
            text += "{\"id\": \"b" + std::to_string(text.size()) + "\", \"contents\": \"";
            for (int w = 0; w < 100; ++w) text += "v" + std::to_string(random() % 50000) + " ";
            text += "\"}\n";
        }
        std::string damaged = gzip(text);
        damaged.resize(damaged.size() * 8 / 10);
        dir.write("in/b.jsonl.gz", damaged);
        const auto pipeline = write_pipeline(dir, cluster_pipeline({(dir / "in").string()}, dir / "unused"));
        const JobResult job = run_job(dir, 2, pipeline, dir / "idx");
        INFO(job.err);
        CHECK(job.exit_code != 0);
        CHECK(job.exit_code != 124);  // not a hang
        CHECK(job.err.find("rank 1 of 2 (input files 1-1): node 'decompress'") != std::string::npos);
        CHECK(job.err.find("b.jsonl.gz") != std::string::npos);
        CHECK(job.err.find("rank 0 of 2: stopped early: rank 1 failed") != std::string::npos);
    }
    CHECK(!std::filesystem::exists(dir / "idx"));
}

TEST_CASE("a cluster build indexes the 's' of \"it's\" as the term 's', never an empty term, as one machine does") {
    TempDir dir;
    std::string jsonl;
    const std::vector<std::string> texts = possessive_texts();
    for (size_t d = 0; d < texts.size(); ++d) {
        jsonl += nlohmann::json{{"id", "p" + std::to_string(d)}, {"contents", texts[d]}}.dump() + "\n";
    }
    dir.write("in/a.jsonl", jsonl);
    dir.write("in/b.jsonl", nlohmann::json{{"id", "q"}, {"contents", text_without_lone_s()}}.dump() + "\n");
    const std::string single_ciff = single_machine_ciff(dir, dir / "in", true);
    const auto pipeline = write_pipeline(dir, cluster_pipeline({(dir / "in").string()}, dir / "unused"));
    const JobResult job = run_job(dir, 2, pipeline, dir / "idx");
    INFO(job.err);
    REQUIRE(job.exit_code == 0);
    CHECK(ciff_bytes(dir / "idx") == single_ciff);
    IndexReader index(dir / "idx");
    for (uint64_t i = 0; i < index.term_count(); ++i) CHECK(!index.term(i).term.empty());
    const auto s = index.find_term("s");
    REQUIRE(s.has_value());
    CHECK(index.term(*s).df == texts.size());
}
#endif
