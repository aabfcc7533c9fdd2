#include "store/sibling_directories.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <optional>
#include <unistd.h>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/index_layout.hpp"
#include "store/manifest.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;

std::atomic<uint64_t> next_sibling_number{0};

bool all_digits(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "<final>.<tag>-<pid>-<n>" -> the tag and pid; anything else -> nothing.
std::optional<SiblingDirectory> parse_sibling(const fs::path& candidate, const std::string& final_name) {
    const std::string name = candidate.filename().string();
    for (const char* tag : {"tmp", "old"}) {
        const std::string prefix = final_name + "." + tag + "-";
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string_view rest = std::string_view(name).substr(prefix.size());
        const size_t dash = rest.find('-');
        if (dash == std::string_view::npos || !all_digits(rest.substr(0, dash)) || !all_digits(rest.substr(dash + 1)))
            continue;
        SiblingDirectory sibling{candidate, tag, 0};
        std::from_chars(rest.data(), rest.data() + dash, sibling.pid);
        return sibling;
    }
    return std::nullopt;
}

fs::path parent_of(const fs::path& final_dir) {
    return final_dir.parent_path().empty() ? fs::path(".") : final_dir.parent_path();
}

}  // namespace

fs::path sibling_path(const fs::path& final_dir, const char* tag) {
    return fs::path(final_dir.string() + "." + tag + "-" + std::to_string(::getpid()) + "-" +
                    std::to_string(next_sibling_number++));
}

std::vector<SiblingDirectory> find_siblings(const fs::path& final_dir) {
    std::vector<SiblingDirectory> siblings;
    std::error_code error;
    const std::string final_name = final_dir.filename().string();
    for (fs::directory_iterator it(parent_of(final_dir), error), end; !error && it != end; it.increment(error)) {
        // A link is never a writer's: following it would remove what it points at.
        if (it->is_symlink(error) || !it->is_directory(error)) continue;
        if (auto sibling = parse_sibling(final_dir.parent_path() / it->path().filename(), final_name))
            siblings.push_back(std::move(*sibling));
    }
    std::sort(siblings.begin(), siblings.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    return siblings;
}

void remove_index_directory(const fs::path& directory) {
    std::error_code ignored;
    // Never through a link: at most the link itself goes.
    if (fs::is_symlink(fs::symlink_status(directory, ignored))) {
        fs::remove(directory, ignored);
        return;
    }
    fs::remove(directory / layout::kManifestFile, ignored);
    fs::remove_all(directory, ignored);
}

void clean_up_after_earlier_writers(const fs::path& final_dir, const std::function<void(const std::string&)>& notice) {
    std::vector<SiblingDirectory> siblings = find_siblings(final_dir);
    std::error_code error;
    if (!fs::exists(final_dir, error)) {
        // Killed between "old aside" and "new in": the old index is complete
        // and nothing is at final_dir. The newest such index goes back.
        std::optional<SiblingDirectory> newest;
        fs::file_time_type newest_time;
        for (const auto& sibling : siblings) {
            if (sibling.tag != "old" || !is_invidx_index(sibling.path)) continue;
            const auto time = fs::last_write_time(sibling.path / layout::kManifestFile, error);
            if (!newest || (!error && time > newest_time)) {
                newest = sibling;
                newest_time = time;
            }
        }
        if (newest) {
            fs::rename(newest->path, final_dir, error);
            if (error)
                throw Error(final_dir.string() + " is missing and " + newest->path.string() +
                            " holds the previous index, but renaming it back failed (" + error.message() +
                            "): rename it to " + final_dir.string() + " by hand");
            sync_directory(parent_of(final_dir));
            notice("restored " + final_dir.string() + " from " + newest->path.string() + ", where build process " +
                   std::to_string(newest->pid) + " had moved it aside before it was killed while publishing");
            std::erase_if(siblings, [&](const auto& sibling) { return sibling.path == newest->path; });
        }
    }
    for (const auto& sibling : siblings) {
        remove_index_directory(sibling.path);
        notice("removed " + sibling.path.string() + ", left by build process " + std::to_string(sibling.pid) +
               (sibling.tag == "tmp" ? ", which did not finish" : ", which did not finish removing the old index"));
    }
}

}  // namespace invidx
