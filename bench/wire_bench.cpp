// invidx_wire_bench: the postings wire of a partition-and-index cluster build
// (pipelines/cluster/postings_wire.hpp) alone, one thread, no MPI. The input
// is framed, parsed and regrouped in memory first, in batches of text as a
// rank makes them (memory.batch_bytes); then every batch is encoded for every
// other rank and every message decoded, and only that is timed.
//
//   invidx_wire_bench [--passes P] [--ranks R] [--batch-mb B] [--limit-mb L]
//                     [--positions off|on|both] INPUT...
//
// Rank 0 owns no collection and ranks 1..R-1 own collection c by c mod
// (default R = 4): every posting goes to another rank, the case the cluster
// model's encoding cost is quoted for. Prints, positions off and on: ns per
// posting and MB/s of document text for encoding (all destinations of a
// batch) and for decoding, the median of P passes (default 5) of this
// thread's CPU time, the parse time of the same text for scale, and the
// message bytes per GB of text. A digest of the decoded postings must equal
// the batches' own: the bench fails on a wire that loses or changes one.
// Under callgrind, encode_batches and decode_batch each run P + 1 times over
// every batch (pass 0 warms up and checks the digest): Ir per posting is
// their inclusive Ir / ((P + 1) x postings).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "bench_corpus.hpp"
#include "invidx/error.hpp"
#include "nodes/parse/parse_node.hpp"
#include "nodes/read/input_files.hpp"
#include "nodes/regroup/regroup.hpp"
#include "pipelines/cluster/postings_wire.hpp"

namespace {

using namespace invidx;

// CPU time of this thread: the machine may be shared.
double thread_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// Order-independent over postings (the wire may reorder a slice's postings),
// order-dependent over a posting's positions.
uint64_t digest(const RegroupedBatch& batch, bool positional) {
    uint64_t sum = 0;
    for (const TermOccurrence& o : batch.occurrences) {
        uint64_t h = 0xcbf29ce484222325ull ^ o.collection;
        for (uint32_t i = 0; i < o.term_length; ++i)
            h = (h ^ static_cast<unsigned char>(batch.terms[o.term_offset + i])) * 0x100000001b3ull;
        h = (h ^ (batch.first_docid + o.local_docid)) * 0x100000001b3ull;
        h = (h ^ o.tf) * 0x100000001b3ull;
        for (uint32_t k = 0; positional && k < o.tf; ++k)
            h = (h ^ batch.positions[o.positions_offset + k]) * 0x100000001b3ull;
        sum += h * 0x9E3779B97F4A7C15ull;
    }
    return sum;
}

struct Batches {
    std::vector<RegroupedBatch> batches;
    uint64_t text_bytes = 0;
    uint64_t postings = 0;
    uint64_t positions = 0;
    uint64_t slices = 0;
    double parse_seconds = 0;  // frame excluded: parse + regroup, one thread
};

// The corpus cut into batches of about `batch_bytes` of text, parsed and
// regrouped as a rank's parse and regroup nodes do.
Batches make_batches(const bench::Corpus& corpus, const AnalysisSettings& settings, uint64_t batch_bytes) {
    Batches out;
    Analyzer analyzer(settings);
    DocumentTerms scratch;
    ParsedSizeHint hint;
    uint64_t docid = 0;
    for (size_t r = 0; r < corpus.records.size();) {
        DocBatch batch;
        batch.sequence = out.batches.size();
        batch.first_docid = docid;
        while (r < corpus.records.size() && (batch.docs.empty() || batch.text_bytes < batch_bytes)) {
            const bench::Record& record = corpus.records[r++];
            DocRecord doc;
            doc.name = "doc-" + std::to_string(docid + batch.docs.size());
            doc.text_offset = static_cast<uint32_t>(batch.text.size());
            doc.text_length = static_cast<uint32_t>(record.length);
            doc.html = record.html;
            batch.text.append(corpus.text, record.offset, record.length);
            batch.docs.push_back(std::move(doc));
            batch.text_bytes += record.length;
        }
        batch.end_of_input = r == corpus.records.size();
        docid += batch.docs.size();
        const double start = thread_seconds();
        RegroupedBatch regrouped = regroup(parse_batch(batch, analyzer, scratch, hint));
        out.parse_seconds += thread_seconds() - start;
        out.text_bytes += regrouped.text_bytes;
        out.postings += regrouped.occurrences.size();
        out.positions += regrouped.positions.size();
        out.slices += regrouped.slices.size();
        out.batches.push_back(std::move(regrouped));
    }
    return out;
}

struct Row {
    const char* positions = "";
    uint64_t postings = 0;
    double text_mb = 0;
    double encode_s = 0;
    double decode_s = 0;
    double parse_s = 0;
    double bytes_per_gb = 0;
};

Row measure(const Batches& in, const std::vector<uint32_t>& owner_rank, uint32_t ranks, bool positional,
            unsigned passes) {
    uint64_t expected = 0;
    for (const auto& batch : in.batches) expected += digest(batch, positional);

    std::vector<std::vector<std::string>> messages(in.batches.size());
    std::vector<double> encode, decode;
    uint64_t message_bytes = 0;
    for (unsigned p = 0; p <= passes; ++p) {  // pass 0 warms up
        for (auto& per_batch : messages) per_batch.assign(ranks, std::string());
        double start = thread_seconds();
        for (size_t b = 0; b < in.batches.size(); ++b)
            postings_wire::encode_batches(in.batches[b], owner_rank, 0, positional, messages[b]);
        const double encoded = thread_seconds() - start;

        uint64_t got = 0, sum = 0;
        start = thread_seconds();
        for (const auto& per_batch : messages) {
            for (uint32_t d = 1; d < ranks; ++d) {
                const RegroupedBatch back = postings_wire::decode_batch(per_batch[d], positional, 0);
                got += back.occurrences.size();  // keeps the decode from being optimized away
                if (p == 0) sum += digest(back, positional);
            }
        }
        const double decoded = thread_seconds() - start;
        ensure(got == in.postings, "decoded " + std::to_string(got) + " postings of " + std::to_string(in.postings));
        if (p == 0) {
            ensure(sum == expected, "the decoded postings differ from the batches' own");
            continue;
        }
        message_bytes = 0;
        for (const auto& per_batch : messages)
            for (const auto& message : per_batch) message_bytes += message.size();
        encode.push_back(encoded);
        decode.push_back(decoded);
    }
    Row row;
    row.positions = positional ? "on" : "off";
    row.postings = in.postings;
    row.text_mb = static_cast<double>(in.text_bytes) / 1e6;
    row.encode_s = median(encode);
    row.decode_s = median(decode);
    row.parse_s = in.parse_seconds;
    row.bytes_per_gb = static_cast<double>(message_bytes) / (static_cast<double>(in.text_bytes) / 1e9);
    return row;
}

[[noreturn]] void usage(const char* why) {
    if (why) std::cerr << "invidx_wire_bench: " << why << "\n";
    std::cerr << "usage: invidx_wire_bench [--passes P] [--ranks R] [--batch-mb B] [--limit-mb L] "
                 "[--positions off|on|both] INPUT...\n";
    std::exit(2);
}

double number(int argc, char** argv, int& i, double least) {
    if (i + 1 >= argc) usage("missing value");
    const double value = std::strtod(argv[++i], nullptr);
    if (!(value >= least)) usage("value out of range");
    return value;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned passes = 5;
    uint32_t ranks = 4;
    double batch_mb = 2.0 * 1024 * 1024 / 1e6;  // memory.batch_bytes' default, 2 MiB
    double limit_mb = 0;                         // 0: all the input
    std::string positions = "both";
    std::vector<InputSpec> specs;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--passes") passes = static_cast<unsigned>(number(argc, argv, i, 1));
        else if (arg == "--ranks") ranks = static_cast<uint32_t>(number(argc, argv, i, 2));
        else if (arg == "--batch-mb") batch_mb = number(argc, argv, i, 0.001);
        else if (arg == "--limit-mb") limit_mb = number(argc, argv, i, 0);
        else if (arg == "--positions") {
            if (i + 1 >= argc) usage("missing value");
            positions = argv[++i];
            if (positions != "off" && positions != "on" && positions != "both") usage("--positions off|on|both");
        } else if (arg == "-h" || arg == "--help") usage(nullptr);
        else specs.push_back(InputSpec{arg, "auto"});
    }
    if (specs.empty()) usage("no input");
    try {
        const auto files = expand_inputs(specs, [](std::string_view path) { return detect_format(path); });
        bench::Corpus corpus = bench::load(files, AnalysisSettings::defaults());
        if (limit_mb > 0) {
            size_t keep = 0;
            while (keep < corpus.records.size() && corpus.records[keep].offset < limit_mb * 1e6) ++keep;
            corpus.records.resize(keep);
        }
        std::vector<uint32_t> owner_rank(kCollections);
        for (uint32_t c = 0; c < kCollections; ++c) owner_rank[c] = 1 + c % (ranks - 1);
        std::printf("%zu records; %u ranks, every posting to ranks 1..%u; batches of %.2f MB; median of %u passes, "
                    "1 thread\n",
                    corpus.records.size(), ranks, ranks - 1, batch_mb, passes);
        std::printf("%-9s %6s %10s %10s %10s %10s %10s %10s %12s %12s\n", "positions", "MB", "postings",
                    "enc ns/p", "dec ns/p", "enc MB/s", "dec MB/s", "parse MB/s", "enc/parse", "wire MB/GB");
        for (const bool positional : {false, true}) {
            if (positions == (positional ? "off" : "on")) continue;
            AnalysisSettings settings = AnalysisSettings::defaults();
            settings.positions = positional;
            const Batches batches = make_batches(corpus, settings, static_cast<uint64_t>(batch_mb * 1e6));
            const Row row = measure(batches, owner_rank, ranks, positional, passes);
            std::fprintf(stderr, "positions %s: %zu batches, %.0f slices a batch, %.1f postings a slice, %.2f positions a posting\n",
                         row.positions, batches.batches.size(),
                         static_cast<double>(batches.slices) / static_cast<double>(batches.batches.size()),
                         static_cast<double>(batches.postings) / static_cast<double>(batches.slices),
                         static_cast<double>(batches.positions) / static_cast<double>(batches.postings));
            const double postings = static_cast<double>(row.postings);
            std::printf("%-9s %6.1f %10.0f %10.2f %10.2f %10.1f %10.1f %10.1f %12.3f %12.1f\n", row.positions,
                        row.text_mb, postings, row.encode_s * 1e9 / postings, row.decode_s * 1e9 / postings,
                        row.text_mb / row.encode_s, row.text_mb / row.decode_s, row.text_mb / row.parse_s,
                        row.encode_s / row.parse_s, row.bytes_per_gb / 1e6);
        }
    } catch (const std::exception& e) {
        std::cerr << "invidx_wire_bench: " << e.what() << "\n";
        return 1;
    }
}
