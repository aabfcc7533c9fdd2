#!/usr/bin/env python3
"""Predicts the throughput of a partition-and-index cluster build on P nodes
from figures measured on one node, and prints a markdown table.

    python3 bench/cluster_model.py [--node-gbps 1.3] [--collection-gb 1422] ...

Every default is a measurement (docs/performance-log.md, "a model of cluster
builds on 8-128 nodes" and the sections after it, says where each comes
from); pass your own after running bench/cluster_ranks.sh and
bench/scaling_16core.sh on your machines. The model, per node, for a
collection of D GB of document text:

  parse phase   D / (P * r_P), where r_P is the single node's rate r slowed
                by encoding and decoding the postings sent to other nodes:
                r_P = r * C / (C + 2 * e * (P-1)/P * parse), with C the
                node's busy core-seconds per GB, parse the parser's share of
                it and e the encoding cost per parse second when every
                posting goes elsewhere (decoding assumed to cost the same);
                capped by the link: r_P * s * (P-1)/P <= link bandwidth,
                where s is the postings bytes sent per byte of text when
                every posting goes elsewhere. With --usable-cores U the node
                is CPU-bound only when it must be: r_P = min(r, U / C_P),
                C_P = C + 2 * e * (P-1)/P * parse its core-seconds per GB
                with the remote share's encoding and decoding (a node that
                is not CPU-bound, one whose GPU parses, keeps r while its
                cores have room: measured at 2 ranks, docs/performance-log.md
                "exchange credits"); without it every node is taken to be
                CPU-bound (r_P = r * C / C_P), as in the older sections.
  adopt tail    D / P * m: after its last batch each node merges its
                per-source parts' dictionaries and moves their run files
                into the index, each with its source's first docid as its
                base (no posting rewritten). The work grows with the terms
                the node owns, so a per-GB m from a small collection
                overstates it on large ones. (Before run docid bases the
                parts were rewritten as one run: m was 0.35.)
  join          the dictionary (Heaps' law terms times bytes per term) and
                the documents, at join_gbps. --join parallel (what the
                code does): each of the P ranks joins one range of the
                terms, passing its 1/P of the dictionary's bytes through
                the file system 1 + 2 (P-1)/P times (its slices for the
                other ranks written, its range's slices from them read,
                its piece written); --join serial:
                rank 0 writes all of it once. The documents are written by
                every rank its own, 1/P of their bytes each
                (--documents-join parallel, what the code does under
                cluster.join parallel) or appended by rank 0 alone
                (--documents-join serial, cluster.join serial).
  start         MPI start, sampling and the ownership broadcast.

Efficiency is printed twice: against P times the measured node rate r
(which, measured on a small collection, hardly pays for a dictionary), and
T1 / (P * TP), the usual parallel efficiency, against the model's own one
node on the same collection (which writes the whole dictionary and
documents itself: its join column).

Not modelled: input storage (each node reads its own files: the paper's
distributed storage model; a shared pool caps the total at its bandwidth /
compressed bytes per text byte), stragglers from uneven files, network
latency and congestion beyond a per-node full-duplex link.
"""
import argparse


def heaps_terms(text_gb, k_terms, k_gb, beta):
    """Distinct terms of a collection of text_gb, by Heaps' law through one
    measured point (k_terms terms at k_gb)."""
    return k_terms * (text_gb / k_gb) ** beta


def predict(p, link_gbit, a):
    remote = (p - 1) / p
    node_cost = a.core_s_per_gb + 2 * a.encode_per_parse_s * remote * a.parse_core_s_per_gb
    if a.usable_cores:
        rate = min(a.node_gbps, a.usable_cores / node_cost)
    else:
        rate = a.node_gbps * a.core_s_per_gb / node_cost
    sent_per_text = a.sent_bytes_per_text_byte * remote
    link_gbyte = link_gbit / 8
    network_limited = sent_per_text > 0 and rate * sent_per_text > link_gbyte
    if network_limited:
        rate = link_gbyte / sent_per_text
    per_node_gb = a.collection_gb / p
    parse_s = per_node_gb / rate
    rebase_s = per_node_gb * a.rebase_s_per_gb if p > 1 else 0.0
    terms = heaps_terms(a.collection_gb, a.heaps_terms, a.heaps_gb, a.heaps_beta)
    dictionary_bytes = terms * a.dictionary_bytes_per_term
    if a.join == "parallel":
        dictionary_bytes = dictionary_bytes / p * (1 + 2 * (p - 1) / p)
    documents_bytes = a.collection_gb * a.documents_bytes_per_gb
    if a.documents_join == "parallel":
        documents_bytes /= p
    join_s = (dictionary_bytes + documents_bytes) / (a.join_gbps * 1e9)
    total_s = a.start_s + parse_s + rebase_s + join_s
    return {
        "rate": rate,
        "traffic_gbit": rate * sent_per_text * 8,
        "link_share": rate * sent_per_text / link_gbyte,
        "network_limited": network_limited,
        "parse_s": parse_s,
        "rebase_s": rebase_s,
        "join_s": join_s,
        "total_gbps": a.collection_gb / total_s,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, nargs="+", default=[1, 8, 16, 32, 64, 128])
    ap.add_argument("--links-gbit", type=float, nargs="+", default=[10, 25, 100])
    ap.add_argument("--collection-gb", type=float, default=1422,
                    help="GB of document text (ClueWeb09's first English segment, the paper's 32-node run)")
    ap.add_argument("--node-gbps", type=float, default=1.3,
                    help="one node's build rate, GB/s of text (16 cores + H100, real web HTML)")
    ap.add_argument("--core-s-per-gb", type=float, default=86 / 9.0,
                    help="busy core-seconds per GB of text on that node (all nodes)")
    ap.add_argument("--parse-core-s-per-gb", type=float, default=43 / 9.0,
                    help="the parse node's share of it")
    # Measured by invidx_wire_bench after the wire was made cheaper (0.093,
    # rounded up; 0.27 and 0.0632 before it: docs/performance-log.md, "a cheaper
    # postings wire for cluster builds").
    ap.add_argument("--encode-per-parse-s", type=float, default=0.10,
                    help="distribute busy / parse busy when every posting goes elsewhere")
    ap.add_argument("--usable-cores", type=float, default=None,
                    help="busy cores a node sustains (a CPU-bound build's busy core-seconds / seconds); "
                         "unset: every node CPU-bound")
    ap.add_argument("--sent-bytes-per-text-byte", type=float, default=0.0547,
                    help="postings message bytes per byte of text when every posting goes elsewhere")
    ap.add_argument("--rebase-s-per-gb", type=float, default=0.1,
                    help="seconds per GB of a node's text to adopt its parts' runs (0.35 when they were rewritten)")
    ap.add_argument("--start-s", type=float, default=2.0,
                    help="MPI start, sampling, ownership broadcast")
    ap.add_argument("--join-gbps", type=float, default=1.0,
                    help="rank 0's write rate for the joined dictionary and documents, GB/s")
    ap.add_argument("--join", choices=["parallel", "serial"], default="parallel",
                    help="the dictionary joined by every rank, a range each (the code's default), or by rank 0 alone")
    # parallel: implemented (cluster.join "parallel" writes documents.bin
    # from every rank, docs/performance-log.md "documents.bin joined by every
    # rank"); serial was the code's behaviour before it.
    ap.add_argument("--documents-join", choices=["parallel", "serial"], default="parallel",
                    help="documents written by every rank, its own (the code's default), or appended by rank 0 alone")
    ap.add_argument("--dictionary-bytes-per-term", type=float, default=56.45)
    ap.add_argument("--documents-bytes-per-gb", type=float, default=2.5e6)
    ap.add_argument("--heaps-terms", type=float, default=84_799_475,
                    help="terms of the measured point (ClueWeb09 first English segment)")
    ap.add_argument("--heaps-gb", type=float, default=1422)
    ap.add_argument("--heaps-beta", type=float, default=0.766,
                    help="from ClueWeb09's two points: 84.8 M terms at 1,422 GB, 447.4 M at 12,453 GB")
    a = ap.parse_args()

    print(f"collection: {a.collection_gb:,.0f} GB of text; one node: {a.node_gbps} GB/s; "
          f"dictionary join: {a.join}; documents: {a.documents_join}\n")
    header = ("| nodes | link Gb/s | node GB/s | sent per node Gb/s | link used | parse s | rebase s | join s | "
              "cluster GB/s | efficiency vs P x node GB/s | T1 / (P x TP) |")
    print(header)
    print("|---:" * (header.count("|") - 1) + "|")
    one_node = predict(1, a.links_gbit[0], a)["total_gbps"]
    for p in a.nodes:
        for link in a.links_gbit:
            r = predict(p, link, a)
            ideal = p * a.node_gbps
            mark = " (link-bound)" if r["network_limited"] else ""
            print(f"| {p} | {link:g} | {r['rate']:.2f}{mark} | {r['traffic_gbit']:.2f} | "
                  f"{100 * r['link_share']:.1f}% | {r['parse_s']:.0f} | {r['rebase_s']:.0f} | "
                  f"{r['join_s']:.1f} | {r['total_gbps']:.1f} | {r['total_gbps'] / ideal:.2f} | "
                  f"{r['total_gbps'] / (p * one_node):.2f} |")
            if p == 1:
                break


if __name__ == "__main__":
    main()
