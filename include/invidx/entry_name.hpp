// How an entry of an input file is named (CONTENT.md §1-2): a plain file's entry is
// the file itself, named by its name; an archive member is
// "archive.tar!member/path", the archive's name, '!', the member's path.
// Public because TextBlock::entry_name (messages.hpp) carries these names.
#pragma once

#include <string>
#include <string_view>

#include "invidx/messages.hpp"

namespace invidx {

inline constexpr char kArchiveMemberSeparator = '!';

// `archive` + "!" + `member`: the entry name of a member (or, given the
// archive's path, how errors name the member).
inline std::string archive_member_name(std::string_view archive, std::string_view member) {
    std::string name(archive);
    name += kArchiveMemberSeparator;
    name += member;
    return name;
}

// The member path of `entry_name` when it names a member of `file`;
// otherwise `entry_name` itself. A text document's name is this (CONTENT.md §1-2).
inline std::string document_name_of_entry(const InputFile& file, std::string_view entry_name) {
    const std::string prefix = archive_member_name(file.name, "");
    if (entry_name.substr(0, prefix.size()) == prefix) return std::string(entry_name.substr(prefix.size()));
    return std::string(entry_name);
}

// How errors name an entry: the path the user gave, with the member for an
// archive's ("/data/a.tar!docs/x.html"); framers know only the entry name.
inline std::string entry_path_for_errors(const InputFile& file, std::string_view entry_name) {
    const std::string prefix = archive_member_name(file.name, "");
    if (entry_name.substr(0, prefix.size()) == prefix)
        return archive_member_name(file.path, entry_name.substr(prefix.size()));
    return file.path;
}

}  // namespace invidx
