#!/bin/sh
# Per-file gzip sizes at levels 1-9 on Silesia and debtext100m: a gpz build (GPZ, default
# build/gpz) against another (OLD, e.g. one built before a format change) and gzip. Prints the
# Silesia totals and debtext100m a level, and every file where gpz is not smaller than gzip.
# Usage: OLD=/path/to/old/gpz [GPZ=build/gpz] sh bench/piece-size-ratio.sh
set -eu
D=${GPZ_DATA:-$(cd "$(dirname "$0")/.." && pwd)/corpora/data}
new=${GPZ:-build/gpz}
old=${OLD:?set OLD to the gpz to compare with}
size() { "$@" | wc -c; }
for L in 1 2 3 4 5 6 7 8 9; do
	tn=0 to=0 tg=0
	for f in "$D"/silesia/* "$D/debtext100m"; do
		n=$(size "$new" --format=gzip -$L -c <"$f")
		o=$(size "$old" --format=gzip -$L -c <"$f")
		g=$(size gzip -$L -c <"$f")
		[ "$n" -lt "$g" ] || echo "L$L $(basename "$f") NOT SMALLER: gpz $n, gzip $g"
		case $f in
		*debtext100m) echo "L$L debtext100m new=$n old=$o gzip=$g" ;;
		*) tn=$((tn + n)) to=$((to + o)) tg=$((tg + g)) ;;
		esac
	done
	echo "L$L silesia new=$tn old=$to gzip=$tg"
done
