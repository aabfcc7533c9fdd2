#!/bin/sh
# BENCHMARK-ONLY: builds the peer harnesses of bench/peers into
# bench/peers/build/. Not part of the product build (the main CMakeLists.txt
# does not know these files).
#
# Needs (Debian): apt-get install -y libxapian-dev liblucene8-java default-jdk-headless
#   bench/peers/build.sh            # builds both
#   bench/peers/build.sh xapian     # only one
#   bench/peers/build.sh lucene
# Prints the Lucene classpath to use in bench/peers/build/lucene.classpath.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/build"
mkdir -p "$OUT"
what=${1:-all}

if [ "$what" = all ] || [ "$what" = xapian ]; then
    CXX=${CXX:-g++}
    # shellcheck disable=SC2046
    $CXX -std=c++20 -O2 -DNDEBUG -o "$OUT/xapian_index" "$HERE/xapian_index.cpp" \
        $(pkg-config --cflags --libs xapian-core 2>/dev/null || xapian-config --cxxflags --libs) -lz
    echo "built $OUT/xapian_index"
fi

if [ "$what" = all ] || [ "$what" = lucene ]; then
    JARDIR=${LUCENE_JARS:-/usr/share/java}
    core=$(ls "$JARDIR"/lucene-core-8*.jar 2>/dev/null | sort | tail -n 1)
    common=$(ls "$JARDIR"/lucene-analyzers-common-8*.jar 2>/dev/null | sort | tail -n 1)
    if [ -z "$core" ] || [ -z "$common" ]; then
        echo "no lucene-core-8*.jar / lucene-analyzers-common-8*.jar under $JARDIR (apt-get install liblucene8-java)" >&2
        exit 1
    fi
    CP="$core:$common"
    mkdir -p "$OUT/classes"
    javac -d "$OUT/classes" -cp "$CP" "$HERE/LuceneIndex.java"
    printf '%s\n' "$OUT/classes:$CP" > "$OUT/lucene.classpath"
    echo "built $OUT/classes/LuceneIndex.class (classpath in $OUT/lucene.classpath)"
fi
