// Push-based gzip decoding for the common case of plain gzip files
// (per-record-gzip WARC as in Common Crawl, whole-file gzip). It runs on the
// caller's thread, so a decompress worker needs no decoder thread for these
// files, and it checks every member's CRC-32 and ISIZE trailer (RFC 1952
// §2.3.1), which libarchive 3.6 does not: a damaged file that still inflates
// is an error, never a silently wrong index. Everything else (bzip2, xz,
// zstd, lz4, tar, zip) stays with libarchive (StreamingDecompressor);
// gzip_direct() decides from a file's first block. A gzip of a tar (or of
// anything libarchive opens further) is inflated by a GzipStream too, whose
// text libarchive reads uncompressed (InflatingSource).
//
// The decoders, fastest first where the build has them (GzipDecoders):
// ISA-L's igzip inflates streams (about 3x zlib's inflate per core), libdeflate
// whole small members, zlib everything else. zlib always reads each
// member's header, so header damage and trailing garbage are named as zlib
// names them; igzip verifies the trailer, which the stream then diagnoses
// (CRC-32 or ISIZE) from the trailer's bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "graph/buffer_pool.hpp"
#include "invidx/messages.hpp"

struct z_stream_s;
struct gz_header_s;
struct libdeflate_decompressor;
struct inflate_state;

namespace invidx {

// Which decoders a GzipStream may use. The default, gzip_decoders(), is
// every one the build has, unless INVIDX_GZIP_DECODER in the environment
// names fewer, for side-by-side measurements (bench/README.md):
//   zlib        zlib only
//   libdeflate  libdeflate for whole members, zlib for streams (the
//               decoders before ISA-L)
//   isal        ISA-L for streams and members alike (no libdeflate)
// A decoder the build lacks is never used.
struct GzipDecoders {
    bool isal = false;        // streams (and members, without libdeflate) by igzip
    bool libdeflate = false;  // whole members of at most 1 MiB of text by libdeflate
};
GzipDecoders gzip_decoders();
// Which decoders this build has at all.
GzipDecoders gzip_decoders_built();

// gzip's CRC-32 of bytes[0, size) continued from `crc` (0 to start): ISA-L's
// (folding with carry-less multiplies, many GB/s) where the build has it,
// else zlib's.
uint32_t gzip_crc32(uint32_t crc, const char* bytes, size_t size);

// Whether the file whose first raw block is `first_block` (`last`: it is the
// whole file) is plain gzip that GzipStream decodes like libarchive would:
// it starts with the gzip magic 1f 8b, and the start of its decompressed
// text, up to 512 bytes, is neither a tar header nor a zip or compressed
// stream that libarchive would open further. When the first block does not
// decode to 512 bytes before it ends, and the file goes on, the answer is
// false: libarchive decodes it, as every file before.
bool gzip_direct(std::string_view first_block, bool last);

class GzipStream {
public:
    using Emit = std::function<void(TextBlock&&)>;

    // Decodes `file` (for the entry name, ordinal and errors) into TextBlocks
    // of at most `text_block_bytes`, the same blocks emit_text_blocks() cuts
    // from libarchive's decoding: one entry named after the file (an empty
    // one when there is no text), entry_begin on the first block, entry_end
    // on the last. Leases and file_block are left to the caller. With
    // `buffers`, each block's bytes are taken from that pool (the caller
    // shares the blocks so that their bytes return to it).
    GzipStream(const InputFile& file, size_t text_block_bytes,
               std::shared_ptr<BufferPool<std::string>> buffers = nullptr,
               GzipDecoders decoders = gzip_decoders());
    ~GzipStream();
    GzipStream(const GzipStream&) = delete;
    GzipStream& operator=(const GzipStream&) = delete;

    // Feeds the file's next compressed bytes, `last` for its last block, and
    // emits every TextBlock completed so far. A full block is held back (as
    // bytes only) until more text or the end shows whether it ends the
    // entry; zlib keeps the rest of the state, so the caller keeps no input.
    // Members follow each other anywhere in the input; after the last one,
    // zero bytes (padding) are ignored and anything else is an error. Damaged
    // data (CRC-32 or length mismatch, bad header) or truncation throws
    // invidx::Error naming the file and the decompressed byte offset; the
    // stream is then finished.
    void feed(std::string_view compressed, bool last, const Emit& emit);

    // Before the first feed: the bytes fed start at a member boundary at
    // `compressed_offset` of the file, whose text starts at `text_offset` of
    // the entry (a file decoded in pieces: split_gzip.hpp). Errors then name
    // those offsets; the first block is not the entry's beginning.
    // `members_before`: how many members precede, so that errors number
    // members as a decoding from the file's start would.
    void resume(uint64_t compressed_offset, uint64_t text_offset, uint64_t members_before);
    // Members started so far (after resume: counted on from members_before).
    uint64_t members() const { return members_; }
    // After the last feed: the fed bytes ended in zero padding, which only
    // the end of a file may hold.
    bool in_padding() const { return state_ == State::padding; }

    bool finished() const { return finished_; }
    uint32_t file_ordinal() const { return file_.ordinal; }

private:
    enum class State { member, between_members, padding };

    [[noreturn]] void fail(const std::string& what);
    void start_block(uint64_t entry_offset);
    void emit_current(bool entry_end, const Emit& emit);
    // libdeflate, when built with it: a member that lies whole in `input`
    // and decodes to at most kMemberTextBytes is decoded in one call (CRC-32
    // and ISIZE checked). False leaves the member to zlib, which streams it
    // across feeds and names whatever is wrong with it.
    bool decode_whole_member(const char* input, size_t size, size_t& used, const Emit& emit);
    void append_text(const char* text, size_t size, const Emit& emit);
    // Makes room for text in the current block (emitting a full one once
    // more text shows it is not the entry's last is left to the caller).
    void grow_block();
    // zlib reads the member's header only, then igzip inflates its body and
    // checks its trailer. Returns the compressed bytes consumed.
    size_t feed_isal(const char* next, size_t left, const Emit& emit);
    // zlib inflates the member (header, body, trailer).
    size_t feed_zlib(const char* next, size_t left, const Emit& emit);
    // A zlib status other than Z_OK or Z_STREAM_END, named as before ISA-L.
    [[noreturn]] void fail_header(int status);
    // igzip or zlib ended a member: libdeflate tries the next one whole
    // only when this one was small enough for it.
    void streamed_member_ended();

    InputFile file_;
    const size_t text_block_bytes_;
    std::shared_ptr<BufferPool<std::string>> buffers_;  // null: every block's bytes are new
    struct z_stream_s* zlib_ = nullptr;
    struct gz_header_s* header_ = nullptr;  // the current member's, to know if it was read
    struct libdeflate_decompressor* whole_members_ = nullptr;  // null without libdeflate
    struct inflate_state* isal_ = nullptr;  // null without ISA-L: zlib inflates the bodies
    bool in_body_ = false;       // igzip: the member's header is read, igzip has its body
    bool drain_ = false;         // igzip filled the output: it may hold more text without input
    unsigned char trailer_[8] = {};  // igzip: the last 8 compressed bytes consumed (the trailer, at its end)
    // One member's text from libdeflate, kMemberTextBytes, allocated when
    // first needed and never zero-filled: a split file makes a stream per
    // chunk, and filling 1 MiB for each showed in the page faults.
    std::unique_ptr<char[]> member_text_;
    bool at_member_start_ = true;    // zlib has not started on the current member
    // libdeflate is tried on a member whole only while the members before
    // were at most kMemberTextBytes of text: one that is bigger (a one-stream
    // file) is not decoded in part by libdeflate and then again by igzip or
    // zlib, member after member.
    bool whole_member_fits_ = true;
    uint64_t member_text_start_ = 0; // the entry offset of the current member's text
    State state_ = State::member;
    uint64_t members_ = 0;           // started so far
    uint64_t compressed_offset_ = 0; // of the next byte fed
    uint64_t member_offset_ = 0;     // where the current member starts in the file
    TextBlock current_;              // being filled: bytes[0, filled_)
    size_t filled_ = 0;
    bool emitted_ = false;           // a block of the entry went out
    bool finished_ = false;
};

}  // namespace invidx
