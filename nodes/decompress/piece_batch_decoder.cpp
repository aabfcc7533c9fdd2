#include "nodes/decompress/piece_batch_decoder.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "devices/inflate/host_lanes.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

// The tests' pretend GPU: the warp decoder of the kernel, its lanes taken in turn.
class HostPieceDecoder final : public PieceBatchDecoder {
public:
    explicit HostPieceDecoder(const PieceBatchLimits& limits)
        : limits_(limits), input_(limits.input_bytes, '\0'), output_(limits.output_symbols),
          tables_(std::make_unique<inflate::DecoderTables>()) {}
    const PieceBatchLimits& limits() const override { return limits_; }
    char* input() override { return input_.data(); }
    const uint16_t* text(size_t k) const override {
        return output_.data() + text_at_.at(k) + inflate::kPieceWindowSymbols;
    }
    std::vector<inflate::PieceOutcome> decode(size_t input_size, const std::vector<GpuStreamPiece>& pieces) override {
        ensure(input_size <= input_.size() && pieces.size() <= limits_.pieces, "a piece batch past its limits");
        std::vector<inflate::PieceOutcome> outcomes(pieces.size());
        text_at_.resize(pieces.size());
        uint64_t text_symbols = 0;
        for (size_t i = 0; i < pieces.size(); ++i) {
            const GpuStreamPiece& p = pieces[i];
            ensure(p.in_offset + p.in_size <= input_size && p.out_offset + p.out_capacity <= output_.size(),
                   "a piece past its batch");
            inflate::HostPieceLanes lanes;
            outcomes[i] = inflate::decode_piece_in_lockstep(reinterpret_cast<const unsigned char*>(input_.data()) + p.in_offset,
                                                            p.in_size, p.bounds, output_.data() + p.out_offset,
                                                            p.out_capacity, *tables_, lanes);
            text_at_[i] = p.out_offset;
            // As the GPU's: text past the host's room is not returned.
            if (outcomes[i].ok && outcomes[i].symbols > limits_.text_symbols - text_symbols) {
                outcomes[i] = inflate::PieceOutcome{};
                outcomes[i].out_of_room = 1;
            }
            if (outcomes[i].ok) text_symbols += outcomes[i].symbols;
        }
        return outcomes;
    }

private:
    PieceBatchLimits limits_;
    std::string input_;
    std::vector<uint16_t> output_;
    std::vector<uint64_t> text_at_;  // piece k's room in output_
    std::unique_ptr<inflate::DecoderTables> tables_;
};

class GpuPieceBatchDecoder final : public PieceBatchDecoder {
public:
    GpuPieceBatchDecoder(int ordinal, const PieceBatchLimits& limits)
        : limits_(limits), gpu_(ordinal, limits.input_bytes, limits.output_symbols, limits.pieces, limits.text_symbols) {}
    const PieceBatchLimits& limits() const override { return limits_; }
    char* input() override { return gpu_.input(); }
    const uint16_t* text(size_t k) const override { return gpu_.text(k); }
    std::vector<inflate::PieceOutcome> decode(size_t input_size, const std::vector<GpuStreamPiece>& pieces) override {
        return gpu_.decode(input_size, pieces);
    }
    GpuPieceDecoder::Timings last_device_seconds() const override { return gpu_.last_timings(); }

private:
    PieceBatchLimits limits_;
    GpuPieceDecoder gpu_;
};

}  // namespace

PieceBatchLimits piece_batch_limits(size_t input_bytes, size_t piece_bytes) {
    PieceBatchLimits limits;
    limits.input_bytes = input_bytes;
    limits.pieces = input_bytes / std::max<size_t>(piece_bytes, 1) + 16;
    const uint64_t symbols = inflate::kPieceWindowSymbols + uint64_t{8} * piece_bytes + (uint64_t{384} << 10);
    limits.piece_symbols = static_cast<uint32_t>(std::min<uint64_t>(symbols, uint64_t{1} << 30));
    limits.output_symbols = limits.pieces * limits.piece_symbols;
    limits.text_symbols = uint64_t{8} * input_bytes;
    return limits;
}

std::unique_ptr<PieceBatchDecoder> make_host_piece_decoder(const PieceBatchLimits& limits) {
    return std::make_unique<HostPieceDecoder>(limits);
}

std::unique_ptr<PieceBatchDecoder> make_gpu_piece_decoder(int ordinal, const PieceBatchLimits& limits) {
    return std::make_unique<GpuPieceBatchDecoder>(ordinal, limits);
}

}  // namespace invidx
