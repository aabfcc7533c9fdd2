#!/bin/sh
# BENCHMARK-ONLY: builds the query-latency peer harnesses of bench/peers
# into bench/peers/build/ (git-ignored), next to the indexing
# harnesses of build.sh, which it runs first when they are missing.
# Not part of the product build.
#
#   bench/peers/build_query.sh [all|invidx|xapian|lucene] [--build DIR]
#
# invidx: bench/peers/invidx_query.cpp against DIR/libinvidx.a (DIR default
# ./build, built with the target invidx_query_bench), with the headers of the
# source tree DIR was configured from (its CMakeCache.txt) and the libraries
# of DIR's invidx_query_bench link line. The headers and libinvidx.a must be
# of the same source: rebuild DIR first when the tree has changed.
# xapian: xapian_query.cpp (libxapian-dev). lucene: LuceneQuery.java
# (liblucene8-java, default-jdk-headless; compiled against LuceneIndex,
# whose analyzer it reuses).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT="$HERE/build"
what=all
BUILD="$REPO/build"
while [ $# -gt 0 ]; do
    case "$1" in
        --build) BUILD=$(cd "$2" && pwd); shift 2 ;;
        *) what=$1; shift ;;
    esac
done
mkdir -p "$OUT"
CXX=${CXX:-g++}

if [ "$what" = all ] || [ "$what" = invidx ]; then
    link="$BUILD/CMakeFiles/invidx_query_bench.dir/link.txt"
    if [ ! -f "$link" ] || [ ! -f "$BUILD/libinvidx.a" ]; then
        echo "no $BUILD/libinvidx.a or $link: cmake --build $BUILD --target invidx_query_bench" >&2
        exit 1
    fi
    # The link line's libraries: everything after "-o invidx_query_bench".
    libs=$(sed 's/.*-o invidx_query_bench//' "$link")
    SRC=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt")
    [ -n "$SRC" ] || SRC=$REPO
    # shellcheck disable=SC2086
    (cd "$BUILD" && $CXX -std=c++20 -O3 -DNDEBUG -I"$SRC/include" -I"$SRC" \
        -o "$OUT/invidx_query" "$HERE/invidx_query.cpp" $libs)
    echo "built $OUT/invidx_query"
fi

if [ "$what" = all ] || [ "$what" = xapian ]; then
    # shellcheck disable=SC2046
    $CXX -std=c++20 -O2 -DNDEBUG -o "$OUT/xapian_query" "$HERE/xapian_query.cpp" \
        $(pkg-config --cflags --libs xapian-core 2>/dev/null || xapian-config --cxxflags --libs)
    echo "built $OUT/xapian_query"
fi

if [ "$what" = all ] || [ "$what" = lucene ]; then
    [ -f "$OUT/lucene.classpath" ] && [ -f "$OUT/classes/LuceneIndex.class" ] || "$HERE/build.sh" lucene
    CP=$(cat "$OUT/lucene.classpath")
    javac -d "$OUT/classes" -cp "$CP" "$HERE/LuceneQuery.java"
    echo "built $OUT/classes/LuceneQuery.class"
fi
