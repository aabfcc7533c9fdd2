#include "nodes/decompress/named_archive.hpp"

#include <string>

#include "invidx/input_format.hpp"

namespace invidx {

NamedArchive archive_named_by_file(std::string_view path) {
    const size_t slash = path.find_last_of('/');
    std::string name(slash == std::string_view::npos ? path : path.substr(slash + 1));
    for (char& c : name)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const auto ends_with = [&](std::string_view suffix) {
        return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    // Outermost first: an archive suffix answers, a compression suffix is
    // stripped (".tgz" is looked for before ".gz" would strip it).
    for (bool stripped = true; stripped;) {
        if (ends_with(".tar") || ends_with(".tgz")) return NamedArchive::tar;
        if (ends_with(".zip")) return NamedArchive::zip;
        stripped = false;
        for (const std::string_view suffix : kContainerSuffixes) {
            if (!ends_with(suffix)) continue;
            name.resize(name.size() - suffix.size());
            stripped = true;
            break;
        }
    }
    return NamedArchive::none;
}

}  // namespace invidx
