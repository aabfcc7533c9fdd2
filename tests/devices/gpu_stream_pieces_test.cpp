// GpuPieceDecoder (devices/gpu_stream_pieces.hpp) gives the CPU's stream
// pieces (support/stream_pieces.hpp): the same blocks, stops, symbols and
// trailers, and fails where the CPU fails. GPU test cases
// (support/gpu_test.hpp), but for the error where no GPU is usable.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "devices/gpu_stream_pieces.hpp"
#include "invidx/error.hpp"
#include "support/gpu_test.hpp"
#include "support/stream_pieces.hpp"

namespace {

using namespace invidx;
using namespace invidx::testing;

// Every piece in one batch, each over the whole file.
size_t check_on_gpu(const std::string& file, size_t piece_bytes) {
    return check_pieces_alike(file, piece_bytes, [&](const std::string& f, const std::vector<inflate::PieceBounds>& bounds) {
        const uint32_t capacity = test_piece_capacity(piece_bytes);
        std::vector<GpuStreamPiece> pieces(bounds.size());
        for (size_t k = 0; k < bounds.size(); ++k) {
            pieces[k].in_offset = 0;
            pieces[k].in_size = static_cast<uint32_t>(f.size());
            pieces[k].out_capacity = capacity;
            pieces[k].out_offset = uint64_t{k} * capacity;
            pieces[k].bounds = bounds[k];
        }
        GpuPieceDecoder decoder(0, f.size(), uint64_t{capacity} * pieces.size(), pieces.size(),
                                uint64_t{capacity} * pieces.size());
        std::memcpy(decoder.input(), f.data(), f.size());
        const std::vector<inflate::PieceOutcome> outcomes = decoder.decode(f.size(), pieces);
        std::vector<WarpPiece> out(outcomes.size());
        for (size_t k = 0; k < outcomes.size(); ++k) {
            out[k].outcome = outcomes[k];
            const uint16_t* symbols = decoder.text(k);
            if (outcomes[k].ok) out[k].symbols.assign(symbols, symbols + outcomes[k].symbols);
        }
        return out;
    });
}

}  // namespace

NO_GPU_TEST_CASE("GpuPieceDecoder: without a usable GPU the constructor throws") {
    CHECK_THROWS_AS(GpuPieceDecoder(0, 1 << 20, 1 << 20, 16, 1 << 20), Error);
}

GPU_TEST_CASE("gpu stream pieces: levels, flush points and piece sizes as the CPU decodes them") {
    check_every_stream(21, check_on_gpu);
}

GPU_TEST_CASE("gpu stream pieces: damage, truncation and stored blocks fail where the CPU's fail") {
    check_failing_streams(22, check_on_gpu);
}
