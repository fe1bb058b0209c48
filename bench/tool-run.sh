#!/bin/sh
# On the GPU machine, after bench/gpu-run.sh built build-gpu/ and unpacked corpora/data/: the
# tool file to file on this session's paths, GPU and CPU (-T 16) backends, next to cat's read
# rate. 4 GB of text (debtext100m tiled): .gpz default (LZ -6), gzip -6 written to a pipe (its
# piece index after the stream) and decoded from the file and from a pipe; 1 GiB of Nyx-Quant
# (tiled 4x): --huff-only -b 2 and --huff -b 2 (the automatic choice). Every output compared
# with the input.
# Usage: sh bench/tool-run.sh   Table to $OUT/tool-run.md.
set -u
. "$(dirname "$0")/file-lib.sh"
W=/dev/shm/gpz-tool
mkdir -p "$out" "$W"
python3 "$root/bench/tile.py" "$D/debtext100m" "$W/text" 4000000000
python3 "$root/bench/tile.py" "$D/nyx/baryon_density.dat.b16" "$W/nyx" 1073741824
ts=$(stat -c %s "$W/text") ns=$(stat -c %s "$W/nyx")
{
  nvidia-smi --query-gpu=name --format=csv,noheader | sed 's/^/device: /'
  echo
  echo "| job | seconds | GB/s of original bytes |"
  echo "|---|---:|---:|"
  cat "$W/text" "$W/nyx" >/dev/null
  row "cat text (4 GB) > /dev/null" "$ts" "cat '$W/text' >/dev/null"
  for be in "--gpu" "--cpu -T 16"; do
    row "gpz $be text -> .gpz (default: LZ -6), to a file" "$ts" "'$G' $be -q -c '$W/text' >'$W/t.gpz'"
    row "gpz $be -d .gpz -> file" "$ts" "'$G' $be -q -dc '$W/t.gpz' >'$W/o'"
    check "$W/o" "$W/text"
    row "gpz $be --format=gzip -6 < text > file (pipe: index after the stream)" "$ts" \
      "'$G' $be -q -c --format=gzip -6 <'$W/text' >'$W/p.gz'"
    row "gpz $be -d of that .gz -> file" "$ts" "'$G' $be -q -dc '$W/p.gz' >'$W/o'"
    check "$W/o" "$W/text"
  done
  "$G" -q -k -f --format=gzip -6 -o "$W/h.gz" "$W/text"
  row "cat h.gz (header index) | gpz --cpu -T 16 -d > file" "$ts" "cat '$W/h.gz' | '$G' --cpu -T 16 -q -d >'$W/o'"
  check "$W/o" "$W/text"
  row "gzip -dc p.gz > /dev/null (zlib reader, both members)" "$ts" "gzip -dc '$W/p.gz' >/dev/null"
  row "cat nyx (1 GiB) > /dev/null" "$ns" "cat '$W/nyx' >/dev/null"
  for mode in "--huff-only" "--huff"; do
    for be in "--gpu" "--cpu -T 16"; do
      row "gpz $be $mode -b 2 nyx -> file" "$ns" "'$G' $be -q -c $mode -b 2 '$W/nyx' >'$W/n.gpz'"
      echo "| (ratio $(calc "$ns / $(stat -c %s "$W/n.gpz")")) | | |"
      row "gpz $be -d of it -> file" "$ns" "'$G' $be -q -dc '$W/n.gpz' >'$W/o'"
      check "$W/o" "$W/nyx"
    done
  done
} >"$out/tool-run.md" 2>&1
cat "$out/tool-run.md"
rm -rf "$W"
