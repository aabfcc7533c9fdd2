// BENCHMARK-ONLY peer harness: top-k query latency of Lucene 8 on
// an index built by LuceneIndex, for comparison with invidx. Not part of the
// product; not built by the main CMakeLists.txt. Build with
// bench/peers/build.sh lucene.
//
//   java -cp "$(cat bench/peers/build/lucene.classpath)" LuceneQuery INDEX QUERIES.tsv
//        [--mode and|or] [--k K] [--repeat R] [--warmup W]
//
// QUERIES.tsv: one `qid<TAB>text` a line. Each query's text goes through
// LuceneIndex's own analyzer (LuceneIndex.WarcAnalyzer: HTMLStripCharFilter ->
// StandardTokenizer -> LowerCaseFilter -> StopFilter, same stop words, system
// property stopwords -> PorterStemFilter) on field "body"; duplicates are
// dropped; query = BooleanQuery of TermQuery clauses, MUST (and) or SHOULD
// (or). IndexSearcher without an executor (one thread), query cache off,
// BM25Similarity(0.9, 0.4) (SPEC §7's k1 and b), search(query, K) (top-k
// collector with Lucene's default total-hits threshold, so block-max WAND
// pruning applies). The whole query set runs W times untimed (default 1),
// then each query R times (default 5); a query's latency is the median of its
// R runs, timed around analysis + query building + search.
//
// Prints a `# ...` header, then one line per query:
//   qid<TAB>microseconds<TAB>results<TAB>top document names, comma-separated

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Version;

public final class LuceneQuery {
    static void usage(String why) {
        if (why != null) System.err.println("LuceneQuery: " + why);
        System.err.println("usage: LuceneQuery INDEX QUERIES.tsv [--mode and|or] [--k K] [--repeat R] [--warmup W]");
        System.err.println("benchmark-only Lucene peer harness (bench/peers); see the comment at the top of the source");
        System.exit(2);
    }

    static TopDocs runQuery(IndexSearcher searcher, Analyzer analyzer, String text, BooleanClause.Occur occur, int k)
            throws IOException {
        LinkedHashSet<String> terms = new LinkedHashSet<>();
        try (TokenStream stream = analyzer.tokenStream("body", text)) {
            CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
            stream.reset();
            while (stream.incrementToken()) terms.add(term.toString());
            stream.end();
        }
        BooleanQuery.Builder builder = new BooleanQuery.Builder();
        for (String t : terms) builder.add(new TermQuery(new Term("body", t)), occur);
        return searcher.search(builder.build(), k);
    }

    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>();
        String mode = "or";
        int k = 10, repeat = 5, warmup = 1;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.startsWith("--")) {
                if (i + 1 >= args.length) usage("missing value after " + arg);
                String value = args[++i];
                switch (arg) {
                    case "--mode": mode = value; break;
                    case "--k": k = Integer.parseInt(value); break;
                    case "--repeat": repeat = Integer.parseInt(value); break;
                    case "--warmup": warmup = Integer.parseInt(value); break;
                    default: usage("unknown option " + arg);
                }
            } else {
                positional.add(arg);
            }
        }
        if (positional.size() != 2) usage("need INDEX and QUERIES.tsv");
        if (!mode.equals("and") && !mode.equals("or")) usage("--mode is and or or");
        if (k < 1 || repeat < 1 || warmup < 0) usage("--k and --repeat must be at least 1");
        BooleanClause.Occur occur = mode.equals("and") ? BooleanClause.Occur.MUST : BooleanClause.Occur.SHOULD;

        String stopPath = System.getProperty("stopwords", "/work/shared/stopwords/english.txt");
        List<String> words = new ArrayList<>();
        for (String w : Files.readAllLines(Paths.get(stopPath), StandardCharsets.UTF_8)) {
            w = w.trim();
            if (!w.isEmpty() && !w.startsWith("#")) words.add(w);
        }
        Analyzer analyzer = new LuceneIndex.WarcAnalyzer(new CharArraySet(words, false));

        List<String> qids = new ArrayList<>(), texts = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(positional.get(1)), StandardCharsets.UTF_8)) {
            int tab = line.indexOf('\t');
            if (line.isEmpty() || tab < 0) continue;
            qids.add(line.substring(0, tab));
            texts.add(line.substring(tab + 1).replace("\r", ""));
        }

        try (FSDirectory dir = FSDirectory.open(Paths.get(positional.get(0)));
             DirectoryReader reader = DirectoryReader.open(dir)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            searcher.setSimilarity(new BM25Similarity(0.9f, 0.4f));
            searcher.setQueryCache(null);
            int n = texts.size();
            TopDocs[] results = new TopDocs[n];
            for (int w = 0; w < warmup; w++) {
                for (int q = 0; q < n; q++) results[q] = runQuery(searcher, analyzer, texts.get(q), occur, k);
            }
            double[][] runs = new double[n][repeat];
            for (int r = 0; r < repeat; r++) {
                for (int q = 0; q < n; q++) {
                    long start = System.nanoTime();
                    TopDocs top = runQuery(searcher, analyzer, texts.get(q), occur, k);
                    long stop = System.nanoTime();
                    results[q] = top;
                    runs[q][r] = (stop - start) / 1e3;
                }
            }
            StringBuilder out = new StringBuilder();
            out.append(String.format("# system: lucene %s, %s, k %d, BM25Similarity(0.9, 0.4), 1 thread, warmup %d, "
                    + "median of %d; %d documents, %d segments%n",
                    Version.LATEST, mode, k, warmup, repeat, reader.numDocs(), reader.leaves().size()));
            for (int q = 0; q < n; q++) {
                double[] times = runs[q].clone();
                Arrays.sort(times);
                StringBuilder names = new StringBuilder();
                for (ScoreDoc hit : results[q].scoreDocs) {
                    if (names.length() > 0) names.append(',');
                    names.append(searcher.doc(hit.doc).get("name"));
                }
                out.append(String.format("%s\t%.2f\t%d\t%s%n", qids.get(q), times[times.length / 2],
                        results[q].scoreDocs.length, names));
            }
            System.out.print(out);
        }
    }
}
