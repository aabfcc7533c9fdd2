#include "devices/cuda/query/list_cache.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace invidx::cuda {

namespace {

size_t blocks_of(uint64_t postings) { return static_cast<size_t>((postings + kBlockPostings - 1) / kBlockPostings); }

}  // namespace

void CachedList::upload(const GpuList& list) {
    // One allocation and one copy per list: the block table (last docids, and
    // for bp128 the groups' offsets) then the payload.
    const uint64_t postings = list.bp128 ? list.postings : list.docids.size();
    if (postings >= (uint64_t{1} << 32)) fail("a list too long for the GPU query path");
    const size_t blocks = blocks_of(postings);
    std::vector<uint32_t> table;
    std::vector<unsigned char> blob;
    if (list.bp128) {
        if (list.last_docids.size() != blocks || list.docid_starts.size() != blocks || list.tf_starts.size() != blocks) {
            fail("a bp128 list's block table does not match its length");
        }
        table.reserve(3 * blocks);
        table.insert(table.end(), list.last_docids.begin(), list.last_docids.end());
        table.insert(table.end(), list.docid_starts.begin(), list.docid_starts.end());
        table.insert(table.end(), list.tf_starts.begin(), list.tf_starts.end());
    } else {
        if (list.docids.size() != list.tfs.size()) fail("a list's docids and tfs differ in length");
        table.reserve(blocks + 2 * postings);
        for (size_t b = 0; b < blocks; ++b) table.push_back(list.docids[std::min<size_t>(postings, (b + 1) * kBlockPostings) - 1]);
        table.insert(table.end(), list.docids.begin(), list.docids.end());
        table.insert(table.end(), list.tfs.begin(), list.tfs.end());
    }
    const size_t table_bytes = table.size() * sizeof(uint32_t);
    const size_t payload = list.bp128 ? list.bytes.size() + kBp128ReadSlack : 0;
    blob.resize(std::max<size_t>(table_bytes + payload, 16), 0);
    if (table_bytes > 0) std::memcpy(blob.data(), table.data(), table_bytes);
    if (list.bp128 && !list.bytes.empty()) std::memcpy(blob.data() + table_bytes, list.bytes.data(), list.bytes.size());
    blob_.reserve(blob.size(), 0, stream_);
    check(cudaMemcpyAsync(blob_.data(), blob.data(), blob.size(), cudaMemcpyHostToDevice, stream_), "list upload");

    max_value_ = 0;
    if (list.bp128) {
        for (const uint32_t start : list.tf_starts) {
            if (start >= list.bytes.size()) fail("a bp128 list's value group starts past its bytes");
            const int width = std::min(32, static_cast<int>(static_cast<unsigned char>(list.bytes[start])));
            max_value_ = std::max<uint64_t>(max_value_, uint64_t{1} << width);
        }
    } else {
        for (const uint32_t value : list.tfs) max_value_ = std::max<uint64_t>(max_value_, value);
    }

    const auto* words = reinterpret_cast<const uint32_t*>(blob_.data());
    view_ = DeviceList{};
    view_.postings = static_cast<uint32_t>(postings);
    view_.blocks = static_cast<uint32_t>(blocks);
    view_.last_docids = words;
    if (list.bp128) {
        view_.docid_starts = words + blocks;
        view_.tf_starts = words + 2 * blocks;
        view_.bytes = blob_.data() + table_bytes;
    } else {
        view_.docids = words + blocks;
        view_.tfs = words + blocks + postings;
    }
}

std::shared_ptr<const CachedList> ListCache::fetch(const GpuQueryTerm& term) {
    auto found = entries_.find(term.term);
    if (found != entries_.end()) {
        ++stats_.hits;
        recency_.splice(recency_.begin(), recency_, found->second.recent);
        return found->second.list;
    }
    ++stats_.misses;
    GpuList host;
    term.load(host);
    auto list = std::make_shared<CachedList>(memory_, stream_);
    list->upload(host);
    // Evicted lists still used by the running batch live on in its references.
    while (!recency_.empty() && used_ + list->bytes() > budget_) {
        auto victim = entries_.find(recency_.back());
        used_ -= victim->second.list->bytes();
        entries_.erase(victim);
        recency_.pop_back();
    }
    recency_.push_front(term.term);
    entries_.emplace(term.term, Entry{list, recency_.begin()});
    used_ += list->bytes();
    return list;
}

void ListCache::clear() {
    entries_.clear();
    recency_.clear();
    used_ = 0;
}

}  // namespace invidx::cuda
