// gpu_stem_tokens (devices/gpu_stemmer.hpp): one thread per token runs the
// host's Porter stemmer (analysis/porter.hpp) on a copy in its own local
// memory, so the device computes exactly what the CPU computes.
#include "devices/gpu_stemmer.hpp"

#include <string>

#include <cuda_runtime.h>

#include "analysis/porter.hpp"
#include "analysis/token_bytes.hpp"
#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/cuda_stream.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

using namespace cuda;

constexpr unsigned kStemThreads = 256;

// Each stem is written at its token's offset: a stem is never longer than
// its token, so the stems need no offsets of their own until the host packs
// them.
__global__ void __launch_bounds__(kStemThreads)
    stem_tokens(const unsigned char* bytes, const uint32_t* offsets, uint32_t count, unsigned char* stems,
                uint32_t* stem_lengths) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const uint32_t begin = offsets[i];
    const uint32_t length = offsets[i + 1] - begin;  // at most kMaxTokenBytes: checked by the host
    unsigned char word[kMaxTokenBytes];
    for (uint32_t k = 0; k < length; ++k) word[k] = bytes[begin + k];
    const uint32_t stem_length = porter_stem_in_place(word, length);
    for (uint32_t k = 0; k < stem_length; ++k) stems[begin + k] = word[k];
    stem_lengths[i] = stem_length;
}

// Tokens a kernel can take: offsets from 0 to the end of the bytes, never
// decreasing, no token longer than the tokenizer keeps.
void check_token_list(const GpuTokenList& tokens) {
    const auto& offsets = tokens.offsets;
    ensure(offsets.empty() || offsets.front() == 0, "gpu_stem_tokens: the first offset is not 0");
    ensure(offsets.empty() ? tokens.bytes.empty() : offsets.back() == tokens.bytes.size(),
           "gpu_stem_tokens: the last offset is not the size of the token bytes");
    for (size_t i = 0; i + 1 < offsets.size(); ++i) {
        ensure(offsets[i] <= offsets[i + 1] && offsets[i + 1] - offsets[i] <= kMaxTokenBytes,
               "gpu_stem_tokens: token " + std::to_string(i) + " has no valid length (at most " +
                   std::to_string(kMaxTokenBytes) + " bytes)");
    }
}


}  // namespace

GpuTokenList gpu_stem_tokens(int device, const GpuTokenList& tokens) {
    check_token_list(tokens);
    const size_t count = tokens.size();
    GpuTokenList stems;
    stems.offsets.push_back(0);
    if (count == 0) return stems;

    use_device(device);
    const cuda::ScopedStream stream;  // declared before the arrays: it outlives their frees
    MemoryCounter memory;
    DeviceArray<unsigned char> device_bytes(memory);
    DeviceArray<unsigned char> device_stems(memory);
    DeviceArray<uint32_t> device_offsets(memory);
    DeviceArray<uint32_t> device_lengths(memory);
    const size_t bytes = tokens.bytes.size();
    device_bytes.reserve(bytes, 0, stream.get());
    device_stems.reserve(bytes, 0, stream.get());
    device_offsets.reserve(count + 1, 0, stream.get());
    device_lengths.reserve(count, 0, stream.get());
    check(cudaMemcpyAsync(device_bytes.data(), tokens.bytes.data(), bytes, cudaMemcpyHostToDevice, stream.get()),
          "cudaMemcpyAsync (tokens)");
    check(cudaMemcpyAsync(device_offsets.data(), tokens.offsets.data(), (count + 1) * sizeof(uint32_t),
                          cudaMemcpyHostToDevice, stream.get()),
          "cudaMemcpyAsync (offsets)");
    const auto blocks = static_cast<unsigned>((count + kStemThreads - 1) / kStemThreads);
    stem_tokens<<<blocks, kStemThreads, 0, stream.get()>>>(device_bytes.data(), device_offsets.data(),
                                                           static_cast<uint32_t>(count), device_stems.data(),
                                                           device_lengths.data());
    check_launch("stem_tokens");

    std::string unpacked(bytes, '\0');
    std::vector<uint32_t> lengths(count);
    check(cudaMemcpyAsync(unpacked.data(), device_stems.data(), bytes, cudaMemcpyDeviceToHost, stream.get()),
          "cudaMemcpyAsync (stems)");
    check(cudaMemcpyAsync(lengths.data(), device_lengths.data(), count * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                          stream.get()),
          "cudaMemcpyAsync (stem lengths)");
    check(cudaStreamSynchronize(stream.get()), "stem_tokens");

    stems.bytes.reserve(bytes);
    stems.offsets.reserve(count + 1);
    for (size_t i = 0; i < count; ++i) {
        stems.bytes.append(unpacked, tokens.offsets[i], lengths[i]);
        stems.offsets.push_back(static_cast<uint32_t>(stems.bytes.size()));
    }
    return stems;
}

}  // namespace invidx
