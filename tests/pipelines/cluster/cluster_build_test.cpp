// Cluster builds: invidx-run under mpirun gives the single machine's index
// whatever the number of ranks, and a rank's bad input fails the whole job.
// Without MPI in the build a "cluster" pipeline is a ConfigError; without
// mpirun the job tests are not compiled.
#include <doctest/doctest.h>

#include <cstdlib>
#include <sys/wait.h>

#include "support/collections.hpp"
#include "support/generated_warc.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

nlohmann::json cluster_pipeline(const std::vector<std::string>& inputs, const std::filesystem::path& output) {
    nlohmann::json pipeline = standard_pipeline(inputs, output, 2, 2);
    pipeline["cluster"] = {{"assign_files", "size"}};
    pipeline["positions"] = true;
    pipeline["memory"] = {{"batch_bytes", 4000}, {"run_bytes", 30000}, {"tokens", 4}};
    return pipeline;
}

}  // namespace

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
                  const std::filesystem::path& output) {
    const auto err = dir / "job.err";
    const std::string command =
        "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 '" +
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

}  // namespace

TEST_CASE("a cluster build on 1, 2, 3 and 4 ranks exports the single machine's CIFF, positions on") {
    TempDir dir;
    // Three files of unequal size: on 4 ranks one rank gets none.
    const GeneratedWarc warc = generate_warc(31, 150, 3);
    write_parts(dir, "in", warc);
    nlohmann::json single = cluster_pipeline({(dir / "in").string()}, dir / "single");
    single.erase("cluster");
    build_index(single);
    const std::string single_ciff = ciff_bytes(dir / "single");
    const auto pipeline = write_pipeline(dir, cluster_pipeline({(dir / "in").string()}, dir / "unused"));
    for (unsigned ranks = 1; ranks <= 4; ++ranks) {
        CAPTURE(ranks);
        const auto output = dir / ("cluster-" + std::to_string(ranks));
        const JobResult job = run_job(dir, ranks, pipeline, output);
        INFO(job.err);
        REQUIRE(job.exit_code == 0);
        IndexReader index(output);
        check_index_equals(index, warc.reference);
        CHECK(ciff_bytes(output) == single_ciff);
        const nlohmann::json& report = *index.report();
        CHECK(report.at("ranks") == ranks);
        REQUIRE(report.at("per_rank").size() == ranks);
        uint64_t documents = 0;
        unsigned without_files = 0;
        for (const auto& rank : report.at("per_rank")) {
            documents += rank.at("documents").get<uint64_t>();
            if (rank.at("files") == 0) ++without_files;
        }
        CHECK(documents == warc.reference.documents.size());
        CHECK(without_files == (ranks == 4 ? 1u : 0u));
        // The ranks' parts are not part of the index.
        CHECK(!std::filesystem::exists(output / "cluster-parts"));
    }
}

TEST_CASE("bad input on one rank fails the cluster build naming the rank and the file, nothing published") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(37, 60, 3);
    write_parts(dir, "in", warc);
    // The last file of the sorted list, so rank 1 of 2 holds it: a damaged gzip.
    std::string damaged = warc.file_contents[2];
    damaged.resize(damaged.size() / 2);
    dir.write("in/part-03.warc.gz", damaged + "garbage");
    const auto output = dir / "idx";
    const auto pipeline = write_pipeline(dir, cluster_pipeline({(dir / "in").string()}, dir / "unused"));
    const JobResult job = run_job(dir, 2, pipeline, output);
    INFO(job.err);
    CHECK(job.exit_code != 0);
    CHECK(job.err.find("rank 1 of 2") != std::string::npos);
    CHECK(job.err.find("part-03.warc.gz") != std::string::npos);
    CHECK(!std::filesystem::exists(output));
    // No temporary directory or part is left beside the output either.
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        CHECK(entry.path().filename().string().rfind("idx.tmp-", 0) != 0);
}
#endif

#if defined(INVIDX_MPIEXEC)
TEST_CASE("when one rank fails the others stop their shares early") {
    TempDir dir;
    // Rank 0's share: one big file that takes seconds to index; rank 1's:
    // a damaged gzip that fails at once.
    std::mt19937 random(5);
    std::string big;
    while (big.size() < (24u << 20)) {
        big += "{\"id\": \"d" + std::to_string(big.size()) + "\", \"contents\": \"";
        for (int w = 0; w < 200; ++w) big += "w" + std::to_string(random() % 50000) + " ";
        big += "\"}\n";
    }
    dir.write("in/a.jsonl", big);
    dir.write("in/b.jsonl.gz", "\x1f\x8b\x08\x00 not really gzip");
    const auto pipeline = write_pipeline(dir, cluster_pipeline({(dir / "in").string()}, dir / "unused"));
    const JobResult job = run_job(dir, 2, pipeline, dir / "idx");
    INFO(job.err);
    CHECK(job.exit_code != 0);
    CHECK(job.err.find("rank 1 of 2 (input files 1-1)") != std::string::npos);
    CHECK(job.err.find("b.jsonl.gz") != std::string::npos);
    CHECK(job.err.find("rank 0 of 2: stopped early: rank 1 failed") != std::string::npos);
    CHECK(!std::filesystem::exists(dir / "idx"));
}
#endif
