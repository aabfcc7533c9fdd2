// The text of a gzip file as a ByteSource: ArchiveStream hands libarchive a
// .tar.gz (or any gzip it opens: a gzip of a zip, of another compressed
// stream) as the uncompressed bytes this source inflates with GzipStream,
// so such files inflate with igzip where the build has it instead of
// libarchive's zlib filter, and every member's CRC-32 and ISIZE are checked,
// which libarchive 3.6 does not do.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "graph/buffer_pool.hpp"
#include "invidx/messages.hpp"
#include "nodes/decompress/byte_source.hpp"
#include "nodes/decompress/gzip_stream.hpp"

namespace invidx {

class InflatingSource final : public ByteSource {
public:
    // Inflates the gzip stream `compressed` yields from its first byte
    // (`file` names it in errors); `compressed` must outlive this source.
    InflatingSource(ByteSource& compressed, const InputFile& file, GzipDecoders decoders = gzip_decoders());

    // The next inflated bytes; empty once the stream ended with every
    // member checked. Damage, truncation and trailing garbage throw
    // invidx::Error as GzipStream names them: the file's path and the
    // offset in its inflated text.
    std::string_view next() override;

    // Inflates whatever the reader left (a tar's reader stops at its end
    // blocks, before the last member's trailer) and drops the text, so that
    // the whole stream is checked; throws as next() does.
    void finish();

private:
    ByteSource& compressed_;
    std::shared_ptr<BufferPool<std::string>> buffers_;
    GzipStream stream_;
    std::string_view unfed_;       // of the compressed source's last read, not yet inflated
    std::deque<TextBlock> ready_;  // inflated, not yet handed out
    std::string handed_;           // the bytes next() returned last, alive until the next call
    bool ended_ = false;           // the compressed source ended; the stream was told so
};

}  // namespace invidx
