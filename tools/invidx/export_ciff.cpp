// invidx export-ciff IDX FILE: the index in the Common Index File Format.
#include <iostream>

#include "invidx/error.hpp"
#include "store/ciff_export.hpp"
#include "store/index_reader.hpp"
#include "tools/invidx/command.hpp"

namespace invidx::cli {

namespace {

int run_export(const Invocation& invocation) {
    const IndexReader index(invocation.args[0]);
    const std::string& file = invocation.args[1];
    const std::string description = invocation.flags.value("--description").value_or(default_ciff_description(index));
    if (file == "-") {
        export_ciff(index, std::cout, description);
        return kOk;  // standard output holds the CIFF bytes, nothing else
    }
    export_ciff_file(index, file, description);
    if (invocation.json) {
        print_json({{"file", file}, {"postings_lists", index.num_terms()}, {"doc_records", index.num_documents()}, {"description", description}});
    } else {
        std::cout << "wrote " << file << ": " << index.num_terms() << " postings lists, " << index.num_documents() << " doc records\n";
    }
    return kOk;
}

}  // namespace

Command export_ciff_command() {
    return {.name = "export-ciff",
            .synopsis = "invidx export-ciff IDX FILE [--description TEXT]",
            .description = "Writes the index in CIFF (github.com/osirrc/ciff) to FILE; FILE '-' is\n"
                           "standard output. --description sets the Header's description. The CIFF is\n"
                           "written to FILE.partial-PID-N beside FILE, synced and renamed over FILE: an\n"
                           "existing FILE is replaced whole or, on any failure (a full disk), left as it\n"
                           "was. FILE inside an index directory (links followed) is refused.",
            .example = "  $ invidx export-ciff idx idx.ciff\n"
                       "  wrote idx.ciff: 5 postings lists, 3 doc records\n",
            .min_args = 2,
            .max_args = 2,
            .flags = {{.name = "--description", .value_name = "TEXT", .help = "the CIFF Header's description",
                       .repeats = tools::Repeats::kLastWins}},
            .run = run_export};
}

}  // namespace invidx::cli
