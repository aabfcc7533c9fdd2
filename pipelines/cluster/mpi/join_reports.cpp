#include "pipelines/cluster/mpi/join_reports.hpp"

#include <fcntl.h>

#include "pipelines/cluster/positioned_file.hpp"

namespace invidx {

using nlohmann::json;

std::string dump_report(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

JoinReports gather_join_reports(Messages& messages, const std::string& error, const json& figures, uint64_t count,
                                const std::vector<ChecksumSpan>& spans) {
    json report = {{"error", error}, {"figures", figures}, {"count", count}, {"spans", json::array()}};
    for (const auto& span : spans) report["spans"].push_back({span.offset, span.length, span.crc});
    JoinReports joined;
    for (const auto& text : messages.gather(dump_report(report))) {  // empty but at rank 0
        const json r = json::parse(text);
        joined.figures.push_back(r.at("figures"));
        joined.count += r.at("count").get<uint64_t>();
        const std::string e = r.at("error").get<std::string>();
        if (!e.empty() && joined.failures.find(e) == std::string::npos)
            joined.failures += (joined.failures.empty() ? "" : "; ") + e;
        for (const auto& s : r.at("spans"))
            joined.spans.push_back({s[0].get<uint64_t>(), s[1].get<uint64_t>(), s[2].get<uint32_t>()});
    }
    return joined;
}

FileChecksums seal_with_crc32_trailer(const std::string& path, uint64_t size_bytes, std::vector<ChecksumSpan> spans) {
    const FileChecksums content = assemble_checksums(spans, size_bytes - 4);
    std::string trailer(4, '\0');
    for (int i = 0; i < 4; ++i) trailer[static_cast<size_t>(i)] = static_cast<char>(content.crc32 >> (8 * i));
    PositionedFile file(path, O_WRONLY);
    file.write_at(size_bytes - 4, trailer);
    file.close();  // synced when the index writer publishes what it adopted
    add_checksum_spans(spans, size_bytes - 4, trailer);
    return assemble_checksums(std::move(spans), size_bytes);
}

}  // namespace invidx
