#!/bin/sh
# On the GPU machine, from the repository root, with .infdata (debtext100m.xz, samba.xz from
# the shared corpora; or gpu-run.sh's .devdata/run) and .nvc (sh ../shared/tools/nvcomp-bench/fetch.sh .nvc) carried:
# decompression of what gpz writes. Builds, runs test_gpu_inflate, then
#  1. gpz-bench --gpu --inflate (1 GiB device-resident: gpz_inflate_device, its kernels, LZ
#     frames; host gpz_inflate on 16 threads and 1, zlib on 1) on debtext100m and samba,
#  2. nvCOMP 6 on the same GPU: its own deflate / gdeflate (64 KiB chunks) on the same inputs,
#     and its gzip decoder on the very .gz streams gpz wrote,
#  3. the tool file to file: gpz -d of a 4 GB .gz and LZ .gpz (auto, --gpu, --cpu -T 16) to
#     /dev/null, to a redirected stdout and to a named file (-o), next to cat (and gzip -dc with
#     GZIP_TOO=1).
# Usage: sh bench/inflate-run.sh [test|sanitize|bench|nvcomp|tool|all]   Logs and tables to $OUT.
set -u
what=${1:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpz-out}
W=/dev/shm/gpz-inf
D=$root/corpora/data
B=$root/build-gpu
mkdir -p "$out" "$W" "$D"
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
python3 - "$root/.infdata" "$root/.devdata/run" "$D" <<'PY'
import lzma, os, sys
src, alt, d = sys.argv[1:4]
if not os.path.isdir(src):  # gpu-run.sh's data holds the same two files
    src = alt
for f, name in (("debtext100m.xz", "debtext100m"), ("samba.xz", "samba")):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        open(p, "wb").write(lzma.open(os.path.join(src, f)).read())
PY
cmake -S "$root" -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build "$B" -j16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo built
if [ "$what" = all ] || [ "$what" = test ]; then
  timeout 300 "$B/tests/test_gpu_inflate" > "$out/test_gpu_inflate.log" 2>&1
  echo "test_gpu_inflate rc=$?"; tail -4 "$out/test_gpu_inflate.log"
  GPZ_TEST_GPU_FAIL=1 timeout 120 "$B/tests/test_gpu_inflate" fallback > "$out/fallback.log" 2>&1
  echo "test_gpu_inflate fallback rc=$?"; tail -2 "$out/fallback.log"
fi
if [ "$what" = all ] || [ "$what" = test ] || [ "$what" = sanitize ]; then  for t in memcheck racecheck; do
    timeout ${SAN_LIMIT:-360} compute-sanitizer --tool $t --error-exitcode 9 "$B/tests/test_gpu_inflate" pieces \
      > "$out/sanitizer-$t.log" 2>&1
    echo "compute-sanitizer $t rc=$?"; tail -2 "$out/sanitizer-$t.log"
  done
fi
if [ "$what" = all ] || [ "$what" = bench ] || [ "$what" = nvcomp ]; then
  GPZ_BENCH_SAVE=$W timeout 400 "$B/gpz-bench" --gpu --inflate -T 16 -r 5 "$D/debtext100m" \
    ${BENCH_FILES:-"$D/samba"} > "$out/bench-inflate.md" 2>&1
  echo "gpz-bench rc=$?"; cat "$out/bench-inflate.md"
fi
if [ "$what" = all ] || [ "$what" = nvcomp ]; then
  sh "$root/.nvc/build.sh" > "$out/nvc-build.log" 2>&1 || tail -5 "$out/nvc-build.log"
  N=$root/.nvc/bench_nvcomp
  {
    for f in debtext100m samba; do
      timeout 120 "$N" "$D/$f" 65536 5 deflate1 deflate2 deflate4 gdeflate1 gdeflate4
      python3 "$root/bench/tile.py" "$D/$f" "$W/$f.1g" 1073741824
      for lv in 1 6; do # the lookahead decoder (the naive one runs at 0.03 GB/s: minutes)
        timeout 60 "$N" --gunzip "$W/$f.L$lv.gz" "$W/$f.1g" 1
      done
    done
  } > "$out/nvcomp.md" 2>&1
  cat "$out/nvcomp.md"
fi
if [ "$what" = all ] || [ "$what" = tool ]; then
  G=$B/gpz
  python3 "$root/bench/tile.py" "$D/debtext100m" "$W/text4g" 4000000000
  sz=$(stat -c %s "$W/text4g")
  t() { s=$(date +%s.%N); "$@"; e=$(date +%s.%N); calc "$e - $s"; }
  {
    echo "| job (4 GB of text) | seconds | GB/s of output |"
    echo "|---|---:|---:|"
    cat "$W/text4g" > /dev/null
    s=$(t sh -c "cat '$W/text4g' > /dev/null"); echo "| cat > /dev/null | $s | $(calc "$sz / $s / 1e9") |"
    rm -f "$W/o"
    s=$(t sh -c "cat '$W/text4g' > '$W/o'"); echo "| cat > file | $s | $(calc "$sz / $s / 1e9") |"
    for lv in 1 6; do
      # written in place, so that the header gets the piece index (not on standard output)
      "$G" --gpu -q -k -f --format=gzip -$lv "$W/text4g" && mv "$W/text4g.gz" "$W/t$lv.gz"
      "$G" --gpu -q -c -$lv "$W/text4g" > "$W/t$lv.gpz"
      for f in "t$lv.gz" "t$lv.gpz"; do
        cat "$W/$f" > /dev/null
        for be in "" "--gpu" "--cpu -T 16"; do
          s=$(t sh -c "'$G' $be -q -d -c '$W/$f' > /dev/null")
          echo "| gpz $be -d -c $f > /dev/null | $s | $(calc "$sz / $s / 1e9") |"
          rm -f "$W/o"
          s=$(t sh -c "'$G' $be -q -d -c '$W/$f' > '$W/o'")
          echo "| gpz $be -d -c $f > file | $s | $(calc "$sz / $s / 1e9") |"
          cmp -s "$W/o" "$W/text4g" || echo "| MISMATCH $be $f | | |"
          rm -f "$W/o" # a named output: the tool's own file (positional writes where faster)
          s=$(t sh -c "'$G' $be -q -d -k -f -o '$W/o' '$W/$f'")
          echo "| gpz $be -d -o file $f | $s | $(calc "$sz / $s / 1e9") |"
          cmp -s "$W/o" "$W/text4g" || echo "| MISMATCH $be -o $f | | |"
        done
      done
      if [ "${GZIP_TOO:-0}" = 1 ]; then # about 27 s a level
        s=$(t sh -c "gzip -dc '$W/t$lv.gz' > /dev/null"); echo "| gzip -dc t$lv.gz > /dev/null | $s | $(calc "$sz / $s / 1e9") |"
      fi
    done
  } > "$out/tool-inflate.md" 2>&1
  cat "$out/tool-inflate.md"
fi
