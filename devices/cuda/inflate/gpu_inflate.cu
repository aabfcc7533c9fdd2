// GpuInflater (devices/gpu_inflate.hpp): a batch of whole gzip members
// inflated on one GPU. The batch's compressed bytes and member table cross
// PCIe once, one kernel decodes every member, and the text and outcomes come
// back, all on the inflater's own stream.
//
// A deflate stream is a chain of variable-length codes, each symbol's
// position known only once the one before it is decoded, so a member does
// not split without speculation; a batch of thousands of members (a WARC.gz
// holds one a record) fills the device instead. Two kernels:
//   - a warp per member (the default; warp_member_decoder.cuh): every lane
//     runs the host's decoder on the same bits in lockstep, its tables in
//     the warp's shared memory, lane 0 writes the literals, the warp copies
//     every match and stored block and takes the CRC-32 in 32 pieces. A
//     block of one warp a member, longest first, so the longest start first
//     and the short ones fill in at the end. The kernel lasts at least as
//     long as the batch's longest member: a warp decodes about 20 MB/s (on
//     an H200 a batch of 4,911 real pages, the longest 279 KB, takes 15.2
//     ms; 21 ms when lane 0 decoded alone and handed long matches to the
//     warp).
//   - a thread per member (the first form, kept for comparison): each
//     thread's tables (about 7 KiB) in local memory; members longest first
//     (the order array), so that a warp's 32 threads finish together; the
//     CRC-32 tables in each block's shared memory.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/cuda_event.hpp"
#include "devices/cuda/common/cuda_stream.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "devices/cuda/inflate/resident_outputs.hpp"
#include "devices/cuda/inflate/warp_member_decoder.cuh"
#include "devices/gpu_inflate.hpp"
#include "devices/inflate/deflate_member_decoder.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

using cuda::check;
using cuda::check_launch;

// One warp a block: a batch of a few thousand members is a few hundred
// warps, and blocks of one warp spread them over every SM (blocks of 128
// threads would leave most SMs idle: 5,000 members, 40 blocks, 132 SMs).
constexpr unsigned kThreads = 32;

// The CRC-32 tables: the thread kernel copies them into each block's shared
// memory; the warp kernel reads them here, through L1 (in shared memory they
// took 8 KiB a block).
__device__ const inflate::Crc32Tables kDeviceCrc32Tables = inflate::make_crc32_tables();

// Member order[k] for k = this thread, then every grid's worth after it.
// A minimum of blocks an SM in the bound, or ptxas gives the decoder 32
// registers and spills.
__global__ void __launch_bounds__(kThreads, 16)
    inflate_members(const unsigned char* input, const InflateMember* members, const uint32_t* order, uint32_t count,
                    unsigned char* output, InflateOutcome* outcomes) {
    __shared__ uint32_t crc[8][256];
    for (unsigned i = threadIdx.x; i < 8 * 256; i += blockDim.x) crc[i >> 8][i & 0xFF] = kDeviceCrc32Tables.t[i >> 8][i & 0xFF];
    __syncthreads();
    inflate::DecoderTables tables;
    const uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
        const uint32_t i = order[k];
        const InflateMember m = members[i];
        outcomes[i] = inflate::inflate_gzip_member(input + m.in_offset, m.in_size, output + m.out_offset, m.out_size, tables, crc);
    }
}

__constant__ inflate::Crc32ShiftPowers kDeviceShiftPowers = inflate::make_crc32_shift_powers();

// The warp kernel's dynamic shared memory: the shift powers, then the
// warp's decoder tables.
constexpr size_t kShiftPowersBytes = sizeof(uint32_t) * 32;
constexpr size_t kWarpKernelSharedBytes = kShiftPowersBytes + sizeof(inflate::DecoderTables);
static_assert(kShiftPowersBytes % 16 == 0, "the tables aligned");

// Block k, one warp, inflates member order[k] in lockstep; lane 0 writes
// its outcome.
// A block ends with its member, so what it held goes at once to the next
// member's block (blocks start in order: longest member first) or to
// another stream's kernels. (Persistent blocks of 8 warps taking members
// from a counter held their 75 KiB until their last warp's member ended:
// 5.5 against 7.1 GB/s on a per-record WARC.gz file, H200.)
__global__ void __launch_bounds__(32)
    inflate_members_by_warp(const unsigned char* input, const InflateMember* members, const uint32_t* order,
                            unsigned char* output, InflateOutcome* outcomes) {
    extern __shared__ __align__(16) unsigned char shared[];
    auto* shift_powers = reinterpret_cast<uint32_t*>(shared);
    auto* tables = reinterpret_cast<inflate::DecoderTables*>(shared + kShiftPowersBytes);
    shift_powers[threadIdx.x] = kDeviceShiftPowers.powers[threadIdx.x];
    __syncwarp();
    const uint32_t i = order[blockIdx.x];
    const InflateMember m = members[i];
    const InflateOutcome outcome = inflate::inflate_gzip_member_by_warp(
        input + m.in_offset, m.in_size, output + m.out_offset, m.out_size, *tables, kDeviceCrc32Tables.t, shift_powers);
    if (threadIdx.x == 0) outcomes[i] = outcome;
}

}  // namespace

struct GpuInflater::State {
    State(int ordinal, size_t max_input_bytes, size_t max_output_bytes, size_t max_members, size_t resident_outputs)
        : device(ordinal),
          name(cuda::use_device(ordinal)),
          max_input(max_input_bytes),
          max_output(max_output_bytes),
          max_count(max_members),
          input(memory),
          output(memory),
          members(memory),
          order(memory),
          outcomes(memory),
          host_input(host_memory),
          host_output(host_memory),
          host_members(host_memory),
          host_order(host_memory),
          host_outcomes(host_memory) {
        const cudaStream_t s = stream.get();
        input.reserve(std::max<size_t>(max_input, 1), 0, s);
        output.reserve(std::max<size_t>(max_output, 1), 0, s);
        members.reserve(std::max<size_t>(max_count, 1), 0, s);
        order.reserve(std::max<size_t>(max_count, 1), 0, s);
        outcomes.reserve(std::max<size_t>(max_count, 1), 0, s);
        host_input.reserve(std::max<size_t>(max_input, 1));
        host_output.reserve(std::max<size_t>(max_output, 1));
        host_members.reserve(std::max<size_t>(max_count, 1));
        host_order.reserve(std::max<size_t>(max_count, 1));
        host_outcomes.reserve(std::max<size_t>(max_count, 1));
        if (resident_outputs > 0)
            resident = std::make_shared<cuda::ResidentOutputs>(device, resident_outputs, std::max<size_t>(max_output, 1));
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize");  // allocations done before the first batch
    }

    int device;
    std::string name;
    size_t max_input, max_output, max_count;
    cuda::ScopedStream stream;  // before the arrays: it outlives their frees
    cuda::MemoryCounter memory, host_memory;
    cuda::DeviceArray<unsigned char> input, output;
    cuda::DeviceArray<InflateMember> members;
    cuda::DeviceArray<uint32_t> order;
    cuda::DeviceArray<InflateOutcome> outcomes;
    cuda::PinnedArray<char> host_input, host_output;
    cuda::PinnedArray<InflateMember> host_members;
    cuda::PinnedArray<uint32_t> host_order;
    cuda::PinnedArray<InflateOutcome> host_outcomes;
    cuda::ScopedEvent started, copied_in, decoded, copied_out;
    uint32_t last_count = 0;
    Timings timings;
    Kernel kernel = Kernel::warp_per_member;
    // Lent buffers may outlive the inflater (text blocks still hold them).
    std::shared_ptr<cuda::ResidentOutputs> resident;
    std::shared_ptr<const char> last_resident;  // the last batch's text, when it stayed on the device
    unsigned char* target = nullptr;            // where the last batch decoded: output, or a resident buffer

    void launch(uint32_t count) {
        if (kernel == Kernel::warp_per_member) {
            inflate_members_by_warp<<<count, 32, kWarpKernelSharedBytes, stream.get()>>>(
                input.data(), members.data(), order.data(), target, outcomes.data());
            check_launch("inflate_members_by_warp");
            return;
        }
        const unsigned blocks = static_cast<unsigned>((count + kThreads - 1) / kThreads);
        inflate_members<<<blocks, kThreads, 0, stream.get()>>>(input.data(), members.data(), order.data(), count, target,
                                                               outcomes.data());
        check_launch("inflate_members");
    }

    std::vector<InflateOutcome> inflate(size_t input_size, const std::vector<InflateMember>& batch);
};

std::vector<InflateOutcome> GpuInflater::State::inflate(size_t input_size, const std::vector<InflateMember>& batch) {
    if (input_size > max_input) {
        throw Error("GPU inflate: a batch of " + std::to_string(input_size) + " input bytes, the inflater holds " +
                    std::to_string(max_input));
    }
    if (batch.size() > max_count) {
        throw Error("GPU inflate: a batch of " + std::to_string(batch.size()) + " members, the inflater holds " +
                    std::to_string(max_count));
    }
    uint64_t output_end = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
        const InflateMember& m = batch[i];
        if (m.in_offset > input_size || m.in_size > input_size - m.in_offset) {
            throw Error("GPU inflate: member " + std::to_string(i) + "'s bytes [" + std::to_string(m.in_offset) + ", " +
                        std::to_string(m.in_offset + m.in_size) + ") are past the batch's " + std::to_string(input_size) +
                        " input bytes");
        }
        if (m.out_offset > max_output || m.out_size > max_output - m.out_offset) {
            throw Error("GPU inflate: member " + std::to_string(i) + "'s text [" + std::to_string(m.out_offset) + ", " +
                        std::to_string(m.out_offset + m.out_size) + ") is past the inflater's " + std::to_string(max_output) +
                        " output bytes");
        }
        output_end = std::max<uint64_t>(output_end, m.out_offset + m.out_size);
    }
    last_count = static_cast<uint32_t>(batch.size());
    timings = {};
    last_resident.reset();
    if (batch.empty()) return {};
    check(cudaSetDevice(device), "cudaSetDevice");
    // The text stays on the device where a resident buffer is free.
    cuda::DeviceArray<unsigned char>* kept = resident ? resident->take(output_end, stream.get()) : nullptr;
    std::shared_ptr<const char> lent = kept ? resident->lend(kept) : nullptr;  // handed on once the batch is done
    target = kept ? kept->data() : output.data();

    // Longest text first: a warp's members of about one size.
    const uint32_t count = last_count;
    uint32_t* sorted = host_order.data();
    std::iota(sorted, sorted + count, 0u);
    std::stable_sort(sorted, sorted + count, [&](uint32_t a, uint32_t b) { return batch[a].out_size > batch[b].out_size; });
    std::copy(batch.begin(), batch.end(), host_members.data());

    const cudaStream_t s = stream.get();
    started.record(s);
    if (input_size > 0) {
        check(cudaMemcpyAsync(input.data(), host_input.data(), input_size, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (input)");
    }
    check(cudaMemcpyAsync(members.data(), host_members.data(), count * sizeof(InflateMember), cudaMemcpyHostToDevice, s),
          "cudaMemcpyAsync (members)");
    check(cudaMemcpyAsync(order.data(), host_order.data(), count * sizeof(uint32_t), cudaMemcpyHostToDevice, s),
          "cudaMemcpyAsync (order)");
    copied_in.record(s);
    launch(count);
    decoded.record(s);
    check(cudaMemcpyAsync(host_outcomes.data(), outcomes.data(), count * sizeof(InflateOutcome), cudaMemcpyDeviceToHost, s),
          "cudaMemcpyAsync (outcomes)");
    if (output_end > 0) {
        check(cudaMemcpyAsync(host_output.data(), target, output_end, cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync (text)");
    }
    copied_out.record(s);
    cuda::wait_yielding(copied_out.get(), "inflate_members");
    last_resident = std::move(lent);
    timings.copy_in = copied_in.seconds_since(started);
    timings.kernel = decoded.seconds_since(copied_in);
    timings.copy_out = copied_out.seconds_since(decoded);
    return std::vector<InflateOutcome>(host_outcomes.data(), host_outcomes.data() + count);
}

GpuInflater::GpuInflater(int device_ordinal, size_t max_input_bytes, size_t max_output_bytes, size_t max_members,
                         size_t resident_outputs)
    : state_(std::make_unique<State>(device_ordinal, max_input_bytes, max_output_bytes, max_members, resident_outputs)) {}

GpuInflater::~GpuInflater() = default;

char* GpuInflater::input() { return state_->host_input.data(); }

const char* GpuInflater::output() const { return state_->host_output.data(); }

std::vector<InflateOutcome> GpuInflater::inflate(size_t input_size, const std::vector<InflateMember>& members) {
    return state_->inflate(input_size, members);
}

void GpuInflater::use_kernel(Kernel kernel) { state_->kernel = kernel; }

int GpuInflater::device_ordinal() const { return state_->device; }

std::shared_ptr<const char> GpuInflater::resident_output() const { return state_->last_resident; }

uint64_t GpuInflater::resident_batches() const { return state_->resident ? state_->resident->lent() : 0; }

uint64_t GpuInflater::resident_misses() const { return state_->resident ? state_->resident->misses() : 0; }

uint64_t GpuInflater::resident_device_bytes() const { return state_->resident ? state_->resident->device_bytes() : 0; }

GpuInflater::Timings GpuInflater::last_timings() const { return state_->timings; }

double GpuInflater::time_resident_kernel() {
    State& st = *state_;
    if (st.last_count == 0) return 0;
    check(cudaSetDevice(st.device), "cudaSetDevice");
    const cudaStream_t s = st.stream.get();
    st.copied_in.record(s);
    st.launch(st.last_count);
    st.decoded.record(s);
    cuda::wait_yielding(st.decoded.get(), "inflate_members");
    return st.decoded.seconds_since(st.copied_in);
}

}  // namespace invidx
