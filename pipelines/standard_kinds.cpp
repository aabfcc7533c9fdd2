// The standard node kinds, registered by name. The engine (graph/) knows none
// of them; this file is the one place that lists them.
#include "invidx/input_format.hpp"
#include "invidx/registry.hpp"
#include "nodes/compress/compress_node.hpp"
#include "nodes/decompress/decompress_node.hpp"
#include "nodes/flush/flush_node.hpp"
#include "nodes/index/index_node.hpp"
#include "nodes/frame/frame_node.hpp"
#include "nodes/parse/parse_node.hpp"
#include "nodes/read/read_node.hpp"
#include "nodes/regroup/regroup_node.hpp"

namespace invidx {

NodeRegistry& node_registry() {
    static NodeRegistry* registry = [] {
        auto* r = new NodeRegistry;
        r->add("read", "source: reads the input files block by block, one read at a time", make_read_node);
        r->add("decompress",
               "decompresses gzip/bzip2/xz/zstd/lz4 and unpacks tar/zip entries (libarchive; gpus: gzip members "
               "inflated on GPUs beside the CPU, \"auto\" where the parse node has GPUs)",
               make_decompress_node, resolve_decompress_node);
        r->add("frame", "cuts entries into documents (" + input_format_names() + "; count: framers) and assigns docids",
               make_frame_node, resolve_frame_node);
        r->add("parse",
               "HTML rules, tokens, stop words, Porter stemming, trie collections (count: CPU parsers; "
               "gpus: GPU parsers beside them, \"auto\" where CUDA and a GPU are)",
               make_parse_node, resolve_parse_node);
        r->add("regroup", "regroups each parsed batch by trie collection", make_regroup_node, resolve_regroup_node);
        r->add("index", "restores docid order, cuts runs, and feeds the indexers (\"indexers\": [...])",
               make_index_node, resolve_index_node);
        r->add("compress", "variable-byte encodes each run's postings", make_compress_node, resolve_compress_node);
        r->add("flush", "sink: writes run postings files, documents and the dictionary", make_flush_node);
        return r;
    }();
    return *registry;
}

}  // namespace invidx
