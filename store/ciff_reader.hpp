// Reads a CIFF file (github.com/osirrc/ciff, CommonIndexFileFormat.proto;
// docs/FORMAT.md, "CIFF import") as a stream: a Header, num_postings_lists
// PostingsList messages, num_doc_records DocRecord messages, each preceded by
// its byte length as a varint. The file goes through one fixed buffer and a
// PostingsList's postings come out in chunks of bounded size, so memory does
// not grow with the file or with a list (a list of millions of postings is
// never held whole). Everything CIFF promises is checked where it is read,
// and a broken promise is an invidx::Error naming the file and the byte
// offset. The reader also tells whether the file is canonical: the very bytes
// invidx's exporter (store/ciff_export.hpp) writes for what the file holds.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace invidx {

struct CiffHeader {
    int64_t version = 0;
    int64_t num_postings_lists = 0;
    int64_t num_doc_records = 0;
    int64_t total_postings_lists = 0;
    int64_t total_docs = 0;
    int64_t total_terms_in_collection = 0;
    double average_doclength = 0.0;
    std::string description;
};

// One posting with its docid made absolute (CIFF stores gaps).
struct CiffPosting {
    uint32_t docid = 0;
    uint32_t gap = 0;  // docid minus the previous posting's (the first: the docid)
    uint32_t tf = 0;
};

struct CiffPostingsList {
    std::string term;
    uint64_t df = 0;
    uint64_t cf = 0;
    uint64_t offset = 0;  // of the message's length prefix in the file
};

struct CiffDocRecord {
    uint32_t docid = 0;
    std::string collection_docid;
    uint32_t doclength = 0;
    uint64_t offset = 0;  // of the message's length prefix in the file
};

// Why a file is not canonical: the first difference from what invidx's
// exporter writes for the same content, and where it is.
struct CiffCanonicality {
    bool canonical = true;
    std::string reason;
    uint64_t offset = 0;

    void note(uint64_t at, std::string why) {
        if (!canonical) return;
        canonical = false;
        reason = std::move(why);
        offset = at;
    }
};

class CiffReader {
public:
    static constexpr size_t kDefaultBufferBytes = size_t{1} << 20;
    // The most postings handed to the sink at once.
    static constexpr size_t kChunkPostings = 65536;
    // Longest string field (term, name, description) the reader accepts: a
    // bad length must not allocate gigabytes.
    static constexpr uint64_t kMaxStringBytes = uint64_t{1} << 20;

    // Opens `file` and reads the Header. An invidx::Error names the file
    // (and the byte) when it cannot be opened or the Header is bad.
    explicit CiffReader(const std::filesystem::path& file, size_t buffer_bytes = kDefaultBufferBytes);
    ~CiffReader();
    CiffReader(const CiffReader&) = delete;
    CiffReader& operator=(const CiffReader&) = delete;

    const CiffHeader& header() const { return header_; }
    uint64_t file_bytes() const { return size_; }
    const std::string& file_name() const { return name_; }

    // The next PostingsList: its postings go to `sink` in order, in chunks
    // of at most kChunkPostings, as they are read; then `list` holds its
    // term, df and cf, checked against the postings. False (and nothing
    // read) once the Header's num_postings_lists lists have been read.
    using PostingsSink = std::function<void(std::span<const CiffPosting>)>;
    bool next_postings_list(CiffPostingsList& list, const PostingsSink& sink);

    // The next DocRecord, after every PostingsList; false after the last.
    bool next_doc_record(CiffDocRecord& record);

    // After the last DocRecord: nothing may follow it. Settles whether the
    // Header's totals are those of the file (canonicality).
    void finish();

    // Valid after finish(); earlier, what has been seen so far.
    const CiffCanonicality& canonicality() const { return canonical_; }
    // Sum of the DocRecords' doclength so far.
    uint64_t total_doclength() const { return total_doclength_; }

private:
    [[noreturn]] void fail(uint64_t at, const std::string& message) const;
    uint8_t byte(uint64_t limit, const char* inside);
    uint64_t varint(uint64_t limit, const char* inside);
    void read_bytes(std::string& out, uint64_t count, uint64_t limit);
    void skip(uint64_t count, uint64_t limit);
    uint64_t message_end(const char* what);
    void refill();
    void read_header();

    std::string name_;
    std::FILE* file_ = nullptr;
    uint64_t size_ = 0;
    std::vector<char> buffer_;
    size_t buffer_pos_ = 0;
    size_t buffer_len_ = 0;
    uint64_t offset_ = 0;  // of buffer_[buffer_pos_] in the file

    CiffHeader header_;
    uint64_t lists_read_ = 0;
    uint64_t records_read_ = 0;
    uint64_t total_doclength_ = 0;
    std::string previous_term_;
    bool finished_ = false;
    CiffCanonicality canonical_;
    std::vector<CiffPosting> chunk_;
};

}  // namespace invidx
