// invidx import-ciff FILE.ciff OUT [--analysis auto|default|none|verbatim] [--impacts tf]
// [--run-bytes N]: an index built from a CIFF file (store/ciff_import.hpp),
// published at OUT as every writer publishes; with --impacts tf it is then
// given the query layout whose impacts are the CIFF's tfs (store/tf_impacts.hpp),
// as `invidx weight OUT --impacts tf` would.
#include <iostream>
#include <optional>
#include <string>

#include "analysis/collection.hpp"
#include "invidx/error.hpp"
#include "store/ciff_import.hpp"
#include "store/tf_impacts.hpp"
#include "tools/invidx/command.hpp"
#include "tools/invidx/interrupts.hpp"

namespace invidx::cli {

namespace {

using nlohmann::json;

struct ImportFlags {
    std::optional<AnalysisSettings> analysis;  // none: auto
    std::string analysis_name = "auto";
    bool tf_impacts = false;
    uint64_t run_bytes = CiffImportOptions{}.run_bytes;
};

ImportFlags import_flags(const Invocation& invocation) {
    ImportFlags flags;
    if (auto analysis = invocation.flags.value("--analysis")) {
        try {
            flags.analysis = ciff_import_analysis(*analysis);
        } catch (const Error& error) {
            throw UsageError("--analysis: " + error.message());
        }
        flags.analysis_name = *analysis;
    }
    if (auto impacts = invocation.flags.value("--impacts")) {
        if (*impacts != "tf") throw UsageError("--impacts must be tf, not '" + *impacts + "'");
        flags.tf_impacts = true;
    }
    if (auto bytes = invocation.flags.value("--run-bytes")) flags.run_bytes = tools::positive_integer("--run-bytes", *bytes);
    return flags;
}

void check_import(const Invocation& invocation) { (void)import_flags(invocation); }

std::string analysis_words(const AnalysisSettings& analysis) {
    if (analysis.pre_weighted) return "verbatim query words";
    return "stemmer " + analysis.stemmer + ", stopwords " + analysis.stopwords_name;
}

int run_import(const Invocation& invocation) {
    const ImportFlags flags = import_flags(invocation);
    const std::string& file = invocation.args[0];
    const std::string& out = invocation.args[1];
    const auto& interrupts = interrupt_watcher();  // before any thread starts
    CiffImportOptions options;
    options.analysis = flags.analysis;
    options.term_collection = [](std::string_view term) { return collection_of(term); };
    options.run_bytes = flags.run_bytes;
    options.stop = interrupts.token();
    if (flags.tf_impacts) options.max_tf = kMaxTfImpact;  // refused before anything is published
    CiffImportSummary summary;
    std::optional<unsigned> impact_bits;
    try {
        summary = import_ciff(file, out, options);
        if (flags.tf_impacts) {
            TfImpactLayoutOptions layout;
            layout.stop = interrupts.token();
            impact_bits = write_tf_impact_layout(out, layout);
        }
    } catch (const Interrupted&) {
        return report_interrupted("import-ciff", out);
    }
    const auto& canonical = summary.canonicality;
    if (invocation.json) {
        json report = {{"file", file},
                       {"index", out},
                       {"postings_lists", summary.terms},
                       {"doc_records", summary.documents},
                       {"postings", summary.postings},
                       {"runs", summary.runs},
                       {"analysis", summary.analysis_source},
                       {"description", summary.header.description},
                       {"canonical", canonical.canonical}};
        if (!canonical.canonical) report["not_canonical"] = {{"reason", canonical.reason}, {"byte", canonical.offset}};
        if (impact_bits) report["impact_bits"] = *impact_bits;
        print_json(report);
        return kOk;
    }
    std::cout << "imported " << file << " into " << out << ": " << summary.terms << " postings lists, " << summary.documents
              << " doc records, " << summary.postings << " postings; analysis " << analysis_words(summary.analysis) << " ("
              << summary.analysis_source << ")\n";
    if (canonical.canonical) {
        std::cout << "canonical: export-ciff gives the file back byte for byte\n";
    } else {
        std::cout << "not canonical (byte " << canonical.offset << ": " << canonical.reason
                  << "): export-ciff writes the same content in invidx's order\n";
    }
    if (impact_bits) std::cout << "query layout with the tfs as " << *impact_bits << "-bit impacts (search --scoring impact)\n";
    return kOk;
}

}  // namespace

Command import_ciff_command() {
    return {.name = "import-ciff",
            .synopsis = "invidx import-ciff FILE.ciff OUT [--analysis auto|default|none|verbatim] [--impacts tf]",
            .description =
                "Builds an index at OUT from a CIFF file (github.com/osirrc/ciff) as Anserini, PISA or\n"
                "invidx export-ciff write them: its postings lists become the terms, its DocRecords the\n"
                "documents with their names and lengths (BM25 uses those lengths). The file is read\n"
                "once through a 1 MiB buffer; postings are held up to --run-bytes before a run file is\n"
                "written (docs/FORMAT.md, \"CIFF import\", for the memory bound). A bad file is an\n"
                "error naming the byte offset, and nothing is published: OUT is replaced atomically,\n"
                "like merge, or left as it was. A canonical file (what export-ciff writes) comes back\n"
                "byte for byte from `invidx export-ciff OUT`.\n"
                "--analysis says how search and term analyze query words (a CIFF holds terms, not how\n"
                "they were made): auto (default) takes an invidx export's description, else default;\n"
                "default is Porter and the English stop words (also Anserini's default); none only\n"
                "lowercases; verbatim takes whitespace-separated words as terms (learned sparse\n"
                "vocabularies such as '##ing'). --impacts tf then writes the query layout whose impacts\n"
                "are the tfs (as `invidx weight OUT --impacts tf`), for CIFFs of impact indexes:\n"
                "search --scoring impact ranks by them. SIGINT or SIGTERM stops the import and\n"
                "publishes nothing (exit 130 or 143).",
            .example = "  $ invidx export-ciff idx idx.ciff && invidx import-ciff idx.ciff copy\n"
                       "  wrote idx.ciff: 12 postings lists, 300 doc records\n"
                       "  imported idx.ciff into copy: 12 postings lists, 300 doc records, 2150 postings; analysis\n"
                       "  stemmer porter, stopwords english (description)\n"
                       "  canonical: export-ciff gives the file back byte for byte\n"
                       "  $ invidx import-ciff splade.ciff splade --analysis verbatim --impacts tf\n",
            .min_args = 2,
            .max_args = 2,
            .flags = {{.name = "--analysis", .value_name = "auto|default|none|verbatim",
                       .help = "how query words are analyzed (default auto)", .repeats = tools::Repeats::kLastWins},
                      {.name = "--impacts", .value_name = "tf",
                       .help = "also the query layout with the tfs as impacts", .repeats = tools::Repeats::kLastWins},
                      {.name = "--run-bytes", .value_name = "N",
                       .help = "encoded postings held before a run file is written (default 67108864)",
                       .repeats = tools::Repeats::kLastWins}},
            .check = check_import,
            .run = run_import};
}

}  // namespace invidx::cli
