// GpuPieceDecoder (devices/gpu_stream_pieces.hpp): a batch of stream pieces
// decoded on one GPU, a warp a piece in lockstep (warp_piece_decoder.cuh),
// the warp's decoder tables in its shared memory, as the GPU inflate
// kernel decodes whole members (gpu_inflate.cu). Pieces of one size
// (a file cut every N compressed bytes) take about as long each, so a batch
// has no long member to wait for.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/cuda_event.hpp"
#include "devices/cuda/common/cuda_stream.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "devices/cuda/inflate/warp_piece_decoder.cuh"
#include "devices/gpu_stream_pieces.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

using cuda::check;
using cuda::check_launch;

// Block k, one warp, decodes piece k; lane 0 writes its outcome.
__global__ void __launch_bounds__(32)
    decode_pieces_by_warp(const unsigned char* input, const GpuStreamPiece* pieces, uint16_t* output,
                          inflate::PieceOutcome* outcomes) {
    extern __shared__ __align__(16) unsigned char shared[];
    auto* tables = reinterpret_cast<inflate::DecoderTables*>(shared);
    const GpuStreamPiece p = pieces[blockIdx.x];
    inflate::WarpPieceLanes lanes{};
    lanes.lane = threadIdx.x & 31;
    const inflate::PieceOutcome outcome = inflate::decode_piece_in_lockstep(input + p.in_offset, p.in_size, p.bounds,
                                                                            output + p.out_offset, p.out_capacity, *tables, lanes);
    if (threadIdx.x == 0) outcomes[blockIdx.x] = outcome;
}

// Bytes past the input's end a decoder's word loads may touch (BitReader's
// refill reads the aligned words around 8 bytes).
constexpr size_t kInputSlack = 16;

}  // namespace

struct GpuPieceDecoder::State {
    State(int ordinal, size_t max_input_bytes, size_t max_output_symbols, size_t max_pieces, size_t max_text_symbols)
        : device(ordinal),
          name(cuda::use_device(ordinal)),
          max_input(max_input_bytes),
          max_output(max_output_symbols),
          max_count(max_pieces),
          max_text(max_text_symbols),
          input(memory),
          output(memory),
          pieces(memory),
          outcomes(memory),
          host_input(host_memory),
          host_text(host_memory),
          host_pieces(host_memory),
          host_outcomes(host_memory) {
        const cudaStream_t s = stream.get();
        input.reserve(max_input + kInputSlack, 0, s);
        output.reserve(std::max<size_t>(max_output, 1), 0, s);
        pieces.reserve(std::max<size_t>(max_count, 1), 0, s);
        outcomes.reserve(std::max<size_t>(max_count, 1), 0, s);
        host_input.reserve(max_input + kInputSlack);
        host_text.reserve(std::max<size_t>(max_text, 1));
        host_pieces.reserve(std::max<size_t>(max_count, 1));
        host_outcomes.reserve(std::max<size_t>(max_count, 1));
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    }

    int device;
    std::string name;
    size_t max_input, max_output, max_count, max_text;
    cuda::ScopedStream stream;  // before the arrays: it outlives their frees
    cuda::MemoryCounter memory, host_memory;
    cuda::DeviceArray<unsigned char> input;
    cuda::DeviceArray<uint16_t> output;
    cuda::DeviceArray<GpuStreamPiece> pieces;
    cuda::DeviceArray<inflate::PieceOutcome> outcomes;
    cuda::PinnedArray<char> host_input;
    cuda::PinnedArray<uint16_t> host_text;  // the decoded pieces' text, packed
    cuda::PinnedArray<GpuStreamPiece> host_pieces;
    cuda::PinnedArray<inflate::PieceOutcome> host_outcomes;
    cuda::ScopedEvent started, copied_in, decoded, outcomes_back, copied_out;
    uint32_t last_count = 0;
    std::vector<uint64_t> text_at;  // piece k's text in host_text
    Timings timings;

    void launch(uint32_t count) {
        decode_pieces_by_warp<<<count, 32, sizeof(inflate::DecoderTables), stream.get()>>>(input.data(), pieces.data(),
                                                                                            output.data(), outcomes.data());
        check_launch("decode_pieces_by_warp");
    }

    std::vector<inflate::PieceOutcome> decode(size_t input_size, const std::vector<GpuStreamPiece>& batch) {
        if (input_size > max_input)
            throw Error("GPU pieces: a batch of " + std::to_string(input_size) + " input bytes, the decoder holds " +
                        std::to_string(max_input));
        if (batch.size() > max_count)
            throw Error("GPU pieces: a batch of " + std::to_string(batch.size()) + " pieces, the decoder holds " +
                        std::to_string(max_count));
        for (size_t i = 0; i < batch.size(); ++i) {
            const GpuStreamPiece& p = batch[i];
            if (p.in_offset > input_size || p.in_size > input_size - p.in_offset)
                throw Error("GPU pieces: piece " + std::to_string(i) + "'s bytes are past the batch's input");
            if (p.out_offset > max_output || p.out_capacity > max_output - p.out_offset)
                throw Error("GPU pieces: piece " + std::to_string(i) + "'s symbols are past the decoder's output");
        }
        last_count = static_cast<uint32_t>(batch.size());
        timings = {};
        if (batch.empty()) return {};
        check(cudaSetDevice(device), "cudaSetDevice");
        std::copy(batch.begin(), batch.end(), host_pieces.data());
        std::fill(host_input.data() + input_size, host_input.data() + input_size + kInputSlack, 0);
        const cudaStream_t s = stream.get();
        started.record(s);
        check(cudaMemcpyAsync(input.data(), host_input.data(), input_size + kInputSlack, cudaMemcpyHostToDevice, s),
              "cudaMemcpyAsync (input)");
        check(cudaMemcpyAsync(pieces.data(), host_pieces.data(), batch.size() * sizeof(GpuStreamPiece), cudaMemcpyHostToDevice, s),
              "cudaMemcpyAsync (pieces)");
        copied_in.record(s);
        launch(last_count);
        decoded.record(s);
        check(cudaMemcpyAsync(host_outcomes.data(), outcomes.data(), batch.size() * sizeof(inflate::PieceOutcome),
                              cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync (outcomes)");
        cuda::wait_yielding(s, outcomes_back, "decode_pieces_by_warp");
        // Then each decoded piece's text symbols, packed, not the room it had.
        text_at.assign(batch.size(), 0);
        uint64_t packed = 0;
        for (size_t i = 0; i < batch.size(); ++i) {
            inflate::PieceOutcome& o = host_outcomes.data()[i];
            if (!o.ok || o.symbols == 0) continue;
            if (o.symbols > max_text - packed) {
                o = inflate::PieceOutcome{};
                o.out_of_room = 1;
                continue;
            }
            text_at[i] = packed;
            const uint64_t at = batch[i].out_offset + inflate::kPieceWindowSymbols;
            check(cudaMemcpyAsync(host_text.data() + packed, output.data() + at, uint64_t{o.symbols} * sizeof(uint16_t),
                                  cudaMemcpyDeviceToHost, s),
                  "cudaMemcpyAsync (symbols)");
            packed += o.symbols;
        }
        copied_out.record(s);
        cuda::wait_yielding(copied_out.get(), "decode_pieces_by_warp");
        timings.copy_in = copied_in.seconds_since(started);
        timings.kernel = decoded.seconds_since(copied_in);
        timings.copy_out = copied_out.seconds_since(decoded);
        return std::vector<inflate::PieceOutcome>(host_outcomes.data(), host_outcomes.data() + batch.size());
    }
};

GpuPieceDecoder::GpuPieceDecoder(int device_ordinal, size_t max_input_bytes, size_t max_output_symbols, size_t max_pieces,
                                 size_t max_text_symbols)
    : state_(std::make_unique<State>(device_ordinal, max_input_bytes, max_output_symbols, max_pieces, max_text_symbols)) {}

GpuPieceDecoder::~GpuPieceDecoder() = default;

char* GpuPieceDecoder::input() { return state_->host_input.data(); }

const uint16_t* GpuPieceDecoder::text(size_t k) const {
    return k < state_->text_at.size() ? state_->host_text.data() + state_->text_at[k] : nullptr;
}

std::vector<inflate::PieceOutcome> GpuPieceDecoder::decode(size_t input_size, const std::vector<GpuStreamPiece>& pieces) {
    return state_->decode(input_size, pieces);
}

GpuPieceDecoder::Timings GpuPieceDecoder::last_timings() const { return state_->timings; }

double GpuPieceDecoder::time_resident_kernel() {
    State& st = *state_;
    if (st.last_count == 0) return 0;
    check(cudaSetDevice(st.device), "cudaSetDevice");
    const cudaStream_t s = st.stream.get();
    st.copied_in.record(s);
    st.launch(st.last_count);
    st.decoded.record(s);
    cuda::wait_yielding(st.decoded.get(), "decode_pieces_by_warp");
    return st.decoded.seconds_since(st.copied_in);
}

}  // namespace invidx
