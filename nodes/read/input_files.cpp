#include "nodes/read/input_files.hpp"

#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <utility>

#include "invidx/error.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;

struct Found {
    std::string path;
    std::string name;
    const InputSpec* spec = nullptr;
    uint64_t size_bytes = 0;
};

ErrorContext context_for(const std::string& path) {
    return ErrorContext{.node = "read", .file = path, .record = std::nullopt, .byte_offset = std::nullopt};
}

std::string errno_text(int error) { return std::strerror(error); }

// stat(2) that follows symlinks; false when the path leads nowhere (a
// dangling symlink or a loop of links), which walking treats as "not a file".
bool stat_following(const std::string& path, struct stat& info) {
    if (::stat(path.c_str(), &info) == 0) return true;
    const int error = errno;
    if (error == ENOENT || error == ELOOP || error == ENOTDIR) return false;
    throw Error("cannot stat input: " + errno_text(error), context_for(path));
}

// Opening the file now reports an unreadable input before any work starts,
// rather than halfway through a long build.
void check_readable(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("cannot open input: " + errno_text(errno), context_for(path));
    ::close(fd);
}

class Collector {
public:
    explicit Collector(std::vector<Found>& out) : out_(out) {}

    void add_file(const std::string& path, std::string name, const InputSpec& spec,
                  const struct stat& info) {
        check_readable(path);
        out_.push_back(Found{path, std::move(name), &spec, static_cast<uint64_t>(info.st_size)});
    }

    // Walks `directory` depth-first; `relative` is its name relative to the
    // spec's root ("" for the root itself).
    void walk(const std::string& directory, const std::string& relative, const InputSpec& spec,
              const struct stat& directory_info) {
        // Each directory (by device and inode) is entered once, so symlinks
        // that point back up the tree cannot loop.
        if (!visited_.insert({directory_info.st_dev, directory_info.st_ino}).second) return;
        std::vector<std::string> children;
        std::error_code error;
        for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
            children.push_back(it->path().filename().string());
        }
        if (error) throw Error("cannot read directory: " + error.message(), context_for(directory));
        std::sort(children.begin(), children.end());
        for (const auto& child : children) {
            const std::string path = (fs::path(directory) / child).string();
            const std::string name = relative.empty() ? child : relative + "/" + child;
            struct stat info {};
            if (!stat_following(path, info)) continue;
            if (S_ISDIR(info.st_mode)) {
                walk(path, name, spec, info);
            } else if (S_ISREG(info.st_mode)) {
                add_file(path, name, spec, info);
            }
        }
    }

private:
    std::vector<Found>& out_;
    std::set<std::pair<dev_t, ino_t>> visited_;
};

bool has_glob_characters(const std::string& path) {
    return path.find_first_of("*?[") != std::string::npos;
}

std::vector<std::string> glob_matches(const std::string& pattern) {
    glob_t matches{};
    const int result = ::glob(pattern.c_str(), 0, nullptr, &matches);
    std::vector<std::string> paths;
    if (result == 0) {
        for (size_t i = 0; i < matches.gl_pathc; ++i) paths.emplace_back(matches.gl_pathv[i]);
    }
    ::globfree(&matches);
    if (result != 0 && result != GLOB_NOMATCH) {
        throw Error("cannot expand glob pattern (glob error " + std::to_string(result) + ")",
                    context_for(pattern));
    }
    return paths;
}

// One path of a spec: a file is named by its file name; a directory is walked,
// its files named relative to the directory itself or, for glob matches, to
// its parent (so that two matched directories cannot give the same names).
void add_path(Collector& collector, const std::string& path, const InputSpec& spec,
              bool directory_keeps_own_name) {
    struct stat info {};
    if (!stat_following(path, info)) return;
    if (S_ISREG(info.st_mode)) {
        collector.add_file(path, fs::path(path).filename().string(), spec, info);
    } else if (S_ISDIR(info.st_mode)) {
        fs::path directory = fs::path(path).lexically_normal();
        if (!directory.has_filename()) directory = directory.parent_path();  // "d/" -> "d"
        const std::string own_name = directory.filename().string();
        collector.walk(path, directory_keeps_own_name ? own_name : std::string(), spec, info);
    }
}

}  // namespace

std::vector<InputFile> expand_inputs(const std::vector<InputSpec>& specs,
                                     const FormatDetector& detect_format) {
    std::vector<Found> found;
    Collector collector(found);
    for (const auto& spec : specs) {
        const size_t before = found.size();
        std::string path = fs::path(spec.path).lexically_normal().string();
        // A literal name wins over a pattern: "a[1].txt" may simply exist.
        struct stat info {};
        if (!path.empty() && stat_following(path, info)) {
            add_path(collector, path, spec, /*directory_keeps_own_name=*/false);
        } else if (has_glob_characters(path)) {
            for (const auto& match : glob_matches(path)) {
                add_path(collector, match, spec, /*directory_keeps_own_name=*/true);
            }
        }
        if (found.size() == before) {
            const bool exists = !path.empty() && stat_following(path, info);
            throw Error("input not found: " + spec.path + (exists ? " (no regular files in it)" : ""),
                        ErrorContext{.node = "read", .file = "", .record = std::nullopt, .byte_offset = std::nullopt});
        }
    }

    // CONTENT.md §1-2: byte-wise order of the full path; a file named by several
    // specs keeps the name and format of the first spec that named it.
    std::stable_sort(found.begin(), found.end(),
                     [](const Found& a, const Found& b) { return a.path < b.path; });
    found.erase(std::unique(found.begin(), found.end(),
                            [](const Found& a, const Found& b) { return a.path == b.path; }),
                found.end());

    std::vector<InputFile> files;
    files.reserve(found.size());
    for (auto& entry : found) {
        InputFile file;
        file.ordinal = static_cast<uint32_t>(files.size());
        file.format = entry.spec->format == kAutoInputFormat ? detect_format(entry.path) : entry.spec->format;
        file.path = std::move(entry.path);
        file.name = std::move(entry.name);
        file.size_bytes = entry.size_bytes;
        files.push_back(std::move(file));
    }
    return files;
}

}  // namespace invidx
