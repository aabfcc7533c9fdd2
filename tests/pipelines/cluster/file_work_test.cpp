// What each input file weighs when a cluster build cuts the file list:
// shapes probed from the first bytes, one-stream gzip files weighed.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "invidx/config.hpp"
#include "invidx/error.hpp"
#include "pipelines/cluster/file_ranges.hpp"
#include "pipelines/cluster/file_work.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using invidx::testing::gzip;
using invidx::testing::TempDir;

namespace {

// Text that gzip cannot shrink much, so a member of it stays long.
std::string noise(size_t bytes, unsigned seed) {
    std::mt19937 random(seed);
    std::string text(bytes, '\0');
    for (char& c : text) c = static_cast<char>('a' + random() % 26);
    return text;
}

std::string members_file(unsigned seed) { return gzip(noise(2000, seed)) + gzip(noise(3000, seed + 1)) + gzip("end"); }

InputFile input(const std::string& path, uint64_t size) {
    return InputFile{.ordinal = 0, .path = path, .name = path, .format = "warc", .size_bytes = size};
}

PipelineConfig cluster_config(const std::string& extra_cluster_keys, const std::string& decompress_keys) {
    return PipelineConfig::from_json(nlohmann::json::parse(R"({"input": "in", "output": "out", "cluster": {)" + extra_cluster_keys +
                                              R"(}, "nodes": [{"kind": "read"}, {"kind": "decompress")" + decompress_keys +
                                              R"(}, {"kind": "frame"}, {"kind": "parse"}, {"kind": "regroup"},
                                                  {"kind": "index"}, {"kind": "compress"}, {"kind": "flush"}]})"));
}

}  // namespace

TEST_CASE("a file's first bytes say whether it holds gzip members or one gzip stream") {
    TempDir dir;
    CHECK(probe_file_shape(dir.write("members.warc.gz", members_file(1)).string()) == FileShape::gzip_members);
    // One member longer than the bytes read: a stream that runs on.
    CHECK(probe_file_shape(dir.write("stream.warc.gz", gzip(noise(400000, 2))).string()) == FileShape::gzip_stream);
    // A whole file of one member, shorter than the bytes read, is one stream too.
    CHECK(probe_file_shape(dir.write("small.warc.gz", gzip(noise(1000, 3))).string()) == FileShape::gzip_stream);
    CHECK(probe_file_shape(dir.write("plain.warc", noise(5000, 4)).string()) == FileShape::other);
    // A gzip file cut short, a damaged one, a missing one: nothing to say (the build reports them).
    const std::string whole = gzip(noise(5000, 5));
    CHECK(probe_file_shape(dir.write("cut.warc.gz", whole.substr(0, whole.size() / 2)).string()) == FileShape::other);
    CHECK(probe_file_shape(dir.write("bad.warc.gz", "\x1f\x8b\x08\x00 not really gzip").string()) == FileShape::other);
    CHECK(probe_file_shape((dir / "missing.warc.gz").string()) == FileShape::other);
    // Fewer bytes read than the first member: a file of members looks like a stream.
    CHECK(probe_file_shape(dir.write("members2.warc.gz", members_file(6)).string(), 1000) == FileShape::gzip_stream);
}

TEST_CASE("one-stream gzip files weigh their bytes times the stream weight, the rest their bytes") {
    TempDir dir;
    const std::string stream = dir.write("b.warc.gz", gzip(noise(400000, 7))).string();
    const std::string members = dir.write("a.warc.gz", members_file(8)).string();
    const std::vector<InputFile> files = {input(members, 1000), input(stream, 1000), input(stream, 2000),
                                          input(members, 0)};
    CHECK(file_work(files, 1.0) == std::vector<uint64_t>{1000, 1000, 2000, 1});
    CHECK(file_work(files, 1.3) == std::vector<uint64_t>{1000, 1300, 2600, 1});
    // Two files probed (0 and 2): file 1 takes file 0's shape, file 3 file 2's.
    CHECK(file_work(files, 2.0, 2) == std::vector<uint64_t>{1000, 1000, 4000, 2});

    // Cut among 2 ranks, 8 files of members then 8 one-stream files of equal
    // bytes: by bytes 8 and 8; weighed twice, the first rank takes two of
    // the stream files too (8 x 1,000 + 2 x 2,000 against 6 x 2,000).
    std::vector<InputFile> mixed;
    for (int i = 0; i < 16; ++i) mixed.push_back(input(i < 8 ? members : stream, 1000));
    const auto by_size = assign_file_ranges(assignment_weights(mixed, FileAssignment::by_size, 2.0), 2);
    CHECK(by_size[0].end == 8);
    const auto by_work = assign_file_ranges(assignment_weights(mixed, FileAssignment::by_work, 2.0), 2);
    CHECK(by_work[0].end == 10);
    CHECK(by_work[1].begin == 10);
    CHECK(by_work[1].end == 16);
    CHECK(assignment_weights(mixed, FileAssignment::by_count, 2.0) == std::vector<uint64_t>(16, 1));
}

TEST_CASE("the stream weight: set, or 1.3 where the GPUs inflate members, else 1") {
    const auto gpu0 = [] {
        GpuInventory inventory;
        inventory.built_with_cuda = true;
        inventory.devices.push_back(GpuDevice{.ordinal = 0});
        return inventory;
    };
    BuildPlan parsing_on_gpu;
    parsing_on_gpu.parsing = ParsePlan{};
    parsing_on_gpu.parsing->gpus.push_back(GpuParserPlan{.device = Device::gpu(0)});
    BuildPlan parsing_on_cpu;
    parsing_on_cpu.parsing = ParsePlan{};

    CHECK(stream_file_weight(cluster_config("", R"(, "gpus": "auto")"), parsing_on_gpu, gpu0) ==
          kStreamFileWeightWithGpuInflate);
    CHECK(stream_file_weight(cluster_config("", R"(, "gpus": [0])"), parsing_on_cpu, gpu0) ==
          kStreamFileWeightWithGpuInflate);
    // No GPU inflates: the CPU decodes both shapes at about the same cost.
    CHECK(stream_file_weight(cluster_config("", R"(, "gpus": "auto")"), parsing_on_cpu, gpu0) == 1.0);
    CHECK(stream_file_weight(cluster_config("", R"(, "gpus": "none")"), parsing_on_gpu, gpu0) == 1.0);
    CHECK(stream_file_weight(cluster_config("", ""), parsing_on_gpu, gpu0) == 1.0);
    CHECK(stream_file_weight(cluster_config("", R"(, "gpus": "auto", "split_gzip": false)"), parsing_on_gpu, gpu0) == 1.0);
    // Set: as set.
    CHECK(stream_file_weight(cluster_config(R"("stream_file_weight": 2.5)", R"(, "gpus": "none")"), parsing_on_cpu,
                             gpu0) == 2.5);
    CHECK(stream_file_weight(cluster_config(R"("stream_file_weight": "auto")", R"(, "gpus": "auto")"), parsing_on_gpu,
                             gpu0) == kStreamFileWeightWithGpuInflate);
}

TEST_CASE("cluster.assign_files is work by default, and stream_file_weight is range-checked") {
    CHECK(cluster_config("", "").cluster->assign_files == FileAssignment::by_work);
    CHECK(mode_name(FileAssignment::by_work) == "work");
    CHECK_FALSE(cluster_config("", "").cluster->stream_file_weight.has_value());
    for (const char* bad : {R"("stream_file_weight": 0)", R"("stream_file_weight": 11)", R"("stream_file_weight": "x")",
                            R"("stream_file_weight": true)",
                            // A weight where nothing is weighed: a setting without effect.
                            R"("assign_files": "size", "stream_file_weight": 2)",
                            R"("stream_file_weight": 2, "assign_files": "count")"}) {
        CAPTURE(bad);
        try {
            cluster_config(bad, "");
            FAIL("accepted");
        } catch (const ConfigError& error) {
            CHECK(std::string(error.what()).find("/cluster/stream_file_weight") != std::string::npos);
        }
    }
}
