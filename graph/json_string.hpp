// A JSON string as nlohmann::json's dump writes it without ASCII escaping:
// UTF-8 kept as it is, '"', '\\' and the control bytes escaped (the short
// forms where JSON has them, else \u00xx in lower case). The Python module
// writes its documents' lines with it, and the JSONL framer the metadata of
// the lines it reads without a JSON tree, byte for byte as nlohmann would.
#pragma once

#include <string_view>

namespace invidx {

// Appends `text` quoted and escaped to `out` (a std::string or a
// std::vector<char>).
template <class Bytes>
void append_json_string(Bytes& out, std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    const auto append = [&out](std::string_view bytes) { out.insert(out.end(), bytes.begin(), bytes.end()); };
    out.push_back('"');
    size_t plain_from = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        append(text.substr(plain_from, i - plain_from));
        plain_from = i + 1;
        switch (c) {
            case '"': append("\\\""); break;
            case '\\': append("\\\\"); break;
            case '\n': append("\\n"); break;
            case '\r': append("\\r"); break;
            case '\t': append("\\t"); break;
            case '\b': append("\\b"); break;
            case '\f': append("\\f"); break;
            default: {
                const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
                append(std::string_view(escape, sizeof escape));
            }
        }
    }
    append(text.substr(plain_from));
    out.push_back('"');
}

}  // namespace invidx
