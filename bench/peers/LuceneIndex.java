// BENCHMARK-ONLY peer harness: index a WARC collection with Lucene 8, for
// comparison with invidx. Not part of the product; not built by the
// main CMakeLists.txt. Build with bench/peers/build.sh.
//
//   java -cp bench/peers/build:LUCENE_JARS LuceneIndex OUT_DIR THREADS FILES...
//
// THREADS threads share one IndexWriter; each takes whole files from a queue,
// reads them with GZIPInputStream (multi-member gzip; files not ending in .gz
// are read as is), frames WARC records by Content-Length and indexes every
// `WARC-Type: response` record: the HTTP header block is skipped up to the
// first empty line, the rest is HTML.
//
// Analysis (per the issue): HTMLStripCharFilter -> StandardTokenizer ->
// LowerCaseFilter -> StopFilter (stop words of the file in system property
// stopwords, default /work/shared/stopwords/english.txt) -> PorterStemFilter.
// Field "body": not stored, IndexOptions.DOCS_AND_FREQS, norms on (the
// default). Field "name": the WARC-Record-ID, stored, not indexed.
// IndexWriter: RAM buffer of system property ramMB (default 1024) MB,
// OpenMode.CREATE, default merge policy/scheduler, one commit at the end,
// no forceMerge.
//
// Prints: documents, seconds, MB (HTML bytes of the documents, 10^6), MB/s,
// and the uncompressed WARC bytes read.

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPInputStream;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.charfilter.HTMLStripCharFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Version;

public final class LuceneIndex {
    static final class WarcAnalyzer extends Analyzer {
        private final CharArraySet stopWords;

        WarcAnalyzer(CharArraySet stopWords) {
            this.stopWords = stopWords;
        }

        @Override
        protected Reader initReader(String fieldName, Reader reader) {
            return new HTMLStripCharFilter(reader);
        }

        @Override
        protected TokenStreamComponents createComponents(String fieldName) {
            Tokenizer source = new StandardTokenizer();
            TokenStream sink = new LowerCaseFilter(source);
            sink = new StopFilter(sink, stopWords);
            sink = new PorterStemFilter(sink);
            return new TokenStreamComponents(source, sink);
        }
    }

    static final FieldType BODY = new FieldType();
    static {
        BODY.setTokenized(true);
        BODY.setStored(false);
        BODY.setIndexOptions(IndexOptions.DOCS_AND_FREQS);
        BODY.freeze();
    }

    static final AtomicLong documents = new AtomicLong();
    static final AtomicLong htmlBytes = new AtomicLong();
    static final AtomicLong warcBytes = new AtomicLong();

    /** Counts the bytes that come out of the (decompressing) stream. */
    static final class CountingStream extends InputStream {
        private final InputStream in;
        long count;

        CountingStream(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) count++;
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = in.read(buf, off, len);
            if (n > 0) count += n;
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** One header line as ISO-8859-1 text without CR/LF; null at end of stream. */
    static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        boolean any = false;
        while ((c = in.read()) >= 0) {
            any = true;
            if (c == '\n') break;
            sb.append((char) c);
        }
        if (!any) return null;
        int n = sb.length();
        if (n > 0 && sb.charAt(n - 1) == '\r') sb.setLength(n - 1);
        return sb.toString();
    }

    static int httpBodyStart(byte[] block) {
        int start = 0;
        while (true) {
            int nl = start;
            while (nl < block.length && block[nl] != '\n') nl++;
            if (nl >= block.length) return block.length;
            int len = nl - start;
            if (len == 0 || (len == 1 && block[start] == '\r')) return nl + 1;
            start = nl + 1;
        }
    }

    static void indexFile(Path file, IndexWriter writer) throws IOException {
        InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        InputStream decoded = file.toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
        CountingStream counting = new CountingStream(decoded);
        try (InputStream in = new BufferedInputStream(counting, 1 << 20)) {
            String line;
            while ((line = readLine(in)) != null) {
                if (line.isEmpty()) continue;
                if (!line.startsWith("WARC/")) throw new IOException(file + ": expected a WARC record, got: " + line);
                String type = null, id = null;
                long length = -1;
                while ((line = readLine(in)) != null && !line.isEmpty()) {
                    int colon = line.indexOf(':');
                    if (colon < 0) continue;
                    String name = line.substring(0, colon).trim();
                    String value = line.substring(colon + 1).trim();
                    if (name.equalsIgnoreCase("WARC-Type")) type = value;
                    else if (name.equalsIgnoreCase("WARC-Record-ID")) id = value;
                    else if (name.equalsIgnoreCase("Content-Length")) length = Long.parseLong(value);
                }
                if (length < 0) throw new IOException(file + ": WARC record without Content-Length");
                if (!"response".equals(type)) {
                    long left = length;
                    while (left > 0) {
                        long skipped = in.skip(left);
                        if (skipped <= 0) {
                            if (in.read() < 0) throw new EOFException(file + ": record runs past end of file");
                            skipped = 1;
                        }
                        left -= skipped;
                    }
                    continue;
                }
                byte[] block = new byte[(int) length];
                int got = 0;
                while (got < block.length) {
                    int n = in.read(block, got, block.length - got);
                    if (n < 0) throw new EOFException(file + ": record runs past end of file");
                    got += n;
                }
                int bodyStart = httpBodyStart(block);
                String html = new String(block, bodyStart, block.length - bodyStart, StandardCharsets.UTF_8);
                Document doc = new Document();
                doc.add(new StoredField("name", id == null ? "" : id));
                doc.add(new Field("body", html, BODY));
                writer.addDocument(doc);
                documents.incrementAndGet();
                htmlBytes.addAndGet(block.length - bodyStart);
            }
        }
        warcBytes.addAndGet(counting.count);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: LuceneIndex OUT_DIR THREADS FILES...");
            System.err.println("benchmark-only Lucene peer harness (bench/peers); see the comment at the top of the source");
            System.exit(2);
        }
        Path out = Paths.get(args[0]);
        int threads = Integer.parseInt(args[1]);
        ConcurrentLinkedQueue<Path> queue = new ConcurrentLinkedQueue<>();
        for (int i = 2; i < args.length; i++) queue.add(Paths.get(args[i]));

        String stopPath = System.getProperty("stopwords", "/work/shared/stopwords/english.txt");
        List<String> words = new ArrayList<>();
        for (String w : Files.readAllLines(Paths.get(stopPath), StandardCharsets.UTF_8)) {
            w = w.trim();
            if (!w.isEmpty() && !w.startsWith("#")) words.add(w);
        }
        CharArraySet stopWords = new CharArraySet(words, false);
        double ramMB = Double.parseDouble(System.getProperty("ramMB", "1024"));

        long started = System.nanoTime();
        IndexWriterConfig config = new IndexWriterConfig(new WarcAnalyzer(stopWords));
        config.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
        config.setRAMBufferSizeMB(ramMB);
        config.setMaxBufferedDocs(IndexWriterConfig.DISABLE_AUTO_FLUSH);
        try (FSDirectory dir = FSDirectory.open(out); IndexWriter writer = new IndexWriter(dir, config)) {
            List<Thread> workers = new ArrayList<>();
            final Throwable[] failure = new Throwable[1];
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    try {
                        Path file;
                        while ((file = queue.poll()) != null) indexFile(file, writer);
                    } catch (Throwable e) {
                        synchronized (failure) {
                            if (failure[0] == null) failure[0] = e;
                        }
                        queue.clear();
                    }
                }, "indexer-" + t);
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) worker.join();
            if (failure[0] != null) {
                System.err.println("LuceneIndex: " + failure[0]);
                writer.rollback();
                System.exit(1);
            }
            writer.commit();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf("system: lucene %s (%d threads sharing one IndexWriter, RAM buffer %.0f MB, %d stop words)%n",
                Version.LATEST, threads, ramMB, words.size());
        System.out.printf("documents: %d%n", documents.get());
        System.out.printf("seconds: %.3f%n", seconds);
        System.out.printf("mb: %.3f%n", htmlBytes.get() / 1e6);
        System.out.printf("mb_per_s: %.3f%n", htmlBytes.get() / 1e6 / seconds);
        System.out.printf("warc_mb: %.3f%n", warcBytes.get() / 1e6);
        // Vocabulary and postings, counted after the timing, to compare the analyses.
        try (FSDirectory dir = FSDirectory.open(out); DirectoryReader reader = DirectoryReader.open(dir)) {
            Terms terms = MultiTerms.getTerms(reader, "body");
            long count = 0;
            if (terms != null) {
                TermsEnum it = terms.iterator();
                while (it.next() != null) count++;
            }
            System.out.printf("terms: %d%n", count);
            System.out.printf("postings: %d%n", terms == null ? 0 : terms.getSumDocFreq());
            System.out.printf("segments: %d%n", reader.leaves().size());
        }
    }
}
