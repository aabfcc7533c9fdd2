// Web-like text for the stream piece tests: a vocabulary of a few thousand
// words, with markup and record headers that repeat, so that matches reach
// back across any piece's start.
#pragma once

#include <random>
#include <string>

namespace invidx::testing {

inline std::string web_text(std::mt19937& random, size_t bytes) {
    std::string text;
    size_t record = 0;
    while (text.size() < bytes) {
        text += "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:" + std::to_string(record++) + ">\r\n\r\n";
        text += "<html><body><p>";
        const size_t length = 200 + random() % 3000;
        for (size_t i = 0; i < length; ++i) {
            text += "w" + std::to_string(random() % 4000);
            text += (random() % 17 == 0) ? "</p><p>" : " ";
        }
        text += "</p></body></html>\r\n\r\n";
    }
    return text;
}

}  // namespace invidx::testing
