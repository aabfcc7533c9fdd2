// invidx weight IDX [--bits N] [--device cpu|gpu[:N]] [--device-memory BYTES]: precomputes every posting's
// BM25 weight (CONTENT.md §10, from the index's own N, df, dl, avgdl and the
// k1, b its query layout records), quantizes it to an integer impact
// (store/impacts.hpp) and stores the impacts in the query layout
// (query.post version 2), so that `search --scoring impact` adds integers.
// The index is rewritten and replaced atomically, as merge does. With
// --device gpu the weights and impacts are computed on a GPU
// (query/device_weights.hpp) and stored by the same writer.
//
// invidx weight IDX --impacts tf: the impacts are the postings' own tfs
// instead (pre-weighted documents: store/tf_impacts.hpp; query.post
// version 3), with the fewest bits that hold the largest tf.
//
// invidx weight IDX --documents FILE.jsonl [--out FILE] [--dictionary xbw|hash]:
// weights documents that are not in the index against its dictionary and
// statistics (store/document_weights.hpp), one JSONL line out per document;
// the index is only read.
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>

#include "invidx/device.hpp"
#include "analysis/analyzer.hpp"
#include "invidx/error.hpp"
#include "nodes/frame/jsonl.hpp"
#include "query/device_weights.hpp"
#include "store/document_weights.hpp"
#include "store/impacts.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "store/tf_impacts.hpp"
#include "tools/invidx/command.hpp"
#include "tools/invidx/interrupts.hpp"

namespace invidx::cli {

namespace {

using nlohmann::json;

struct WeightFlags {
    unsigned bits = kDefaultImpactBits;
    bool tf_impacts = false;  // --impacts tf: the impacts are the tfs
    std::optional<std::string> documents;  // weight these instead of the index's postings
    std::optional<std::string> out;
    TermLookupKind dictionary = TermLookupKind::hash;
    std::optional<int> gpu;                    // --device gpu[:N]: this GPU; none: the CPU
    std::optional<uint64_t> device_memory;     // bytes per chunk on the GPU
};

// "gpu" is gpu:0; "gpu:N" names GPU N.
int gpu_ordinal(const std::string& device) {
    if (device == "gpu") return 0;
    const std::optional<Device> gpu = parse_gpu(device);
    if (!gpu) throw UsageError("--device must be cpu, gpu or gpu:N, not '" + device + "'");
    return gpu->ordinal;
}

WeightFlags weight_flags(const Invocation& invocation) {
    WeightFlags flags;
    flags.documents = invocation.flags.value("--documents");
    flags.out = invocation.flags.value("--out");
    if (auto dictionary = invocation.flags.value("--dictionary")) {
        try {
            flags.dictionary = term_lookup_kind(*dictionary);
        } catch (const Error& error) {
            throw UsageError("--dictionary: " + error.message());
        }
    }
    if (!flags.documents) {
        if (flags.out) throw UsageError("--out needs --documents");
        if (invocation.flags.has("--dictionary")) throw UsageError("--dictionary needs --documents");
    } else if (invocation.flags.has("--bits")) {
        throw UsageError("--bits does not apply to --documents: their weights are written unquantized");
    }
    if (auto impacts = invocation.flags.value("--impacts")) {
        if (*impacts == "tf") {
            flags.tf_impacts = true;
        } else if (*impacts != "bm25") {
            throw UsageError("--impacts must be bm25 or tf, not '" + *impacts + "'");
        }
    }
    if (flags.tf_impacts) {
        if (flags.documents) throw UsageError("--impacts tf does not apply to --documents");
        if (invocation.flags.has("--bits")) throw UsageError("--bits does not apply to --impacts tf: the bits are the fewest that hold the largest tf");
    }
    if (auto bits = invocation.flags.value("--bits")) {
        const size_t value = tools::positive_integer("--bits", *bits);
        if (value < kMinImpactBits || value > kMaxImpactBits) {
            throw UsageError("--bits must be " + std::to_string(kMinImpactBits) + " to " + std::to_string(kMaxImpactBits) +
                             ", not " + *bits);
        }
        flags.bits = static_cast<unsigned>(value);
    }
    if (auto device = invocation.flags.value("--device")) {
        if (*device == "gpu" || device->starts_with("gpu:")) {
            if (flags.documents) throw UsageError("--device does not apply to --documents: they are weighted on the CPU");
            flags.gpu = gpu_ordinal(*device);
        } else if (*device != "cpu") {
            throw UsageError("--device must be cpu, gpu or gpu:N, not '" + *device + "'");
        }
    }
    if (flags.tf_impacts && flags.gpu) throw UsageError("--device gpu does not apply to --impacts tf: nothing is computed");
    if (auto memory = invocation.flags.value("--device-memory")) {
        if (!flags.gpu) throw UsageError("--device-memory needs --device gpu");
        flags.device_memory = tools::positive_integer("--device-memory", *memory);
    }
    return flags;
}

void check_weight(const Invocation& invocation) { (void)weight_flags(invocation); }

std::string read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// One output line: {"id", "length", "weights": {term: weight}, "unknown": [terms]}.
json document_line(const std::string& name, uint32_t length, const DocumentWeights& weights) {
    json terms = json::object();
    for (const WeightedTerm& term : weights.known) terms[std::string(term.term)] = term.weight;
    json unknown = json::array();
    for (const DocumentTerm& term : weights.unknown) unknown.push_back(std::string(term.term));
    return {{"id", name}, {"length", length}, {"weights", std::move(terms)}, {"unknown", std::move(unknown)}};
}

int run_weight_documents(const Invocation& invocation, const WeightFlags& flags) {
    const std::string& dir = invocation.args[0];
    const IndexReader index(dir);
    // The query layout's k1, b where there is one (they made its block
    // maxima and impacts), else CONTENT.md §10's defaults.
    Bm25Parameters parameters;
    if (QueryPostings::present(index)) parameters = QueryPostings(index).parameters();
    const auto start = std::chrono::steady_clock::now();
    const DocumentWeigher weigher(index, flags.dictionary, parameters);
    Analyzer analyzer(index.analysis());

    std::ofstream file;
    if (flags.out) {
        file.open(*flags.out, std::ios::binary | std::ios::trunc);
        if (!file) throw Error("cannot write " + *flags.out);
    }
    std::ostream& out = flags.out ? static_cast<std::ostream&>(file) : std::cout;
    uint64_t documents = 0, known = 0, unknown = 0;
    DocumentTerms analyzed;
    std::vector<DocumentTerm> terms;
    DocumentWeights weights;
    auto weigh = [&](const FramedRecord& record) {
        analyzer.analyze(record.text, record.html, analyzed);
        terms.clear();
        for (const auto& term : analyzed.terms) terms.push_back({analyzed.term(term), term.tf});
        weigher.weigh(terms, analyzed.length, weights);
        out << document_line(record.name, analyzed.length, weights).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        ++documents;
        known += weights.known.size();
        unknown += weights.unknown.size();
    };
    JsonlFramer framer(*flags.documents, false);  // JSONL text is plain text (CONTENT.md §1-2)
    framer.feed(read_whole_file(*flags.documents), weigh);
    framer.finish(weigh);
    out.flush();
    if (flags.out && !file) throw Error("cannot write " + *flags.out);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const json summary = {{"index", dir},       {"documents", documents},       {"terms", known},
                          {"unknown_terms", unknown}, {"dictionary", term_lookup_name(flags.dictionary)},
                          {"k1", parameters.k1}, {"b", parameters.b},           {"seconds", seconds}};
    // The summary goes where the weights do not.
    std::ostream& report = flags.out ? std::cout : std::cerr;
    if (invocation.json) {
        report << summary.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
        report << "weighted " << documents << " documents against " << dir << ": " << known << " known terms, " << unknown
               << " unknown (not weighted), dictionary " << term_lookup_name(flags.dictionary) << ", k1 " << parameters.k1
               << ", b " << parameters.b << ", " << seconds << " s\n";
    }
    return kOk;
}

void print_weighted(const Invocation& invocation, const std::string& dir, double seconds, const DeviceImpacts* device) {
    const IndexReader index(dir);
    const QueryPostings layout(index);
    const std::string where = device ? device->device : "cpu";
    if (layout.impacts_are_tfs()) {
        if (invocation.json) {
            print_json({{"index", dir}, {"impacts", "tf"}, {"bits", layout.impact_bits()}, {"max_tf", layout.max_weight()},
                        {"codec", layout.codec().name}, {"k1", layout.parameters().k1}, {"b", layout.parameters().b},
                        {"postings", index.num_postings()}, {"seconds", seconds}});
        } else {
            std::cout << "stored " << index.num_postings() << " postings of " << dir << " with their tfs as "
                      << layout.impact_bits() << "-bit impacts, largest tf " << layout.max_weight() << ", codec "
                      << layout.codec().name << ", " << seconds << " s\n";
        }
        return;
    }
    if (invocation.json) {
        json summary = {{"index", dir},
                        {"impacts", "bm25"},
                        {"bits", layout.impact_bits()},
                        {"max_weight", layout.max_weight()},
                        {"codec", layout.codec().name},
                        {"k1", layout.parameters().k1},
                        {"b", layout.parameters().b},
                        {"postings", index.num_postings()},
                        {"device", where},
                        {"seconds", seconds}};
        if (device) {
            summary["chunks"] = device->chunks;
            summary["source"] = device->source;
            summary["device_memory"] = device->memory_budget;
        }
        print_json(summary);
    } else {
        std::cout << "weighted " << index.num_postings() << " postings of " << dir << ": " << layout.impact_bits()
                  << "-bit impacts, largest BM25 weight " << layout.max_weight() << " (k1 " << layout.parameters().k1
                  << ", b " << layout.parameters().b << "), codec " << layout.codec().name;
        if (device) {
            std::cout << ", on " << where << " from " << device->source << " in " << device->chunks << " chunk"
                      << (device->chunks == 1 ? "" : "s");
        }
        std::cout << ", " << seconds << " s\n";
    }
}

// --device gpu:N: the impacts computed on the GPU, stored by merge as the CPU's are.
int run_weight_on_gpu(const Invocation& invocation, const WeightFlags& flags) {
    const std::string& dir = invocation.args[0];
    const auto& interrupts = interrupt_watcher();  // before any thread starts
    {
        const IndexReader index(dir);
        if (!QueryPostings::present(index)) {
            throw UsageError("index " + dir + " has no query layout to store impacts in; make one first: invidx merge " + dir +
                             " --layout query");
        }
    }
    // Never a silent CPU run for a GPU request: no usable GPU is a usage error, before anything is written.
    try {
        (void)weight_device(*flags.gpu);
    } catch (const Error& error) {
        throw UsageError("--device " + error.message());
    }
    const auto start = std::chrono::steady_clock::now();
    DeviceImpacts device;
    try {
        device = weight_index_on_device(dir, {.device = *flags.gpu, .bits = flags.bits, .parameters = {},
                                              .memory_budget = flags.device_memory, .stop = interrupts.token()});
    } catch (const Interrupted&) {
        return report_interrupted("weight", dir);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    print_weighted(invocation, dir, seconds, &device);
    return kOk;
}

// --impacts tf: the tfs stored as impacts (store/tf_impacts.hpp); a query
// layout is made where there is none, else its codec and k1, b are kept.
int run_weight_tfs(const Invocation& invocation) {
    const std::string& dir = invocation.args[0];
    const auto& interrupts = interrupt_watcher();  // before any thread starts
    const auto start = std::chrono::steady_clock::now();
    try {
        (void)write_tf_impact_layout(dir, {.codec = {}, .parameters = {}, .stop = interrupts.token()});
    } catch (const Interrupted&) {
        return report_interrupted("weight", dir);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    print_weighted(invocation, dir, seconds, nullptr);
    return kOk;
}

int run_weight(const Invocation& invocation) {
    const WeightFlags flags = weight_flags(invocation);
    if (flags.documents) return run_weight_documents(invocation, flags);
    if (flags.tf_impacts) return run_weight_tfs(invocation);
    if (flags.gpu) return run_weight_on_gpu(invocation, flags);
    const std::string& dir = invocation.args[0];
    const auto& interrupts = interrupt_watcher();  // before any thread starts
    MergeOptions merge;
    merge.stop = interrupts.token();
    merge.at_step = test_stop_hook();
    {
        const IndexReader index(dir);
        if (!QueryPostings::present(index)) {
            throw UsageError("index " + dir + " has no query layout to store impacts in; make one first: invidx merge " + dir +
                             " --layout query");
        }
        // The layout's own codec and BM25 parameters: its block maxima and the weights agree.
        const QueryPostings layout(index);
        merge.query_codec = std::string(layout.codec().name);
        merge.query_parameters = layout.parameters();
        merge.impact_bits = flags.bits;
    }
    const auto start = std::chrono::steady_clock::now();
    try {
        merge_runs(dir, merge);
    } catch (const Interrupted&) {
        return report_interrupted("weight", dir);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    print_weighted(invocation, dir, seconds, nullptr);
    return kOk;
}

}  // namespace

Command weight_command() {
    return {.name = "weight",
            .synopsis = "invidx weight IDX [--bits N] [--device cpu|gpu[:N]] [--device-memory BYTES] | IDX --impacts tf | IDX --documents FILE.jsonl [--out FILE] [--dictionary xbw|hash]",
            .description = "Computes the BM25 weight of every posting (CONTENT.md §10, with the index's\n"
                           "N, df, document lengths, average length and the k1, b of its query layout),\n"
                           "quantizes it linearly to an integer impact in 1..2^N-1 (ceil(w / max w *\n"
                           "(2^N - 1)), so the largest weight gets 2^N-1 and every posting at least 1)\n"
                           "and stores the impacts and their block maxima in the query layout beside\n"
                           "the tfs (query.post version 2; docs/FORMAT.md). search --scoring impact then\n"
                           "ranks by their sums. Needs the query layout (merge --layout query); the index\n"
                           "is rewritten and replaced atomically (through a symbolic link IDX, the index\n"
                           "it points at; SIGINT or SIGTERM stops it, leaves the index as it was and exits\n"
                           "130 or 143). Terms are weighted on all cores, or\n"
                           "with --device gpu[:N] on that GPU: a bp128 query layout that fits\n"
                           "--device-memory (by default half the GPU's) goes over as its own bytes and\n"
                           "the device decodes and weighs it; otherwise the postings go over decoded, in\n"
                           "chunks of terms that fit, all quantized by the largest weight of all chunks\n"
                           "(CUB primitives). The same writer stores the impacts, so query.post is the\n"
                           "CPU's wherever the impacts are. No usable GPU is a usage error (exit 2),\n"
                           "never a CPU run.\n"
                           "\n"
                           "With --impacts tf, the impacts are the postings' own tfs instead, unquantized\n"
                           "(pre-weighted documents: a jsonvector term weight or a CIFF impact index's\n"
                           "tf), with the fewest bits N (1 to 16) that hold the largest tf; a tf above\n"
                           "65535 is an error naming its term. The layout records that its impacts are\n"
                           "tfs (query.post version 3); one is made where the index has none.\n"
                           "\n"
                           "With --documents, weights documents that are not in the index instead: each\n"
                           "JSONL line {\"id\", \"contents\"} (as invidx-run reads them) is analyzed with the\n"
                           "index's own settings, each term looked up in its dictionary (--dictionary:\n"
                           "the XBW trie or the static hash table) and weighted by BM25 with the index's\n"
                           "N, df, average length and k1, b and the document's own length. One line out\n"
                           "per document: {\"id\", \"length\", \"weights\": {term: weight}, \"unknown\": [...]};\n"
                           "terms the index does not know are listed, not weighted. The index is only read.",
            .example = "  $ invidx merge idx --layout query\n"
                       "  $ invidx weight idx --bits 8\n"
                       "  weighted 1843 postings of idx: 8-bit impacts, largest BM25 weight 7.1 (k1 0.9, b 0.4), codec bp128, 0.01 s\n"
                       "  $ invidx search idx zebras --scoring impact\n",
            .min_args = 1,
            .max_args = 1,
            .flags = {{.name = "--bits", .value_name = "N",
                       .help = "bits per impact, " + std::to_string(kMinImpactBits) + " to " + std::to_string(kMaxImpactBits) +
                               " (default " + std::to_string(kDefaultImpactBits) + ")",
                       .repeats = tools::Repeats::kLastWins},
                      {.name = "--device", .value_name = "cpu|gpu[:N]",
                       .help = "where the weights are computed (default cpu; gpu is gpu:0)",
                       .repeats = tools::Repeats::kLastWins},
                      {.name = "--device-memory", .value_name = "BYTES",
                       .help = "with --device gpu: device memory per chunk of terms (default half the GPU's)",
                       .repeats = tools::Repeats::kLastWins},
                      {.name = "--impacts", .value_name = "bm25|tf",
                       .help = "what the impacts are: quantized BM25 weights (default) or the tfs themselves",
                       .repeats = tools::Repeats::kLastWins},
                      {.name = "--documents", .value_name = "FILE.jsonl",
                       .help = "weight these documents against the index instead (one JSONL line out each)"},
                      {.name = "--out", .value_name = "FILE", .help = "with --documents: write the lines here (default stdout)"},
                      {.name = "--dictionary", .value_name = "xbw|hash",
                       .help = "with --documents: the term dictionary structure (default hash)",
                       .repeats = tools::Repeats::kLastWins}},
            .check = check_weight,
            .run = run_weight};
}

}  // namespace invidx::cli
