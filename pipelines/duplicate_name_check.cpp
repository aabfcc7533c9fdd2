#include "pipelines/duplicate_name_check.hpp"

#include <cstdio>

#include "invidx/error.hpp"
#include "store/duplicate_names.hpp"

namespace invidx {

nlohmann::json check_duplicate_names(IndexWriter& writer, const std::vector<InputFile>& files,
                                     DuplicateIdPolicy policy, const std::function<void(const std::string&)>& notice) {
    const auto path = writer.complete_documents();
    return report_duplicate_names(find_duplicate_names(path, path.string(), files), policy, notice);
}

nlohmann::json report_duplicate_names(const DuplicateNames& duplicates, DuplicateIdPolicy policy,
                                      const std::function<void(const std::string&)>& notice) {
    if (duplicates.empty()) return duplicates.to_json();
    if (policy == DuplicateIdPolicy::error) {
        const DuplicateName& first = duplicates.examples.front();
        throw Error("duplicate document name '" + first.name + "': docid " + std::to_string(first.docids[0]) + " at " +
                    first.places[0] + " and docid " + std::to_string(first.docids[1]) + " at " + first.places[1] +
                    " (" + std::to_string(duplicates.documents) + " of the documents repeat an earlier name); "
                    "\"on_duplicate_id\": \"error\" stops the build, nothing was published");
    }
    const std::string line = duplicates.summary();
    if (notice) {
        notice(line);
    } else {
        std::fprintf(stderr, "invidx: %s\n", line.c_str());
    }
    return duplicates.to_json();
}

}  // namespace invidx
