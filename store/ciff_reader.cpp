#include "store/ciff_reader.hpp"

#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/ciff_fields.hpp"

namespace invidx {
namespace {

namespace header_field = ciff_fields::header;
namespace list_field = ciff_fields::postings_list;
namespace posting_field = ciff_fields::posting;
namespace record_field = ciff_fields::doc_record;

constexpr uint64_t kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5;

const char* wire_name(uint64_t wire) {
    switch (wire) {
        case kVarint: return "varint";
        case kFixed64: return "fixed64";
        case kLengthDelimited: return "length-delimited";
        case kFixed32: return "fixed32";
        default: return "invalid";
    }
}

std::string quote_term(const std::string& text) {
    constexpr size_t kShown = 64;
    return "'" + (text.size() <= kShown ? text : text.substr(0, kShown) + "...") + "'";
}

// What the exporter writes for a header of these totals (canonicality).
double exporter_average(uint64_t total, uint64_t documents) {
    return documents == 0 ? 0.0 : static_cast<double>(total) / static_cast<double>(documents);
}

}  // namespace

CiffReader::CiffReader(const std::filesystem::path& file, size_t buffer_bytes)
    : name_(file.string()), buffer_(std::max<size_t>(buffer_bytes, 16)) {
    std::error_code error;
    if (std::filesystem::is_directory(file, error)) throw Error("is a directory, not a CIFF file", in_file(name_));
    file_ = std::fopen(name_.c_str(), "rb");
    if (file_ == nullptr) throw Error(std::string("cannot open: ") + std::strerror(errno), in_file(name_));
    std::setvbuf(file_, nullptr, _IONBF, 0);  // our buffer is the only one
    size_ = std::filesystem::file_size(file, error);
    if (error) {
        std::fclose(file_);
        throw Error("cannot read its size: " + error.message(), in_file(name_));
    }
    chunk_.reserve(kChunkPostings);
    try {
        read_header();
    } catch (...) {
        std::fclose(file_);
        throw;
    }
}

CiffReader::~CiffReader() {
    if (file_ != nullptr) std::fclose(file_);
}

void CiffReader::fail(uint64_t at, const std::string& message) const {
    ErrorContext context = in_file(name_);
    context.byte_offset = at;
    throw Error(message, context);
}

void CiffReader::refill() {
    buffer_pos_ = 0;
    buffer_len_ = std::fread(buffer_.data(), 1, buffer_.size(), file_);
    if (buffer_len_ == 0) {
        if (std::ferror(file_)) fail(offset_, std::string("cannot read: ") + std::strerror(errno));
        fail(offset_, "the file ends early (it was " + std::to_string(size_) + " bytes when opened)");
    }
}

// One byte before `limit` (a message's end, or the file's size).
uint8_t CiffReader::byte(uint64_t limit, const char* inside) {
    if (offset_ >= limit) {
        fail(offset_, limit == size_ ? std::string("the file ends inside ") + inside
                                     : std::string("runs past the end of its ") + inside);
    }
    if (buffer_pos_ == buffer_len_) refill();
    ++offset_;
    return static_cast<uint8_t>(buffer_[buffer_pos_++]);
}

uint64_t CiffReader::varint(uint64_t limit, const char* inside) {
    const uint64_t start = offset_;
    uint64_t value = 0;
    for (unsigned i = 0; i < 10; ++i) {
        if (offset_ >= limit) {
            fail(start, std::string("truncated varint: ") +
                            (limit == size_ ? "the file ends inside it" : std::string("it runs past the end of its ") + inside));
        }
        const uint8_t b = byte(limit, inside);
        value |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
        if ((b & 0x80) == 0) {
            // protobuf writes the fewest bytes: a last byte of 0 is padding.
            if (i > 0 && b == 0) canonical_.note(start, "a varint written with more bytes than it needs");
            if (i == 9 && b > 1) fail(start, "varint longer than 64 bits");
            return value;
        }
    }
    fail(start, "varint longer than 10 bytes");
}

void CiffReader::read_bytes(std::string& out, uint64_t count, uint64_t limit) {
    out.clear();
    if (offset_ + count > limit) fail(offset_, "a field of " + std::to_string(count) + " bytes runs past the end of its message");
    out.reserve(count);
    while (out.size() < count) {
        if (buffer_pos_ == buffer_len_) refill();
        const size_t take = std::min<uint64_t>(count - out.size(), buffer_len_ - buffer_pos_);
        out.append(buffer_.data() + buffer_pos_, take);
        buffer_pos_ += take;
        offset_ += take;
    }
}

void CiffReader::skip(uint64_t count, uint64_t limit) {
    if (offset_ + count > limit) fail(offset_, "a field of " + std::to_string(count) + " bytes runs past the end of its message");
    while (count > 0) {
        if (buffer_pos_ == buffer_len_) refill();
        const size_t take = std::min<uint64_t>(count, buffer_len_ - buffer_pos_);
        buffer_pos_ += take;
        offset_ += take;
        count -= take;
    }
}

// Reads a message's length prefix; the offset its message ends at.
uint64_t CiffReader::message_end(const char* what) {
    const uint64_t start = offset_;
    const uint64_t length = varint(size_, what);
    if (length > size_ - offset_) {
        fail(start, std::string(what) + " of " + std::to_string(length) + " bytes ends at byte " +
                        std::to_string(offset_ + length) + ", past the end of the file (" + std::to_string(size_) + " bytes)");
    }
    return offset_ + length;
}

namespace {

// A message's fields, one at a time, with protobuf's rules checked and the
// exporter's order tracked.
struct FieldReader {
    uint64_t at = 0;      // the tag's offset
    uint64_t number = 0;
    uint64_t wire = 0;
    uint64_t last = 0;    // highest field number so far
};

int64_t as_int64(uint64_t raw, uint64_t at, const std::string& what, const std::function<void(uint64_t, const std::string&)>& fail) {
    if (raw > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        fail(at, what + " is negative (" + std::to_string(static_cast<int64_t>(raw)) + ")");
    }
    return static_cast<int64_t>(raw);
}

}  // namespace

void CiffReader::read_header() {
    const auto failer = [this](uint64_t at, const std::string& message) { fail(at, message); };
    if (size_ == 0) fail(0, "empty file: a CIFF file starts with a Header");
    const uint64_t start = offset_;
    const uint64_t end = message_end("Header");
    uint64_t last = 0;
    bool version_seen = false;
    while (offset_ < end) {
        const uint64_t at = offset_;
        const uint64_t tag = varint(end, "Header");
        const uint64_t number = tag >> 3, wire = tag & 7;
        if (number == 0) fail(at, "Header: field number 0");
        if (number <= last) canonical_.note(at, "Header: field " + std::to_string(number) + " after field " + std::to_string(last));
        last = std::max(last, number);
        const auto int32_field = [&](const char* what) {
            if (wire != kVarint) fail(at, std::string("Header: field ") + what + " has wire type " + wire_name(wire) + ", expected varint");
            const uint64_t raw = varint(end, "Header");
            const int64_t value = as_int64(raw, at, std::string("Header.") + what, failer);
            if (value > std::numeric_limits<int32_t>::max()) fail(at, std::string("Header.") + what + " " + std::to_string(value) + " does not fit int32");
            if (value == 0) canonical_.note(at, std::string("Header.") + what + " written as 0");
            return value;
        };
        switch (number) {
            case header_field::version: header_.version = int32_field("version"); version_seen = true; break;
            case header_field::num_postings_lists: header_.num_postings_lists = int32_field("num_postings_lists"); break;
            case header_field::num_doc_records: header_.num_doc_records = int32_field("num_doc_records"); break;
            case header_field::total_postings_lists: header_.total_postings_lists = int32_field("total_postings_lists"); break;
            case header_field::total_docs: header_.total_docs = int32_field("total_docs"); break;
            case header_field::total_terms_in_collection: {
                if (wire != kVarint) fail(at, std::string("Header: field total_terms_in_collection has wire type ") + wire_name(wire) + ", expected varint");
                header_.total_terms_in_collection = as_int64(varint(end, "Header"), at, "Header.total_terms_in_collection", failer);
                if (header_.total_terms_in_collection == 0) canonical_.note(at, "Header.total_terms_in_collection written as 0");
                break;
            }
            case header_field::average_doclength: {
                if (wire != kFixed64) fail(at, std::string("Header: field average_doclength has wire type ") + wire_name(wire) + ", expected fixed64");
                uint64_t bits = 0;
                for (int i = 0; i < 8; ++i) bits |= static_cast<uint64_t>(byte(end, "Header")) << (8 * i);
                header_.average_doclength = std::bit_cast<double>(bits);
                if (bits == 0) canonical_.note(at, "Header.average_doclength written as 0");
                break;
            }
            case header_field::description: {
                if (wire != kLengthDelimited) fail(at, std::string("Header: field description has wire type ") + wire_name(wire) + ", expected length-delimited");
                const uint64_t length = varint(end, "Header");
                if (length > kMaxStringBytes) fail(at, "Header.description of " + std::to_string(length) + " bytes: longer than the " + std::to_string(kMaxStringBytes) + " bytes invidx reads");
                read_bytes(header_.description, length, end);
                if (length == 0) canonical_.note(at, "Header.description written empty");
                break;
            }
            default:
                canonical_.note(at, "Header: unknown field " + std::to_string(number));
                switch (wire) {
                    case kVarint: (void)varint(end, "Header"); break;
                    case kFixed64: skip(8, end); break;
                    case kFixed32: skip(4, end); break;
                    case kLengthDelimited: skip(varint(end, "Header"), end); break;
                    default: fail(at, "Header: field " + std::to_string(number) + " has invalid wire type " + std::to_string(wire));
                }
        }
    }
    if (!version_seen || header_.version != 1) {
        fail(start, "CIFF version " + std::to_string(header_.version) + " is not supported (invidx reads version 1)");
    }
}

bool CiffReader::next_postings_list(CiffPostingsList& list, const PostingsSink& sink) {
    if (lists_read_ == static_cast<uint64_t>(header_.num_postings_lists)) return false;
    const auto failer = [this](uint64_t at, const std::string& message) { fail(at, message); };
    const std::string counts = "the Header's num_postings_lists says " + std::to_string(header_.num_postings_lists);
    if (offset_ == size_) {
        fail(offset_, "the file ends after " + std::to_string(lists_read_) + " PostingsLists, but " + counts);
    }
    list = CiffPostingsList{};
    list.offset = offset_;
    const uint64_t end = message_end("PostingsList");
    const std::string which = "PostingsList " + std::to_string(lists_read_ + 1) + " of " + std::to_string(header_.num_postings_lists);
    const auto where = [&] { return which + (list.term.empty() ? std::string() : " (term " + quote_term(list.term) + ")") + ": "; };
    const auto wrong_wire = [&](uint64_t at, const char* field, uint64_t wire, uint64_t expected) {
        fail(at, where() + "field " + field + " has wire type " + wire_name(wire) + ", expected " + wire_name(expected) +
                     " (is it a DocRecord? " + counts + ")");
    };
    const uint64_t documents = static_cast<uint64_t>(header_.num_doc_records);
    bool df_seen = false, cf_seen = false;
    uint64_t count = 0, tf_sum = 0, previous = 0, last = 0;
    chunk_.clear();
    while (offset_ < end) {
        const uint64_t at = offset_;
        const uint64_t tag = varint(end, "PostingsList");
        const uint64_t number = tag >> 3, wire = tag & 7;
        if (number == 0) fail(at, where() + "field number 0");
        if (number < last || (number == last && number != list_field::postings)) {
            canonical_.note(at, where() + "field " + std::to_string(number) + " after field " + std::to_string(last));
        }
        last = std::max(last, number);
        switch (number) {
            case list_field::term: {
                if (wire != kLengthDelimited) wrong_wire(at, "term", wire, kLengthDelimited);
                const uint64_t length = varint(end, "PostingsList");
                if (length > kMaxStringBytes) fail(at, where() + "a term of " + std::to_string(length) + " bytes: longer than the " + std::to_string(kMaxStringBytes) + " bytes invidx reads");
                read_bytes(list.term, length, end);
                break;
            }
            case list_field::df:
            case list_field::cf: {
                const char* name = number == list_field::df ? "df" : "cf";
                if (wire != kVarint) wrong_wire(at, name, wire, kVarint);
                const auto value = static_cast<uint64_t>(as_int64(varint(end, "PostingsList"), at, where() + name, failer));
                if (value == 0) canonical_.note(at, where() + name + " written as 0");
                (number == list_field::df ? list.df : list.cf) = value;
                (number == list_field::df ? df_seen : cf_seen) = true;
                break;
            }
            case list_field::postings: {
                if (wire != kLengthDelimited) wrong_wire(at, "postings", wire, kLengthDelimited);
                const uint64_t length = varint(end, "PostingsList");
                if (length > end - offset_) fail(at, where() + "a Posting of " + std::to_string(length) + " bytes runs past the end of its PostingsList (byte " + std::to_string(end) + ")");
                const uint64_t posting_end = offset_ + length;
                int64_t gap = 0, tf = 0;
                uint64_t posting_last = 0;
                while (offset_ < posting_end) {
                    const uint64_t field_at = offset_;
                    const uint64_t posting_tag = varint(posting_end, "Posting");
                    const uint64_t field = posting_tag >> 3, field_wire = posting_tag & 7;
                    if (field <= posting_last) canonical_.note(field_at, where() + "Posting field " + std::to_string(field) + " after field " + std::to_string(posting_last));
                    posting_last = std::max(posting_last, field);
                    if (field == posting_field::docid || field == posting_field::tf) {
                        const char* name = field == posting_field::docid ? "docid" : "tf";
                        if (field_wire != kVarint) fail(field_at, where() + "Posting field " + name + " has wire type " + wire_name(field_wire) + ", expected varint");
                        const uint64_t raw = varint(posting_end, "Posting");
                        // int32: a negative value is sign-extended to 64 bits.
                        const auto value = static_cast<int64_t>(raw);
                        if (value > std::numeric_limits<int32_t>::max() || value < std::numeric_limits<int32_t>::min()) {
                            fail(field_at, where() + "posting " + std::to_string(count + 1) + ": " + name + " " + std::to_string(value) + " does not fit int32");
                        }
                        if (value == 0) canonical_.note(field_at, where() + "Posting " + name + " written as 0");
                        (field == posting_field::docid ? gap : tf) = value;
                    } else {
                        if (field == 0) fail(field_at, where() + "Posting field number 0");
                        canonical_.note(field_at, where() + "Posting: unknown field " + std::to_string(field));
                        switch (field_wire) {
                            case kVarint: (void)varint(posting_end, "Posting"); break;
                            case kFixed64: skip(8, posting_end); break;
                            case kFixed32: skip(4, posting_end); break;
                            case kLengthDelimited: skip(varint(posting_end, "Posting"), posting_end); break;
                            default: fail(field_at, where() + "Posting field " + std::to_string(field) + " has invalid wire type " + std::to_string(field_wire));
                        }
                    }
                }
                const std::string posting = "posting " + std::to_string(count + 1) + ": ";
                if (gap < 0) fail(at, where() + posting + "docid gap " + std::to_string(gap) + " is negative: docids must increase");
                if (count > 0 && gap == 0) {
                    fail(at, where() + posting + "docid " + std::to_string(previous) + " again (gap 0): docids must increase");
                }
                const uint64_t docid = (count == 0 ? 0 : previous) + static_cast<uint64_t>(gap);
                if (docid >= documents) {
                    fail(at, where() + posting + "docid " + std::to_string(docid) + " is beyond the " + std::to_string(documents) +
                                 " documents of the Header's num_doc_records");
                }
                if (tf <= 0) fail(at, where() + posting + "tf " + std::to_string(tf) + ": must be at least 1");
                chunk_.push_back(CiffPosting{.docid = static_cast<uint32_t>(docid), .gap = static_cast<uint32_t>(gap),
                                             .tf = static_cast<uint32_t>(tf)});
                previous = docid;
                ++count;
                tf_sum += static_cast<uint64_t>(tf);
                if (chunk_.size() == kChunkPostings) {
                    sink(chunk_);
                    chunk_.clear();
                }
                break;
            }
            default:
                canonical_.note(at, where() + "unknown field " + std::to_string(number));
                switch (wire) {
                    case kVarint: (void)varint(end, "PostingsList"); break;
                    case kFixed64: skip(8, end); break;
                    case kFixed32: skip(4, end); break;
                    case kLengthDelimited: skip(varint(end, "PostingsList"), end); break;
                    default: fail(at, where() + "field " + std::to_string(number) + " has invalid wire type " + std::to_string(wire));
                }
        }
    }
    if (!chunk_.empty()) sink(chunk_);
    chunk_.clear();
    if (list.term.empty()) fail(list.offset, where() + "no term (or an empty one; is it a DocRecord? " + counts + ")");
    if (count == 0) fail(list.offset, where() + "no postings: every term of an invidx index occurs in some document");
    if (!df_seen || list.df != count) {
        fail(list.offset, where() + "df " + std::to_string(list.df) + " does not match its " + std::to_string(count) + " postings");
    }
    if (!cf_seen || list.cf != tf_sum) {
        fail(list.offset, where() + "cf " + std::to_string(list.cf) + " does not match the sum of its tfs, " + std::to_string(tf_sum));
    }
    if (lists_read_ > 0) {
        if (list.term == previous_term_) fail(list.offset, where() + "the same term as the PostingsList before it");
        if (list.term < previous_term_) canonical_.note(list.offset, where() + "terms not in byte-wise order (after " + quote_term(previous_term_) + ")");
    }
    previous_term_ = list.term;
    ++lists_read_;
    return true;
}

bool CiffReader::next_doc_record(CiffDocRecord& record) {
    if (lists_read_ != static_cast<uint64_t>(header_.num_postings_lists)) {
        throw Error("CIFF reader: DocRecords are read after every PostingsList", in_file(name_));
    }
    if (records_read_ == static_cast<uint64_t>(header_.num_doc_records)) return false;
    const auto failer = [this](uint64_t at, const std::string& message) { fail(at, message); };
    const std::string counts = "the Header's num_postings_lists says " + std::to_string(header_.num_postings_lists) +
                               ", num_doc_records " + std::to_string(header_.num_doc_records);
    if (offset_ == size_) {
        fail(offset_, "the file ends after " + std::to_string(records_read_) + " DocRecords, but " + counts);
    }
    record = CiffDocRecord{};
    record.offset = offset_;
    const uint64_t end = message_end("DocRecord");
    const std::string where = "DocRecord " + std::to_string(records_read_ + 1) + " of " + std::to_string(header_.num_doc_records) + ": ";
    int64_t docid = 0;
    uint64_t last = 0;
    while (offset_ < end) {
        const uint64_t at = offset_;
        const uint64_t tag = varint(end, "DocRecord");
        const uint64_t number = tag >> 3, wire = tag & 7;
        if (number == 0) fail(at, where + "field number 0");
        if (number <= last) canonical_.note(at, where + "field " + std::to_string(number) + " after field " + std::to_string(last));
        last = std::max(last, number);
        const auto expect = [&](const char* field, uint64_t expected) {
            if (wire != expected) {
                fail(at, where + "field " + field + " has wire type " + wire_name(wire) + ", expected " + wire_name(expected) +
                             " (is it a PostingsList? " + counts + ")");
            }
        };
        switch (number) {
            case record_field::docid:
            case record_field::doclength: {
                const char* name = number == record_field::docid ? "docid" : "doclength";
                expect(name, kVarint);
                const int64_t value = as_int64(varint(end, "DocRecord"), at, where + name, failer);
                if (value > std::numeric_limits<int32_t>::max()) fail(at, where + name + " " + std::to_string(value) + " does not fit int32");
                if (value == 0) canonical_.note(at, where + name + " written as 0");
                if (number == record_field::docid) {
                    docid = value;
                } else {
                    record.doclength = static_cast<uint32_t>(value);
                }
                break;
            }
            case record_field::collection_docid: {
                expect("collection_docid", kLengthDelimited);
                const uint64_t length = varint(end, "DocRecord");
                if (length > kMaxStringBytes) fail(at, where + "a collection_docid of " + std::to_string(length) + " bytes: longer than the " + std::to_string(kMaxStringBytes) + " bytes invidx reads");
                read_bytes(record.collection_docid, length, end);
                if (length == 0) canonical_.note(at, where + "collection_docid written empty");
                break;
            }
            default:
                canonical_.note(at, where + "unknown field " + std::to_string(number));
                switch (wire) {
                    case kVarint: (void)varint(end, "DocRecord"); break;
                    case kFixed64: skip(8, end); break;
                    case kFixed32: skip(4, end); break;
                    case kLengthDelimited: skip(varint(end, "DocRecord"), end); break;
                    default: fail(at, where + "field " + std::to_string(number) + " has invalid wire type " + std::to_string(wire));
                }
        }
    }
    if (static_cast<uint64_t>(docid) != records_read_) {
        fail(record.offset, where + "docid " + std::to_string(docid) + ", expected " + std::to_string(records_read_) +
                                ": DocRecords must hold docids 0 to num_doc_records - 1, in order");
    }
    record.docid = static_cast<uint32_t>(docid);
    total_doclength_ += record.doclength;
    ++records_read_;
    return true;
}

void CiffReader::finish() {
    if (finished_) return;
    if (lists_read_ != static_cast<uint64_t>(header_.num_postings_lists) ||
        records_read_ != static_cast<uint64_t>(header_.num_doc_records)) {
        throw Error("CIFF reader: finish() before every message was read", in_file(name_));
    }
    if (offset_ != size_) {
        fail(offset_, std::to_string(size_ - offset_) + " trailing bytes after the last DocRecord (the Header's num_postings_lists says " +
                          std::to_string(header_.num_postings_lists) + ", num_doc_records " + std::to_string(header_.num_doc_records) + ")");
    }
    finished_ = true;
    // The Header as the exporter writes it for this content.
    const auto documents = static_cast<uint64_t>(header_.num_doc_records);
    if (header_.total_postings_lists != header_.num_postings_lists) {
        canonical_.note(0, "Header.total_postings_lists " + std::to_string(header_.total_postings_lists) + " is not num_postings_lists " +
                               std::to_string(header_.num_postings_lists));
    }
    if (header_.total_docs != header_.num_doc_records) {
        canonical_.note(0, "Header.total_docs " + std::to_string(header_.total_docs) + " is not num_doc_records " +
                               std::to_string(header_.num_doc_records));
    }
    if (static_cast<uint64_t>(header_.total_terms_in_collection) != total_doclength_) {
        canonical_.note(0, "Header.total_terms_in_collection " + std::to_string(header_.total_terms_in_collection) +
                               " is not the DocRecords' total doclength " + std::to_string(total_doclength_));
    }
    const double average = exporter_average(total_doclength_, documents);
    if (std::bit_cast<uint64_t>(header_.average_doclength) != std::bit_cast<uint64_t>(average)) {
        canonical_.note(0, "Header.average_doclength " + std::to_string(header_.average_doclength) +
                               " is not total doclength / num_doc_records (" + std::to_string(average) + ")");
    }
}

}  // namespace invidx
