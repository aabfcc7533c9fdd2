// The tokenizer of CONTENT.md §4, over UTF-8 bytes. It is the innermost loop of the
// engine, so it is a template (the callback inlines) and allocates nothing:
// each token is lowercased into a fixed buffer on the stack. The loop itself
// (for_each_token.hpp) and the byte classes (token_bytes.hpp) are shared with
// device code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analysis/for_each_token.hpp"

namespace invidx {

// Calls on_token(std::string_view) for each token of `text` of at most
// kMaxTokenBytes bytes, in order, ASCII letters lowercased. The view is valid
// only during the call.
template <class OnToken>
void tokenize(std::string_view text, OnToken&& on_token) {
    for_each_token(reinterpret_cast<const unsigned char*>(text.data()), text.size(), false,
                   [&](const unsigned char* token, uint32_t length, size_t) {
                       on_token(std::string_view(reinterpret_cast<const char*>(token), length));
                   });
}

}  // namespace invidx
