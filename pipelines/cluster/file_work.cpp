#include "pipelines/cluster/file_work.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include <oneapi/tbb/parallel_for.h>

#include "nodes/decompress/inflate_gpus.hpp"

namespace invidx {
namespace {

bool gzip_magic(const unsigned char* bytes, size_t size) { return size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b; }

}  // namespace

FileShape probe_file_shape(const std::string& path, size_t probe_bytes) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) return FileShape::other;
    std::vector<unsigned char> bytes(probe_bytes);
    const size_t size = std::fread(bytes.data(), 1, bytes.size(), file.get());
    const bool whole_file = size < probe_bytes;
    if (!gzip_magic(bytes.data(), size)) return FileShape::other;
    // The first member inflated as far as the bytes read go: its text is
    // thrown away, only where it ends matters.
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return FileShape::other;
    z.next_in = bytes.data();
    z.avail_in = static_cast<uInt>(size);
    std::vector<unsigned char> text(256 * 1024);
    int status = Z_OK;
    while (status == Z_OK) {
        z.next_out = text.data();
        z.avail_out = static_cast<uInt>(text.size());
        status = inflate(&z, Z_NO_FLUSH);
        if (status == Z_OK && z.avail_in == 0 && z.avail_out != 0) status = Z_BUF_ERROR;  // the bytes ran out
    }
    const size_t rest = z.avail_in;
    inflateEnd(&z);
    if (status == Z_BUF_ERROR) return whole_file ? FileShape::other : FileShape::gzip_stream;  // truncated, or runs on
    if (status != Z_STREAM_END) return FileShape::other;
    const unsigned char* after = bytes.data() + (size - rest);
    if (gzip_magic(after, rest)) return FileShape::gzip_members;
    // One member, then the file's end (or padding): one stream. A member
    // that ends exactly at the bytes read says nothing of what follows.
    if (rest == 0 && !whole_file) return FileShape::other;
    return FileShape::gzip_stream;
}

double stream_file_weight(const PipelineConfig& config, const BuildPlan& plan,
                          const std::function<GpuInventory()>& inventory) {
    if (config.cluster && config.cluster->stream_file_weight) return *config.cluster->stream_file_weight;
    const std::vector<int> parse_gpus = plan.parsing ? plan.parsing->gpu_ordinals() : std::vector<int>{};
    for (const NodeSpec& spec : config.nodes) {
        if (spec.kind != "decompress") continue;
        const nlohmann::json gpus = spec.options.contains("gpus") ? spec.options.at("gpus") : nlohmann::json();
        const nlohmann::json split = spec.options.contains("split_gzip") ? spec.options.at("split_gzip") : nlohmann::json(true);
        const InflateGpuChoice choice =
            choose_inflate_gpus(gpus, spec.pointer + "/gpus", inventory, parse_gpus, !split.is_boolean() || split.get<bool>());
        if (!choice.ordinals.empty()) return kStreamFileWeightWithGpuInflate;
    }
    return 1.0;
}

std::vector<uint64_t> file_work(const std::vector<InputFile>& files, double stream_weight, size_t max_probed) {
    std::vector<uint64_t> work(files.size());
    for (size_t i = 0; i < files.size(); ++i) work[i] = std::max<uint64_t>(1, files[i].size_bytes);
    if (stream_weight == 1.0 || files.empty()) return work;
    // Probed files evenly spread, the first always among them.
    const size_t probes = std::clamp<size_t>(max_probed, 1, files.size());
    std::vector<size_t> probed(probes);
    for (size_t p = 0; p < probes; ++p) probed[p] = p * files.size() / probes;
    std::vector<FileShape> shapes(probes, FileShape::other);
    oneapi::tbb::parallel_for(size_t{0}, probes, [&](size_t p) { shapes[p] = probe_file_shape(files[probed[p]].path); });
    size_t p = 0;
    for (size_t i = 0; i < files.size(); ++i) {
        while (p + 1 < probes && probed[p + 1] <= i) ++p;
        if (shapes[p] == FileShape::gzip_stream)
            work[i] = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(static_cast<double>(work[i]) * stream_weight)));
    }
    return work;
}

}  // namespace invidx
