// A generated WARC collection of gzip members with its reference index, for
// the end-to-end tests.
#pragma once

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "support/collections.hpp"
#include "support/temp_dir.hpp"

namespace invidx::testing {

struct GeneratedWarc {
    std::vector<std::string> file_contents;  // each a run of gzip members
    ReferenceIndex reference;
};

// `documents` responses (plus request and warcinfo records that are not
// documents) spread over `files` files, each record its own gzip member.
inline GeneratedWarc generate_warc(unsigned seed, size_t documents, size_t files) {
    std::mt19937 random(seed);
    const auto words = test_vocabulary(random, 400);
    Analyzer analyzer(AnalysisSettings::defaults(), TokenScan::scalar);  // the reference scan; the pipeline runs the default (vector) one
    GeneratedWarc out;
    out.file_contents.resize(files);
    for (size_t f = 0; f < files; ++f) {
        const std::string info = "software: invidx-test\r\n";
        out.file_contents[f] += gzip("WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: " + std::to_string(info.size()) +
                                     "\r\n\r\n" + info + "\r\n\r\n");
    }
    for (size_t d = 0; d < documents; ++d) {
        const size_t file = d * files / documents;
        const std::string id = "doc-" + std::to_string(seed) + "-" + std::to_string(d);
        const bool clueweb = d % 3 == 0;
        std::string html;
        if (d % 17 == 5) {
            html = "";  // an empty document is still a document
        } else if (d % 17 == 9) {
            html = "<p>the and of</p><!-- only stop words -->";
        } else {
            html = random_html(random, words, 20 + random() % 400);
            if (d % 7 == 0) html += " WARC/1.0 Content-Length: 5 ";  // must not confuse framing
        }
        out.file_contents[file] += gzip(warc_request(id));
        out.file_contents[file] += gzip(warc_response(id, html, clueweb));
        out.reference.add(warc_document_name(id, clueweb), html, true, analyzer);
    }
    return out;
}

inline std::vector<std::string> write_parts(const TempDir& dir, const std::string& subdir, const GeneratedWarc& warc) {
    std::vector<std::string> paths;
    for (size_t f = 0; f < warc.file_contents.size(); ++f) {
        char name[64];
        std::snprintf(name, sizeof name, "%s/part-%02zu.warc.gz", subdir.c_str(), f);
        paths.push_back(dir.write(name, warc.file_contents[f]).string());
    }
    return paths;
}

}  // namespace invidx::testing
