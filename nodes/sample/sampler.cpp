#include "nodes/sample/sampler.hpp"

#include <algorithm>
#include <mutex>

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include "analysis/analyzer.hpp"
#include "invidx/entry_name.hpp"
#include "nodes/decompress/decompress_file.hpp"
#include "nodes/frame/framer.hpp"

namespace invidx {
namespace {

CollectionSample sample_file(const InputFile& file, uint64_t budget, const AnalysisSettings& analysis,
                             Analyzer& analyzer) {
    CollectionSample sample;
    sample.tokens.assign(kCollections, 0);
    sample.files = 1;
    DocumentTerms terms;
    std::unique_ptr<Framer> framer;
    const auto count_record = [&](const FramedRecord& record) {
        analyzer.analyze(record.text, record.html, terms);
        for (const auto& term : terms.terms) sample.tokens[term.collection] += term.tf;
        ++sample.documents;
    };
    decompress_file(file, std::min<uint64_t>(budget, 1u << 20) + 1, [&](TextBlock&& text) {
        if (text.entry_begin) {
            framer = make_framer(file.format, document_name_of_entry(file, text.entry_name), analysis);
        }
        const uint64_t take = std::min<uint64_t>(text.bytes.size(), budget - sample.bytes);
        framer->feed(std::string_view(text.bytes).substr(0, take), count_record);
        sample.bytes += take;
        if (sample.bytes >= budget) return false;  // the cut record is never finished
        if (text.entry_end) framer->finish(count_record);
        return true;
    });
    return sample;
}

}  // namespace

CollectionSample sample_collections(const std::vector<InputFile>& files, const SamplerConfig& config,
                                    const AnalysisSettings& analysis) {
    CollectionSample total;
    total.tokens.assign(kCollections, 0);
    if (files.empty() || config.bytes_per_file == 0 || config.max_bytes == 0) return total;
    // Evenly spaced files, so that a collection sorted by source or date is
    // seen across its whole extent.
    const uint64_t wanted = std::max<uint64_t>(1, config.max_bytes / config.bytes_per_file);
    const size_t count = static_cast<size_t>(std::min<uint64_t>(files.size(), wanted));
    std::vector<size_t> chosen(count);
    for (size_t i = 0; i < count; ++i) chosen[i] = i * files.size() / count;

    std::vector<CollectionSample> samples(count);
    // An analyzer a thread, not a file: making one (its token cache's
    // table) costs more than sampling a small file.
    oneapi::tbb::enumerable_thread_specific<Analyzer> analyzers([&analysis] { return Analyzer(analysis); });
    oneapi::tbb::parallel_for(size_t{0}, count, [&](size_t i) {
        samples[i] = sample_file(files[chosen[i]], config.bytes_per_file, analysis, analyzers.local());
    });
    for (const auto& sample : samples) {
        for (size_t c = 0; c < kCollections; ++c) total.tokens[c] += sample.tokens[c];
        total.bytes += sample.bytes;
        total.documents += sample.documents;
        total.files += sample.files;
    }
    return total;
}

}  // namespace invidx
