#include "pipelines/cluster/mpi/join_reports.hpp"

#include <fcntl.h>

#include "pipelines/cluster/positioned_file.hpp"

namespace invidx {

using nlohmann::json;

JoinReports gather_join_reports(Messages& messages, const std::string& error, const json& figures, uint64_t count,
                                const std::vector<ChecksumSpan>& spans) {
    ControlMessage mine = JoinReportMessage{.figures = figures, .count = count, .spans = spans};
    if (!error.empty()) mine = FailureMessage{.error = error};
    JoinReports joined;
    for (const ControlMessage& message : messages.gather(mine)) {  // empty but at rank 0
        if (const auto* failure = std::get_if<FailureMessage>(&message)) {
            joined.figures.push_back(json::object());  // the build fails: no report
            if (joined.failures.find(failure->error) == std::string::npos)
                joined.failures += (joined.failures.empty() ? "" : "; ") + failure->error;
            continue;
        }
        JoinReportMessage report = expect<JoinReportMessage>(message);
        joined.figures.push_back(std::move(report.figures));
        joined.count += report.count;
        joined.spans.insert(joined.spans.end(), report.spans.begin(), report.spans.end());
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
