// BENCHMARK-ONLY peer harness: index a WARC collection with Xapian, for
// comparison with invidx. Not part of the product; not built by the
// main CMakeLists.txt. Build with bench/peers/build.sh.
//
//   xapian_index OUT_DIR FILES...
//
// Reads each FILE (WARC/1.0, gzip per record or whole-file, or plain) with
// zlib's gzread (which handles multi-member gzip), frames records by
// Content-Length, and indexes every `WARC-Type: response` record: the HTTP
// header block is skipped up to the first empty line, the rest is HTML. The
// HTML is stripped here (Xapian's TermGenerator takes plain text; Omega's HTML
// parser is not part of libxapian): comments, <script>/<style> contents and
// tags are dropped, character references are decoded.
//
// Analysis: TermGenerator with Stem("porter"), STEM_ALL (stemmed terms only,
// no "Z" prefix), SimpleStopper with the stop words of STOPWORDS_FILE (env
// XAPIAN_STOPWORDS, default /work/shared/stopwords/english.txt) and STOP_ALL,
// no positions (index_text_without_positions). Document data = the
// WARC-Record-ID (the document name).
//
// Single-threaded: a Xapian WritableDatabase admits one writer, and its API is
// not thread-safe, so there is no parallel indexing to use.
//
// Prints: documents, seconds, MB (HTML bytes of the documents, 10^6), MB/s,
// and the uncompressed WARC bytes read.

#include <xapian.h>
#include <zlib.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

// Reads a (possibly multi-member) gzip or plain file through zlib.
class GzReader {
public:
    explicit GzReader(const std::string& path) : file_(gzopen(path.c_str(), "rb")) {
        if (file_ == nullptr) throw std::runtime_error("cannot open " + path);
        gzbuffer(file_, 1 << 20);
    }
    ~GzReader() { gzclose(file_); }
    GzReader(const GzReader&) = delete;
    GzReader& operator=(const GzReader&) = delete;

    // One line without its "\n" (and "\r"); false at end of file.
    bool line(std::string& out) {
        out.clear();
        while (true) {
            if (pos_ == buf_.size() && !fill()) return !out.empty();
            const size_t nl = buf_.find('\n', pos_);
            if (nl == std::string::npos) {
                out.append(buf_, pos_, std::string::npos);
                pos_ = buf_.size();
                continue;
            }
            out.append(buf_, pos_, nl - pos_);
            pos_ = nl + 1;
            if (!out.empty() && out.back() == '\r') out.pop_back();
            return true;
        }
    }

    // Exactly n bytes into out; throws when the file ends first.
    void read(size_t n, std::string& out) {
        out.clear();
        out.reserve(n);
        while (out.size() < n) {
            if (pos_ == buf_.size() && !fill()) throw std::runtime_error("record runs past end of file");
            const size_t take = std::min(n - out.size(), buf_.size() - pos_);
            out.append(buf_, pos_, take);
            pos_ += take;
        }
    }

    uint64_t bytes_read() const { return bytes_read_; }

private:
    bool fill() {
        buf_.resize(1 << 20);
        const int got = gzread(file_, buf_.data(), static_cast<unsigned>(buf_.size()));
        if (got < 0) {
            int errnum = 0;
            throw std::runtime_error(std::string("gzread: ") + gzerror(file_, &errnum));
        }
        buf_.resize(static_cast<size_t>(got));
        pos_ = 0;
        bytes_read_ += static_cast<uint64_t>(got);
        return got > 0;
    }

    gzFile file_;
    std::string buf_;
    size_t pos_ = 0;
    uint64_t bytes_read_ = 0;
};

bool starts_with_ci(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != prefix[i]) return false;
    }
    return true;
}

size_t find_ci(std::string_view s, size_t from, std::string_view needle) {
    for (size_t i = from; i + needle.size() <= s.size(); ++i) {
        i = s.find('<', i);
        if (i == std::string_view::npos) return i;
        if (starts_with_ci(s.substr(i), needle)) return i;
    }
    return std::string_view::npos;
}

void append_utf8(std::string& out, uint32_t cp) {
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// Decodes the character reference at in[at] == '&'; returns the bytes used (0: not one).
size_t decode_reference(std::string_view in, size_t at, std::string& out) {
    const size_t semi = in.find(';', at);
    if (semi == std::string_view::npos || semi - at > 32) return 0;
    const std::string_view body = in.substr(at + 1, semi - at - 1);
    if (body.empty()) return 0;
    if (body[0] == '#') {
        uint32_t cp = 0;
        const bool hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
        const size_t start = hex ? 2 : 1;
        if (start >= body.size()) return 0;
        for (size_t i = start; i < body.size(); ++i) {
            const char c = body[i];
            int d;
            if (c >= '0' && c <= '9') d = c - '0';
            else if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
            else if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
            else return 0;
            cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
            if (cp > 0x10FFFF) cp = 0x110000;
        }
        append_utf8(out, cp);
        return semi - at + 1;
    }
    static const struct { const char* name; uint32_t cp; } kNamed[] = {
        {"amp", '&'},    {"lt", '<'},      {"gt", '>'},      {"quot", '"'},    {"apos", '\''},
        {"nbsp", 0xA0},  {"copy", 0xA9},   {"reg", 0xAE},    {"mdash", 0x2014}, {"ndash", 0x2013},
        {"hellip", 0x2026}, {"lsquo", 0x2018}, {"rsquo", 0x2019}, {"ldquo", 0x201C}, {"rdquo", 0x201D},
        {"eacute", 0xE9}, {"egrave", 0xE8}, {"uuml", 0xFC},  {"ouml", 0xF6},   {"auml", 0xE4},
    };
    for (const auto& entry : kNamed) {
        if (body == entry.name) {
            append_utf8(out, entry.cp);
            return semi - at + 1;
        }
    }
    return 0;
}

// HTML to text: drops comments, <script>/<style> elements and tags (each
// replaced by a space), decodes character references.
void strip_html(std::string_view in, std::string& out) {
    out.clear();
    out.reserve(in.size());
    size_t i = 0;
    while (i < in.size()) {
        const char c = in[i];
        if (c == '<') {
            const std::string_view rest = in.substr(i);
            if (rest.substr(0, 4) == "<!--") {
                const size_t end = in.find("-->", i + 4);
                i = end == std::string_view::npos ? in.size() : end + 3;
                out += ' ';
                continue;
            }
            bool raw = false;
            for (std::string_view name : {std::string_view("script"), std::string_view("style")}) {
                if (starts_with_ci(rest.substr(1), name) && rest.size() > 1 + name.size()) {
                    const char next = rest[1 + name.size()];
                    if (next == '>' || next == ' ' || next == '\t' || next == '\n' || next == '\r' || next == '/') {
                        const std::string closing = "</" + std::string(name);
                        const size_t close = find_ci(in, i + 1, closing);
                        if (close == std::string_view::npos) {
                            i = in.size();
                        } else {
                            const size_t gt = in.find('>', close);
                            i = gt == std::string_view::npos ? in.size() : gt + 1;
                        }
                        raw = true;
                        break;
                    }
                }
            }
            if (raw) {
                out += ' ';
                continue;
            }
            const char next = rest.size() > 1 ? rest[1] : '\0';
            const bool tag = (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || next == '/' ||
                             next == '!' || next == '?';
            if (tag) {
                const size_t gt = in.find('>', i);
                i = gt == std::string_view::npos ? in.size() : gt + 1;
                out += ' ';
                continue;
            }
            out += c;
            ++i;
        } else if (c == '&') {
            const size_t used = decode_reference(in, i, out);
            if (used == 0) {
                out += c;
                ++i;
            } else {
                i += used;
            }
        } else {
            out += c;
            ++i;
        }
    }
}

std::string_view http_body(std::string_view block) {
    size_t start = 0;
    while (true) {
        const size_t nl = block.find('\n', start);
        if (nl == std::string_view::npos) return {};
        const size_t len = nl - start;
        if (len == 0 || (len == 1 && block[start] == '\r')) return block.substr(nl + 1);
        start = nl + 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr << "usage: xapian_index OUT_DIR FILES...\n"
                     "benchmark-only Xapian peer harness (bench/peers); see the comment at the top of the source\n";
        return 2;
    }
    try {
        const char* stop_env = std::getenv("XAPIAN_STOPWORDS");
        const std::string stop_path = stop_env ? stop_env : "/work/shared/stopwords/english.txt";
        std::ifstream stop_file(stop_path);
        if (!stop_file) throw std::runtime_error("cannot read stop words " + stop_path);
        Xapian::SimpleStopper stopper;
        size_t stop_count = 0;
        for (std::string word; std::getline(stop_file, word);) {
            while (!word.empty() && (word.back() == '\r' || word.back() == ' ')) word.pop_back();
            if (word.empty() || word[0] == '#') continue;
            stopper.add(word);
            ++stop_count;
        }

        const auto started = std::chrono::steady_clock::now();
        Xapian::WritableDatabase db(argv[1], Xapian::DB_CREATE_OR_OVERWRITE);
        Xapian::TermGenerator generator;
        generator.set_stemmer(Xapian::Stem("porter"));
        generator.set_stemming_strategy(Xapian::TermGenerator::STEM_ALL);
        generator.set_stopper(&stopper);
        generator.set_stopper_strategy(Xapian::TermGenerator::STOP_ALL);

        uint64_t documents = 0, html_bytes = 0, warc_bytes = 0;
        std::string line, block, text;
        for (int a = 2; a < argc; ++a) {
            GzReader reader(argv[a]);
            while (reader.line(line)) {
                if (line.empty()) continue;  // the blank lines between records
                if (line.rfind("WARC/", 0) != 0) throw std::runtime_error(std::string(argv[a]) + ": expected a WARC record, got: " + line.substr(0, 60));
                std::string type, id;
                uint64_t length = 0;
                bool have_length = false;
                while (reader.line(line) && !line.empty()) {
                    const size_t colon = line.find(':');
                    if (colon == std::string::npos) continue;
                    const std::string_view name(line.data(), colon);
                    size_t v = colon + 1;
                    while (v < line.size() && (line[v] == ' ' || line[v] == '\t')) ++v;
                    const std::string value = line.substr(v);
                    if (starts_with_ci(name, "warc-type") && name.size() == 9) type = value;
                    else if (starts_with_ci(name, "warc-record-id") && name.size() == 14) id = value;
                    else if (starts_with_ci(name, "content-length") && name.size() == 14) {
                        length = std::stoull(value);
                        have_length = true;
                    }
                }
                if (!have_length) throw std::runtime_error(std::string(argv[a]) + ": WARC record without Content-Length");
                reader.read(length, block);
                if (type != "response") continue;
                const std::string_view html = http_body(block);
                strip_html(html, text);
                Xapian::Document doc;
                generator.set_document(doc);
                generator.index_text_without_positions(text);
                doc.set_data(id);
                db.add_document(doc);
                ++documents;
                html_bytes += html.size();
            }
            warc_bytes += reader.bytes_read();
        }
        db.commit();
        db.close();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::printf("system: xapian %s (single writer, 1 thread; %zu stop words)\n", Xapian::version_string(), stop_count);
        std::printf("documents: %llu\n", static_cast<unsigned long long>(documents));
        std::printf("seconds: %.3f\n", seconds);
        std::printf("mb: %.3f\n", html_bytes / 1e6);
        std::printf("mb_per_s: %.3f\n", html_bytes / 1e6 / seconds);
        std::printf("warc_mb: %.3f\n", warc_bytes / 1e6);
        // Vocabulary and postings, counted after the timing, to compare the analyses.
        Xapian::Database check(argv[1]);
        uint64_t terms = 0, postings = 0;
        for (auto t = check.allterms_begin(); t != check.allterms_end(); ++t) {
            ++terms;
            postings += t.get_termfreq();
        }
        std::printf("terms: %llu\n", static_cast<unsigned long long>(terms));
        std::printf("postings: %llu\n", static_cast<unsigned long long>(postings));
        return 0;
    } catch (const Xapian::Error& e) {
        std::cerr << "xapian_index: " << e.get_description() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "xapian_index: " << e.what() << "\n";
    }
    return 1;
}
