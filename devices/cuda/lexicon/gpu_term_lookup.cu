// gpu_find_terms (devices/gpu_term_lookup.hpp): the structure's flat buffer
// and the strings are copied to the device, the view is rebuilt over the
// device copy (its sections are offsets, so the same struct serves), and one
// thread per string runs the host's own lookup (lexicon/*.hpp compiled for
// the device). The simplest parallelization, as the paper's: strings of
// different lengths diverge within a warp; sorting them by length first is
// the obvious next step once this is measured.
#include "devices/gpu_term_lookup.hpp"

#include <chrono>
#include <string>

#include <cuda_runtime.h>

#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/cuda_stream.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

using namespace cuda;

constexpr unsigned kLookupThreads = 256;

template <typename View>
__global__ void __launch_bounds__(kLookupThreads)
    find_terms(View view, const unsigned char* bytes, const uint32_t* offsets, uint32_t count, uint64_t* term_ids) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const uint32_t begin = offsets[i];
    term_ids[i] = view.find(bytes + begin, offsets[i + 1] - begin);
}

void check_input(const GpuLookupInput& input) {
    const auto& offsets = input.offsets;
    ensure(!offsets.empty() && offsets.front() == 0, "gpu_find_terms: the offsets do not start with 0");
    ensure(offsets.back() == input.bytes.size(), "gpu_find_terms: the last offset is not the size of the string bytes");
    for (size_t i = 0; i + 1 < offsets.size(); ++i)
        ensure(offsets[i] <= offsets[i + 1], "gpu_find_terms: offset " + std::to_string(i + 1) + " decreases");
}

template <typename Sections>
GpuLookupResult find_on_device(int device, const Sections& sections, const std::vector<uint64_t>& buffer,
                               const GpuLookupInput& input) {
    check_input(input);
    const size_t count = input.offsets.size() - 1;
    GpuLookupResult result;
    result.term_ids.resize(count);
    if (count == 0) return result;
    use_device(device);
    const auto start = std::chrono::steady_clock::now();
    const ScopedStream stream;  // declared before the arrays: it outlives their frees
    MemoryCounter memory;
    DeviceArray<uint64_t> device_buffer(memory);
    DeviceArray<unsigned char> device_bytes(memory);
    DeviceArray<uint32_t> device_offsets(memory);
    DeviceArray<uint64_t> device_ids(memory);
    device_buffer.reserve(buffer.size(), 0, stream.get());
    device_bytes.reserve(input.bytes.size() + 1, 0, stream.get());
    device_offsets.reserve(count + 1, 0, stream.get());
    device_ids.reserve(count, 0, stream.get());
    check(cudaMemcpyAsync(device_buffer.data(), buffer.data(), buffer.size() * sizeof(uint64_t), cudaMemcpyHostToDevice,
                          stream.get()),
          "cudaMemcpyAsync (dictionary)");
    check(cudaMemcpyAsync(device_bytes.data(), input.bytes.data(), input.bytes.size(), cudaMemcpyHostToDevice, stream.get()),
          "cudaMemcpyAsync (strings)");
    check(cudaMemcpyAsync(device_offsets.data(), input.offsets.data(), (count + 1) * sizeof(uint32_t), cudaMemcpyHostToDevice,
                          stream.get()),
          "cudaMemcpyAsync (offsets)");
    cudaEvent_t kernel_start, kernel_end;
    check(cudaEventCreate(&kernel_start), "cudaEventCreate");
    check(cudaEventCreate(&kernel_end), "cudaEventCreate");
    check(cudaEventRecord(kernel_start, stream.get()), "cudaEventRecord");
    const auto view = sections.view(device_buffer.data());  // device addresses: only the kernel reads them
    const auto blocks = static_cast<unsigned>((count + kLookupThreads - 1) / kLookupThreads);
    find_terms<<<blocks, kLookupThreads, 0, stream.get()>>>(view, device_bytes.data(), device_offsets.data(),
                                                            static_cast<uint32_t>(count), device_ids.data());
    check_launch("find_terms");
    check(cudaEventRecord(kernel_end, stream.get()), "cudaEventRecord");
    check(cudaMemcpyAsync(result.term_ids.data(), device_ids.data(), count * sizeof(uint64_t), cudaMemcpyDeviceToHost,
                          stream.get()),
          "cudaMemcpyAsync (term ids)");
    check(cudaStreamSynchronize(stream.get()), "find_terms");
    float kernel_ms = 0;
    check(cudaEventElapsedTime(&kernel_ms, kernel_start, kernel_end), "cudaEventElapsedTime");
    cudaEventDestroy(kernel_start);
    cudaEventDestroy(kernel_end);
    result.kernel_ms = kernel_ms;
    result.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace

GpuLookupResult gpu_find_terms(int device, const lexicon::XbwTrieSections& sections, const std::vector<uint64_t>& buffer,
                               const GpuLookupInput& input) {
    return find_on_device(device, sections, buffer, input);
}

GpuLookupResult gpu_find_terms(int device, const lexicon::HashedTermsSections& sections, const std::vector<uint64_t>& buffer,
                               const GpuLookupInput& input) {
    return find_on_device(device, sections, buffer, input);
}

}  // namespace invidx
