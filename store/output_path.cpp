#include "store/output_path.hpp"

#include "invidx/error.hpp"
#include "store/index_layout.hpp"
#include "store/manifest.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;

// Linux's own limit (MAXSYMLINKS): more is a loop.
constexpr int kMaxLinks = 40;

// "a/b/" -> "a/b", "a/./b" -> "a/b".
fs::path normal_form(const fs::path& path) {
    fs::path normal = path.lexically_normal();
    if (!normal.has_filename() && normal.has_relative_path()) normal = normal.parent_path();
    return normal;
}

bool is_link(const fs::path& path) {
    std::error_code ignored;
    return fs::is_symlink(fs::symlink_status(path, ignored));
}

// Whether any component of `path` (itself included) is a symbolic link.
bool passes_through_link(const fs::path& path) {
    fs::path prefix;
    for (const auto& component : path) {
        prefix /= component;
        if (component != "." && component != ".." && is_link(prefix)) return true;
    }
    return false;
}

// A directory that is or was an index: a valid manifest, or the layout's
// files without one (a damaged index is still one to keep out of).
bool looks_like_index(const fs::path& directory) {
    std::error_code ignored;
    if (!fs::is_directory(directory, ignored)) return false;
    return is_invidx_index(directory) || (fs::exists(directory / layout::kDictionaryFile, ignored) &&
                                          fs::is_directory(directory / layout::kRunsDirectory, ignored));
}

}  // namespace

fs::path resolve_output_path(const fs::path& given) {
    const fs::path normal = normal_form(given);
    if (normal.empty() || !passes_through_link(normal)) return normal;
    fs::path path = normal_form(fs::absolute(normal));
    for (int links = 0;; ++links) {
        // Links above the last component: weakly_canonical follows those
        // that exist. The last one is followed here, dangling or not
        // (weakly_canonical would keep a dangling link as it is).
        const fs::path parent = fs::weakly_canonical(path.parent_path());
        path = parent / path.filename();
        if (!is_link(path)) return path;
        if (links == kMaxLinks)
            throw Error("too many levels of symbolic links (a loop?)",
                        ErrorContext{.node = "", .file = given.string(), .record = {}, .byte_offset = {}});
        const fs::path target = fs::read_symlink(path);
        path = normal_form(target.is_absolute() ? target : parent / target);
    }
}

fs::path enclosing_index(const fs::path& path) {
    fs::path directory = fs::absolute(resolve_output_path(path));
    for (;;) {
        if (looks_like_index(directory)) return directory;
        if (!directory.has_relative_path()) return {};
        directory = directory.parent_path();
    }
}

}  // namespace invidx
