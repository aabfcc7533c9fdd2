// Compiles the analyzer's shared host/device code (analysis/token_bytes.hpp,
// analysis/stopword_table.hpp; analysis/porter.hpp runs in gpu_stemmer.cu)
// for the device, so that a change nvcc cannot compile for the GPU breaks the
// CUDA build here, before any GPU parser depends on it. The kernel is never
// launched.
#include <cstdint>

#include "analysis/stopword_table.hpp"
#include "analysis/token_bytes.hpp"

namespace invidx {

// A token scan over one text with the byte classes of SPEC §3, counting the
// tokens that are not stop words: what a GPU parser's inner loop needs.
// External linkage keeps nvcc from dropping it as unused.
__global__ void count_indexed_tokens(const unsigned char* text, uint32_t size, StopwordTable stopwords,
                                     uint32_t* indexed) {
    unsigned char token[kMaxTokenBytes];
    uint32_t token_bytes = 0;
    uint32_t count = 0;
    const unsigned char* p = text;
    const unsigned char* const end = text + size;
    const auto end_token = [&] {
        if (token_bytes != 0 && token_bytes <= kMaxTokenBytes && !stopwords.contains(token, token_bytes)) ++count;
        token_bytes = 0;
    };
    while (p < end) {
        if (*p < 0x80) {
            const unsigned char lowered = utf8::ascii_token_byte(*p);
            if (lowered == 0) {
                end_token();
            } else {
                if (token_bytes < kMaxTokenBytes) token[token_bytes] = lowered;
                ++token_bytes;
            }
            ++p;
            continue;
        }
        const utf8::Character character = utf8::classify_multibyte(p, end);
        if (!character.token) {
            end_token();
        } else {
            for (uint8_t i = 0; i < character.bytes && token_bytes + i < kMaxTokenBytes; ++i) {
                token[token_bytes + i] = p[i];
            }
            token_bytes += character.bytes;
        }
        p += character.bytes;
    }
    end_token();
    *indexed = count;
}

}  // namespace invidx
