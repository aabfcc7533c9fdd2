// A file's bytes read whole into memory before a benchmark times anything.
#pragma once

#include <fstream>
#include <string>

#include "invidx/error.hpp"

namespace invidx::bench {

inline std::string read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    ensure(in.good(), "cannot open " + path);
    std::string bytes(static_cast<size_t>(in.tellg()), '\0');
    in.seekg(0);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ensure(in.gcount() == static_cast<std::streamsize>(bytes.size()), "cannot read " + path);
    return bytes;
}

}  // namespace invidx::bench
