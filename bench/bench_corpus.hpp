// The records of some input files, decompressed and framed in memory before
// a benchmark starts, so that only what it measures is timed (the parser
// alone, on the CPU or a GPU).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "invidx/analysis_settings.hpp"
#include "invidx/entry_name.hpp"
#include "nodes/decompress/decompress_file.hpp"
#include "nodes/frame/framer.hpp"
#include "nodes/read/input_files.hpp"

namespace invidx::bench {

struct Record {
    size_t offset = 0;  // into Corpus::text
    size_t length = 0;
    bool html = false;
};

struct Corpus {
    std::string text;  // every record's text, back to back
    std::vector<Record> records;
};

inline Corpus load(const std::vector<InputFile>& files, const AnalysisSettings& settings) {
    Corpus corpus;
    for (const auto& file : files) {
        std::unique_ptr<Framer> framer;
        const EmitRecord on_record = [&](const FramedRecord& record) {
            corpus.records.push_back(Record{corpus.text.size(), record.text.size(), record.html});
            corpus.text.append(record.text);
        };
        decompress_file(file, kDefaultTextBlockBytes, [&](TextBlock&& block) {
            if (block.entry_begin) framer = make_framer(file.format, document_name_of_entry(file, block.entry_name), settings);
            framer->feed(block.bytes, on_record);
            if (block.entry_end) {
                framer->finish(on_record);
                framer.reset();
            }
            return true;
        });
    }
    return corpus;
}

}  // namespace invidx::bench
