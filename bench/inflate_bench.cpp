// invidx_inflate_bench: how fast one core inflates WARC.gz, by decoder and
// file shape, so that the build is quoted against the fastest decoder
// present rather than zlib's (issue #32, bench/README.md).
//
// The WARC text of INPUT (plain or gzip WARC files, e.g. real pages from
// bench/gen_collection.py --gzip none) is compressed here, at --level, into
// the two shapes crawls ship:
//   one stream    the whole file one gzip member (ClueWeb-style)
//   per record    one gzip member per WARC record (Common Crawl-style)
//   split chunks  the per-record file cut into chunks at member headers, 4
//                 read blocks at most, each decoded on its own as the
//                 decompress node's split_gzip does (nodes/decompress/split_gzip.hpp)
//   tar.gz        the text as a tar of 64 MiB members, one gzip stream (tar
//                 czf), read as the decompress node reads one: libarchive's
//                 gzip filter and tar reader (the build before GzipStream
//                 inflated tar.gz), and ArchiveStream (GzipStream with the
//                 build's default decoders, libarchive's tar reader on its text)
// and each decoder present decodes each shape on one thread:
//   igzip         ISA-L's isal_inflate, streamed in 4 MiB read blocks
//   libdeflate    libdeflate_gzip_decompress_ex, member by member, with the
//                 whole file and its whole text in memory (it cannot stream:
//                 a one-stream file needs a buffer of all its text)
//   zlib          zlib's inflate, streamed in 4 MiB read blocks
//   invidx ...    GzipStream (what the decompress node runs) with the
//                 decoders named: "igzip+libdeflate" is the default where
//                 both are built, "libdeflate+zlib" the build before ISA-L
// Rates are MB (10^6 bytes) of text per second of wall time and per
// second of the thread's CPU time, best of --repeat; every decoder's text
// is checked against the input's (length and CRC-32) before it is timed.
//
//   invidx_inflate_bench [--level L] [--repeat R] [--write DIR] INPUT...
//   invidx_inflate_bench --gunzip DECODER FILE.gz...
//
// --write DIR also writes DIR/one-stream.warc.gz and DIR/per-record.warc.gz
// (the same pages in both shapes) for builds. --gunzip decodes each gzip
// FILE with one decoder (igzip, libdeflate, zlib) and discards the text, a
// ceiling to run one process per file beside a build, as bench/zlib_gunzip.py
// is for zlib.

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>
#if defined(INVIDX_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif
#if defined(INVIDX_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#endif
#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/buffer_pool.hpp"
#include "bench/whole_file.hpp"
#include "invidx/error.hpp"
#include "nodes/decompress/archive_stream.hpp"
#include "nodes/decompress/deflate_piece.hpp"
#include "nodes/decompress/gzip_stream.hpp"
#include "nodes/decompress/split_gzip.hpp"
#include "tools/common/flags.hpp"

namespace {

using namespace invidx;

constexpr size_t kReadBlockBytes = size_t{4} << 20;  // the read node's default block
constexpr size_t kTextBlockBytes = size_t{4} << 20;  // the decompress node's default text block
constexpr size_t kChunkBlocks = 4;                   // split_gzip: a quarter of the default 16 tokens

// In one read: a ceiling process must not spend on reading (istreambuf_iterator
// goes byte by byte) what the decoder would spend on decoding.
// All members of a gzip file, or the bytes as they are.
std::string text_of(const std::string& bytes) {
    if (bytes.size() < 2 || bytes[0] != '\x1f' || bytes[1] != '\x8b') return bytes;
    std::string text;
    z_stream z{};
    ensure(inflateInit2(&z, 31) == Z_OK, "zlib");
    std::vector<char> out(kTextBlockBytes);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    for (;;) {
        z.next_out = reinterpret_cast<Bytef*>(out.data());
        z.avail_out = static_cast<uInt>(out.size());
        const int status = inflate(&z, Z_NO_FLUSH);
        text.append(out.data(), out.size() - z.avail_out);
        if (status == Z_STREAM_END) {
            if (z.avail_in == 0) break;
            inflateReset(&z);
        } else {
            ensure(status == Z_OK, "input is damaged gzip");
        }
    }
    inflateEnd(&z);
    return text;
}

// One gzip member of `text` at `level`, appended to `out`.
void gzip_member(std::string_view text, int level, std::string& out) {
    z_stream z{};
    ensure(deflateInit2(&z, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK, "zlib");
    const size_t start = out.size();
    out.resize(start + deflateBound(&z, text.size()));
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data() + start);
    z.avail_out = static_cast<uInt>(out.size() - start);
    ensure(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate");
    out.resize(out.size() - z.avail_out);
    deflateEnd(&z);
}

// Record boundaries: "WARC/1.0\r\n" at the start or after a blank line.
std::vector<size_t> record_starts(std::string_view text) {
    std::vector<size_t> starts{0};
    constexpr std::string_view kNext = "\r\n\r\nWARC/1.0\r\n";
    for (size_t at = text.find(kNext); at != std::string_view::npos; at = text.find(kNext, at + 1))
        starts.push_back(at + 4);
    return starts;
}

struct Shapes {
    std::string one_stream;
    std::string per_record;
    size_t records = 0;
};

Shapes compress_shapes(std::string_view text, int level) {
    Shapes shapes;
    // One stream in 64 MiB pieces of input: zlib's uInt counts.
    {
        z_stream z{};
        ensure(deflateInit2(&z, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK, "zlib");
        shapes.one_stream.resize(deflateBound(&z, text.size()));
        z.next_out = reinterpret_cast<Bytef*>(shapes.one_stream.data());
        size_t done = 0;
        for (;;) {
            const size_t piece = std::min<size_t>(text.size() - done, size_t{64} << 20);
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + done));
            z.avail_in = static_cast<uInt>(piece);
            const size_t room = shapes.one_stream.size() - static_cast<size_t>(z.next_out - reinterpret_cast<Bytef*>(shapes.one_stream.data()));
            z.avail_out = static_cast<uInt>(std::min<size_t>(room, UINT32_MAX));
            done += piece;
            const int status = deflate(&z, done == text.size() ? Z_FINISH : Z_NO_FLUSH);
            if (status == Z_STREAM_END) break;
            ensure(status == Z_OK && z.avail_in == 0, "deflate");
        }
        shapes.one_stream.resize(static_cast<size_t>(z.next_out - reinterpret_cast<Bytef*>(shapes.one_stream.data())));
        deflateEnd(&z);
    }
    const std::vector<size_t> starts = record_starts(text);
    shapes.records = starts.size();
    for (size_t r = 0; r < starts.size(); ++r) {
        const size_t end = r + 1 < starts.size() ? starts[r + 1] : text.size();
        gzip_member(text.substr(starts[r], end - starts[r]), level, shapes.per_record);
    }
    return shapes;
}

// The text as a .tar.gz: a tar of members of about kTarMemberBytes (cut at
// record starts), compressed at `level` as one gzip stream, as tar czf writes.
constexpr size_t kTarMemberBytes = size_t{64} << 20;

la_ssize_t append_to(struct archive*, void* out, const void* bytes, size_t size) {
    static_cast<std::string*>(out)->append(static_cast<const char*>(bytes), size);
    return static_cast<la_ssize_t>(size);
}

std::string tar_gz_of(std::string_view text, int level) {
    std::string tar;
    struct archive* writer = archive_write_new();
    ensure(writer != nullptr && archive_write_set_format_pax_restricted(writer) == ARCHIVE_OK &&
               archive_write_set_bytes_in_last_block(writer, 1) == ARCHIVE_OK &&
               archive_write_open(writer, &tar, nullptr, append_to, nullptr) == ARCHIVE_OK,
           "libarchive: cannot write a tar");
    const std::vector<size_t> starts = record_starts(text);
    for (size_t begin = 0, member = 0; begin < text.size(); ++member) {
        const auto cut = std::lower_bound(starts.begin(), starts.end(), begin + kTarMemberBytes);
        const size_t end = cut == starts.end() ? text.size() : *cut;
        const std::string name = "part-" + std::to_string(member) + ".warc";
        struct archive_entry* entry = archive_entry_new();
        archive_entry_set_pathname(entry, name.c_str());
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_perm(entry, 0644);
        archive_entry_set_size(entry, static_cast<la_int64_t>(end - begin));
        ensure(archive_write_header(writer, entry) == ARCHIVE_OK &&
                   archive_write_data(writer, text.data() + begin, end - begin) == static_cast<la_ssize_t>(end - begin),
               "libarchive: cannot write a tar member");
        archive_entry_free(entry);
        begin = end;
    }
    ensure(archive_write_close(writer) == ARCHIVE_OK, "libarchive: cannot write a tar");
    archive_write_free(writer);
    ensure(tar.size() < (uint64_t{1} << 32), "tar.gz shape: at most 4 GiB of text");
    std::string gz;
    gzip_member(tar, level, gz);
    return gz;
}

// What a decoder produced: its text's length and, when asked, CRC-32.
struct Output {
    uint64_t bytes = 0;
    uLong crc = crc32(0, nullptr, 0);
    bool hash = false;
    void add(const char* data, size_t size) {
        bytes += size;
        if (hash) crc = crc32_z(crc, reinterpret_cast<const Bytef*>(data), size);
    }
};

using Decoder = std::function<void(const std::string& gz, Output& out)>;

void zlib_stream(const std::string& gz, Output& out) {
    z_stream z{};
    ensure(inflateInit2(&z, 31) == Z_OK, "zlib");
    static thread_local std::vector<char> text(kTextBlockBytes);
    for (size_t offset = 0; offset < gz.size(); offset += kReadBlockBytes) {
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data() + offset));
        z.avail_in = static_cast<uInt>(std::min(kReadBlockBytes, gz.size() - offset));
        while (z.avail_in > 0) {
            z.next_out = reinterpret_cast<Bytef*>(text.data());
            z.avail_out = static_cast<uInt>(text.size());
            const int status = inflate(&z, Z_NO_FLUSH);
            out.add(text.data(), text.size() - z.avail_out);
            if (status == Z_STREAM_END) {
                inflateReset(&z);
            } else {
                ensure(status == Z_OK || status == Z_BUF_ERROR, "zlib: damaged");
            }
        }
    }
    // The last member's end may still be in zlib's output window.
    for (;;) {
        z.next_out = reinterpret_cast<Bytef*>(text.data());
        z.avail_out = static_cast<uInt>(text.size());
        const int status = inflate(&z, Z_NO_FLUSH);
        out.add(text.data(), text.size() - z.avail_out);
        if (status != Z_OK || z.avail_out == text.size()) break;
    }
    inflateEnd(&z);
}

#if defined(INVIDX_HAVE_ISAL)
void igzip_stream(const std::string& gz, Output& out) {
    static thread_local std::unique_ptr<inflate_state> state(new inflate_state);
    static thread_local std::vector<char> text(kTextBlockBytes);
    isal_inflate_init(state.get());
    state->crc_flag = ISAL_GZIP;
    for (size_t offset = 0; offset < gz.size(); offset += kReadBlockBytes) {
        state->next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(gz.data() + offset));
        state->avail_in = static_cast<uint32_t>(std::min(kReadBlockBytes, gz.size() - offset));
        const bool last = offset + kReadBlockBytes >= gz.size();
        for (;;) {
            state->next_out = reinterpret_cast<uint8_t*>(text.data());
            state->avail_out = static_cast<uint32_t>(text.size());
            const int status = isal_inflate(state.get());
            ensure(status == ISAL_DECOMP_OK, "igzip: damaged");
            out.add(text.data(), text.size() - state->avail_out);
            if (state->block_state == ISAL_BLOCK_FINISH) {
                if (state->avail_in == 0 && last) break;
                // The next member: igzip stops at each member's end.
                uint8_t* next = state->next_in;
                const uint32_t left = state->avail_in;
                isal_inflate_reset(state.get());
                state->crc_flag = ISAL_GZIP;
                state->next_in = next;
                state->avail_in = left;
                continue;
            }
            if (state->avail_in == 0 && state->avail_out > 0) break;
        }
    }
}
#endif

#if defined(INVIDX_HAVE_LIBDEFLATE)
void libdeflate_members(const std::string& gz, Output& out) {
    static thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
        libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
    static thread_local std::vector<char> text;
    // Grown until a member fits. The file's last trailer (ISIZE) sizes it
    // first: a one-stream file's whole text, decoded once instead of again
    // for every doubling.
    if (gz.size() >= 18) {
        const auto* end = reinterpret_cast<const unsigned char*>(gz.data() + gz.size() - 4);
        const size_t last_member = size_t{end[0]} | size_t{end[1]} << 8 | size_t{end[2]} << 16 | size_t{end[3]} << 24;
        if (text.size() < last_member) text.resize(last_member);
    }
    size_t offset = 0;
    while (offset < gz.size()) {
        size_t used = 0;
        size_t produced = 0;
        const libdeflate_result result = libdeflate_gzip_decompress_ex(
            d.get(), gz.data() + offset, gz.size() - offset, text.data(), text.size(), &used, &produced);
        if (result == LIBDEFLATE_INSUFFICIENT_SPACE) {
            text.resize(std::max<size_t>(2 * text.size(), size_t{1} << 20));
            continue;
        }
        ensure(result == LIBDEFLATE_SUCCESS, "libdeflate: damaged");
        out.add(text.data(), produced);
        offset += used;
    }
}
#endif

// The bytes of a file in read blocks, as the read node hands them to libarchive.
struct ReadBlocks {
    const std::string* bytes = nullptr;
    size_t offset = 0;
    std::string_view next() {
        const std::string_view block = std::string_view(*bytes).substr(offset, kReadBlockBytes);
        offset += block.size();
        return block;
    }
};

// A .tar.gz as invidx read one before InflatingSource: libarchive's gzip
// filter (zlib, trailer unchecked) under its tar reader.
void libarchive_tar_gz(const std::string& gz, Output& out) {
    static thread_local std::vector<char> text(kTextBlockBytes);
    ReadBlocks blocks{&gz, 0};
    struct archive* reader = archive_read_new();
    archive_read_support_filter_all(reader);
    archive_read_support_format_tar(reader);
    archive_read_support_format_gnutar(reader);
    const auto read = [](struct archive*, void* self, const void** buffer) -> la_ssize_t {
        const std::string_view block = static_cast<ReadBlocks*>(self)->next();
        *buffer = block.data();
        return static_cast<la_ssize_t>(block.size());
    };
    ensure(archive_read_open(reader, &blocks, nullptr, read, nullptr) == ARCHIVE_OK, "libarchive: cannot open");
    struct archive_entry* entry = nullptr;
    int status = ARCHIVE_OK;
    while ((status = archive_read_next_header(reader, &entry)) == ARCHIVE_OK) {
        for (;;) {
            const la_ssize_t got = archive_read_data(reader, text.data(), text.size());
            ensure(got >= 0, "libarchive: damaged tar.gz");
            if (got == 0) break;
            out.add(text.data(), static_cast<size_t>(got));
        }
    }
    ensure(status == ARCHIVE_EOF, "libarchive: damaged tar.gz");
    archive_read_free(reader);
}

// A .tar.gz as the decompress node reads one now: ArchiveStream, whose
// InflatingSource inflates it with GzipStream for libarchive's tar reader.
void invidx_tar_gz(const std::string& gz, Output& out) {
    class Source final : public ByteSource {
    public:
        explicit Source(const std::string& gz) : blocks_{&gz, 0} {}
        std::string_view next() override { return blocks_.next(); }

    private:
        ReadBlocks blocks_;
    };
    static thread_local std::vector<char> text(kTextBlockBytes);
    Source source(gz);
    ArchiveStream stream(source, InputFile{.ordinal = 0, .path = "bench.tar.gz", .name = "bench.tar.gz", .format = "warc", .size_bytes = gz.size()});
    std::string entry;
    while (stream.next_entry(entry)) {
        for (size_t got = stream.read(text.data(), text.size()); got > 0; got = stream.read(text.data(), text.size()))
            out.add(text.data(), got);
    }
}

// What the decompress node runs on one worker: GzipStream over 4 MiB read
// blocks, text blocks from a pool.
Decoder invidx_stream(GzipDecoders decoders) {
    return [decoders](const std::string& gz, Output& out) {
        static thread_local auto buffers = std::make_shared<BufferPool<std::string>>(8);
        const InputFile file{.ordinal = 0, .path = "bench.warc.gz", .name = "bench.warc.gz", .format = "warc", .size_bytes = gz.size()};
        GzipStream stream(file, kTextBlockBytes, buffers, decoders);
        for (size_t offset = 0; offset < gz.size(); offset += kReadBlockBytes) {
            const size_t size = std::min(kReadBlockBytes, gz.size() - offset);
            stream.feed(std::string_view(gz.data() + offset, size), offset + size == gz.size(), [&](TextBlock&& block) {
                out.add(block.bytes.data(), block.bytes.size());
                buffers->give_back(std::move(block.bytes));
            });
        }
    };
}

// The per-record file in chunks, as split_gzip decodes it on each worker.
Decoder invidx_chunks(GzipDecoders decoders) {
    return [decoders](const std::string& gz, Output& out) {
        static thread_local auto buffers = std::make_shared<BufferPool<std::string>>(8);
        const InputFile file{.ordinal = 0, .path = "bench.warc.gz", .name = "bench.warc.gz", .format = "warc", .size_bytes = gz.size()};
        GzipChunker chunker(kChunkBlocks);
        uint64_t sequence = 0;
        for (size_t offset = 0; offset < gz.size(); offset += kReadBlockBytes) {
            auto block = std::make_shared<RawBlock>();
            const size_t size = std::min(kReadBlockBytes, gz.size() - offset);
            block->sequence = sequence++;
            block->file_offset = offset;
            block->bytes.assign(gz.data() + offset, gz.data() + offset + size);
            block->first = offset == 0;
            block->last = offset + size == gz.size();
            chunker.push(block, [&](GzipChunkPtr chunk) {
                decode_chunk(*chunk, file, kTextBlockBytes, buffers, decoders);
                ensure(chunk->decoded, "a chunk did not decode alone");
                for (TextBlock& text : chunk->text) {
                    out.add(text.bytes.data(), text.bytes.size());
                    buffers->give_back(std::move(text.bytes));
                }
            });
        }
    };
}

// The one-stream file in pieces of `piece_bytes` compressed bytes, decoded
// one after another on this thread as the decompress node's workers and
// reassembler do (split_gzip_streams): each piece searched for its first
// dynamic block and decoded to symbols, its window unknown (decoded again
// with it known where it did not meet the piece before), then its markers
// resolved and the CRC-32 of its text taken. Seconds of each step add up
// in PieceSteps.
struct PieceSteps {
    double symbols = 0;  // decode_deflate_piece / _from
    double resolve = 0;  // resolve_piece_text and the CRC-32
    uint64_t pieces = 0;
    uint64_t redone = 0;
};
PieceSteps piece_steps;

Decoder invidx_pieces(size_t piece_bytes) {
    return [piece_bytes](const std::string& gz, Output& out) {
        using clock = std::chrono::steady_clock;
        const std::optional<size_t> header = gzip_header_length(gz);
        ensure(header.has_value(), "pieces: no gzip header");
        std::string window;
        std::string text;
        PieceSymbols buffer;
        uint64_t previous_end = 0;
        uLong crc = crc32(0, nullptr, 0);
        for (uint64_t k = 0;; ++k) {
            const uint64_t from = k * piece_bytes;
            const uint64_t to = from + piece_bytes;
            DeflatePieceLimits limits;
            if (to < gz.size()) limits.stop_bit = to * 8;
            const auto t0 = clock::now();
            DeflatePiece piece = k == 0 ? decode_deflate_from(gz, *header * 8, {}, limits, std::move(buffer))
                                        : decode_deflate_piece(gz, from * 8, to * 8, limits, std::move(buffer));
            if (k > 0 && (!piece.ok || piece.start_bit != previous_end)) {
                piece = decode_deflate_from(gz, previous_end, window, limits, std::move(piece.symbols));
                ++piece_steps.redone;
            }
            const auto t1 = clock::now();
            ensure(piece.ok, "pieces: piece " + std::to_string(k) + " did not decode");
            const PieceSymbols& s = piece.symbols;
            text.resize(s.text_size());
            ensure(resolve_piece_text(s.text(), s.text_size(), window, text.data()), "pieces: a marker before the window");
            crc = crc32_z(crc, reinterpret_cast<const Bytef*>(text.data()), text.size());
            const auto t2 = clock::now();
            piece_steps.symbols += std::chrono::duration<double>(t1 - t0).count();
            piece_steps.resolve += std::chrono::duration<double>(t2 - t1).count();
            ++piece_steps.pieces;
            out.add(text.data(), text.size());
            window.append(text);
            if (window.size() > kDeflateWindowBytes) window.erase(0, window.size() - kDeflateWindowBytes);
            previous_end = piece.end_bit;
            buffer = std::move(piece.symbols);
            if (piece.final_block) {
                ensure(piece.trailer_read && piece.trailer_crc == crc, "pieces: the trailer's CRC-32 differs");
                return;
            }
        }
    };
}

double thread_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

struct Timing {
    double wall = 1e300;
    double cpu = 1e300;
    bool ran = false;
};

tools::Flags bench_flags() {
    tools::Flags flags;
    flags.add({.name = "--level", .value_name = "L", .help = "gzip level of both shapes (default 6, gzip's)"});
    flags.add({.name = "--repeat", .value_name = "R", .help = "runs per cell; the best counts (default 3)"});
    flags.add({.name = "--write", .value_name = "DIR", .help = "also write DIR/one-stream.warc.gz and DIR/per-record.warc.gz"});
    flags.add({.name = "--gunzip", .value_name = "DECODER", .help = "only decode each gzip INPUT with DECODER (igzip, libdeflate,\nzlib) and discard the text"});
    flags.add({.name = "--help", .help = "this help", .alias = "-h", .stops_parsing = true});
    return flags;
}

}  // namespace

int main(int argc, char** argv) {
    int level = 6;
    unsigned repeat = 3;
    std::string write_dir;
    std::string gunzip;
    std::vector<std::string> inputs;
    const tools::Flags flags = bench_flags();
    try {
        const tools::ParsedFlags given = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
        if (given.has("--help")) {
            std::cout << flags.help({.usage = "usage: invidx_inflate_bench [--level L] [--repeat R] [--write DIR] INPUT...",
                                     .description = "Per-core inflate rate of every gzip decoder built, on the WARC text of INPUT\n"
                                                    "(plain or gzip) compressed as one stream and as one member per record.",
                                     .options_heading = "Options:\n",
                                     .example = "  invidx_inflate_bench --write /tmp/shapes /tmp/pages/part-00000.warc\n",
                                     .footer = "Exit codes: 0 done; 1 failed; 2 bad command line.\n"});
            return 0;
        }
        if (auto value = given.value("--level")) level = static_cast<int>(tools::positive_integer("--level", *value));
        if (level > 9) throw tools::UsageError("--level: 1 to 9");
        if (auto value = given.value("--repeat")) repeat = static_cast<unsigned>(tools::positive_integer("--repeat", *value));
        if (auto value = given.value("--write")) write_dir = *value;
        if (auto value = given.value("--gunzip")) gunzip = *value;
        inputs = given.arguments();
        if (inputs.empty()) throw tools::UsageError("no input");
    } catch (const tools::UsageError& error) {
        tools::exit_with_usage_error("invidx_inflate_bench", error.what());
    }

    try {
        if (!gunzip.empty()) {
            Decoder decode = zlib_stream;
#if defined(INVIDX_HAVE_ISAL)
            if (gunzip == "igzip") decode = igzip_stream;
#endif
#if defined(INVIDX_HAVE_LIBDEFLATE)
            if (gunzip == "libdeflate") decode = libdeflate_members;
#endif
            ensure(gunzip == "zlib" || decode.target<void (*)(const std::string&, Output&)>() == nullptr ||
                       *decode.target<void (*)(const std::string&, Output&)>() != zlib_stream,
                   "--gunzip: " + gunzip + " is not built (igzip, libdeflate or zlib)");
            for (const std::string& path : inputs) {
                Output out;
                decode(bench::read_whole_file(path), out);
            }
            return 0;
        }
        std::string text;
        for (const std::string& path : inputs) text += text_of(bench::read_whole_file(path));
        ensure(!text.empty(), "no text in the input");
        const Shapes shapes = compress_shapes(text, level);
        const std::string tar_gz = tar_gz_of(text, level);
        const uLong expected_crc = crc32_z(crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(text.data()), text.size());
        if (!write_dir.empty()) {
            std::filesystem::create_directories(write_dir);
            std::ofstream(write_dir + "/one-stream.warc.gz", std::ios::binary) << shapes.one_stream;
            std::ofstream(write_dir + "/per-record.warc.gz", std::ios::binary) << shapes.per_record;
        }
        std::printf("%.1f MB of WARC text, %zu records; gzip level %d: one stream %.1f MB, per record %.1f MB, "
                    "tar.gz %.1f MB; best of %u\n",
                    text.size() / 1e6, shapes.records, level, shapes.one_stream.size() / 1e6,
                    shapes.per_record.size() / 1e6, tar_gz.size() / 1e6, repeat);

        struct Row {
            std::string name;
            Decoder decode;            // one stream and per record
            Decoder decode_chunks;     // split chunks (null: not this decoder's shape)
            Decoder decode_tar = {};   // tar.gz (null: not this decoder's shape)
            bool one_stream_only = false;
        };
        std::vector<Row> rows;
        const GzipDecoders built = gzip_decoders_built();
#if defined(INVIDX_HAVE_ISAL)
        rows.push_back({"igzip (ISA-L)", igzip_stream, nullptr});
#endif
#if defined(INVIDX_HAVE_LIBDEFLATE)
        rows.push_back({"libdeflate (in memory)", libdeflate_members, nullptr});
#endif
        rows.push_back({"zlib", zlib_stream, nullptr});
        if (built.isal && built.libdeflate)
            rows.push_back({"invidx igzip+libdeflate", invidx_stream({true, true}), invidx_chunks({true, true})});
        if (built.isal) rows.push_back({"invidx igzip", invidx_stream({true, false}), invidx_chunks({true, false})});
        if (built.libdeflate)
            rows.push_back({"invidx libdeflate+zlib", invidx_stream({false, true}), invidx_chunks({false, true})});
        rows.push_back({"invidx zlib", invidx_stream({}), invidx_chunks({})});
        rows.push_back({"invidx pieces (1 MiB)", invidx_pieces(size_t{1} << 20), nullptr, nullptr, true});
        rows.push_back({"libarchive gzip filter", nullptr, nullptr, libarchive_tar_gz});
        rows.push_back({"invidx ArchiveStream", nullptr, nullptr, invidx_tar_gz});
        const GzipDecoders chosen = gzip_decoders();
        std::printf("the build's default (INVIDX_GZIP_DECODER honoured): %s\n",
                    chosen.isal ? (chosen.libdeflate ? "invidx igzip+libdeflate" : "invidx igzip")
                                : (chosen.libdeflate ? "invidx libdeflate+zlib" : "invidx zlib"));

        constexpr int kShapes = 4;
        const char* shape_names[kShapes] = {"one stream", "per record", "split chunks", "tar.gz"};
        const std::string* shape_bytes[kShapes] = {&shapes.one_stream, &shapes.per_record, &shapes.per_record, &tar_gz};
        std::vector<std::array<Timing, kShapes>> timings(rows.size());
        std::string pieces_line;
        for (size_t r = 0; r < rows.size(); ++r) {
            for (int s = 0; s < kShapes; ++s) {
                const Decoder& decode = s == 2 ? rows[r].decode_chunks : s == 3 ? rows[r].decode_tar : rows[r].decode;
                if (!decode || (rows[r].one_stream_only && s != 0)) continue;
                Output check;
                check.hash = true;
                decode(*shape_bytes[s], check);
                ensure(check.bytes == text.size() && check.crc == expected_crc,
                       rows[r].name + " decoded " + shape_names[s] + " wrong");
                Timing& best = timings[r][s];
                best.ran = true;
                for (unsigned k = 0; k < repeat; ++k) {
                    Output out;
                    piece_steps = {};
                    const double cpu0 = thread_cpu_seconds();
                    const auto wall0 = std::chrono::steady_clock::now();
                    decode(*shape_bytes[s], out);
                    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
                    const double cpu = thread_cpu_seconds() - cpu0;
                    best.wall = std::min(best.wall, wall);
                    best.cpu = std::min(best.cpu, cpu);
                }
                std::fprintf(stderr, "  %-24s %-12s %.3f s wall, %.3f s CPU\n", rows[r].name.c_str(), shape_names[s],
                             best.wall, best.cpu);
                if (rows[r].one_stream_only)
                    pieces_line = "one stream in 1 MiB pieces (last run): " + std::to_string(piece_steps.pieces) +
                                  " pieces, " + std::to_string(piece_steps.redone) + " decoded again; decoding to symbols " +
                                  std::to_string(static_cast<int>(text.size() / 1e6 / piece_steps.symbols)) +
                                  " MB/s, resolving and CRC-32 " +
                                  std::to_string(static_cast<int>(text.size() / 1e6 / piece_steps.resolve)) + " MB/s";
            }
        }

        std::printf("\nMB/s of text on one core (wall / CPU time)\n");
        std::printf("%-24s", "decoder");
        for (const char* shape : shape_names) std::printf("  %21s", shape);
        std::printf("\n");
        for (size_t r = 0; r < rows.size(); ++r) {
            std::printf("%-24s", rows[r].name.c_str());
            for (int s = 0; s < kShapes; ++s) {
                const Timing& t = timings[r][s];
                if (!t.ran) {
                    std::printf("  %21s", "-");
                    continue;
                }
                char cell[64];
                std::snprintf(cell, sizeof cell, "%.0f / %.0f", text.size() / 1e6 / t.wall, text.size() / 1e6 / t.cpu);
                std::printf("  %21s", cell);
            }
            std::printf("\n");
        }
        if (!pieces_line.empty()) std::printf("%s\n", pieces_line.c_str());
    } catch (const std::exception& error) {
        std::cerr << "invidx_inflate_bench: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
