// Decoding postings on a GPU (Ding et al. §4 and §6), as the codec benchmark
// measures it: PForDelta and Rice units (below) and bp128 groups
// (store/codecs/bp128.hpp: a bit-width byte, then 128 values in the
// 4-lane vertical layout) copied to device memory once, then decoded there in
// passes, one thread block per unit or group, optionally turning gaps into
// docids with a block prefix sum. The library does not time the passes: a
// GpuPassObserver (the benchmark's CUDA-event timer) may watch each.
// C++17, no CUDA headers: devices/no_cuda.cpp throws for builds without CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct CUstream_st;  // cudaStream_t is CUstream_st*: named without the CUDA headers

namespace invidx {

// Told of every pass of a decode, on the decoding thread with its device
// current: pass_begins before the pass's kernel is queued on `stream` (after
// the checksum is reset), pass_ends after; the decoder then waits for the
// pass, so events recorded on `stream` have completed when it returns.
class GpuPassObserver {
public:
    virtual ~GpuPassObserver() = default;
    virtual void pass_begins(CUstream_st* stream) = 0;
    virtual void pass_ends(CUstream_st* stream) = 0;
};

// How many times the units in device memory are decoded (at least once; every
// pass decodes them all again and the result is the last pass's), and who is
// told of each pass.
struct GpuDecodePasses {
    unsigned count = 1;
    GpuPassObserver* observer = nullptr;
};

struct GpuDecodeResult {
    uint64_t integers = 0;    // values decoded per pass
    uint64_t checksum = 0;    // sum over groups of the group's last value (last docid with docids)
    std::string device;
};

// `bytes` holds the groups; group g starts at group_offsets[g] and holds 128
// values; with docids, first_docids[g] is the docid the gaps count from (the
// previous docid + 1; values are gap - 1, as codecs::docids_to_gaps makes
// them). Throws invidx::Error when no GPU can be used.
GpuDecodeResult gpu_decode_bp128(const std::string& bytes, const std::vector<uint64_t>& group_offsets,
                                 const std::vector<uint32_t>& first_docids, bool docids, GpuDecodePasses passes = {});

// Units of any length encoded back to back by one of the CPU codecs
// (store/codecs/): unit u is bytes [byte_ends[u - 1], byte_ends[u]) (from 0
// for u = 0) and holds value_counts[u] > 0 values; with docids, first_docids[u]
// is where its gaps count from (0 at a list's start, else the previous docid
// + 1). A unit is a block of a list or a whole list, as the codec was given.
struct GpuEncodedUnits {
    std::string bytes;
    std::vector<uint64_t> byte_ends;
    std::vector<uint32_t> value_counts;
    std::vector<uint32_t> first_docids;
};

// PForDelta (codecs::PForDelta) and Rice (codecs::Rice) decoded on the device,
// one thread block per unit: every value's slot (PForDelta) or binary
// part (Rice) by its own thread, exceptions patched after their recursive
// arrays, Rice's unary parts by a prefix sum of the terminating bits; with
// docids, a prefix sum of the gaps. The checksum is the sum of every unit's
// last value. When `values` is given it receives every unit's decoded values,
// back to back. Throws invidx::Error when no GPU can be used or the bytes are
// not what the CPU encoder writes.
GpuDecodeResult gpu_decode_pfor(const GpuEncodedUnits& units, bool docids, std::vector<uint32_t>* values = nullptr,
                                GpuDecodePasses passes = {});
GpuDecodeResult gpu_decode_rice(const GpuEncodedUnits& units, bool docids, std::vector<uint32_t>* values = nullptr,
                                GpuDecodePasses passes = {});

}  // namespace invidx
