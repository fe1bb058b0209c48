#!/bin/sh
# Per-file gzip sizes at levels 1-9 on Silesia and debtext100m: a gpz build (GPZ, default build/gpz)
# against another (OLD, e.g. one built before a format change) and gzip; prints files larger than gzip.
D=${GPZ_DATA:-$(cd "$(dirname "$0")/.." && pwd)/corpora/data}
for L in 1 2 3 4 5 6 7 8 9; do
 tn=0; to=0; tg=0
 for f in $D/silesia/* $D/debtext100m; do
  n=$("${GPZ:-build/gpz}" --format=gzip -$L -c < $f | wc -c)
  o=$("${OLD:?set OLD to the gpz to compare with}" --format=gzip -$L -c < $f | wc -c)
  g=$(gzip -$L -c < $f | wc -c)
  [ $n -ge $g ] && echo "L$L $(basename $f) LARGER new=$n gzip=$g"
  case $f in *debtext*) echo "L$L debtext100m new=$n old=$o gzip=$g";; *) tn=$((tn+n)); to=$((to+o)); tg=$((tg+g));; esac
 done
 echo "L$L silesia new=$tn old=$to gzip=$tg"
done
