// invidx: look inside a built index, search it, export it, merge its runs.
//   invidx stats IDX | term IDX WORD | doc IDX ID-or-NAME | search IDX QUERY... |
//   export-ciff IDX FILE | merge IDX [--layout standard|query] [--codec NAME] | check IDX [--full]
// Exit codes: 0 ok, 1 not found, 2 usage error, 3 bad or damaged index / other error.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "devices/gpu_devices.hpp"
#include "invidx/error.hpp"
#include "analysis/analyzer.hpp"
#include "query/query_error.hpp"
#include "query/query_file.hpp"
#include "query/query_scheduler.hpp"
#include "query/searcher.hpp"
#include "store/ciff_export.hpp"
#include "store/codecs/registry.hpp"
#include "store/index_check.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"

namespace invidx::cli {
namespace {

using nlohmann::json;

enum ExitCode : int { kOk = 0, kNotFound = 1, kUsage = 2, kFailure = 3 };

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Asked for something this build cannot do yet: a message and exit code 2,
// without the usage hint.
struct Unsupported : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Something asked for is not in the index: a message and exit code 1.
struct NotFound : std::runtime_error {
    using std::runtime_error::runtime_error;
};

constexpr std::string_view kExitCodes =
    "Exit codes:\n"
    "  0  success\n"
    "  1  not found (term or document)\n"
    "  2  usage error (search: also a bad quote, or a phrase on an index without positions)\n"
    "  3  bad or damaged index, or any other error\n";

constexpr std::string_view kCommonOptions =
    "Options:\n"
    "  --format text|json   output format (default text; search also takes trec)\n"
    "  --help, -h           this help\n";

constexpr std::string_view kSearchOptions =
    "  --k N                number of results per query (default 10)\n"
    "  --mode and|or|and-or AND: documents with every term; OR: with any (default or);\n"
    "                       and-or: AND, then OR when AND finds fewer than k\n"
    "  --queries FILE       run the queries of FILE, one 'qid<TAB>text' a line\n"
    "                       (blank lines skipped), or TREC topics (<top>...</top>, or\n"
    "                       Web Track <topic number=...>), in parallel; file order\n"
    "  --topic-field title|description  what a topic's query is (default title)\n"
    "  --run-tag TAG        last column of --format trec (default invidx)\n"
    "  --device cpu|gpu|auto  where queries run (default cpu; gpu: GPU 0, same results,\n"
    "                       phrases excepted; auto: each query where it is estimated\n"
    "                       cheaper, a --queries file shared by CPU threads and the GPU;\n"
    "                       the CPU alone without a GPU)\n";

struct Command {
    std::string_view name;
    std::string_view synopsis;
    std::string_view description;
    std::string_view example;
    size_t min_args;
    size_t max_args;
};

constexpr Command kCommands[] = {
    {"stats", "invidx stats IDX", "Collection totals of the index in directory IDX.",
     "  $ invidx stats idx\n"
     "  documents       3\n  terms           5\n  postings        7\n  total_length    9\n"
     "  average_length  3\n  runs            2\n  positional      no\n  stemmer         porter\n"
     "  stopwords       english (33 words)\n",
     1, 1},
    {"term", "invidx term IDX WORD...",
     "Analyzes WORD the way documents were analyzed (the index's own stop words and\n"
     "stemmer), then prints each resulting term's df, cf and postings as docid:tf,\n"
     "with [positions] when the index is positional. A word that analyzes to no\n"
     "term (a stop word) is reported as such, with exit code 1.",
     "  $ invidx term idx Running\n"
     "  term: run\n  df: 2\n  cf: 3\n  postings: 0:1 2:2\n",
     2, SIZE_MAX},
    {"doc", "invidx doc IDX ID-or-NAME",
     "Prints one document: docid, name, length, input file and byte offset of the\n"
     "record there. A number is tried as a docid first, then as a document name.",
     "  $ invidx doc idx clueweb09-en0000-00-00000\n"
     "  docid: 0\n  name: clueweb09-en0000-00-00000\n  length: 412\n"
     "  file: data/en0000/00.warc.gz\n  source_offset: 0\n",
     2, 2},
    {"search", "invidx search IDX QUERY... [--k N] [--mode and|or|and-or] [--queries FILE [--topic-field F]] [--run-tag TAG] [--format text|json|trec] [--device cpu|gpu|auto]",
     "Ranks documents by BM25 (k1 0.9, b 0.4; SPEC section 7) for QUERY, analyzed the\n"
     "way documents were (duplicate terms count once). OR ranks every document\n"
     "with any term (MaxScore pruning, exact top k); AND only documents with every\n"
     "term; and-or answers with AND when it finds k documents, else with OR.\n"
     "On the query layout (merge --layout query) blocks are skipped and\n"
     "pruned by their block maxima; the results are the same.\n"
     "A double-quoted part is a phrase (\"new york\"): its words at consecutive\n"
     "positions, a stop word leaving a one-token gap. Documents must hold every\n"
     "phrase, in both modes; they are scored by BM25 over all the words. Phrases\n"
     "need an index built with positions (invidx-run ... --set positions=true).\n"
     "Ties go to the smaller docid. Text columns: rank, name, score, docid.\n"
     "The qid of a command-line query is 1. See docs/QUERY.md.",
     "  $ invidx search idx zebras apples --k 2\n"
     "  1  7      1.758825  2\n"
     "  2  doc-a  0.626986  0\n"
     "  $ invidx search idx '\"new york\" times' --mode and\n"
     "  $ invidx search idx --queries topics.tsv --format trec --run-tag bm25 --k 1000 > run.txt\n",
     1, SIZE_MAX},
    {"export-ciff", "invidx export-ciff IDX FILE [--description TEXT]",
     "Writes the index in CIFF (github.com/osirrc/ciff) to FILE; FILE '-' is\n"
     "standard output. --description sets the Header's description.",
     "  $ invidx export-ciff idx idx.ciff\n"
     "  wrote idx.ciff: 5 postings lists, 3 doc records\n",
     2, 2},
    {"merge", "invidx merge IDX [--layout standard|query] [--codec NAME]",
     "Combines each term's partial lists (one per run) into one list, rewriting the\n"
     "index with a single run file; the new index replaces the old one atomically.\n"
     "Content and CIFF export are unchanged. --layout query also writes query.post,\n"
     "the query-ready layout that search reads: one list per term in blocks of 128\n"
     "postings with per-block last docid and BM25 maximum, docids and tfs encoded\n"
     "apart by --codec (docs/FORMAT.md).",
     "  $ invidx merge idx\n"
     "  merged 4 runs into 1 in idx\n"
     "  $ invidx merge idx --layout query --codec pfor\n"
     "  merged 1 runs into 1 in idx; query layout with codec pfor\n",
     1, 1},
    {"check", "invidx check IDX [--full]",
     "Verifies every block of every file against checksums.bin (opening an index\n"
     "verifies only what it reads); --full also checks every whole-file CRC-32 and\n"
     "decodes every term's postings and every document record. Lists every damaged\n"
     "file, block, term and document; exit code 3 if any. Progress on stderr.",
     "  $ invidx check idx --full\n"
     "  ok: 7 files, 39.2 MB, 601 blocks, 181234 terms, 10000 documents\n",
     1, 1},
};

std::string general_help() {
    std::ostringstream out;
    out << "Usage: invidx COMMAND [options] ARGS\n\n"
           "Looks inside an index built by invidx-run, searches it, exports it, merges its runs.\n\n"
           "Commands:\n";
    for (const auto& command : kCommands) out << "  " << command.synopsis << "\n";
    out << "\n" << kCommonOptions << "  --version            print the version\n\n"
        << "Example:\n  $ invidx term idx zebras\n  term: zebra\n  df: 1\n  cf: 2\n  postings: 7:2\n\n"
        << "'invidx COMMAND --help' describes one command.\n\n"
        << kExitCodes;
    return out.str();
}

std::string command_help(const Command& command) {
    std::ostringstream out;
    out << "Usage: " << command.synopsis << "\n\n"
        << command.description << "\n\n"
        << kCommonOptions;
    if (command.name == "export-ciff") out << "  --description TEXT   the CIFF Header's description\n";
    if (command.name == "search") out << kSearchOptions;
    if (command.name == "merge") {
        out << "  --layout standard|query  query: also the query-ready layout (default standard)\n"
            << "  --codec NAME         its codec: " << codecs::codec_names() << " (default bp128)\n";
    }
    out << "\nExample:\n" << command.example << "\n" << kExitCodes;
    return out.str();
}

struct Options {
    const Command* command = nullptr;
    std::vector<std::string> args;
    bool json = false;
    bool trec = false;
    bool help = false;
    bool full = false;  // check
    std::optional<std::string> description;
    // merge
    std::string layout = "standard";
    std::optional<std::string> codec;
    // search
    size_t k = 10;
    QueryMode mode = QueryMode::kOr;
    std::optional<std::string> queries_file;
    std::string run_tag = "invidx";
    std::string device = "cpu";
    TopicField topic_field = TopicField::kTitle;
};

// The search flags; false if `word` is none of them.
template <typename ValueOf>
bool parse_search_option(const std::string& word, ValueOf& value_of, Options& options) {
    if (auto k = value_of("--k")) {
        uint64_t number = 0;
        const auto [end, error] = std::from_chars(k->data(), k->data() + k->size(), number);
        if (error != std::errc() || end != k->data() + k->size() || number == 0) {
            throw UsageError("--k must be a positive integer, not '" + *k + "'");
        }
        options.k = static_cast<size_t>(number);
    } else if (auto mode = value_of("--mode")) {
        if (*mode == "and") {
            options.mode = QueryMode::kAnd;
        } else if (*mode == "or") {
            options.mode = QueryMode::kOr;
        } else if (*mode == "and-or") {
            options.mode = QueryMode::kAndOr;
        } else {
            throw UsageError("--mode must be and, or or and-or, not '" + *mode + "'");
        }
    } else if (auto file = value_of("--queries")) {
        options.queries_file = *file;
    } else if (auto field = value_of("--topic-field")) {
        if (*field != "title" && *field != "description") throw UsageError("--topic-field must be title or description, not '" + *field + "'");
        options.topic_field = *field == "title" ? TopicField::kTitle : TopicField::kDescription;
    } else if (auto tag = value_of("--run-tag")) {
        if (tag->empty() || tag->find_first_of(" \t\n") != std::string::npos) throw UsageError("--run-tag must be one word, not '" + *tag + "'");
        options.run_tag = *tag;
    } else if (auto device = value_of("--device")) {
        if (*device != "cpu" && *device != "gpu" && *device != "auto") throw UsageError("--device must be cpu, gpu or auto, not '" + *device + "'");
        options.device = *device;
    } else {
        (void)word;
        return false;
    }
    return true;
}

Options parse(int argc, char** argv) {
    Options options;
    std::vector<std::string> words(argv + 1, argv + argc);
    if (words.empty()) throw UsageError("no command given");
    const std::string& name = words[0];
    if (name == "--help" || name == "-h" || name == "help") {
        options.help = true;
        return options;
    }
    for (const auto& command : kCommands) {
        if (command.name == name) options.command = &command;
    }
    if (options.command == nullptr) throw UsageError("unknown command '" + name + "'; known: stats, term, doc, search, export-ciff, merge, check");

    bool only_arguments = false;
    for (size_t i = 1; i < words.size(); ++i) {
        const std::string& word = words[i];
        // "--flag value" and "--flag=value" are the same.
        auto value_of = [&](std::string_view flag) -> std::optional<std::string> {
            if (word == flag) {
                if (i + 1 >= words.size()) throw UsageError(std::string(flag) + " needs a value");
                return words[++i];
            }
            if (word.starts_with(std::string(flag) + "=")) return word.substr(flag.size() + 1);
            return std::nullopt;
        };
        if (only_arguments || word == "-" || !word.starts_with("-")) {
            options.args.push_back(word);
        } else if (word == "--") {
            only_arguments = true;
        } else if (word == "--help" || word == "-h") {
            options.help = true;
        } else if (auto format = value_of("--format")) {
            const bool search = options.command->name == "search";
            if (*format != "text" && *format != "json" && !(search && *format == "trec")) {
                throw UsageError(std::string("--format must be text") + (search ? ", json or trec" : " or json") + ", not '" + *format + "'");
            }
            options.json = *format == "json";
            options.trec = *format == "trec";
        } else if (auto description = value_of("--description")) {
            if (options.command->name != "export-ciff") throw UsageError("--description is an option of export-ciff only");
            options.description = *description;
        } else if (auto layout = value_of("--layout")) {
            if (options.command->name != "merge") throw UsageError("--layout is an option of merge only");
            if (*layout != "standard" && *layout != "query") throw UsageError("--layout must be standard or query, not '" + *layout + "'");
            options.layout = *layout;
        } else if (auto codec = value_of("--codec")) {
            if (options.command->name != "merge") throw UsageError("--codec is an option of merge only");
            try {
                (void)codecs::find_codec(*codec);
            } catch (const Error& error) {
                throw UsageError("--codec: " + error.message());
            }
            options.codec = *codec;
        } else if (word == "--full" && options.command->name == "check") {
            options.full = true;
        } else if (options.command->name == "search" && parse_search_option(word, value_of, options)) {
        } else {
            throw UsageError("unknown option '" + word + "' for " + std::string(options.command->name));
        }
    }
    if (options.codec && options.layout != "query") throw UsageError("--codec needs --layout query");
    if (!options.help && (options.args.size() < options.command->min_args || options.args.size() > options.command->max_args)) {
        throw UsageError("usage: " + std::string(options.command->synopsis));
    }
    return options;
}

void print_json(const json& value) { std::cout << value.dump(2) << "\n"; }

int run_stats(const Options& options) {
    const IndexReader index(options.args[0]);
    const auto& analysis = index.analysis();
    json stats = {{"index", options.args[0]},
                  {"documents", index.num_documents()},
                  {"terms", index.num_terms()},
                  {"postings", index.num_postings()},
                  {"total_length", index.total_length()},
                  {"average_length", index.average_length()},
                  {"runs", index.manifest().runs.size()},
                  {"positional", index.positional()},
                  {"stemmer", analysis.stemmer},
                  {"stopwords", analysis.stopwords_name},
                  {"stopword_count", analysis.stopwords.size()},
                  {"input_files", index.files().size()}};
    if (options.json) {
        print_json(stats);
        return kOk;
    }
    std::printf("documents       %llu\n", static_cast<unsigned long long>(index.num_documents()));
    std::printf("terms           %llu\n", static_cast<unsigned long long>(index.num_terms()));
    std::printf("postings        %llu\n", static_cast<unsigned long long>(index.num_postings()));
    std::printf("total_length    %llu\n", static_cast<unsigned long long>(index.total_length()));
    std::printf("average_length  %g\n", index.average_length());
    std::printf("runs            %zu\n", index.manifest().runs.size());
    std::printf("positional      %s\n", index.positional() ? "yes" : "no");
    std::printf("stemmer         %s\n", analysis.stemmer.c_str());
    std::printf("stopwords       %s (%zu words)\n", analysis.stopwords_name.c_str(), analysis.stopwords.size());
    std::printf("input_files     %zu\n", index.files().size());
    return kOk;
}

int run_term(const Options& options) {
    const IndexReader index(options.args[0]);
    std::string query;
    for (size_t i = 1; i < options.args.size(); ++i) query += (i > 1 ? " " : "") + options.args[i];
    Analyzer analyzer(index.analysis());
    const auto terms = analyzer.analyze_query(query);

    json result = {{"query", query}, {"terms", json::array()}};
    int code = kOk;
    if (terms.empty()) {
        result["message"] = "analyzes to no term (a stop word, or no token characters)";
        code = kNotFound;
        if (!options.json) std::cout << "'" << query << "' analyzes to no term (a stop word, or no token characters)\n";
    }
    for (size_t t = 0; t < terms.size(); ++t) {
        const auto& term = terms[t];
        const auto found = index.find_term(term);
        if (!options.json && t > 0) std::cout << "\n";
        if (!found) {
            code = kNotFound;
            result["terms"].push_back({{"term", term}, {"found", false}});
            if (!options.json) std::cout << "term: " << term << "\nnot in the index\n";
            continue;
        }
        const auto info = index.term(*found);
        const auto list = index.postings(*found);
        if (options.json) {
            json postings = json::array();
            size_t position = 0;
            for (size_t k = 0; k < list.docids.size(); ++k) {
                json posting = {{"docid", list.docids[k]}, {"tf", list.tfs[k]}};
                if (index.positional()) {
                    posting["positions"] = std::vector<uint32_t>(list.positions.begin() + static_cast<std::ptrdiff_t>(position),
                                                                 list.positions.begin() + static_cast<std::ptrdiff_t>(position + list.tfs[k]));
                    position += list.tfs[k];
                }
                postings.push_back(std::move(posting));
            }
            result["terms"].push_back({{"term", term}, {"found", true}, {"df", info.df}, {"cf", info.cf}, {"postings", std::move(postings)}});
            continue;
        }
        std::cout << "term: " << term << "\ndf: " << info.df << "\ncf: " << info.cf << "\npostings:";
        size_t position = 0;
        for (size_t k = 0; k < list.docids.size(); ++k) {
            std::cout << ' ' << list.docids[k] << ':' << list.tfs[k];
            if (index.positional()) {
                std::cout << '[';
                for (uint32_t p = 0; p < list.tfs[k]; ++p) std::cout << (p ? "," : "") << list.positions[position++];
                std::cout << ']';
            }
        }
        std::cout << "\n";
    }
    if (options.json) print_json(result);
    return code;
}

int run_doc(const Options& options) {
    const IndexReader index(options.args[0]);
    const std::string& key = options.args[1];
    std::optional<uint32_t> docid;
    uint64_t number = 0;
    const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), number);
    if (error == std::errc() && end == key.data() + key.size() && number < index.num_documents()) {
        docid = static_cast<uint32_t>(number);
    } else {
        docid = index.find_document(key);
    }
    if (!docid) throw NotFound("no document with docid or name '" + key + "'");
    const auto doc = index.document(*docid);
    if (options.json) {
        print_json({{"docid", doc.docid},
                    {"name", doc.name},
                    {"length", doc.length},
                    {"file_ordinal", doc.file_ordinal},
                    {"file", doc.file_path},
                    {"source_offset", doc.source_offset}});
    } else {
        std::cout << "docid: " << doc.docid << "\nname: " << doc.name << "\nlength: " << doc.length
                  << "\nfile: " << doc.file_path << "\nsource_offset: " << doc.source_offset << "\n";
    }
    return kOk;
}

int run_export(const Options& options) {
    const IndexReader index(options.args[0]);
    const std::string& file = options.args[1];
    const std::string description = options.description.value_or(default_ciff_description(index));
    if (file == "-") {
        export_ciff(index, std::cout, description);
        return kOk;  // standard output holds the CIFF bytes, nothing else
    }
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot create the CIFF file", ErrorContext{.node = "", .file = file, .record = {}, .byte_offset = {}});
    export_ciff(index, out, description);
    out.close();
    if (!out) throw Error("cannot write the CIFF file", ErrorContext{.node = "", .file = file, .record = {}, .byte_offset = {}});
    if (options.json) {
        print_json({{"file", file}, {"postings_lists", index.num_terms()}, {"doc_records", index.num_documents()}, {"description", description}});
    } else {
        std::cout << "wrote " << file << ": " << index.num_terms() << " postings lists, " << index.num_documents() << " doc records\n";
    }
    return kOk;
}

int run_merge(const Options& options) {
    const std::string& dir = options.args[0];
    const size_t runs_before = IndexReader(dir).manifest().runs.size();
    MergeOptions merge;
    if (options.layout == "query") merge.query_codec = options.codec.value_or("bp128");
    merge_runs(dir, merge);
    const size_t runs_after = IndexReader(dir).manifest().runs.size();
    if (options.json) {
        json out = {{"index", dir}, {"runs_before", runs_before}, {"runs_after", runs_after}, {"layout", options.layout}};
        if (merge.query_codec) out["codec"] = *merge.query_codec;
        print_json(out);
    } else {
        std::cout << "merged " << runs_before << " runs into " << runs_after << " in " << dir;
        if (merge.query_codec) std::cout << "; query layout with codec " << *merge.query_codec;
        std::cout << "\n";
    }
    return kOk;
}

// --device auto (docs/QUERY.md "Scheduling"): a queries file goes through the
// CPU/GPU scheduler, a lone query to the device the untrained cost model
// prefers; without a GPU (or CUDA) everything runs on the CPU.
std::vector<SearchResult> search_auto(const Searcher& searcher, std::span<const std::string> texts,
                                      const SearchOptions& options, bool from_file) {
    const bool gpu = !list_gpus().devices.empty();
    if (!from_file) {
        Analyzer analyzer(searcher.index().analysis());
        const QueryCostModel untrained;
        SearchOptions chosen = options;
        chosen.gpu = preferred_device(untrained, query_features(searcher, texts[0], options, analyzer), gpu) == QueryDevice::kGpu;
        return {searcher.search(texts[0], chosen, analyzer)};
    }
    const size_t threads = std::max(1u, std::thread::hardware_concurrency());
    // The GPU worker is a host thread too, mostly waiting on the device.
    const size_t cpu_workers = gpu ? std::max<size_t>(1, threads - 1) : threads;
    return search_scheduled(searcher, texts, options, cpu_workers, gpu);
}

int run_search(const Options& options) {
    std::vector<QueryLine> queries;
    if (options.queries_file) {
        if (options.args.size() > 1) throw UsageError("give QUERY words or --queries FILE, not both");
        queries = read_query_file(*options.queries_file, options.topic_field);
    } else {
        if (options.args.size() < 2) throw UsageError("usage: " + std::string(options.command->synopsis));
        std::string text;
        for (size_t i = 1; i < options.args.size(); ++i) text += (i > 1 ? " " : "") + options.args[i];
        queries.push_back({"1", std::move(text)});
    }

    const IndexReader index(options.args[0]);
    const Searcher searcher(index);
    std::vector<std::string> texts;
    texts.reserve(queries.size());
    for (const auto& query : queries) texts.push_back(query.text);
    SearchOptions search_options{.k = options.k, .mode = options.mode, .exhaustive = false};
    std::vector<SearchResult> results;
    if (options.device == "auto") {
        results = search_auto(searcher, texts, search_options, options.queries_file.has_value());
    } else {
        search_options.gpu = options.device == "gpu";
        results = searcher.search_all(texts, search_options);
    }

    if (options.json) {
        json out = json::array();
        for (size_t q = 0; q < queries.size(); ++q) {
            json hits = json::array();
            size_t rank = 1;
            for (const auto& hit : results[q].hits) {
                hits.push_back({{"rank", rank++}, {"docid", hit.docid}, {"name", index.document(hit.docid).name}, {"score", hit.score}});
            }
            json entry = {{"qid", queries[q].qid}, {"results", std::move(hits)}};
            // and-or: which evaluation answered (or: AND found fewer than k).
            if (options.mode == QueryMode::kAndOr) entry["answered_as"] = results[q].answered_as == QueryMode::kAnd ? "and" : "or";
            out.push_back(std::move(entry));
        }
        print_json(out);
        return kOk;
    }
    std::string buffer;
    char number[64];
    for (size_t q = 0; q < queries.size(); ++q) {
        const auto& hits = results[q].hits;
        std::vector<std::string> names;
        names.reserve(hits.size());
        for (const auto& hit : hits) names.push_back(index.document(hit.docid).name);
        if (options.trec) {
            // TREC run format: qid Q0 docno rank score tag (trec_eval reads it).
            for (size_t r = 0; r < hits.size(); ++r) {
                std::snprintf(number, sizeof number, " %zu %.6f ", r + 1, hits[r].score);
                buffer += queries[q].qid + " Q0 " + names[r] + number + options.run_tag + "\n";
            }
            continue;
        }
        if (options.queries_file) buffer += (q > 0 ? "\n" : "") + ("query " + queries[q].qid + ": " + queries[q].text + "\n");
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
    std::cout << buffer;
    return kOk;
}

// The checking is store/index_check; here only its progress and summary.
int run_check(const Options& options) {
    const bool bar = ::isatty(STDERR_FILENO) != 0;
    auto last = std::chrono::steady_clock::now();
    CheckOptions check{.full = options.full, .progress = {}, .max_listed = 1000};
    check.progress = [&](const CheckProgress& p) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last < std::chrono::milliseconds(bar ? 200 : 5000) && p.done != p.total) return;
        last = now;
        std::fprintf(stderr, bar ? "\r%-12s %5.1f%%  %llu of %llu" : "%s %.1f%% (%llu of %llu)\n", std::string(p.phase).c_str(),
                     p.total ? 100.0 * double(p.done) / double(p.total) : 100.0, (unsigned long long)p.done, (unsigned long long)p.total);
    };
    const auto report = check_index(options.args[0], check);
    if (bar) std::fprintf(stderr, "\r\033[K");
    for (const auto& problem : report.problems) std::printf("damaged: %s\n", problem.c_str());
    if (report.problems_not_listed) std::printf("damaged: ... and %llu more\n", (unsigned long long)report.problems_not_listed);
    std::printf("%s: %llu files, %.1f MB, %llu blocks, %llu terms, %llu documents%s\n",
                report.ok() ? "ok" : "DAMAGED", (unsigned long long)report.files, double(report.bytes) / 1e6,
                (unsigned long long)report.blocks, (unsigned long long)report.terms, (unsigned long long)report.documents,
                report.block_checksums ? "" : " (no checksums.bin: files checked whole)");
    return report.ok() ? kOk : kFailure;
}

int run(const Options& options) {
    const auto name = options.command->name;
    if (name == "check") return run_check(options);
    if (name == "search") return run_search(options);
    if (name == "stats") return run_stats(options);
    if (name == "term") return run_term(options);
    if (name == "doc") return run_doc(options);
    if (name == "export-ciff") return run_export(options);
    return run_merge(options);
}

}  // namespace
}  // namespace invidx::cli

int main(int argc, char** argv) {
    using namespace invidx::cli;
    try {
        if (argc == 2 && std::string_view(argv[1]) == "--version") {
            std::cout << "invidx 0.1.0\n";
            return kOk;
        }
        const Options options = parse(argc, argv);
        if (options.help) {
            std::cout << (options.command ? command_help(*options.command) : general_help());
            return kOk;
        }
        return run(options);
    } catch (const UsageError& error) {
        std::cerr << "invidx: " << error.what() << "\n(run 'invidx --help' for usage)\n";
        return kUsage;
    } catch (const Unsupported& error) {
        std::cerr << "invidx: " << error.what() << "\n";
        return kUsage;
    } catch (const invidx::QueryError& error) {
        // The query must change (a quote) or the index be rebuilt (positions).
        std::cerr << "invidx: " << error.what() << "\n";
        return kUsage;
    } catch (const NotFound& error) {
        std::cerr << "invidx: " << error.what() << "\n";
        return kNotFound;
    } catch (const std::exception& error) {
        std::cerr << "invidx: " << error.what() << "\n";
        return kFailure;
    }
}
