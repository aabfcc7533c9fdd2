// Test helpers: run a framer over an input fed in pieces, collecting records.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/error.hpp"
#include "invidx/analysis_settings.hpp"
#include "nodes/frame/framer.hpp"

namespace invidx::testing {

struct Record {
    std::string name;
    std::string text;
    bool html = false;
    uint64_t source_offset = 0;
    uint64_t record_number = 0;
    bool operator==(const Record&) const = default;
};

inline std::ostream& operator<<(std::ostream& out, const Record& r) {
    return out << "{" << r.name << ", \"" << r.text << "\", html=" << r.html << ", offset=" << r.source_offset
               << ", record=" << r.record_number << "}";
}

inline std::ostream& operator<<(std::ostream& out, const std::vector<Record>& records) {
    out << "[";
    for (const auto& r : records) out << r << " ";
    return out << "]";
}

// Feeds `input` to a new framer as the pieces ending at each of `cuts`
// (increasing offsets), then the rest, then finishes.
inline std::vector<Record> frame_cut(const std::string& format, std::string_view input,
                                     const std::vector<size_t>& cuts,
                                     const AnalysisSettings& settings = AnalysisSettings::defaults(),
                                     const std::string& entry_name = "entry") {
    std::vector<Record> records;
    const EmitRecord emit = [&](const FramedRecord& r) {
        records.push_back(Record{r.name, std::string(r.text), r.html, r.source_offset, r.record_number});
    };
    auto framer = make_framer(format, entry_name, settings);
    size_t start = 0;
    for (size_t cut : cuts) {
        framer->feed(input.substr(start, cut - start), emit);
        start = cut;
    }
    framer->feed(input.substr(start), emit);
    framer->finish(emit);
    return records;
}

inline std::vector<Record> frame_whole(const std::string& format, std::string_view input,
                                       const AnalysisSettings& settings = AnalysisSettings::defaults()) {
    return frame_cut(format, input, {}, settings);
}

// Feeds one byte at a time (and an empty feed in between, which must be harmless).
inline std::vector<Record> frame_bytewise(const std::string& format, std::string_view input) {
    std::vector<size_t> cuts;
    for (size_t i = 1; i < input.size(); ++i) {
        cuts.push_back(i);
        cuts.push_back(i);
    }
    return frame_cut(format, input, cuts);
}

// Checks that every split of `input` in two gives the records of a whole feed.
inline bool same_records_at_every_split(const std::string& format, std::string_view input) {
    const auto whole = frame_whole(format, input);
    for (size_t cut = 0; cut <= input.size(); ++cut) {
        if (frame_cut(format, input, {cut}) != whole) return false;
    }
    return frame_bytewise(format, input) == whole;
}

// The message of the error framing `input` whole raises ("no error" if none),
// and its context (file, record, offset) when asked.
inline std::string framing_error(const std::string& format, const std::string& input,
                                 invidx::ErrorContext* context = nullptr) {
    try {
        frame_whole(format, input);
    } catch (const invidx::Error& e) {
        if (context) *context = e.context();
        return e.message();
    }
    return "no error";
}

}  // namespace invidx::testing
