// Grouping a slice's occurrences by term for the postings wire: every
// occurrence in the group of exactly its term (terms that share a prefix or
// a hash bucket kept apart), groups in the order of their first occurrence,
// each group's occurrences in slice order.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "pipelines/cluster/term_groups.hpp"

using namespace invidx;

namespace {

void check_groups(const std::vector<std::string>& words) {
    std::string arena;
    std::vector<TermOccurrence> occurrences;
    for (uint32_t i = 0; i < words.size(); ++i) {
        TermOccurrence o;
        o.local_docid = i;
        o.term_offset = static_cast<uint32_t>(arena.size());
        o.term_length = static_cast<uint32_t>(words[i].size());
        arena += words[i];
        occurrences.push_back(o);
    }
    // What the groups must be: first occurrences in order, members in order.
    std::vector<std::string> order;
    std::map<std::string, std::vector<uint32_t>> members;
    for (uint32_t i = 0; i < words.size(); ++i) {
        if (members[words[i]].empty()) order.push_back(words[i]);
        members[words[i]].push_back(i);
    }
    postings_wire::TermGroups groups;
    groups.group(occurrences, arena);
    REQUIRE(groups.groups() == order.size());
    for (uint32_t g = 0; g < groups.groups(); ++g) {
        CAPTURE(g);
        CHECK(words[groups.first(g)] == order[g]);
        const auto got = groups.members(g);
        CHECK(std::vector<uint32_t>(got.begin(), got.end()) == members[order[g]]);
    }
}

}  // namespace

TEST_CASE("a slice's occurrences are grouped by exactly their term") {
    check_groups({});
    check_groups({"one"});
    check_groups({"a", "b", "a", "a", "c", "b"});
    // Equal first eight bytes, different lengths or tails; the empty term.
    check_groups({"abcdefgh", "abcdefghi", "abcdefghj", "abcdefgh", "", "abcdefghi", "", "abcdefghijklmnopqrst",
                  "abcdefghijklmnopqrsu", "abcdefghijklmnopqrst"});
    // Many occurrences (the hashed path), the same arrays reused after it.
    std::vector<std::string> many;
    for (int i = 0; i < 5000; ++i) many.push_back("prefix-shared-" + std::to_string((i * 37) % 1200));
    check_groups(many);
    std::vector<std::string> few = {"x", "y", "x"};
    check_groups(few);
}

TEST_CASE("groups are found again after a larger slice, with the arrays kept") {
    postings_wire::TermGroups groups;
    std::string arena = "catdogcat";
    std::vector<TermOccurrence> large(100);
    for (uint32_t i = 0; i < large.size(); ++i) large[i] = TermOccurrence{i, 0, (i % 2) * 3, 3, 1, 0};
    groups.group(large, arena);
    CHECK(groups.groups() == 2);
    CHECK(groups.members(0).size() == 50);
    const std::vector<TermOccurrence> small = {TermOccurrence{0, 0, 3, 3, 1, 0}, TermOccurrence{1, 0, 6, 3, 1, 0}};
    groups.group(small, arena);
    REQUIRE(groups.groups() == 2);
    CHECK(groups.first(0) == 0);  // "dog"
    CHECK(groups.first(1) == 1);  // "cat"
    CHECK(groups.members(1).size() == 1);
}
