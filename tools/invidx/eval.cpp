// invidx eval QRELS RUN [-m MEASURE ...] [-q] [-c] [-l LEVEL]: scores a run
// (such as `search --format trec` writes) against relevance judgments, with
// trec_eval's measures, conventions and output, so numbers can be compared
// with published ones. The evaluation itself is evaluation/.
#include <iostream>

#include "evaluation/evaluate.hpp"
#include "evaluation/input_error.hpp"
#include "evaluation/report.hpp"
#include "tools/invidx/command.hpp"

namespace invidx::cli {

namespace {

evaluation::MeasureSet chosen_measures(const Invocation& invocation) {
    const auto specs = invocation.flags.values("--measure");
    try {
        return specs.empty() ? evaluation::official_measures() : evaluation::parse_measures(specs);
    } catch (const std::invalid_argument& error) {
        throw UsageError(std::string("-m: ") + error.what());
    }
}

int run_eval(const Invocation& invocation) {
    const auto measures = chosen_measures(invocation);
    evaluation::EvaluationOptions options;
    if (auto level = invocation.flags.value("--level-for-rel")) {
        options.relevance_level = static_cast<long>(tools::positive_integer("-l", *level));
    }
    options.complete = invocation.flags.has("--complete");
    const bool per_query = invocation.flags.has("--per-query");

    evaluation::Qrels qrels;
    evaluation::Run run;
    try {
        qrels = evaluation::read_qrels(invocation.args[0]);
        run = evaluation::read_run(invocation.args[1]);
    } catch (const evaluation::InputError& error) {
        // A file to fix, not a command line: no pointer to --help.
        std::cerr << "invidx: " << error.what() << "\n";
        return kUsage;
    }
    const auto result = evaluation::evaluate(qrels, run, measures, options);
    if (result.queries.empty()) {
        throw NotFound("no query of " + invocation.args[1] + " has judgments in " + invocation.args[0]);
    }
    if (invocation.json) {
        print_json(evaluation::evaluation_json(result, per_query));
    } else {
        std::cout << evaluation::trec_eval_text(result, per_query);
    }
    return kOk;
}

}  // namespace

Command eval_command() {
    return {.name = "eval",
            .synopsis = "invidx eval QRELS RUN [-m MEASURE ...] [-q] [-c] [-l LEVEL]",
            .description =
                "Scores RUN (TREC run lines: qid Q0 docno rank score run_id) against QRELS\n"
                "(qid iter docno level) as trec_eval does, printing its three columns:\n"
                "measure, 'all' or the qid, value. Ranks come from the scores (ties: docno\n"
                "descending), not the rank column. Queries of RUN without judgments are\n"
                "skipped; so are judged queries RUN lacks, unless -c.\n"
                "Measures (-m, repeatable, as trec_eval names them): map, gm_map, Rprec, bpref,\n"
                "recip_rank, ndcg, P.K, recall.K, ndcg_cut.K, map_cut.K (K: cutoffs, e.g. P.5,10;\n"
                "default 5,10,15,20,30,100,200,500,1000), iprec_at_recall, num_q, num_ret,\n"
                "num_rel, num_rel_ret, runid, and 'official'. Without -m: official, trec_eval's\n"
                "default set (runid, num_q, num_ret, num_rel, num_rel_ret, map, gm_map, Rprec,\n"
                "bpref, recip_rank, iprec_at_recall, P).\n"
                "A malformed QRELS or RUN line is named as FILE: line N: why (exit code 2);\n"
                "no query of RUN judged in QRELS: exit code 1.",
            .example = "  $ invidx eval qrels.txt run.txt -m map -m ndcg_cut.10 -m P.10\n"
                       "  map                   \tall\t0.1837\n"
                       "  P_10                  \tall\t0.1333\n"
                       "  ndcg_cut_10           \tall\t0.2567\n",
            .min_args = 2,
            .max_args = 2,
            .flags = {{.name = "--measure", .value_name = "MEASURE",
                       .help = "a measure to compute (repeatable): map, P.5,10, ndcg_cut.10, ...",
                       .repeats = tools::Repeats::kCollect, .alias = "-m"},
                      {.name = "--per-query", .help = "also print each query's values, before the 'all' lines",
                       .repeats = tools::Repeats::kLastWins, .alias = "-q"},
                      {.name = "--complete", .help = "count judged queries the run lacks, as scoring 0",
                       .repeats = tools::Repeats::kLastWins, .alias = "-c"},
                      {.name = "--level-for-rel", .value_name = "LEVEL",
                       .help = "judged at LEVEL or above is relevant (default 1)", .repeats = tools::Repeats::kLastWins,
                       .alias = "-l"}},
            .run = run_eval};
}

}  // namespace invidx::cli
