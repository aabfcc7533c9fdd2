// The tokenizer of SPEC §3, over UTF-8 bytes. It is the innermost loop of the
// engine, so it is a template (the callback inlines) and allocates nothing:
// each token is lowercased into a fixed buffer on the stack. The step itself
// (token_stepper.hpp) and the byte classes (token_bytes.hpp) are shared with
// device code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analysis/token_stepper.hpp"

namespace invidx {

// Calls on_token(std::string_view) for each token of `text` of at most
// kMaxTokenBytes bytes, in order, ASCII letters lowercased. The view is valid
// only during the call.
template <class OnToken>
void tokenize(std::string_view text, OnToken&& on_token) {
    unsigned char token[kMaxTokenBytes];
    TokenStepper<size_t> stepper(reinterpret_cast<const unsigned char*>(text.data()), text.size(), false);
    size_t start = 0;
    while (const uint32_t length = stepper.next(token, start)) {
        on_token(std::string_view(reinterpret_cast<const char*>(token), length));
    }
}

}  // namespace invidx
