#include <doctest/doctest.h>

#include <set>

#include "invidx/analysis_settings.hpp"
#include "analysis/stopwords.hpp"

TEST_CASE("english_stopwords: the classic 33-word list") {
    const auto& words = invidx::english_stopwords();
    CHECK(words.size() == 33);
    CHECK(std::set<std::string>(words.begin(), words.end()).size() == 33);
    for (const char* word : {"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into",
                             "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then",
                             "there", "these", "they", "this", "to", "was", "will", "with"}) {
        CHECK(std::set<std::string>(words.begin(), words.end()).count(word) == 1);
    }
    const auto settings = invidx::AnalysisSettings::defaults();
    CHECK(settings.stopwords == words);
    CHECK(settings.stemmer == "porter");
    CHECK(settings.html[invidx::InputFormat::warc]);
    CHECK(settings.html[invidx::InputFormat::trec]);
    CHECK_FALSE(settings.html[invidx::InputFormat::jsonl]);
    CHECK_FALSE(settings.html[invidx::InputFormat::text]);
    CHECK_FALSE(settings.positions);
}

TEST_CASE("StopwordSet: exact membership") {
    const invidx::StopwordSet set(invidx::english_stopwords());
    for (const auto& word : invidx::english_stopwords()) CHECK(set.contains(word));
    CHECK_FALSE(set.contains(""));
    CHECK_FALSE(set.contains("th"));
    CHECK_FALSE(set.contains("thes"));
    CHECK_FALSE(set.contains("theirs"));
    CHECK_FALSE(set.contains("The"));  // tokens arrive lowercased; the set does not fold case
    CHECK_FALSE(set.contains("cat"));
    CHECK_FALSE(set.contains(std::string(300, 'a')));
}

TEST_CASE("StopwordSet: empty and custom lists, many words") {
    const invidx::StopwordSet none{std::vector<std::string>{}};
    CHECK_FALSE(none.contains("the"));
    CHECK_FALSE(none.contains(""));

    std::vector<std::string> many;
    for (int i = 0; i < 1000; i += 2) many.push_back("w" + std::to_string(i));
    many.push_back("w0");  // duplicate
    const invidx::StopwordSet set(many);
    CHECK(set.size() == 500);
    for (int i = 0; i < 1000; ++i) CHECK(set.contains("w" + std::to_string(i)) == (i % 2 == 0));
}

TEST_CASE("StopwordTable: a copy of a set's arrays answers as the set does") {
    // What a device does: copies the three arrays elsewhere and looks up
    // through a StopwordTable pointing at the copies.
    const invidx::StopwordSet set(invidx::english_stopwords());
    const std::string bytes = set.bytes();
    const std::vector<uint32_t> offsets = set.word_offsets();
    const std::vector<uint32_t> slots = set.slots();
    invidx::StopwordTable copy = set.table();
    copy.bytes = reinterpret_cast<const unsigned char*>(bytes.data());
    copy.word_offsets = offsets.data();
    copy.slots = slots.data();
    CHECK(copy.words == 33);
    CHECK((slots.size() & (slots.size() - 1)) == 0);
    for (const std::string word : {"the", "a", "with", "such", "", "th", "them", "into", "in", "The", "cat", "x"}) {
        INFO(word);
        const auto* p = reinterpret_cast<const unsigned char*>(word.data());
        CHECK(copy.contains(p, static_cast<uint32_t>(word.size())) == set.contains(word));
    }
    CHECK(copy.contains(reinterpret_cast<const unsigned char*>("their"), 5));
    CHECK_FALSE(copy.contains(reinterpret_cast<const unsigned char*>("theirs"), 6));
    const invidx::StopwordTable empty = invidx::StopwordSet{std::vector<std::string>{}}.table();
    CHECK_FALSE(empty.contains(reinterpret_cast<const unsigned char*>("the"), 3));
    CHECK_FALSE(empty.contains(nullptr, 0));
}

TEST_CASE("StopwordSet: the empty word is a word like any other") {
    const invidx::StopwordSet set(std::vector<std::string>{"", "of"});
    CHECK(set.size() == 2);
    CHECK(set.contains(""));
    CHECK(set.contains("of"));
    CHECK_FALSE(set.contains("o"));
}

TEST_CASE("StopwordSet: a list of 400,000 words, duplicates among them, is built in linear time") {
    // Issue #28 item 9: the set was built with a scan of the distinct words
    // per word, minutes for this list (it would run past ctest's timeout);
    // a hash set makes it milliseconds.
    std::vector<std::string> words;
    for (int i = 0; i < 400000; ++i) words.push_back("stop" + std::to_string(i % 300000));
    const invidx::StopwordSet set(words);
    CHECK(set.size() == 300000);
    CHECK(set.contains("stop0"));
    CHECK(set.contains("stop299999"));
    CHECK_FALSE(set.contains("stop300000"));
    // The distinct words keep their first positions, in list order.
    CHECK(set.bytes().substr(0, 10) == "stop0stop1");
}
