// gpu_analyze_batch (devices/gpu_analysis.hpp). Pass 1 (HTML rules, tokens,
// stop words, Porter) runs as the data-parallel steps of
// analysis/parallel_token_pass.hpp: one thread per byte, per markup
// candidate or per token, with CUB compacting candidates and token starts
// and scanning the indexed tokens; only a light walk over each document's
// markup candidates is per document. (The first version ran the whole
// per-document pass on one thread per document: a batch of ~70 documents
// kept one SM busy while the longest document was scanned byte by byte, far
// slower than a CPU parser.) Pass 2 groups the terms with one thread per
// occurrence (analysis/parallel_group_pass.hpp) after the host has read back
// the per-document counts to size the regions (analysis_batch::term_regions),
// and lays the batch's terms out as the parse node hands them on
// (write_batch_term): dense, with their bytes packed, so the host copies
// them back in bulk with no work per term (analysis_batch::pack_batch_result).
// The host reference packs the per-document passes' output into the same
// GpuAnalysisResult (devices/analysis_batch.cpp).
//
// Where a GPU indexer on the same device owns collections (the input's
// keep_on_device), their terms stay on the device in a buffer of the
// analyzer's ResidentPool and only the others come back: one selection
// writes those to the device buffer, another writes the rest straight into
// the pinned host buffer (mapped), so no count crosses back first.
//
// Next, for speed: no host round trip between the passes.
//
// CudaBatchAnalyzer keeps its stream, pinned staging and device arrays from
// batch to batch; the GPU parsers of the pipeline run two per GPU, each on
// its own host thread, so one's copies and packing overlap the other's
// kernels (nodes/parse/gpu_parsers.hpp).//
// The passes' host code, one function and one scratch struct per pass, is
// in analysis_passes.hpp/.cu, and their kernels in analysis_kernels.cuh;
// analyze_batch below calls the passes in order.
#include "devices/gpu_analysis.hpp"

#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "analysis/parallel_token_pass.hpp"
#include "analysis/stopword_table.hpp"
#include "devices/analysis_batch.hpp"
#include "devices/cuda/analysis/analysis_passes.hpp"
#include "devices/cuda/analysis/resident_pool.hpp"
#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/cuda_stream.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "invidx/error.hpp"
#include "invidx/resident_terms.hpp"

namespace invidx {
namespace {

using namespace cuda;
using namespace cuda::analysis_passes;

// Buffers lent per analyzer (per slot) to batches whose terms stay on the
// device. A buffer takes device memory only once lent (free ones are lent
// last-in first-out), and no more are lent at once than batches are in
// flight (memory.tokens) plus the few a GPU indexer holds until its device
// has read them: this only needs to exceed that. A batch that finds none
// free brings its terms back to the host, which the GPU indexer then stages
// (docs/PERFORMANCE.md, "Pipeline defaults").
constexpr size_t kResidentBuffers = 48;

// Makes `device` current (throwing, naming it, when it does not exist)
// before the members that need it are made.
int selected(int device) {
    use_device(device);
    return device;
}

class CudaBatchAnalyzer final : public GpuBatchAnalyzer {
public:
    explicit CudaBatchAnalyzer(int device) : device_(selected(device)) {}

    ~CudaBatchAnalyzer() override {
        // The members free on this thread's current device: make it theirs.
        cudaSetDevice(device_);
        cudaStreamSynchronize(stream_.get());  // destructor path: errors have nowhere to go
    }

    GpuAnalyzerMemory memory() const override {
        return {device_memory_.bytes + resident_pool_->device_bytes(),
                device_memory_.peak + resident_pool_->peak_device_bytes(), pinned_memory_.bytes};
    }

    GpuAnalyzerTimes times() const override { return times_; }
    int device_ordinal() const override { return device_; }

    GpuAnalysisResult analyze(const GpuAnalysisInput& input) override {
        const auto start = std::chrono::steady_clock::now();
        GpuAnalysisResult result = analyze_batch(input);
        times_.analyze_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return result;
    }

private:
    GpuAnalysisResult analyze_batch(const GpuAnalysisInput& input) {
        using namespace analysis_batch;
        check_input(input);
        const size_t documents = input.documents();
        const std::vector<uint64_t> occurrence_begin = occurrence_regions(input);
        if (documents == 0) return pack_result(input, term_regions({}), PassOutput{});
        ensure(documents <= UINT32_MAX, "gpu_analyze_batch: more than 2^32 - 1 documents in one batch");
        check(cudaSetDevice(device_), "cudaSetDevice");
        const cudaStream_t s = stream_.get();
        const StopwordTable stopwords = stopwords_on_device(stopwords_, input.stopwords, s);
        const size_t text_bytes = input.text_size();

        // Pass 1, in the steps of parallel_token_pass.hpp.
        ensure(text_bytes < UINT32_MAX, "gpu_analyze_batch: a batch of 4 GiB or more");
        const auto upload_start = std::chrono::steady_clock::now();
        const parallel_token_pass::BatchView batch =
            upload_batch(upload_, input, occurrence_begin, device_, s, events_, times_.device_text_bytes);
        times_.host_upload_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - upload_start).count();
        mark_constructs(markup_, common_, batch, input, s, events_);
        const uint32_t token_count = find_token_starts(token_starts_, common_, markup_, batch, input, s, events_);
        make_occurrences(terms_, common_, token_starts_, upload_, batch, input, occurrence_begin, stopwords,
                         token_count, s, events_);

        // Pass 2, in regions sized by pass 1's counts.
        const std::vector<uint32_t> indexed(terms_.host_indexed.data(), terms_.host_indexed.data() + documents);
        const TermRegions regions = term_regions(indexed);
        const uint64_t occurrence_count = regions.begin.back();
        group_occurrences(group_, common_, upload_, terms_, regions, input, s, events_);

        // Back to the host: the counts, the terms kept on the device when
        // asked, the rest.
        const TermTotals totals = read_term_totals(results_, group_, occurrence_count, s, events_);
        std::shared_ptr<ResidentTerms> resident =
            keep_terms(keep_, common_, results_, group_, *resident_pool_, input, totals, s, times_);
        download_terms(results_, group_, input, totals, occurrence_count, resident != nullptr, s, events_);
        add_pass_times(times_, events_);
        return pack_terms(input, terms_, results_, totals, occurrence_count, std::move(resident), times_);
    }

    // In destruction order reversed: the device is selected before the
    // stream is made, the counters outlive the arrays, and the stream
    // outlives every array's free.
    const int device_;
    MemoryCounter device_memory_;
    MemoryCounter pinned_memory_;
    const cuda::ScopedStream stream_;
    PassEvents events_;  // the timing marks, and the event waits poll
    GpuAnalyzerTimes times_;

    // Lent buffers may outlive the analyzer (a GPU indexer still holds them).
    const std::shared_ptr<ResidentPool> resident_pool_ = std::make_shared<ResidentPool>(device_, kResidentBuffers);

    // Each pass's buffers (analysis_passes.hpp), grown to the largest batch.
    StopwordScratch stopwords_{device_memory_, pinned_memory_};
    CommonScratch common_{device_memory_};
    UploadScratch upload_{device_memory_, pinned_memory_};
    MarkupScratch markup_{device_memory_};
    TokenStartScratch token_starts_{device_memory_, pinned_memory_};
    TermScratch terms_{device_memory_, pinned_memory_};
    GroupScratch group_{device_memory_, pinned_memory_};
    KeepScratch keep_{device_memory_, pinned_memory_};
    DownloadScratch results_{pinned_memory_};
};

}  // namespace

std::unique_ptr<GpuBatchAnalyzer> create_gpu_batch_analyzer(int device) {
    return std::make_unique<CudaBatchAnalyzer>(device);
}

GpuAnalysisResult gpu_analyze_batch(int device, const GpuAnalysisInput& input) {
    // An empty batch needs no device (and asks for none).
    analysis_batch::check_input(input);
    if (input.documents() == 0) {
        return analysis_batch::pack_result(input, analysis_batch::term_regions({}), analysis_batch::PassOutput{});
    }
    return CudaBatchAnalyzer(device).analyze(input);
}

}  // namespace invidx
