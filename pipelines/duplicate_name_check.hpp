// A build's last look at its documents before publishing: names that
// several documents have (store/duplicate_names.hpp) are reported in
// report.json and on stderr, or, with "on_duplicate_id": "error"
// (docs/PIPELINE.md), fail the build so that nothing is published.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/config.hpp"
#include "invidx/messages.hpp"
#include "store/duplicate_names.hpp"
#include "store/index_writer.hpp"

namespace invidx {

// Completes `writer`'s documents.bin and reads its names. Returns the
// report's "duplicate_names" ({"count": 0, ...} when there are none); with
// duplicates, `notice` gets one line, or with DuplicateIdPolicy::error an
// invidx::Error names the first name and both its places. `files` is the
// writer's input list, by ordinal.
nlohmann::json check_duplicate_names(IndexWriter& writer, const std::vector<InputFile>& files,
                                     DuplicateIdPolicy policy, const std::function<void(const std::string&)>& notice);

// The same in two steps, so that the names can be read on another thread
// while the build writes its dictionary: find_duplicate_names on the path
// IndexWriter::complete_documents() returns, then this.
nlohmann::json report_duplicate_names(const DuplicateNames& duplicates, DuplicateIdPolicy policy,
                                      const std::function<void(const std::string&)>& notice);

}  // namespace invidx
