// Record framing (CONTENT.md §1-2): a framer turns the decompressed bytes of one
// entry (a file, or one archive member), fed in pieces of any size, into the
// records of its format. One file per format of the input format table
// (invidx/input_format.hpp): warc, trec, jsonl (jsonvector too), text (html is text with the
// HTML rules on).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "invidx/analysis_settings.hpp"
#include "invidx/input_format.hpp"

namespace invidx {

// No single record may be larger: a framer holds a record in progress in
// memory, so this bounds what one bad or hostile file can make it hold.
inline constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 30;  // 1 GiB

struct FramedRecord {
    std::string name;             // document name
    std::string_view text;        // the document's text, valid only during the emit call
    bool html = false;            // apply CONTENT.md §3 (per format, from the settings)
    uint64_t source_offset = 0;   // byte offset of the record's start in the decompressed entry
    uint64_t record_number = 0;   // 0-based WARC record / DOC / line number (jsonl)
    std::string_view metadata;    // jsonl: the fields but "id" and "contents" as a JSON object; valid as `text`
};

using EmitRecord = std::function<void(const FramedRecord&)>;

// Framers throw invidx::Error naming the entry, the record number and the
// byte offset of what is wrong; after an error the framer must not be used.
class Framer {
public:
    virtual ~Framer() = default;
    // The next bytes of the entry; emits every record they complete.
    virtual void feed(std::string_view bytes, const EmitRecord& emit) = 0;
    // End of the entry: emits the last record, or throws if one is cut short.
    virtual void finish(const EmitRecord& emit) = 0;
};

// The framer of `format`, applying the HTML rules where the settings say so
// for that format. entry_name names the entry in errors and is the name of a
// text document.
std::unique_ptr<Framer> make_framer(InputFormat format, const std::string& entry_name,
                                    const AnalysisSettings& settings);

// The same for a format's name, as InputFile::format holds it. "auto" takes
// the format of entry_name's own name (input_format_of_file; entry_name is
// the document name of the entry: a file's name, or an archive member's
// path), so each entry of an archive is framed by its format (CONTENT.md §1-2). An
// unknown name is an Error naming the entry and listing the known names.
std::unique_ptr<Framer> make_framer(const std::string& format_name, const std::string& entry_name,
                                    const AnalysisSettings& settings);

// What InputFile::format holds for a file of an "auto" input: the name of
// its format from its path (input_format_of_file), or "auto" for a file
// named as a tar or zip archive (possibly compressed), whose entries are
// detected one by one when framed.
std::string detect_format(std::string_view file_name);

}  // namespace invidx
