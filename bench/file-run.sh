#!/bin/sh
# On the GPU machine, after `sh bench/gpu-run.sh build` (build-gpu/) unpacked corpora/data/: the
# tool file to file as issue 10 states its goals, inputs and outputs in /dev/shm (tmpfs), page
# cache warm, one run each, every output compared with the input. Compression writes FILE.gpz
# with -o, decompression FILE with -d -o (the tool's temporary file and rename; on tmpfs the
# lanes write their frames in parallel); one row decodes to standard output (one ordered writer)
# for comparison. Backends: the default (automatic: the first frames on the CPU while the GPU
# starts), --gpu, --cpu with every core. Nyx-Quant with --huff -b 2 (the automatic choice of
# Huffman-only and LZ-symbol frames) and --huff-only -b 2.
# Usage: sh bench/file-run.sh [nyx|lanes]   (nyx: its rows only; lanes: Huffman-only frames of
# Nyx-Quant and text, in both payload layouts, --lanes or not) Table to $OUT/file-run.md.
set -u
. "$(dirname "$0")/file-lib.sh"
what=${1:-all}
W=/dev/shm/gpz-file
mkdir -p "$out" "$W"
python3 "$root/bench/tile.py" "$D/nyx/baryon_density.dat.b16" "$W/nyx" 4294967296
[ "$what" = nyx ] || python3 "$root/bench/tile.py" "$D/debtext100m" "$W/text" 4000000000
ns=$(stat -c %s "$W/nyx") ts=$(stat -c %s "$W/text" 2>/dev/null || echo 0)
{
  nvidia-smi --query-gpu=name --format=csv,noheader | sed 's/^/device: /'
  echo "cpus: $(nproc)"
  echo
  echo "| job | seconds | GB/s of original bytes |"
  echo "|---|---:|---:|"
  cat "$W/nyx" >/dev/null
  row "cat nyx (4 GiB) > /dev/null" "$ns" "cat '$W/nyx' >/dev/null"
  if [ "$what" = lanes ]; then
    cat "$W/text" >/dev/null
    row "cat text (4 GB) > /dev/null" "$ts" "cat '$W/text' >/dev/null"
    for f in "nyx 2 $ns" "text 1 $ts"; do
      set -- $f
      for lay in "" "--lanes"; do
        for be in "--gpu" "--cpu"; do
          row "$1 --huff-only -b $2 ${lay:-(one bitstream)}, $be" "$3" \
            "'$G' $be -q -k -f --huff-only -b $2 $lay -o '$W/x.gpz' '$W/$1'"
          row "$1 -d ${lay:-(one bitstream)}, $be" "$3" "'$G' $be -q -d -k -f -o '$W/x.out' '$W/x.gpz'"
          check "$W/x.out" "$W/$1"
          rm -f "$W/x.out"
        done
        echo "| ($1 ${lay:-one bitstream}: ratio $(calc "$3 / $(stat -c %s "$W/x.gpz")")) | | |"
      done
    done
  fi
  [ "$what" = lanes ] && what=done
  for mode in --huff-only --huff; do
    [ "$what" = done ] && break
    for be in "" "--gpu" "--cpu"; do
      name=${be:-default}
      row "nyx $mode -b 2, $name" "$ns" "'$G' $be -q -k -f $mode -b 2 -o '$W/n.gpz' '$W/nyx'"
      row "nyx -d ($mode), $name" "$ns" "'$G' $be -q -d -k -f -o '$W/n.out' '$W/n.gpz'"
      check "$W/n.out" "$W/nyx"
      rm -f "$W/n.out"
    done
    row "nyx -dc > file (one ordered writer), default" "$ns" "'$G' -q -dc '$W/n.gpz' >'$W/n.out'"
    check "$W/n.out" "$W/nyx"
    rm -f "$W/n.out"
    echo "| (nyx $mode ratio $(calc "$ns / $(stat -c %s "$W/n.gpz")")) | | |"
  done
  if [ "$what" != nyx ] && [ "$what" != done ]; then
  cat "$W/text" >/dev/null
  row "cat text (4 GB) > /dev/null" "$ts" "cat '$W/text' >/dev/null"
  for be in "" "--cpu"; do
    name=${be:-default}
    row "text --huff -b 1, $name" "$ts" "'$G' $be -q -k -f --huff -b 1 -o '$W/t.gpz' '$W/text'"
    row "text --huff -d, $name" "$ts" "'$G' $be -q -d -k -f -o '$W/t.out' '$W/t.gpz'"
    check "$W/t.out" "$W/text"
    rm -f "$W/t.out"
  done
  for lv in 1 6; do
    row "text -$lv (.gpz LZ), default" "$ts" "'$G' -q -k -f -$lv -o '$W/l.gpz' '$W/text'"
    row "text -$lv .gpz -d, default" "$ts" "'$G' -q -d -k -f -o '$W/l.out' '$W/l.gpz'"
    check "$W/l.out" "$W/text"
    rm -f "$W/l.out"
    row "text --format=gzip -$lv, default" "$ts" "'$G' -q -k -f --format=gzip -$lv -o '$W/g.gz' '$W/text'"
    row "text gzip -$lv -d, default" "$ts" "'$G' -q -d -k -f -o '$W/g.out' '$W/g.gz'"
    check "$W/g.out" "$W/text"
    rm -f "$W/g.out"
  done
  fi
} >"$out/file-run.md" 2>&1
cat "$out/file-run.md"
rm -rf "$W"
