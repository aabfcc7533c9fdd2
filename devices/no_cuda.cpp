// A build without CUDA: no GPUs, and a GPU indexer cannot be made. The index
// node checks devices before it builds anything, so users see this at
// configuration time, never a silent fallback to the CPU.
#include "devices/gpu_analysis.hpp"
#include "devices/gpu_codecs.hpp"
#include "devices/gpu_devices.hpp"
#include "devices/gpu_inflate.hpp"
#include "devices/gpu_stream_pieces.hpp"
#include "devices/gpu_layout_weights.hpp"
#include "devices/gpu_query.hpp"
#include "devices/gpu_stemmer.hpp"
#include "devices/gpu_term_indexer.hpp"
#include "devices/gpu_term_lookup.hpp"
#include "devices/gpu_weights.hpp"
#include "invidx/error.hpp"

namespace invidx {

GpuInventory list_gpus() {
    GpuInventory inventory;
    inventory.note = "invidx was built without CUDA (nvcc was not found when it was configured)";
    return inventory;
}

void warm_up_gpu(int) {}

uint64_t gpu_wait_cpu_ns() { return 0; }

PageLockedTotals page_locked_totals() { return {}; }

GpuDecodeResult gpu_decode_bp128(const std::string&, const std::vector<uint64_t>&, const std::vector<uint32_t>&, bool,
                                 GpuDecodePasses) {
    throw Error("invidx was built without CUDA: no GPU decoding");
}

GpuDecodeResult gpu_decode_pfor(const GpuEncodedUnits&, bool, std::vector<uint32_t>*, GpuDecodePasses) {
    throw Error("invidx was built without CUDA: no GPU decoding");
}

GpuDecodeResult gpu_decode_rice(const GpuEncodedUnits&, bool, std::vector<uint32_t>*, GpuDecodePasses) {
    throw Error("invidx was built without CUDA: no GPU decoding");
}

std::unique_ptr<GpuQueryProcessor> create_gpu_query_processor(int, const std::vector<double>&, double, size_t) {
    throw Error("invidx was built without CUDA: no GPU query processing");
}

GpuLookupResult gpu_find_terms(int, const lexicon::XbwTrieSections&, const std::vector<uint64_t>&, const GpuLookupInput&) {
    throw Error("invidx was built without CUDA: no GPU term lookups");
}

GpuLookupResult gpu_find_terms(int, const lexicon::HashedTermsSections&, const std::vector<uint64_t>&, const GpuLookupInput&) {
    throw Error("invidx was built without CUDA: no GPU term lookups");
}

GpuAnalysisResult gpu_analyze_batch(int, const GpuAnalysisInput&) {
    throw Error("invidx was built without CUDA: no GPU document analysis");
}

std::unique_ptr<GpuBatchAnalyzer> create_gpu_batch_analyzer(int) {
    throw Error("invidx was built without CUDA: no GPU document analysis");
}

GpuTokenList gpu_stem_tokens(int, const GpuTokenList&) {
    throw Error("invidx was built without CUDA: no GPU stemming");
}

std::unique_ptr<GpuTermIndexer> create_gpu_term_indexer(const GpuTermIndexerOptions&) {
    throw Error("invidx was built without CUDA: GPU indexers are not available");
}

GpuWeights gpu_posting_weights(const GpuWeightInput& input, int, bool) {
    check_weight_input(input);  // a malformed input is refused as in a CUDA build
    throw Error("invidx was built without CUDA: no GPU weighting");
}

struct GpuLayoutWeigher::State {};

GpuLayoutWeigher::GpuLayoutWeigher(int) { throw Error("invidx was built without CUDA: no GPU weighting"); }
GpuLayoutWeigher::~GpuLayoutWeigher() = default;
GpuLayoutImpacts GpuLayoutWeigher::impacts(const GpuLayoutWeightInput&, uint16_t*, uint64_t) { return {}; }
GpuLayoutImpacts GpuLayoutWeigher::impacts(const GpuLayoutWeightInput&, uint8_t*, uint64_t) { return {}; }
uint64_t GpuLayoutWeigher::device_bytes() const { return 0; }

GpuLayoutImpacts gpu_layout_impacts(const GpuLayoutWeightInput& input, uint16_t*, uint64_t count, int) {
    check_layout_weight_input(input, count, false);
    throw Error("invidx was built without CUDA: no GPU weighting");
}

GpuLayoutImpacts gpu_layout_impacts(const GpuLayoutWeightInput& input, uint8_t*, uint64_t count, int) {
    check_layout_weight_input(input, count, true);
    throw Error("invidx was built without CUDA: no GPU weighting");
}

struct GpuInflater::State {};

GpuInflater::GpuInflater(int, size_t, size_t, size_t, size_t) { throw Error("invidx was built without CUDA: no GPU inflate"); }
GpuInflater::~GpuInflater() = default;
char* GpuInflater::input() { return nullptr; }
const char* GpuInflater::output() const { return nullptr; }
std::vector<InflateOutcome> GpuInflater::inflate(size_t, const std::vector<InflateMember>&) { return {}; }
void GpuInflater::use_kernel(Kernel) {}
int GpuInflater::device_ordinal() const { return -1; }
std::shared_ptr<const char> GpuInflater::resident_output() const { return nullptr; }
uint64_t GpuInflater::resident_batches() const { return 0; }
uint64_t GpuInflater::resident_misses() const { return 0; }
uint64_t GpuInflater::resident_device_bytes() const { return 0; }
GpuInflater::Timings GpuInflater::last_timings() const { return {}; }
double GpuInflater::time_resident_kernel() { return 0; }

struct GpuPieceDecoder::State {};

GpuPieceDecoder::GpuPieceDecoder(int, size_t, size_t, size_t, size_t) {
    throw Error("invidx was built without CUDA: no GPU stream pieces");
}
GpuPieceDecoder::~GpuPieceDecoder() = default;
char* GpuPieceDecoder::input() { return nullptr; }
const uint16_t* GpuPieceDecoder::text(size_t) const { return nullptr; }
std::vector<inflate::PieceOutcome> GpuPieceDecoder::decode(size_t, const std::vector<GpuStreamPiece>&) { return {}; }
GpuPieceDecoder::Timings GpuPieceDecoder::last_timings() const { return {}; }
double GpuPieceDecoder::time_resident_kernel() { return 0; }

}  // namespace invidx
