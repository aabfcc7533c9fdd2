// A short printable excerpt of bad input, for the framers' error messages:
// at most 40 bytes of its first line, anything unprintable shown as '?'.
#pragma once

#include <string>
#include <string_view>

namespace invidx {

inline std::string excerpt(std::string_view bytes) {
    std::string out;
    for (char c : bytes.substr(0, 40)) {
        if (c == '\n' || c == '\r') break;
        out.push_back(c >= 0x20 && c < 0x7F ? c : '?');
    }
    return out;
}

}  // namespace invidx
