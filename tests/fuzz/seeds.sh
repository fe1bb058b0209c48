#!/bin/sh
# seeds.sh GPZ DIR: seed corpora for the fuzz targets, made with the gpz tool from generated
# data (small inputs: libFuzzer mutates them): DIR/decompress (.gpz streams of every frame type),
# DIR/inflate (gzip with and without the piece index, zlib, raw DEFLATE; a first byte picks the
# format as fuzz_inflate reads it), DIR/stream (.gpz and gzip). Idempotent.
set -eu
G=$1 D=$2
[ -f "$D/done" ] && exit 0
mkdir -p "$D/raw" "$D/decompress" "$D/inflate" "$D/stream"
python3 - "$D/raw" <<'PY'
import random, struct, sys
d = sys.argv[1]; r = random.Random(5)
words = "the gpz fuzz seed quick brown fox jumps over lazy dog data".split()
open(f"{d}/text", "w").write(" ".join(r.choice(words) for _ in range(3000)))
open(f"{d}/u16", "wb").write(b"".join(struct.pack("<H", 7 if r.random() < .9 else r.randrange(300)) for _ in range(6000)))
open(f"{d}/u32", "wb").write(b"".join(struct.pack("<I", r.randrange(1 << 19)) for _ in range(2000)))
open(f"{d}/zeros", "wb").write(bytes(5000))
open(f"{d}/noise", "wb").write(bytes(r.randrange(256) for _ in range(3000)))
open(f"{d}/one", "wb").write(b"x")
PY
R=$D/raw
n=0
gpz_seed() { # IN ARGS...: one .gpz seed
  in=$1; shift
  n=$((n + 1))
  "$G" -q -c "$@" "$in" >"$D/decompress/s$n.gpz"
  cp "$D/decompress/s$n.gpz" "$D/stream/s$n.gpz"
}
gpz_seed "$R/text" --huff
gpz_seed "$R/text" --huff --chunk-log=8
gpz_seed "$R/text" -1
gpz_seed "$R/text" -6 --frame-size=4K
gpz_seed "$R/u16" --huff -b 2 --chunk-log=9
gpz_seed "$R/u16" --lz-symbols -b 2 --chunk-log=10
gpz_seed "$R/u16" --lz-auto -b 2
gpz_seed "$R/u32" --huff -b 4
gpz_seed "$R/zeros" --huff
gpz_seed "$R/noise" --huff
gpz_seed "$R/one" --huff
cat "$D/decompress/s1.gpz" "$D/decompress/s5.gpz" >"$D/decompress/cat.gpz"
m=0
infl_seed() { # PREFIX-BYTE IN ARGS...: one inflate seed (and a stream seed for gzip)
  p=$1 in=$2; shift 2
  m=$((m + 1))
  { printf "\\$(printf %03o "$p")"; "$G" -q -c "$@" "$in"; } >"$D/inflate/i$m"
  [ "$p" = 0 ] && "$G" -q -c "$@" "$in" >"$D/stream/i$m.gz"
  return 0
}
infl_seed 0 "$R/text" --format=gzip -1
infl_seed 0 "$R/text" --format=gzip -6
infl_seed 0 "$R/noise" --format=gzip -1
infl_seed 0 "$R/text" --format=gzip --no-index -9
infl_seed 2 "$R/text" --format=zlib -6
infl_seed 3 "$R/text" --format=deflate -1
infl_seed 3 "$R/zeros" --format=deflate -9
# gzip written to a pipe: its piece index after the stream
m=$((m + 1))
{ printf '\000'; "$G" -q -c --format=gzip -1 <"$R/text"; } >"$D/inflate/i$m"
"$G" -q -c --format=gzip -1 <"$R/text" >"$D/stream/pipe.gz"
touch "$D/done"
