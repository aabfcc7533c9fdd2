#include "evaluation/measure_set.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace invidx::evaluation {

namespace {

constexpr std::array<std::pair<Measure, std::string_view>, 16> kNames = {{
    {Measure::kRunid, "runid"},
    {Measure::kNumQ, "num_q"},
    {Measure::kNumRet, "num_ret"},
    {Measure::kNumRel, "num_rel"},
    {Measure::kNumRelRet, "num_rel_ret"},
    {Measure::kMap, "map"},
    {Measure::kGmMap, "gm_map"},
    {Measure::kRprec, "Rprec"},
    {Measure::kBpref, "bpref"},
    {Measure::kRecipRank, "recip_rank"},
    {Measure::kIprecAtRecall, "iprec_at_recall"},
    {Measure::kP, "P"},
    {Measure::kRecall, "recall"},
    {Measure::kNdcg, "ndcg"},
    {Measure::kNdcgCut, "ndcg_cut"},
    {Measure::kMapCut, "map_cut"},
}};

// trec_eval's default cutoffs for P, recall, ndcg_cut and map_cut.
const std::vector<long> kDefaultCutoffs = {5, 10, 15, 20, 30, 100, 200, 500, 1000};
const std::vector<double> kDefaultRecallPoints = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};

bool takes_cutoffs(Measure m) {
    return m == Measure::kP || m == Measure::kRecall || m == Measure::kNdcgCut || m == Measure::kMapCut;
}

std::string known_names() {
    std::string names = "official";
    for (const auto& [measure, name] : kNames) names += ", " + std::string(name);
    return names;
}

std::vector<std::string_view> split_commas(std::string_view text) {
    std::vector<std::string_view> parts;
    for (size_t start = 0;;) {
        const size_t comma = text.find(',', start);
        parts.push_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return parts;
}

std::vector<long> parse_cutoffs(std::string_view spec, std::string_view params) {
    std::vector<long> cutoffs;
    for (const auto part : split_commas(params)) {
        long cutoff = 0;
        const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), cutoff);
        if (error != std::errc() || end != part.data() + part.size() || cutoff <= 0) {
            throw std::invalid_argument("measure '" + std::string(spec) + "': cutoff '" + std::string(part) +
                                        "' is not a positive integer");
        }
        cutoffs.push_back(cutoff);
    }
    return cutoffs;
}

std::vector<double> parse_recall_points(std::string_view spec, std::string_view params) {
    std::vector<double> points;
    for (const auto part : split_commas(params)) {
        double point = 0;
        const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), point);
        if (error != std::errc() || end != part.data() + part.size() || !(point >= 0.0 && point <= 1.0)) {
            throw std::invalid_argument("measure '" + std::string(spec) + "': recall level '" + std::string(part) +
                                        "' is not a number from 0 to 1");
        }
        points.push_back(point);
    }
    return points;
}

template <typename T>
void merge_sorted_unique(std::vector<T>& into, const std::vector<T>& more) {
    into.insert(into.end(), more.begin(), more.end());
    std::sort(into.begin(), into.end());
    into.erase(std::unique(into.begin(), into.end()), into.end());
}

// Adds one measure with its explicit parameters (empty: none given).
void choose(std::vector<ChosenMeasure>& chosen, std::vector<bool>& explicit_params, Measure measure,
            std::string_view spec, std::string_view params, bool has_params) {
    auto found = std::find_if(chosen.begin(), chosen.end(), [&](const ChosenMeasure& c) { return c.measure == measure; });
    if (found == chosen.end()) {
        chosen.push_back({.measure = measure, .cutoffs = {}, .recall_points = {}});
        explicit_params.push_back(false);
        found = chosen.end() - 1;
    }
    const size_t index = static_cast<size_t>(found - chosen.begin());
    if (!has_params) return;
    if (takes_cutoffs(measure)) {
        if (!explicit_params[index]) found->cutoffs.clear();
        merge_sorted_unique(found->cutoffs, parse_cutoffs(spec, params));
    } else if (measure == Measure::kIprecAtRecall) {
        if (!explicit_params[index]) found->recall_points.clear();
        merge_sorted_unique(found->recall_points, parse_recall_points(spec, params));
    } else if (measure == Measure::kNdcg) {
        throw std::invalid_argument("measure '" + std::string(spec) +
                                    "': ndcg's gain parameters are not supported (gains are the judged levels)");
    } else {
        throw std::invalid_argument("measure '" + std::string(spec) + "': " + std::string(measure_name(measure)) +
                                    " takes no parameters");
    }
    explicit_params[index] = true;
}

}  // namespace

std::string_view measure_name(Measure measure) {
    for (const auto& [m, name] : kNames) {
        if (m == measure) return name;
    }
    return "?";
}

MeasureSet official_measures() {
    const std::vector<std::string> names = {"official"};
    return parse_measures(names);
}

MeasureSet parse_measures(std::span<const std::string> specs) {
    std::vector<ChosenMeasure> chosen;
    std::vector<bool> explicit_params;
    for (const std::string& spec : specs) {
        const size_t dot = spec.find('.');
        const std::string_view name = std::string_view(spec).substr(0, dot);
        const bool has_params = dot != std::string::npos;
        const std::string_view params = has_params ? std::string_view(spec).substr(dot + 1) : std::string_view();
        if (has_params && params.empty()) {
            throw std::invalid_argument("measure '" + spec + "': nothing after the '.'");
        }
        if (name == "official") {
            if (has_params) throw std::invalid_argument("measure '" + spec + "': official takes no parameters");
            for (const Measure m : {Measure::kRunid, Measure::kNumQ, Measure::kNumRet, Measure::kNumRel, Measure::kNumRelRet,
                                    Measure::kMap, Measure::kGmMap, Measure::kRprec, Measure::kBpref, Measure::kRecipRank,
                                    Measure::kIprecAtRecall, Measure::kP}) {
                choose(chosen, explicit_params, m, spec, {}, false);
            }
            continue;
        }
        const auto known = std::find_if(kNames.begin(), kNames.end(), [&](const auto& entry) { return entry.second == name; });
        if (known == kNames.end()) {
            throw std::invalid_argument("unknown measure '" + spec + "'; known: " + known_names());
        }
        choose(chosen, explicit_params, known->first, spec, params, has_params);
    }
    for (size_t i = 0; i < chosen.size(); ++i) {
        if (explicit_params[i]) continue;
        if (takes_cutoffs(chosen[i].measure)) chosen[i].cutoffs = kDefaultCutoffs;
        if (chosen[i].measure == Measure::kIprecAtRecall) chosen[i].recall_points = kDefaultRecallPoints;
    }
    std::sort(chosen.begin(), chosen.end(), [](const ChosenMeasure& a, const ChosenMeasure& b) { return a.measure < b.measure; });
    return {.measures = std::move(chosen)};
}

std::vector<std::string> value_names(const ChosenMeasure& chosen) {
    const std::string name(measure_name(chosen.measure));
    std::vector<std::string> names;
    if (takes_cutoffs(chosen.measure)) {
        for (const long cutoff : chosen.cutoffs) names.push_back(name + "_" + std::to_string(cutoff));
    } else if (chosen.measure == Measure::kIprecAtRecall) {
        for (const double point : chosen.recall_points) {
            char text[32];
            std::snprintf(text, sizeof text, "_%3.2f", point);
            names.push_back(name + text);
        }
    } else {
        names.push_back(name);
    }
    return names;
}

bool reported_per_query(Measure measure) {
    return measure != Measure::kRunid && measure != Measure::kNumQ && measure != Measure::kGmMap;
}

}  // namespace invidx::evaluation
