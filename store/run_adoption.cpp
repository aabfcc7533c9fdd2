#include "store/run_adoption.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/block_checksums.hpp"
#include "store/crc32.hpp"
#include "store/index_layout.hpp"
#include "store/manifest.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;

void store_u32(char* bytes, uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xFF);
}

class File {
public:
    explicit File(const fs::path& path) : path_(path), fd_(::open(path.c_str(), O_RDWR | O_CLOEXEC)) {
        if (fd_ < 0) throw Error(std::string("cannot open for update: ") + std::strerror(errno), in_file(path.string()));
    }
    ~File() { ::close(fd_); }
    File(const File&) = delete;
    File& operator=(const File&) = delete;

    uint64_t size() const {
        struct stat status {};
        if (::fstat(fd_, &status) != 0) throw Error(std::string("cannot stat: ") + std::strerror(errno), in_file(path_.string()));
        return static_cast<uint64_t>(status.st_size);
    }
    std::string read(uint64_t offset, uint64_t size) const {
        std::string bytes(size, '\0');
        for (uint64_t done = 0; done < size;) {
            const ssize_t got = ::pread(fd_, bytes.data() + done, size - done, static_cast<off_t>(offset + done));
            if (got <= 0) throw Error(std::string("cannot read: ") + (got < 0 ? std::strerror(errno) : "unexpected end of file"),
                                      in_file(path_.string()));
            done += static_cast<uint64_t>(got);
        }
        return bytes;
    }
    void write(uint64_t offset, std::string_view bytes) const {
        for (uint64_t done = 0; done < bytes.size();) {
            const ssize_t put = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
            if (put < 0) throw Error(std::string("cannot write: ") + std::strerror(errno), in_file(path_.string()));
            done += static_cast<uint64_t>(put);
        }
    }

private:
    fs::path path_;
    int fd_;
};

std::string read_whole(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    ensure(static_cast<bool>(in), "cannot open " + path.string());
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The run file at `from` (its blocks' CRC-32s in `blocks`) renumbered
// `run`, then renamed to index_dir's run file of that number.
WrittenRun move_run(const fs::path& from, const FileBlockChecksums& blocks, uint32_t part_run, uint32_t run,
                    const fs::path& index_dir) {
    const std::string name = from.string();
    const uint64_t size = blocks.size_bytes;
    const uint64_t block_bytes = blocks.block_bytes;
    if (size < layout::kRunHeaderBytes + 4) throw FormatError(name, "too short for a run file");
    // The joined index's checksums.bin takes the blocks' CRC-32s as they are.
    ensure(block_bytes == layout::kChecksumBlockBytes,
           name + ": checksum blocks of " + std::to_string(block_bytes) + " bytes, not " +
               std::to_string(layout::kChecksumBlockBytes));
    const File file(from);
    if (file.size() != size) throw FormatError(name, "size does not match checksums.bin; the file is damaged");

    // The blocks that change: the header's, and those holding the trailing CRC-32.
    std::map<uint64_t, std::string> changed;
    const auto load = [&](uint64_t block) {
        if (changed.contains(block)) return;
        const uint64_t start = block * block_bytes;
        std::string bytes = file.read(start, std::min(block_bytes, size - start));
        if (crc32(bytes) != blocks.crcs[block]) {
            throw FormatError(name, "block " + std::to_string(block) + " does not match its CRC-32 in checksums.bin; the file is damaged");
        }
        changed.emplace(block, std::move(bytes));
    };
    load(0);
    for (uint64_t block = (size - 4) / block_bytes; block <= (size - 1) / block_bytes; ++block) load(block);

    std::string& head = changed.at(0);
    BinaryReader header(name, head);
    header.expect_header(layout::kRunMagic, layout::kFileVersion);
    if (header.u32("run") != part_run) header.fail("run", "is not the part's run " + std::to_string(part_run));
    store_u32(head.data() + 12, run);

    // The trailing CRC-32 covers [0, size - 4): the changed blocks' new
    // bytes, the others' stored CRC-32s (they lie wholly before the trailer).
    const uint64_t covered = size - 4;
    uint32_t trailer = 0;
    for (uint64_t block = 0; block * block_bytes < covered; ++block) {
        const uint64_t start = block * block_bytes;
        const uint64_t end = std::min(start + block_bytes, covered);
        const auto found = changed.find(block);
        const uint32_t crc = found == changed.end() ? blocks.crcs[block]
                                                    : crc32(std::string_view(found->second).substr(0, end - start));
        trailer = crc32_concat(trailer, crc, end - start);
    }
    for (uint64_t i = 0; i < 4; ++i) {
        const uint64_t at = covered + i;
        changed.at(at / block_bytes)[at % block_bytes] = static_cast<char>((trailer >> (8 * i)) & 0xFF);
    }

    WrittenRun written;
    written.run = run;
    written.path = layout::run_file_name(run);
    written.size_bytes = size;
    written.block_crcs = blocks.crcs;
    for (const auto& [block, bytes] : changed) {
        written.block_crcs[block] = crc32(bytes);
        file.write(block * block_bytes, bytes);
    }
    // Not synced here: the caller syncs every run it moved at once.
    for (uint64_t block = 0; block < written.block_crcs.size(); ++block) {
        written.crc32 = crc32_concat(written.crc32, written.block_crcs[block], std::min(block_bytes, size - block * block_bytes));
    }
    std::error_code error;
    fs::rename(from, index_dir / written.path, error);
    if (error) throw Error("cannot move the run file into the index: " + error.message(), in_file(name));
    return written;
}

}  // namespace

std::vector<WrittenRun> adopt_part_runs(const fs::path& part_dir, const std::vector<PartRun>& runs, uint32_t first_run,
                                        uint64_t docid_base, const fs::path& index_dir) {
    const Manifest manifest = read_manifest(part_dir);
    ensure(manifest.run_docid_bases.empty(), "index part " + part_dir.string() + " has run docid bases of its own");
    ensure(runs.size() == manifest.runs.size(), "index part " + part_dir.string() + ": not one entry per run");
    const auto listed = std::find_if(manifest.files.begin(), manifest.files.end(),
                                     [](const ManifestFile& file) { return file.path == layout::kChecksumsFile; });
    ensure(listed != manifest.files.end(), "index part " + part_dir.string() + " has no checksums.bin");
    const std::string checksums_name = (part_dir / layout::kChecksumsFile).string();
    const std::string checksums_bytes = read_whole(part_dir / layout::kChecksumsFile);
    if (checksums_bytes.size() != listed->size_bytes || crc32(checksums_bytes) != listed->crc32) {
        throw FormatError(checksums_name, "size or CRC-32 does not match manifest.json; the file is damaged");
    }
    const std::vector<FileBlockChecksums> checksums = read_block_checksums(checksums_name, checksums_bytes);

    std::vector<WrittenRun> written;
    for (size_t k = 0; k < runs.size(); ++k) {
        ensure(runs[k].part_run == manifest.runs[k], "index part " + part_dir.string() + ": runs not in its manifest's order");
        const std::string path = layout::run_file_name(runs[k].part_run);
        const auto blocks = std::find_if(checksums.begin(), checksums.end(), [&](const auto& file) { return file.path == path; });
        if (blocks == checksums.end()) throw FormatError(checksums_name, "has no block checksums for " + path);
        WrittenRun run = move_run(part_dir / path, *blocks, runs[k].part_run, first_run + static_cast<uint32_t>(k), index_dir);
        run.slots = runs[k].slots;
        for (const auto& [indexer, counts] : run.slots)
            for (const uint32_t postings : counts) run.postings += postings;
        run.docid_base = docid_base;
        written.push_back(std::move(run));
    }
    return written;
}

}  // namespace invidx
