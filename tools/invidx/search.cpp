// invidx search IDX QUERY... | --queries FILE: BM25 top k, on the CPU, the
// GPU, or both through the scheduler (--device auto).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "analysis/analyzer.hpp"
#include "devices/gpu_devices.hpp"
#include "devices/gpu_unusable.hpp"
#include "invidx/device.hpp"
#include "query/query_cost_model.hpp"
#include "query/query_error.hpp"
#include "query/query_file.hpp"
#include "query/query_scheduler.hpp"
#include "query/searcher.hpp"
#include "query/searcher_processors.hpp"
#include "store/index_reader.hpp"
#include "tools/invidx/command.hpp"
#include "tools/invidx/output_escaping.hpp"
#include "invidx/available_cores.hpp"

namespace invidx::cli {

namespace {

using nlohmann::json;

struct SearchFlags {
    size_t k = 10;
    QueryMode mode = QueryMode::kOr;
    std::optional<std::string> queries_file;
    TopicField topic_field = TopicField::kTitle;
    std::string run_tag = "invidx";
    Device device = Device::cpu();  // --device cpu, gpu (gpu:0) or gpu:N
    bool automatic = false;         // --device auto: the scheduler's choice
    QueryScoring scoring = QueryScoring::kBm25;
    std::optional<double> k1;  // --k1, --b: BM25's parameters for these queries
    std::optional<double> b;
};

// The whole word as a finite number, or a UsageError naming the flag and its range.
double bm25_parameter(std::string_view flag, const std::string& text, double lowest, std::optional<double> highest) {
    double number = 0.0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    const bool in_range = number >= lowest && (!highest || number <= *highest) && std::isfinite(number);
    if (error != std::errc() || end != text.data() + text.size() || !in_range) {
        throw UsageError(std::string(flag) + (highest ? " must be a number from 0 to 1" : " must be a finite number >= 0") +
                         ", not '" + text + "'");
    }
    return number;
}

SearchFlags search_flags(const Invocation& invocation) {
    const tools::ParsedFlags& given = invocation.flags;
    SearchFlags flags;
    if (auto k = given.value("--k")) flags.k = tools::positive_integer("--k", *k);
    if (auto mode = given.value("--mode")) {
        if (*mode == "and") {
            flags.mode = QueryMode::kAnd;
        } else if (*mode == "or") {
            flags.mode = QueryMode::kOr;
        } else if (*mode == "and-or") {
            flags.mode = QueryMode::kAndOr;
        } else {
            throw UsageError("--mode must be and, or or and-or, not '" + *mode + "'");
        }
    }
    flags.queries_file = given.value("--queries");
    if (auto field = given.value("--topic-field")) {
        if (*field != "title" && *field != "description") throw UsageError("--topic-field must be title or description, not '" + *field + "'");
        flags.topic_field = *field == "title" ? TopicField::kTitle : TopicField::kDescription;
    }
    if (auto tag = given.value("--run-tag")) {
        if (tag->empty() || tag->find_first_of(" \t\n") != std::string::npos) throw UsageError("--run-tag must be one word, not '" + *tag + "'");
        flags.run_tag = *tag;
    }
    if (auto device = given.value("--device")) {
        flags.automatic = *device == "auto";
        const std::optional<Device> named = *device == "gpu" ? Device::gpu(0) : parse_device(*device);
        if (!named && !flags.automatic) throw UsageError("--device must be cpu, gpu, gpu:N or auto, not '" + *device + "'");
        if (named) flags.device = *named;
    }
    if (auto scoring = given.value("--scoring")) {
        if (*scoring != "bm25" && *scoring != "impact") throw UsageError("--scoring must be bm25 or impact, not '" + *scoring + "'");
        flags.scoring = *scoring == "impact" ? QueryScoring::kImpact : QueryScoring::kBm25;
    }
    if (auto k1 = given.value("--k1")) flags.k1 = bm25_parameter("--k1", *k1, 0.0, std::nullopt);
    if (auto b = given.value("--b")) flags.b = bm25_parameter("--b", *b, 0.0, 1.0);
    if ((flags.k1 || flags.b) && flags.scoring == QueryScoring::kImpact) {
        throw UsageError("--k1 and --b set BM25's parameters; --scoring impact ranks by the impacts fixed when invidx "
                         "weight ran: use one or the other");
    }
    return flags;
}

void check_search(const Invocation& invocation) { (void)search_flags(invocation); }

// The GPU the Searcher needs: the one --device names; for auto (BM25 only)
// GPU 0 when there is one; none otherwise, so a CPU search holds no GPU state.
std::optional<GpuOptions> gpu_to_search_on(const SearchFlags& flags) {
    if (flags.device.is_gpu()) {
        // Refused before any query, in the words every tool uses (devices/gpu_unusable.hpp).
        if (const auto reason = gpu_unusable_reason(flags.device.ordinal, list_gpus()))
            throw UsageError("--device " + flags.device.name() + ": " + *reason);
        return GpuOptions{.ordinal = flags.device.ordinal};
    }
    if (flags.automatic && flags.scoring == QueryScoring::kBm25 && !list_gpus().devices.empty()) return GpuOptions{};
    return std::nullopt;
}

// --device auto (docs/QUERY.md "Scheduling"): a queries file goes through the
// CPU/GPU scheduler, a lone query to the device the untrained cost model
// prefers; without a GPU (or CUDA) everything runs on the CPU.
std::vector<SearchAttempt> search_auto(const Searcher& searcher, std::span<const std::string> texts,
                                       const SearchOptions& options, bool from_file) {
    const bool gpu = searcher.has_gpu();
    if (!from_file) {
        Analyzer analyzer(searcher.index().analysis());
        const QueryCostModel untrained;
        SearchOptions chosen = options;
        chosen.device = preferred_device(untrained, query_features(searcher, texts[0], options, analyzer), gpu);
        return {{.result = searcher.search(texts[0], chosen, analyzer), .error = std::nullopt}};
    }
    const size_t threads = available_cores();
    // The GPU worker is a host thread too, mostly waiting on the device.
    const size_t cpu_workers = gpu ? std::max<size_t>(1, threads - 1) : threads;
    return search_scheduled_each(searcher, texts, options, cpu_workers, gpu);
}

std::vector<QueryLine> queries_to_run(const Invocation& invocation, const SearchFlags& flags) {
    const auto& args = invocation.args;
    if (flags.queries_file) {
        if (args.size() > 1) throw UsageError("give QUERY words or --queries FILE, not both");
        return read_query_file(*flags.queries_file, flags.topic_field);
    }
    if (args.size() < 2) throw UsageError("usage: " + std::string(invocation.command.synopsis));
    return {{.qid = "1", .text = join_words(args, 1), .line = 0}};
}

// The queries that could not run, each on stderr with its qid and line.
void report_failures(const std::vector<QueryLine>& queries, const std::vector<SearchAttempt>& attempts,
                     const std::string& file) {
    const std::string name = file == "-" ? "stdin" : file;
    for (size_t q = 0; q < queries.size(); ++q) {
        if (attempts[q].answered()) continue;
        std::cerr << "invidx: " << printable(name) << ": line " << queries[q].line << ": query "
                  << printable(queries[q].qid) << ": " << printable(*attempts[q].error) << "\n";
    }
}

void print_json_results(const IndexReader& index, const SearchFlags& flags, const std::vector<QueryLine>& queries,
                        const std::vector<SearchAttempt>& attempts) {
    json out = json::array();
    for (size_t q = 0; q < queries.size(); ++q) {
        json hits = json::array();
        size_t rank = 1;
        for (const auto& hit : attempts[q].result.hits) {
            hits.push_back({{"rank", rank++}, {"docid", hit.docid}, {"name", index.document(hit.docid).name}, {"score", hit.score}});
        }
        json entry = {{"qid", queries[q].qid}, {"results", std::move(hits)}};
        if (!attempts[q].answered()) {
            entry["error"] = *attempts[q].error;
        } else if (flags.mode == QueryMode::kAndOr) {
            // and-or: which evaluation answered (or: AND found fewer than k).
            entry["answered_as"] = attempts[q].result.answered_as == QueryMode::kAnd ? "and" : "or";
        }
        out.push_back(std::move(entry));
    }
    print_json(out);
}

std::string formatted_results(const IndexReader& index, const Invocation& invocation, const SearchFlags& flags,
                              const std::vector<QueryLine>& queries, const std::vector<SearchAttempt>& attempts) {
    std::string buffer;
    char number[64];
    for (size_t q = 0; q < queries.size(); ++q) {
        const auto& hits = attempts[q].result.hits;
        std::vector<std::string> names;
        names.reserve(hits.size());
        for (const auto& hit : hits) names.push_back(index.document(hit.docid).name);
        if (invocation.trec) {
            // TREC run format: qid Q0 docno rank score tag (trec_eval reads
            // it). qids are one word (query_file.hpp); names are escaped.
            for (size_t r = 0; r < hits.size(); ++r) {
                std::snprintf(number, sizeof number, " %zu %.6f ", r + 1, hits[r].score);
                buffer += queries[q].qid + " Q0 " + trec_field(names[r]) + number + flags.run_tag + "\n";
            }
            continue;
        }
        for (auto& name : names) name = printable(name);
        if (flags.queries_file) {
            buffer += (q > 0 ? "\n" : "") + ("query " + printable(queries[q].qid) + ": " + printable(queries[q].text) + "\n");
        }
        if (!attempts[q].answered()) {
            buffer += "error: " + printable(*attempts[q].error) + "\n";
            continue;
        }
        if (hits.empty()) buffer += "no results\n";
        const size_t rank_width = std::to_string(hits.size()).size();
        size_t name_width = 0;
        for (const auto& name : names) name_width = std::max(name_width, name.size());
        for (size_t r = 0; r < hits.size(); ++r) {
            std::string rank = std::to_string(r + 1);
            buffer += rank + std::string(rank_width - rank.size() + 2, ' ') + names[r] + std::string(name_width - names[r].size() + 2, ' ');
            std::snprintf(number, sizeof number, "%.6f  %u\n", hits[r].score, hits[r].docid);
            buffer += number;
        }
    }
    return buffer;
}

int run_search(const Invocation& invocation) {
    const SearchFlags flags = search_flags(invocation);
    const std::vector<QueryLine> queries = queries_to_run(invocation, flags);

    const IndexReader index(invocation.args[0]);
    const Searcher searcher(index, {}, gpu_to_search_on(flags));
    std::vector<std::string> texts;
    texts.reserve(queries.size());
    for (const auto& query : queries) texts.push_back(query.text);
    SearchOptions search_options{.k = flags.k, .mode = flags.mode, .scoring = flags.scoring, .k1 = flags.k1, .b = flags.b};
    std::vector<SearchAttempt> attempts;
    // auto schedules BM25 queries between the devices; impact queries run where --device says (auto: the CPU).
    if (flags.automatic && flags.scoring == QueryScoring::kBm25) {
        attempts = search_auto(searcher, texts, search_options, flags.queries_file.has_value());
    } else {
        search_options.device = flags.device.is_gpu() ? QueryDevice::kGpu : QueryDevice::kCpu;
        attempts = searcher.search_each(texts, search_options);
    }
    const bool all_answered = std::all_of(attempts.begin(), attempts.end(), [](const SearchAttempt& a) { return a.answered(); });
    // QUERY words: one query, so its error is the command's (exit 2).
    if (!flags.queries_file && !all_answered) throw QueryError(*attempts[0].error);

    if (invocation.json) {
        print_json_results(index, flags, queries, attempts);
    } else {
        std::cout << formatted_results(index, invocation, flags, queries, attempts);
    }
    std::cout.flush();
    if (all_answered) return kOk;
    report_failures(queries, attempts, *flags.queries_file);
    return kQueriesFailed;
}

std::vector<tools::FlagSpec> search_flag_specs() {
    const auto flag = [](std::string name, std::string value_name, std::string help) {
        return tools::FlagSpec{.name = std::move(name), .value_name = std::move(value_name), .help = std::move(help),
                               .repeats = tools::Repeats::kLastWins};
    };
    return {
        flag("--k", "N", "number of results per query (default 10)"),
        flag("--mode", "and|or|and-or",
             "AND: documents with every term; OR: with any (default or);\n"
             "and-or: AND, then OR when AND finds fewer than k"),
        flag("--queries", "FILE",
             "run the queries of FILE (- : standard input), one\n"
             "'qid<TAB>text' a line (blank lines skipped), one JSON\n"
             "{\"qid\": ..., \"vector\": {\"term\": weight, ...}} a line\n"
             "(weighted queries), or TREC topics (<top>...</top>, or Web\n"
             "Track <topic number=...>; plain words, no operators), in\n"
             "parallel; file order. A query that cannot run is named on\n"
             "stderr (qid, line), the others answered: exit 4"),
        flag("--topic-field", "title|description", "what a topic's query is (default title)"),
        flag("--run-tag", "TAG", "last column of --format trec (default invidx)"),
        flag("--scoring", "bm25|impact",
             "bm25: BM25 per posting (default); impact: sums of the\n"
             "quantized impacts that invidx weight stored (CPU or GPU)"),
        flag("--k1", "X", "BM25's k1, finite, >= 0 (default 0.9; not with --scoring impact)"),
        flag("--b", "Y", "BM25's b, from 0 to 1 (default 0.4; not with --scoring impact)"),
        flag("--device", "cpu|gpu[:N]|auto",
             "where queries run (default cpu; gpu: GPU 0; gpu:N: GPU N;\n"
             "same results, phrases excepted; auto: each query where it\n"
             "is estimated cheaper, a --queries file shared by CPU threads\n"
             "and the GPU; the CPU alone without a GPU)"),
    };
}

}  // namespace

Command search_command() {
    return {.name = "search",
            .synopsis = "invidx search IDX QUERY... [--k N] [--mode and|or|and-or] [--queries FILE [--topic-field F]] [--run-tag TAG] [--format text|json|trec] [--scoring bm25|impact] [--k1 X] [--b Y] [--device cpu|gpu[:N]|auto]",
            .description = "Ranks documents by BM25 (k1 0.9, b 0.4; CONTENT.md §10) for QUERY, analyzed the\n"
                           "way documents were (duplicate terms count once). OR ranks every document\n"
                           "with any term (MaxScore pruning, exact top k); AND only documents with every\n"
                           "term; and-or answers with AND when it finds k documents, else with OR.\n"
                           "On the query layout (merge --layout query) blocks are skipped and\n"
                           "pruned by their block maxima; the results are the same.\n"
                           "A double-quoted part is a phrase (\"new york\"): its words at consecutive\n"
                           "positions, a stop word leaving a one-token gap. Documents must hold every\n"
                           "phrase, in both modes; they are scored by BM25 over all the words. Phrases\n"
                           "need an index built with positions (invidx-run ... --set positions=true).\n"
                           "Lucene's classic syntax: +term must, -term and NOT term must not, a AND b\n"
                           "both required, OR optional, term^2.5 a boost; no parentheses; malformed\n"
                           "syntax is an error naming the character. A query starting with { is a\n"
                           "weighted vector, {\"term\": weight, ...}, terms verbatim (no analysis).\n"
                           "A query starting with - goes after --: invidx search idx -- '-dog fox'.\n"
                           "Ties go to the smaller docid. Text columns: rank, name, score, docid.\n"
                           "The qid of a command-line query is 1. --scoring impact ranks by the sum of\n"
                           "the quantized BM25 impacts that invidx weight stored (integer scores, exact\n"
                           "top k by them, on the CPU). In text output control bytes and bytes that are\n"
                           "not UTF-8 print as \\xHH; in trec output whitespace and control bytes of a\n"
                           "name print as %HH; in json bytes that are not UTF-8 become U+FFFD.\n"
                           "--k1 and --b rank by BM25 with other parameters, exactly, on every path.\n"
                           "See docs/QUERY.md.",
            .example = "  $ invidx search idx zebras apples --k 2\n"
                       "  1  7      1.758825  2\n"
                       "  2  doc-a  0.626986  0\n"
                       "  $ invidx search idx '\"new york\" times' --mode and\n"
                       "  $ invidx search idx --queries topics.tsv --format trec --run-tag bm25 --k 1000 > run.txt\n",
            .min_args = 1,
            .max_args = SIZE_MAX,
            .flags = search_flag_specs(),
            .trec_format = true,
            .check = check_search,
            .run = run_search};
}

}  // namespace invidx::cli
