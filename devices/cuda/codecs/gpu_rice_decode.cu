// Rice decoded on the GPU as Ding et al. do it (WWW 2009, §6.1), on the
// bytes codecs::Rice writes (store/codecs/rice.hpp): b, the binary parts
// packed at b bits, then the unary parts, value i's quotient as q one-bits
// ended by a zero-bit. The unary array is read as a bit array: each thread
// takes a 32-bit word and counts its zero bits; an exclusive prefix sum of
// the counts numbers the terminators, so each thread knows which values its
// zero bits end and writes their bit positions (the compaction of §6.1).
// Value i's quotient is then the distance between terminators i - 1 and i,
// less one, and every value is its binary part, unpacked by its own thread,
// plus quotient << b.
#include "devices/cuda/codecs/packed_slots.cuh"
#include "devices/cuda/codecs/unit_decoder.cuh"

namespace invidx {
namespace {

using namespace cuda;

// Bit positions are 32-bit: a unit's unary part stays under 2^28 bytes.
constexpr uint64_t kMaxUnaryBytes = uint64_t{1} << 28;

template <bool kDocids>
__global__ void __launch_bounds__(kUnitThreads) decode_rice(DeviceUnits units) {
    __shared__ unsigned char staged[kStagedBytes];
    __shared__ uint32_t shared_values[kSharedValues];
    __shared__ uint32_t shared_terminators[kSharedValues];
    __shared__ typename CarriedScan<uint32_t>::Scan::TempStorage scan_storage;

    const UnitPlace unit = unit_place(units, blockIdx.x);
    const uint32_t n = unit.count;
    // The same bytes in every thread, so every thread takes the same branch.
    auto reject = [&] {
        if (threadIdx.x == 0) *units.error = 1;
    };
    const uint64_t size = unit.end - unit.begin;
    if (size == 0) return reject();
    const unsigned char* bytes = unit_bytes(units, unit, staged);
    const uint32_t b = bytes[0];
    if (b > 31) return reject();
    const uint64_t binary_bytes = packed_slot_bytes(n, b);
    if (size - 1 < binary_bytes) return reject();
    const unsigned char* binary = bytes + 1;
    const unsigned char* unary = binary + binary_bytes;
    const uint64_t unary_bytes = size - 1 - binary_bytes;
    if (unary_bytes >= kMaxUnaryBytes) return reject();

    const bool in_shared = n <= kSharedValues;
    uint32_t* values = in_shared ? shared_values : units.values + unit.first_value;
    uint32_t* terminators = in_shared ? shared_terminators : units.scratch + unit.first_value;

    // Terminator j's bit position into terminators[j], for j < n; the zero
    // bits that pad the last byte are numbered n and up, and dropped.
    const auto words = static_cast<uint32_t>((unary_bytes + 3) / 4);
    CarriedScan<uint32_t> scan{scan_storage};
    for (uint32_t base = 0; base < words; base += kUnitThreads) {
        const uint32_t w = base + threadIdx.x;
        uint32_t zeros = 0;
        if (w < words) {
            uint32_t word = 0, present = 0;
            for (uint32_t k = 0; k < 4 && 4 * uint64_t{w} + k < unary_bytes; ++k) {
                word |= static_cast<uint32_t>(unary[4 * w + k]) << (8 * k);
                present |= 0xFFu << (8 * k);
            }
            zeros = ~word & present;
        }
        uint32_t j = scan.exclusive(__popc(zeros));
        for (; zeros != 0 && j < n; ++j, zeros &= zeros - 1) {
            terminators[j] = 32 * w + (__ffs(static_cast<int>(zeros)) - 1);
        }
    }
    if (scan.carry < n) return reject();  // the unary part ends before the last value
    __syncthreads();

    const uint32_t max_quotient = 0xFFFFFFFFu >> b;
    for (uint32_t i = threadIdx.x; i < n; i += kUnitThreads) {
        const uint32_t code_start = i == 0 ? 0 : terminators[i - 1] + 1;
        uint32_t quotient = terminators[i] - code_start;
        if (quotient > max_quotient) {
            *units.error = 1;
            quotient = 0;
        }
        values[i] = packed_slot(binary, n, b, i) | (quotient << b);
    }
    if (threadIdx.x == 0) {
        // As the CPU decoder: no byte after the last value's code, and no
        // one bit after its terminator in the last byte.
        const uint32_t stop = terminators[n - 1] + 1;
        const uint32_t used = (stop + 7) / 8;
        if (used != unary_bytes || (stop % 8 != 0 && (unary[used - 1] >> (stop % 8)) != 0)) *units.error = 1;
    }
    __syncthreads();
    finish_unit<kDocids>(values, units.values + unit.first_value, n, kDocids ? units.first_docids[blockIdx.x] : 0,
                         scan_storage, units.checksum);
}

}  // namespace

GpuDecodeResult gpu_decode_rice(const GpuEncodedUnits& units, bool docids, std::vector<uint32_t>* values,
                                GpuDecodePasses passes) {
    auto launch = [](const DeviceUnits& device_units, unsigned count, bool with_docids, cudaStream_t stream) {
        if (with_docids) {
            decode_rice<true><<<count, kUnitThreads, 0, stream>>>(device_units);
        } else {
            decode_rice<false><<<count, kUnitThreads, 0, stream>>>(device_units);
        }
    };
    return decode_units("rice", units, docids, values, passes, launch);
}

}  // namespace invidx
