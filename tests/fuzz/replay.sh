#!/bin/sh
# replay.sh REPLAY GPZ WORK [CORPUS_DIR...]: the fuzz seeds (seeds.sh, made with the tool in
# WORK/seeds), and any corpus directories named after them (corpus-decompress, corpus-inflate,
# corpus-stream: as the fuzzers leave them), through fuzz_replay: two contexts must agree.
set -eu
r=$1 g=$2 w=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/seeds.sh" "$g" "$w/seeds"
dec="$w/seeds/decompress" inf="$w/seeds/inflate"
for c in "$@"; do
  case $(basename "$c") in
    *inflate*) inf="$inf $c" ;;
    *) dec="$dec $c" ;; # .gpz streams: corpus-decompress, and corpus-stream's .gpz inputs
  esac
done
# shellcheck disable=SC2086 # word splitting of the directory lists is wanted
"$r" decompress $dec
# shellcheck disable=SC2086
"$r" inflate $inf
