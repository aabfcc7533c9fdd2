// invidx check IDX [--full]: verifies an index the way Lucene's CheckIndex
// does, since opening one checks only what it reads. The checking itself is
// store/index_check; here only its progress and summary (text, or one JSON
// object with --format json).
#include <chrono>
#include <cstdio>
#include <string>

#include <unistd.h>

#include "store/index_check.hpp"
#include "tools/invidx/command.hpp"

namespace invidx::cli {

namespace {

// --format json: what was checked, and every problem found.
void print_check_json(const Invocation& invocation, const IndexCheckReport& report, bool full) {
    nlohmann::json errors = nlohmann::json::array();
    for (const auto& problem : report.problems) errors.push_back(problem);
    print_json({{"index", invocation.args[0]},
                {"ok", report.ok()},
                {"full", full},
                {"checked",
                 {{"files", report.files},
                  {"bytes", report.bytes},
                  {"blocks", report.blocks},
                  {"terms", report.terms},
                  {"documents", report.documents},
                  {"block_checksums", report.block_checksums},
                  {"opened", report.opened}}},
                {"errors", std::move(errors)},
                {"errors_not_listed", report.problems_not_listed}});
}

int run_check(const Invocation& invocation) {
    const bool bar = ::isatty(STDERR_FILENO) != 0;
    auto last = std::chrono::steady_clock::now();
    CheckOptions options{.full = invocation.flags.has("--full"), .progress = {}, .max_listed = 1000};
    options.progress = [&](const CheckProgress& p) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last < std::chrono::milliseconds(bar ? 200 : 5000) && p.done != p.total) return;
        last = now;
        std::fprintf(stderr, bar ? "\r%-12s %5.1f%%  %llu of %llu" : "%s %.1f%% (%llu of %llu)\n",
                     std::string(p.phase).c_str(), p.total ? 100.0 * double(p.done) / double(p.total) : 100.0,
                     static_cast<unsigned long long>(p.done), static_cast<unsigned long long>(p.total));
    };
    const auto report = check_index(invocation.args[0], options);
    if (bar) std::fprintf(stderr, "\r\033[K");
    if (invocation.json) {
        print_check_json(invocation, report, options.full);
        return report.ok() ? kOk : kFailure;
    }
    for (const auto& problem : report.problems) std::printf("damaged: %s\n", problem.c_str());
    if (report.problems_not_listed) {
        std::printf("damaged: ... and %llu more\n", static_cast<unsigned long long>(report.problems_not_listed));
    }
    std::printf("%s: %llu files, %.1f MB, %llu blocks, %llu terms, %llu documents%s\n", report.ok() ? "ok" : "DAMAGED",
                static_cast<unsigned long long>(report.files), double(report.bytes) / 1e6,
                static_cast<unsigned long long>(report.blocks), static_cast<unsigned long long>(report.terms),
                static_cast<unsigned long long>(report.documents),
                report.block_checksums ? "" : " (no checksums.bin: files checked whole)");
    return report.ok() ? kOk : kFailure;
}

}  // namespace

Command check_command() {
    return {.name = "check",
            .synopsis = "invidx check IDX [--full]",
            .description = "Verifies every block of every file against checksums.bin (opening an index\n"
                           "verifies only what it reads); --full also checks every whole-file CRC-32 and\n"
                           "decodes every term's postings and every document record. Lists every damaged\n"
                           "file, block, term and document; exit code 3 if any. Progress on stderr.\n"
                           "--format json prints one object: index, ok, full, checked (files, bytes,\n"
                           "blocks, terms, documents, block_checksums, opened), errors (a list of\n"
                           "messages) and errors_not_listed.",
            .example = "  $ invidx check idx --full\n"
                       "  ok: 7 files, 39.2 MB, 601 blocks, 181234 terms, 10000 documents\n",
            .min_args = 1,
            .max_args = 1,
            .flags = {{.name = "--full", .value_name = "", .help = "also whole-file CRC-32s, every term's postings and every document",
                       .repeats = tools::Repeats::kLastWins}},
            .run = run_check};
}

}  // namespace invidx::cli
