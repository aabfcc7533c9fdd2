// Inflating batches of whole gzip members on a GPU: the bytes of many members
// cross PCIe compressed, each member is decoded (RFC 1951) in device memory,
// its CRC-32 and ISIZE checked, and the text comes back. A member that does
// not decode cleanly is only reported: the caller decodes those bytes again on
// the CPU (GzipStream), whose error messages are the ones users see, so a
// damaged file gives the same error with or without a GPU.
// C++17, no CUDA headers: devices/no_cuda.cpp throws for builds without CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace invidx {

// One gzip member of a batch: its bytes, from the 10-byte header through the
// 8-byte trailer, are [in_offset, in_offset + in_size) of the batch's input;
// its text goes to [out_offset, out_offset + out_size) of the output, where
// out_size is the member's ISIZE field (the caller reads it from the trailer).
struct InflateMember {
    uint64_t in_offset = 0;
    uint64_t out_offset = 0;
    uint32_t in_size = 0;
    uint32_t out_size = 0;
};

// What became of one member. Anything but ok: decode those bytes on the CPU.
enum class InflateStatus : uint8_t {
    ok = 0,
    bad_header,       // not a gzip member header (magic, method 8, reserved flags, header fields past the end)
    bad_deflate,      // an invalid block type, code length set, code, or a distance before the text's start
    truncated,        // the member's bytes end before its final deflate block does
    trailing_bytes,   // the final block ends before the member's last 8 bytes
    output_overflow,  // the deflate data holds more text than out_size
    size_mismatch,    // less text than ISIZE
    crc_mismatch,     // the text's CRC-32 is not the trailer's
};

const char* inflate_status_name(InflateStatus status);

struct InflateOutcome {
    InflateStatus status = InflateStatus::ok;
    uint32_t offset = 0;  // byte of the member where decoding stopped (diagnostics only)
};

// Decodes members [0, count) with the decoder the GPU kernel runs, on the
// calling thread: the reference the kernel is tested against, and what tests
// use where there is no GPU. Writes outcomes[0, count).
void inflate_members_on_host(const char* input, const InflateMember* members, size_t count, char* output,
                             InflateOutcome* outcomes);

// One GPU's batch inflater: device buffers for the largest batch, page-locked
// host buffers the caller fills and reads, and a CUDA stream. One thread at a
// time; make one per worker. Throws invidx::Error when the GPU cannot be used.
class GpuInflater {
public:
    // resident_outputs: device buffers (each grown to the largest batch's
    // text it held, at most max_output_bytes) that a batch's text may stay
    // in after inflate() (resident_output()), at most that many held at
    // once; 0: none.
    GpuInflater(int device_ordinal, size_t max_input_bytes, size_t max_output_bytes, size_t max_members,
                size_t resident_outputs = 0);
    ~GpuInflater();
    GpuInflater(const GpuInflater&) = delete;
    GpuInflater& operator=(const GpuInflater&) = delete;

    // Page-locked: write the batch's compressed bytes here (max_input_bytes).
    char* input();
    // Page-locked: the batch's text is here after inflate() (max_output_bytes).
    const char* output() const;

    // Copies input()[0, input_size) to the GPU, inflates every member, checks
    // CRC-32 and ISIZE, copies the text back to output(). Members must lie
    // inside input_size and their outputs inside max_output_bytes (else
    // invidx::Error). Returns one outcome per member.
    std::vector<InflateOutcome> inflate(size_t input_size, const std::vector<InflateMember>& members);

    int device_ordinal() const;

    // The last inflate()'s text in device memory (the address of its
    // output's first byte), kept there until the last copy of the handle
    // goes; null when the inflater keeps none (resident_outputs 0, or every
    // one held: then the batch's text was decoded into its own scratch
    // buffer, and only output() has it).
    std::shared_ptr<const char> resident_output() const;
    // Batches whose text stayed on the device, and those that found every
    // resident buffer held.
    uint64_t resident_batches() const;
    uint64_t resident_misses() const;
    // Device memory the resident buffers hold now (each grown to the
    // largest batch's text it held).
    uint64_t resident_device_bytes() const;

    // Which kernel inflate() runs: a warp per member, every lane decoding in
    // lockstep while the warp copies matches and stored blocks and takes the
    // CRC-32 (the default); or the first form, a thread per member, kept to
    // compare the two (benchmarks, tests). Both give the same text and outcomes.
    enum class Kernel { warp_per_member, thread_per_member };
    void use_kernel(Kernel kernel);

    // Seconds the last inflate() spent in each part, by CUDA events (benchmarks).
    struct Timings {
        double copy_in = 0;   // input and member table to the device
        double kernel = 0;    // inflating every member, CRC-32 and ISIZE checked
        double copy_out = 0;  // text and outcomes back
    };
    Timings last_timings() const;

    // Runs the last inflate()'s kernel again on the batch still in device
    // memory, nothing crossing PCIe, and returns its seconds by CUDA events:
    // the decoder's own rate (benchmarks). 0 before any inflate().
    double time_resident_kernel();

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace invidx
