// Codecs by name, as PISA's block_codec_registry resolves them: the index
// writer (and `--codec NAME`) and the benchmark ask here; an unknown name is
// an error that lists the known ones.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "store/codecs/codec.hpp"

namespace invidx::codecs {

// Every codec, in a fixed order (the build's own first).
std::span<const Codec> all_codecs();

// Throws invidx::Error "unknown codec 'x'; known: vbyte, ..." for a bad name.
const Codec& find_codec(std::string_view name);

// "vbyte, pfor, rice, bp128": for usage text and errors.
std::string codec_names();

}  // namespace invidx::codecs
