// Which measures to compute, named and parameterized as trec_eval's -m
// takes them: "map", "P.5,10", "ndcg_cut.10", "official".
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace invidx::evaluation {

// The measures invidx computes, in the order trec_eval prints them.
enum class Measure {
    kRunid,
    kNumQ,
    kNumRet,
    kNumRel,
    kNumRelRet,
    kMap,
    kGmMap,
    kRprec,
    kBpref,
    kRecipRank,
    kIprecAtRecall,
    kP,
    kRecall,
    kNdcg,
    kNdcgCut,
    kMapCut,
};

struct ChosenMeasure {
    Measure measure;
    std::vector<long> cutoffs;          // P, recall, ndcg_cut, map_cut: ranks, ascending
    std::vector<double> recall_points;  // iprec_at_recall: recall levels, ascending
};

struct MeasureSet {
    std::vector<ChosenMeasure> measures;  // each measure once, in Measure order
};

std::string_view measure_name(Measure measure);

// trec_eval's default set ("official"): runid, num_q, num_ret, num_rel,
// num_rel_ret, map, gm_map, Rprec, bpref, recip_rank, iprec_at_recall and P.
MeasureSet official_measures();

// The set the -m arguments name: each "NAME" or "NAME.PARAMS" (PARAMS a
// comma-separated list of cutoffs, or of recall levels for
// iprec_at_recall), or "official". A measure given without PARAMS gets
// trec_eval's default cutoffs; one given several times gets the union of
// its lists. std::invalid_argument with a message for an unknown name, a
// bad cutoff, or parameters on a measure that takes none.
MeasureSet parse_measures(std::span<const std::string> specs);

// The names a chosen measure's values print under: "map", or one per
// cutoff ("P_5", "iprec_at_recall_0.10").
std::vector<std::string> value_names(const ChosenMeasure& chosen);

// Whether trec_eval prints the measure on per-query (-q) lines; runid,
// num_q and gm_map appear only in the summary.
bool reported_per_query(Measure measure);

}  // namespace invidx::evaluation
