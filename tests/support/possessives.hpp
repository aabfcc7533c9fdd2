// Texts where Porter would leave an empty stem: possessives ("it's" gives
// the tokens "it" and "s"), a lone "s", an upper-case "S", "'s", "s's", and
// plural possessives ("cats'"). CONTENT.md §7 makes the term of such a token the
// token itself, on every path (libstemmer, porter.hpp on host and device).
#pragma once

#include <string>
#include <vector>

namespace invidx::testing {

// Documents, each holding the token "s" at least once (df of "s" = size()).
inline std::vector<std::string> possessive_texts() {
    return {"It's the cat's toy; it's S and s.",
            "'s 's s",
            "the cats' bowls and Rex's bone",
            "s",
            "Ss sss s's S"};
}

// A document without the token "s" ("cats'" stems to "cat", not to "s").
inline std::string text_without_lone_s() { return "the cats' bowls are empty"; }

}  // namespace invidx::testing
