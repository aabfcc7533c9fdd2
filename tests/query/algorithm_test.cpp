// Query algorithms by name: every name maps back to its algorithm, and an
// unknown name is an error that lists the known ones.
#include <doctest/doctest.h>

#include <string>

#include "invidx/error.hpp"
#include "query/algorithm.hpp"

using namespace invidx;

TEST_CASE("query algorithms: names round-trip and an unknown name lists the known ones") {
    for (const Algorithm algorithm :
         {Algorithm::kBlockMaxMaxscore, Algorithm::kBlockMaxWand, Algorithm::kMaxscore, Algorithm::kExhaustive}) {
        CAPTURE(algorithm_name(algorithm));
        CHECK(find_algorithm(algorithm_name(algorithm)) == algorithm);
        CHECK(algorithm_names().find(std::string(algorithm_name(algorithm))) != std::string::npos);
    }
    CHECK(algorithm_name(Algorithm::kBlockMaxWand) == "block_max_wand");
    CHECK(find_algorithm("maxscore") == Algorithm::kMaxscore);
    try {
        (void)find_algorithm("wand");
        FAIL("an unknown algorithm was accepted");
    } catch (const Error& error) {
        const std::string message = error.what();
        CHECK(message.find("'wand'") != std::string::npos);
        CHECK(message.find("block_max_maxscore, block_max_wand, maxscore, exhaustive") != std::string::npos);
    }
}
