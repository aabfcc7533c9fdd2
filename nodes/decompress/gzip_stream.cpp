#include "nodes/decompress/gzip_stream.hpp"

#include <zlib.h>
#if defined(INVIDX_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif
#if defined(INVIDX_HAVE_ISAL)
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>

#include "invidx/error.hpp"

namespace invidx {
namespace {

// zlib's windowBits for gzip only, with the trailer's CRC-32 and ISIZE
// checked (zlib.h, inflateInit2): 15 (32 KiB window) + 16.
constexpr int kGzipWindowBits = 15 + 16;

// As in decompress_file.cpp: blocks start small and double up to the limit,
// so that a small file does not hold a full-size buffer.
constexpr size_t kFirstBufferBytes = size_t{64} << 10;

// The tar header is one 512-byte block (POSIX.1-2001 ustar).
constexpr size_t kTarBlockBytes = 512;

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

// What libarchive's tar reader accepts as a first header: an all-zero block
// (an empty archive), a ustar magic, or any header whose checksum (unsigned
// or signed sum, the checksum field counted as spaces) matches (old v7 tar).
bool looks_like_tar(std::string_view header) {
    if (header.size() < kTarBlockBytes) return false;
    if (std::all_of(header.begin(), header.begin() + kTarBlockBytes, [](char c) { return c == 0; })) return true;
    if (header.compare(257, 5, "ustar") == 0) return true;
    uint64_t recorded = 0;
    size_t i = 148;
    while (i < 156 && header[i] == ' ') ++i;
    bool digits = false;
    for (; i < 156 && header[i] >= '0' && header[i] <= '7'; ++i) {
        recorded = recorded * 8 + static_cast<uint64_t>(header[i] - '0');
        digits = true;
    }
    if (!digits) return false;
    int64_t unsigned_sum = 0;
    int64_t signed_sum = 0;
    for (size_t j = 0; j < kTarBlockBytes; ++j) {
        const char c = (j >= 148 && j < 156) ? ' ' : header[j];
        unsigned_sum += static_cast<unsigned char>(c);
        signed_sum += static_cast<signed char>(c);
    }
    return static_cast<int64_t>(recorded) == unsigned_sum || static_cast<int64_t>(recorded) == signed_sum;
}

// Text that libarchive would not take as raw data: a zip, a tar, or another
// compressed stream (its filters nest: gzip of bzip2 is decoded twice). Text
// formats never start with a NUL, binary headers (xz, lzma, lzop) mostly do.
bool needs_libarchive(std::string_view text) {
    static constexpr std::string_view kMagics[] = {
        "PK",                // zip
        "\x1f\x8b",          // gzip
        "\x1f\x9d",          // compress
        "BZh",               // bzip2
        "\xfd" "7zXZ",       // xz
        "\x28\xb5\x2f\xfd",  // zstd
        "\x04\x22\x4d\x18",  // lz4
        "\x02\x21\x4c\x18",  // lz4 legacy
        "LZIP",              // lzip
        "\x89LZO",           // lzop
        "LRZI",              // lrzip
        "GRZipII",           // grzip
        "\xed\xab\xee\xdb",  // rpm
        "begin ",            // uuencode
        "begin-base64 ",
    };
    for (const std::string_view magic : kMagics)
        if (starts_with(text, magic)) return true;
    if (text.substr(0, 16).find('\0') != std::string_view::npos) return true;
    return looks_like_tar(text);
}

// The most text a member may decode to for libdeflate to take it whole,
// unless it fits in what is left of the text block; bigger members (a
// whole-file gzip) stream through zlib.
constexpr size_t kMemberTextBytes = size_t{1} << 20;
// The least room left in a text block worth decoding a member into directly.
constexpr size_t kDirectRoomBytes = size_t{16} << 10;

uInt chunk_size(size_t n) { return static_cast<uInt>(std::min<size_t>(n, std::numeric_limits<uInt>::max())); }

uint32_t little_endian_32(const unsigned char* bytes) {
    return uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 | uint32_t{bytes[3]} << 24;
}

}  // namespace

GzipDecoders gzip_decoders_built() {
    GzipDecoders built;
#if defined(INVIDX_HAVE_ISAL)
    built.isal = true;
#endif
#if defined(INVIDX_HAVE_LIBDEFLATE)
    built.libdeflate = true;
#endif
    return built;
}

GzipDecoders gzip_decoders() {
    static const GzipDecoders chosen = [] {
        GzipDecoders decoders = gzip_decoders_built();
        const char* choice = std::getenv("INVIDX_GZIP_DECODER");
        const std::string_view name = choice != nullptr ? choice : "";
        if (name == "zlib") {
            decoders = GzipDecoders{};
        } else if (name == "libdeflate") {
            decoders.isal = false;
        } else if (name == "isal") {
            decoders.libdeflate = decoders.libdeflate && !decoders.isal;
        }
        return decoders;
    }();
    return chosen;
}

bool gzip_direct(std::string_view first_block, bool last) {
    if (!starts_with(first_block, "\x1f\x8b")) return false;
    z_stream zlib{};
    if (inflateInit2(&zlib, kGzipWindowBits) != Z_OK) return false;
    std::array<char, kTarBlockBytes> text{};
    size_t got = 0;
    bool damaged = false;
    zlib.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(first_block.data()));
    zlib.avail_in = chunk_size(first_block.size());
    while (got < text.size() && zlib.avail_in > 0) {
        zlib.next_out = reinterpret_cast<Bytef*>(text.data() + got);
        zlib.avail_out = static_cast<uInt>(text.size() - got);
        const int status = inflate(&zlib, Z_NO_FLUSH);
        got = text.size() - zlib.avail_out;
        if (status == Z_STREAM_END) {
            // The next member, if the rest is one.
            if (zlib.avail_in == 0 || *zlib.next_in != '\x1f') break;
            inflateReset(&zlib);
        } else if (status != Z_OK) {
            damaged = true;
            break;
        }
    }
    const bool decided = got == text.size() || last || zlib.avail_in > 0;
    inflateEnd(&zlib);
    // Damaged data: GzipStream reports it with the file and offset.
    if (damaged) return true;
    if (!decided) return false;
    return !needs_libarchive(std::string_view(text.data(), got));
}

GzipStream::GzipStream(const InputFile& file, size_t text_block_bytes,
                       std::shared_ptr<BufferPool<std::string>> buffers, GzipDecoders decoders)
    : file_(file), text_block_bytes_(text_block_bytes), buffers_(std::move(buffers)) {
    ensure(text_block_bytes_ > 0, "text block size must be positive");
    zlib_ = new z_stream{};
    header_ = new gz_header{};
    if (inflateInit2(zlib_, kGzipWindowBits) != Z_OK) {
        delete zlib_;
        delete header_;
        throw Error("cannot start zlib", ErrorContext{.node = "decompress", .file = file_.path, .record = {}, .byte_offset = {}});
    }
    inflateGetHeader(zlib_, header_);
    members_ = 1;
    start_block(0);
#if defined(INVIDX_HAVE_LIBDEFLATE)
    if (decoders.libdeflate) whole_members_ = libdeflate_alloc_decompressor();  // null: zlib does it all
#endif
#if defined(INVIDX_HAVE_ISAL)
    if (decoders.isal) {
        isal_ = new inflate_state;
        isal_inflate_init(isal_);
    }
#endif
    (void)decoders;
}

GzipStream::~GzipStream() {
#if defined(INVIDX_HAVE_LIBDEFLATE)
    if (whole_members_) libdeflate_free_decompressor(whole_members_);
#endif
#if defined(INVIDX_HAVE_ISAL)
    delete isal_;
#endif
    inflateEnd(zlib_);
    delete zlib_;
    delete header_;
    if (buffers_) buffers_->give_back(std::move(current_.bytes));
}

uint32_t gzip_crc32(uint32_t crc, const char* bytes, size_t size) {
#if defined(INVIDX_HAVE_ISAL)
    return crc32_gzip_refl(crc, reinterpret_cast<const unsigned char*>(bytes), size);
#else
    return static_cast<uint32_t>(crc32_z(crc, reinterpret_cast<const Bytef*>(bytes), size));
#endif
}

void GzipStream::resume(uint64_t compressed_offset, uint64_t text_offset, uint64_t members_before) {
    ensure(compressed_offset_ == 0 && filled_ == 0 && !emitted_ && !finished_,
           "a gzip stream resumes only before its first bytes");
    compressed_offset_ = compressed_offset;
    member_offset_ = compressed_offset;
    members_ = members_before;
    state_ = State::between_members;
    at_member_start_ = true;
    emitted_ = true;
    current_.entry_offset = text_offset;
    current_.entry_begin = false;
}

void GzipStream::fail(const std::string& what) {
    finished_ = true;
    throw Error(what, ErrorContext{.node = "decompress",
                                   .file = file_.path,
                                   .record = std::nullopt,
                                   .byte_offset = current_.entry_offset + filled_});
}

void GzipStream::start_block(uint64_t entry_offset) {
    current_ = TextBlock{};
    current_.file_ordinal = file_.ordinal;
    current_.entry_index = 0;
    current_.entry_name = file_.name;
    current_.entry_offset = entry_offset;
    current_.entry_begin = !emitted_;
    // A pooled buffer keeps the size its last block had: resizing to no less
    // (up to a block) writes no zeros over bytes that are about to be
    // decoded over anyway. Only the first filled_ bytes are ever sent.
    if (buffers_) current_.bytes = buffers_->take();
    // A block starts as big as the text it will surely hold: a full block
    // after a full one (the stream has more), else the file's compressed size
    // (deflate's text is no smaller, but for a few bytes a block), since a
    // new buffer grown by doubling is copied and faulted in about twice over
    // (GzipStream was 6% of a 2-core one-stream build's CPU growing blocks
    // while the pool filled). A small file's block stays small.
    const uint64_t surely = emitted_ ? text_block_bytes_ : std::max<uint64_t>(file_.size_bytes, kFirstBufferBytes);
    const size_t at_least = static_cast<size_t>(std::min<uint64_t>(surely, text_block_bytes_));
    current_.bytes.resize(std::min(text_block_bytes_, std::max(current_.bytes.size(), at_least)));
    filled_ = 0;
}

void GzipStream::emit_current(bool entry_end, const Emit& emit) {
    current_.bytes.resize(filled_);
    current_.entry_end = entry_end;
    const uint64_t next_offset = current_.entry_offset + filled_;
    emitted_ = true;
    emit(std::move(current_));
    if (!entry_end) start_block(next_offset);
}

void GzipStream::grow_block() {
    if (filled_ == current_.bytes.size() && filled_ < text_block_bytes_)
        current_.bytes.resize(std::min(text_block_bytes_, current_.bytes.size() * 2));
}

void GzipStream::append_text(const char* text, size_t size, const Emit& emit) {
    while (size > 0) {
        // More text follows, so a full block is not the entry's last.
        if (filled_ == text_block_bytes_) emit_current(false, emit);
        grow_block();
        const size_t take = std::min(size, current_.bytes.size() - filled_);
        std::copy(text, text + take, current_.bytes.data() + filled_);
        filled_ += take;
        text += take;
        size -= take;
    }
}

bool GzipStream::decode_whole_member(const char* input, size_t size, size_t& used, const Emit& emit) {
#if defined(INVIDX_HAVE_LIBDEFLATE)
    size_t produced = 0;
    // Straight into the text block while the member fits in what is left
    // of it: no copy. A member that does not fit (about one per block) is
    // decoded again into member_text_ below and split across blocks.
    if (current_.bytes.size() - filled_ < kMemberTextBytes && current_.bytes.size() < text_block_bytes_) {
        // Grown as append_text grows it, by doubling, so a small file's block stays small.
        current_.bytes.resize(std::min(text_block_bytes_, std::max(2 * current_.bytes.size(), filled_ + kMemberTextBytes)));
    }
    // At most kMemberTextBytes: a bigger member (a one-stream file's) costs
    // libdeflate no more than that before igzip or zlib streams it.
    const size_t room = std::min(current_.bytes.size() - filled_, kMemberTextBytes);
    if (room >= kDirectRoomBytes) {
        const libdeflate_result direct = libdeflate_gzip_decompress_ex(
            whole_members_, input, size, current_.bytes.data() + filled_, room, &used, &produced);
        if (direct == LIBDEFLATE_SUCCESS) {
            filled_ += produced;
            return true;
        }
        if (direct != LIBDEFLATE_INSUFFICIENT_SPACE) return false;  // cut by the block's end, or damaged
        if (room == kMemberTextBytes) {
            whole_member_fits_ = false;  // too big: the next members stream too, until one is small
            return false;
        }
    }
    if (!member_text_) member_text_.reset(new char[kMemberTextBytes]);
    const libdeflate_result result = libdeflate_gzip_decompress_ex(
        whole_members_, input, size, member_text_.get(), kMemberTextBytes, &used, &produced);
    if (result == LIBDEFLATE_INSUFFICIENT_SPACE) whole_member_fits_ = false;
    if (result != LIBDEFLATE_SUCCESS) return false;  // cut by the block's end, too big, or damaged
    append_text(member_text_.get(), produced, emit);
    return true;
#else
    (void)input;
    (void)size;
    (void)used;
    (void)emit;
    return false;
#endif
}

void GzipStream::feed(std::string_view compressed, bool last, const Emit& emit) {
    if (finished_) fail("gzip data fed after the end of the file");
    const char* next = compressed.data();
    size_t left = compressed.size();
    // drain_: igzip filled the block and may hold text for which it needs
    // no more input (the trailer already in its bit buffer).
    while (left > 0 || drain_) {
        if (state_ == State::padding) {
            const char* nonzero = std::find_if(next, next + left, [](char c) { return c != 0; });
            if (nonzero != next + left) {
                fail("bytes after the last gzip member at compressed byte " +
                     std::to_string(compressed_offset_ + static_cast<uint64_t>(nonzero - next)) +
                     " are neither a gzip member nor zero padding");
            }
            compressed_offset_ += left;
            left = 0;
            break;
        }
        if (state_ == State::between_members) {
            if (*next == 0) {
                state_ = State::padding;
                continue;
            }
            inflateReset(zlib_);
            inflateGetHeader(zlib_, header_);
            ++members_;
            member_offset_ = compressed_offset_;
            state_ = State::member;
            in_body_ = false;
        }
        if (at_member_start_) member_text_start_ = current_.entry_offset + filled_;
        if (at_member_start_ && whole_members_ != nullptr && whole_member_fits_) {
            size_t used = 0;
            if (decode_whole_member(next, left, used, emit)) {
                next += used;
                left -= used;
                compressed_offset_ += used;
                state_ = State::between_members;
                continue;
            }
        }
        at_member_start_ = false;
        const size_t consumed = isal_ != nullptr ? feed_isal(next, left, emit) : feed_zlib(next, left, emit);
        next += consumed;
        left -= consumed;
        compressed_offset_ += consumed;
    }
    if (!last) return;
    if (state_ == State::member) fail("truncated gzip data (member " + std::to_string(members_) + " has no end)");
    finished_ = true;
    emit_current(true, emit);
}

void GzipStream::streamed_member_ended() {
    whole_member_fits_ = current_.entry_offset + filled_ - member_text_start_ <= kMemberTextBytes;
}

void GzipStream::fail_header(int status) {
    if (status == Z_DATA_ERROR && members_ > 1 && header_->done != 1) {
        // zlib sets done to 1 once a member's header is read, -1 when the
        // bytes are no gzip header at all: trailing garbage, not damage.
        fail("bytes after gzip member " + std::to_string(members_ - 1) + " at compressed byte " +
             std::to_string(member_offset_) +
             " are neither a gzip member nor zero padding (zlib: " + (zlib_->msg ? zlib_->msg : "?") + ")");
    } else if (status == Z_DATA_ERROR) {
        // "incorrect data check": CRC-32 mismatch; "incorrect length check": ISIZE.
        fail(std::string("damaged gzip data in member ") + std::to_string(members_) + " (zlib: " +
             (zlib_->msg ? zlib_->msg : "?") + ")");
    } else if (status == Z_MEM_ERROR) {
        fail("out of memory in zlib");
    }
    fail("zlib inflate failed with status " + std::to_string(status));
}

size_t GzipStream::feed_zlib(const char* next, size_t left, const Emit& emit) {
    // A full block goes out once more text shows it is not the entry's
    // last: inflate one byte to find out.
    char spill = 0;
    const bool full = filled_ == text_block_bytes_;
    if (!full) grow_block();
    zlib_->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(next));
    zlib_->avail_in = chunk_size(left);
    zlib_->next_out = reinterpret_cast<Bytef*>(full ? &spill : current_.bytes.data() + filled_);
    zlib_->avail_out = full ? 1 : static_cast<uInt>(current_.bytes.size() - filled_);
    const uInt avail_in = zlib_->avail_in;
    const uInt avail_out = zlib_->avail_out;
    const int status = inflate(zlib_, Z_NO_FLUSH);
    const size_t consumed = avail_in - zlib_->avail_in;
    const size_t produced = avail_out - zlib_->avail_out;
    if (full && produced == 1) {
        emit_current(false, emit);
        current_.bytes[0] = spill;
        filled_ = 1;
    } else {
        filled_ += produced;
    }
    if (status == Z_STREAM_END) {
        state_ = State::between_members;
        at_member_start_ = true;
        streamed_member_ended();
    } else if (status != Z_OK || (consumed == 0 && produced == 0)) {
        fail_header(status);
    }
    return consumed;
}

size_t GzipStream::feed_isal(const char* next, size_t left, const Emit& emit) {
#if defined(INVIDX_HAVE_ISAL)
    if (!in_body_) {
        // zlib reads the header (naming damage and trailing garbage as it
        // always did) and stops before the first deflate block (Z_BLOCK),
        // with no bit of it taken.
        unsigned char no_text = 0;
        zlib_->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(next));
        zlib_->avail_in = chunk_size(left);
        zlib_->next_out = &no_text;
        zlib_->avail_out = 1;
        const int status = inflate(zlib_, Z_BLOCK);
        const size_t consumed = chunk_size(left) - zlib_->avail_in;
        if (status != Z_OK || (consumed == 0 && header_->done != 1)) fail_header(status);
        if (header_->done == 1) {
            isal_inflate_reset(isal_);
            isal_->crc_flag = ISAL_GZIP_NO_HDR_VER;  // igzip inflates the body and checks the trailer
            in_body_ = true;
        }
        return consumed;
    }
    char spill = 0;
    const bool full = filled_ == text_block_bytes_;
    if (!full) grow_block();
    const uint32_t avail_in = static_cast<uint32_t>(std::min<size_t>(left, std::numeric_limits<uint32_t>::max()));
    const uint32_t avail_out = full ? 1 : static_cast<uint32_t>(current_.bytes.size() - filled_);
    isal_->next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(next));
    isal_->avail_in = avail_in;
    isal_->next_out = reinterpret_cast<uint8_t*>(full ? &spill : current_.bytes.data() + filled_);
    isal_->avail_out = avail_out;
    const int status = isal_inflate(isal_);
    const size_t consumed = avail_in - isal_->avail_in;
    const size_t produced = avail_out - isal_->avail_out;
    // The last 8 bytes consumed: the trailer, when igzip finds it wrong.
    if (consumed >= sizeof trailer_) {
        std::copy(next + consumed - sizeof trailer_, next + consumed, trailer_);
    } else if (consumed > 0) {
        std::copy(trailer_ + consumed, trailer_ + sizeof trailer_, trailer_);
        std::copy(next, next + consumed, trailer_ + sizeof trailer_ - consumed);
    }
    if (full && produced == 1) {
        emit_current(false, emit);
        current_.bytes[0] = spill;
        filled_ = 1;
    } else {
        filled_ += produced;
    }
    const bool member_end = status == ISAL_DECOMP_OK && isal_->block_state == ISAL_BLOCK_FINISH;
    drain_ = status == ISAL_DECOMP_OK && !member_end && isal_->avail_out == 0;
    if (member_end) {
        state_ = State::between_members;
        at_member_start_ = true;
        in_body_ = false;
        streamed_member_ended();
    } else if (status == ISAL_INCORRECT_CHECKSUM) {
        // The words zlib uses, so that a damaged file reads the same in every build.
        const bool crc_wrong = little_endian_32(trailer_) != isal_->crc;
        fail(std::string("damaged gzip data in member ") + std::to_string(members_) + " (zlib: " +
             (crc_wrong ? "incorrect data check" : "incorrect length check") + ")");
    } else if (status != ISAL_DECOMP_OK) {
        const char* what = status == ISAL_INVALID_BLOCK    ? "invalid deflate block"
                           : status == ISAL_INVALID_SYMBOL ? "invalid deflate code"
                           : status == ISAL_INVALID_LOOKBACK ? "invalid distance too far back"
                                                             : "inflate failed";
        fail(std::string("damaged gzip data in member ") + std::to_string(members_) + " (igzip: " + what +
             ", status " + std::to_string(status) + ")");
    } else if (consumed == 0 && produced == 0 && left > 0) {
        fail("igzip inflate made no progress");
    }
    return consumed;
#else
    (void)next;
    (void)left;
    (void)emit;
    fail("gzip stream built without ISA-L");
#endif
}

}  // namespace invidx
