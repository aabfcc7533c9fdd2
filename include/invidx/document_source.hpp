// Documents handed to a build by the program that runs it, instead of input
// files: the producer (a Python generator through the `invidx` module, or
// any C++ caller) pushes blocks of JSONL lines, {"id": ..., "contents": ...}
// one per line, and the build reads them as a single input file of format
// jsonl. Docids, names and the index are the same as invidx-run gives for
// the same lines in a .jsonl file. With a pre-weighted analysis
// (invidx/pre_weighted_analysis.hpp) the lines are {"id": ..., "vector":
// {term: weight}}, read as the jsonvector format reads them.
//
//   invidx::DocumentSource documents;
//   std::thread producer([&] {
//       documents.push(R"({"id": "d1", "contents": "hello world"})" "\n");
//       documents.finish();
//   });
//   invidx::BuildReport report = invidx::build_from_documents(config, documents);
//   producer.join();
//
// Memory: at most `max_blocks` pushed blocks wait in the source; push()
// blocks while it is full, so a producer of millions of documents runs no
// further ahead of the build than that, and the build's own tokens bound
// the rest.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/pipeline.hpp"

namespace invidx {

class DocumentSource {
public:
    // The input file's name the build records (manifest, `invidx doc`).
    static constexpr std::string_view kDefaultName = "documents.jsonl";

    explicit DocumentSource(size_t max_blocks = 4, std::string name = std::string(kDefaultName));
    DocumentSource(const DocumentSource&) = delete;
    DocumentSource& operator=(const DocumentSource&) = delete;

    const std::string& name() const { return name_; }

    // Producer side. Hands over one block of JSONL text (a line may go on in
    // the next block). Waits while `max_blocks` blocks are queued. Returns
    // false, taking nothing, once the build has stopped taking documents
    // (it failed or was stopped): the producer should stop then.
    bool push(std::vector<char> block);
    bool push(std::string_view text) { return push(std::vector<char>(text.begin(), text.end())); }
    // The same, waiting at most `wait` for room: a producer that must look
    // up now and then (Python's signal handlers) pushes with this. `block`
    // is taken only when the answer is kPushed.
    enum class PushResult { kPushed, kFull, kClosed };
    PushResult push_for(std::vector<char>& block, std::chrono::milliseconds wait);
    // No more documents. Idempotent.
    void finish();
    // The producer stops taking part (it failed): the build sees the end of
    // the documents without the rest; its caller decides what that means.
    void abandon() { finish(); }

    // Consumer side (the build's read node). The next block, or nullopt at
    // the end of the documents. Waits for the producer, waking every few
    // milliseconds to ask `give_up` (the graph was cancelled): true ends
    // the wait with nullopt.
    std::optional<std::vector<char>> pop(const std::function<bool()>& give_up);
    // A copy of up to `max_bytes` of the documents' first bytes, for the
    // build's sample; before the first pop(), waiting until that much is
    // queued, the queue is full or the documents ended.
    std::string prefix(size_t max_bytes);
    // The build is over: from now on push() returns false at once.
    void close();

    uint64_t bytes_pushed() const;

private:
    const size_t max_blocks_;
    const std::string name_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::vector<char>> blocks_;
    bool finished_ = false;
    bool closed_ = false;
    uint64_t bytes_pushed_ = 0;
};

// Builds an index from `documents` as Pipeline::run builds one from files:
// `config`'s "input" is ignored; its "read" node reads the documents
// instead (every other node as configured); the sampler samples their first
// bytes. Call it on a thread other than the producer's. Closes `documents`
// when it returns or throws, so a waiting producer wakes up.
BuildReport build_from_documents(const PipelineConfig& config, DocumentSource& documents,
                                 const RunOptions& options = {});

}  // namespace invidx
