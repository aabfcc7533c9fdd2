// BENCHMARK-ONLY peer harness: top-k query latency of Xapian on a
// database built by xapian_index, for comparison with invidx. Not part of the
// product; not built by the main CMakeLists.txt. Build with
// bench/peers/build.sh xapian.
//
//   xapian_query DB QUERIES.tsv [--mode and|or] [--k K] [--repeat R] [--warmup W]
//
// QUERIES.tsv: one `qid<TAB>text` a line. Each query's words (split at
// spaces, ASCII-lowercased) go through the analysis of xapian_index: the
// SimpleStopper over the same stop words (env XAPIAN_STOPWORDS, default
// /work/shared/stopwords/english.txt), then Stem("porter"); duplicates are
// dropped. Query = Xapian::Query(OP_AND or OP_OR, terms); an Enquire with
// BM25Weight(k1 0.9, k2 0, k3 1, b 0.4, min_normlen 0.5) (CONTENT.md §10's k1 and b),
// get_mset(0, K) (check_at_least 0: Xapian may prune). One thread. The whole
// query set runs W times untimed (default 1), then each query R times
// (default 5); a query's latency is the median of its R runs, timed around
// analysis + Enquire + get_mset.
//
// Prints a `# ...` header, then one line per query:
//   qid<TAB>microseconds<TAB>results<TAB>top document names, comma-separated

#include <xapian.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void usage(const char* why) {
    if (why) std::cerr << "xapian_query: " << why << "\n";
    std::cerr << "usage: xapian_query DB QUERIES.tsv [--mode and|or] [--k K] [--repeat R] [--warmup W]\n"
                 "benchmark-only Xapian peer harness (bench/peers); see the comment at the top of the source\n";
    std::exit(2);
}

struct Setup {
    Xapian::SimpleStopper stopper;
    Xapian::Stem stem{"porter"};
    Xapian::BM25Weight weight{0.9, 0.0, 1.0, 0.4, 0.5};
    Xapian::Query::op op = Xapian::Query::OP_OR;
    Xapian::doccount k = 10;
};

Xapian::MSet run_query(const Xapian::Database& db, const Setup& setup, const std::string& text) {
    std::vector<std::string> terms;
    std::istringstream words(text);
    for (std::string word; words >> word;) {
        for (char& c : word) {
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        }
        if (setup.stopper(word)) continue;
        std::string term = setup.stem(word);
        if (std::find(terms.begin(), terms.end(), term) == terms.end()) terms.push_back(std::move(term));
    }
    Xapian::Enquire enquire(db);
    enquire.set_weighting_scheme(setup.weight);
    enquire.set_query(Xapian::Query(setup.op, terms.begin(), terms.end()));
    return enquire.get_mset(0, setup.k);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> positional;
    std::string mode = "or";
    long k = 10;
    int repeat = 5, warmup = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
            return argv[++i];
        };
        if (arg == "--mode") mode = value();
        else if (arg == "--k") k = std::atol(value().c_str());
        else if (arg == "--repeat") repeat = std::atoi(value().c_str());
        else if (arg == "--warmup") warmup = std::atoi(value().c_str());
        else if (arg.rfind("--", 0) == 0) usage(("unknown option " + arg).c_str());
        else positional.push_back(arg);
    }
    if (positional.size() != 2) usage("need DB and QUERIES.tsv");
    if (mode != "and" && mode != "or") usage("--mode is and or or");
    if (k < 1 || repeat < 1 || warmup < 0) usage("--k and --repeat must be at least 1");
    try {
        Setup setup;
        setup.op = mode == "and" ? Xapian::Query::OP_AND : Xapian::Query::OP_OR;
        setup.k = static_cast<Xapian::doccount>(k);
        const char* stop_env = std::getenv("XAPIAN_STOPWORDS");
        const std::string stop_path = stop_env ? stop_env : "/work/shared/stopwords/english.txt";
        std::ifstream stop_file(stop_path);
        if (!stop_file) throw std::runtime_error("cannot read stop words " + stop_path);
        for (std::string word; std::getline(stop_file, word);) {
            while (!word.empty() && (word.back() == '\r' || word.back() == ' ')) word.pop_back();
            if (word.empty() || word[0] == '#') continue;
            setup.stopper.add(word);
        }

        std::vector<std::string> qids, texts;
        std::ifstream in(positional[1]);
        if (!in) usage(("cannot read " + positional[1]).c_str());
        for (std::string line; std::getline(in, line);) {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            const size_t tab = line.find('\t');
            if (line.empty() || tab == std::string::npos) continue;
            qids.push_back(line.substr(0, tab));
            texts.push_back(line.substr(tab + 1));
        }

        const Xapian::Database db(positional[0]);
        std::vector<Xapian::MSet> results(texts.size());
        for (int w = 0; w < warmup; ++w) {
            for (size_t q = 0; q < texts.size(); ++q) results[q] = run_query(db, setup, texts[q]);
        }
        std::vector<std::vector<double>> runs(texts.size());
        for (int r = 0; r < repeat; ++r) {
            for (size_t q = 0; q < texts.size(); ++q) {
                const auto start = std::chrono::steady_clock::now();
                Xapian::MSet mset = run_query(db, setup, texts[q]);
                const auto stop = std::chrono::steady_clock::now();
                results[q] = std::move(mset);
                runs[q].push_back(std::chrono::duration<double, std::micro>(stop - start).count());
            }
        }
        std::printf("# system: xapian %s, %s, k %ld, BM25Weight(0.9, 0, 1, 0.4, 0.5), 1 thread, warmup %d, median of %d; "
                    "%u documents\n",
                    Xapian::version_string(), mode.c_str(), k, warmup, repeat, db.get_doccount());
        for (size_t q = 0; q < texts.size(); ++q) {
            auto& times = runs[q];
            std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2), times.end());
            std::string names;
            for (auto it = results[q].begin(); it != results[q].end(); ++it) {
                names += (names.empty() ? "" : ",") + it.get_document().get_data();
            }
            std::printf("%s\t%.2f\t%u\t%s\n", qids[q].c_str(), times[times.size() / 2], results[q].size(), names.c_str());
        }
        return 0;
    } catch (const Xapian::Error& e) {
        std::cerr << "xapian_query: " << e.get_description() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "xapian_query: " << e.what() << "\n";
    }
    return 1;
}
