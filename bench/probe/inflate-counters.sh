#!/bin/sh
# inflate-counters.sh - issue 11's pieces kernel (src/deflate/inflate.cu) counted: how its
# speculative rounds end, how many tokens they decode against how many lie on the true path,
# how much goes through the lockstep decoder, and the blocks' kinds, per file and level. The
# next try at the kernel should start from these (twenty-seventh session's NOTES).
#
# From the repository root on the GPU machine, .devdata carried (bench/gpu-data.sh). Builds a
# copy of this tree with counters patched into inflate.cu (python below: every anchor must be
# found, or it stops), about a minute on 16 cores; the counters are atomics in global memory,
# so its times mean nothing. Usage: sh bench/probe/inflate-counters.sh [LEVEL...] (default 1 6);
# a table to $OUT/counters.md.
#
# Not yet run: the twenty-seventh session's first form evaluated a warp reduction inside
# `if (lane == 0)` (a collective called by one lane) and the kernel faulted; this form takes the
# reductions first.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/gpz-out}
mkdir -p "$out"
levels=${*:-1 6}
sh "$root/bench/gpu-run.sh" data > "$out/counters-data.log" 2>&1 || { tail -3 "$out/counters-data.log"; exit 1; }
D=$root/corpora/data
t=/tmp/infl-counters
rm -rf "$t" && mkdir -p "$t"
(cd "$root" && tar cf - --exclude=./build-gpu --exclude=./build-cpu --exclude=./.devdata \
  --exclude=./corpora/data --exclude=./.gpurun --exclude=./.git .) | tar xf - -C "$t"
python3 - "$t/src/deflate/inflate.cu" <<'EOF' || exit 1
import sys
p = sys.argv[1]
s = open(p).read()
def rep(a, b):
    global s
    if s.count(a) != 1:
        sys.exit("inflate-counters: anchor found %d times: %r" % (s.count(a), a[:60]))
    s = s.replace(a, b)
# counters in global memory, printed (and cleared) after every launch of the pieces kernel
rep("""namespace {

constexpr unsigned ROOT = 10;""", """#include <stdio.h>
__device__ unsigned long long g_cnt[16];
/* v must be the same in every lane: reductions are taken before, by the whole warp */
#define CNT(i, v) do { if ((threadIdx.x & 31) == 0) atomicAdd(&g_cnt[i], (unsigned long long)(v)); } while (0)
static void print_counters(cudaStream_t st)
{
	static const char *nm[15] = { "pieces", "rounds", "decoded", "on_path", "end_token",
		"end_eob", "end_bad", "end_lost", "redone", "lock_batches", "lock_tokens",
		"dynamic", "fixed", "stored", "spec_batches" };
	unsigned long long h[16] = { 0 };
	cudaError_t e = cudaStreamSynchronize(st);
	if (e == cudaSuccess)
		e = cudaMemcpyFromSymbol(h, g_cnt, sizeof(h));
	fprintf(stderr, "COUNTERS%s", e == cudaSuccess ? "" : " (copy failed)");
	for (int i = 0; i < 15; i++)
		fprintf(stderr, " %s %llu", nm[i], h[i]);
	fprintf(stderr, "\\n");
	unsigned long long z[16] = { 0 };
	cudaMemcpyToSymbol(g_cnt, z, sizeof(z));
}
namespace {

constexpr unsigned ROOT = 10;""")
rep("""	gpz_result r = ok ? piece(f, mem[wid], tabs, out + k * cap, &final) : GPZ_ERR_CORRUPT;""",
    """	CNT(0, 1);
	gpz_result r = ok ? piece(f, mem[wid], tabs, out + k * cap, &final) : GPZ_ERR_CORRUPT;""")
rep("""		if (next > nbits || !spec_write(f, out, a, c)) {""",
    """		{
			const uint32_t all = __reduce_add_sync(FULL, cnt), kept = __reduce_add_sync(FULL, c);
			CNT(1, 1);
			CNT(2, all);
			CNT(3, kept);
			CNT(4 + lkind, 1);
		}
		if (next > nbits || !spec_write(f, out, a, c)) {
			CNT(8, 1);""")
rep("""		flush(out, t, nt, f.pos);""", """		CNT(9, 1);
		CNT(10, nt);
		flush(out, t, nt, f.pos);""")
rep("""		flush(out, t, total - g < 32 ? total - g : 32, end);""", """		CNT(14, 1);
		flush(out, t, total - g < 32 ? total - g : 32, end);""")
rep("""			r = dynamic_codes(f, w);""", """			CNT(11, 1);
			r = dynamic_codes(f, w);""")
rep("""		else if (type == 1) {
			fixed_codes(f, w);""", """		else if (type == 1) {
			CNT(12, 1);
			fixed_codes(f, w);""")
rep("""		if (type == 0)
			r = stored(f, out);""", """		if (type == 0) {
			CNT(13, 1);
			r = stored(f, out);
		}""")
rep("""	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_inflate_resolve(""", """	GPZ_LAUNCH_TRY();
	print_counters(st);
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_inflate_resolve(""")
open(p, "w").write(s)
EOF
cmake -S "$t" -B "$t/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$t.cmake.log" 2>&1 &&
  cmake --build "$t/build" -j16 --target gpz-bench > "$t.build.log" 2>&1 ||
  { grep -E "error" "$t.build.log" | head -5; exit 1; }
{
  echo "| file | level | pieces | rounds | decoded | on path | ends: token / eob / bad / lost | redone | lockstep batches / tokens | blocks dyn / fixed / stored | spec batches |"
  echo "|---|---:|---:|---:|---:|---:|---|---:|---|---|---:|"
  for f in debtext100m silesia/xml silesia/samba silesia/x-ray; do
    for l in $levels; do
      c=$(GPZ_BENCH_DEVICE_ONLY=1 "$t/build/gpz-bench" --gpu --inflate -l "$l" -r 1 -T 16 "$D/$f" 2>&1 |
        grep COUNTERS | head -1) # the first launch: the gzip stream (the LZ frames come last)
      echo "$c" | awk -v f="$(basename $f)" -v l="$l" '{ for (i = 2; i < NF; i += 2) v[$i] = $(i + 1);
        printf "| %s | %s | %s | %s | %s | %s | %s / %s / %s / %s | %s | %s / %s | %s / %s / %s | %s |\n",
          f, l, v["pieces"], v["rounds"], v["decoded"], v["on_path"], v["end_token"], v["end_eob"],
          v["end_bad"], v["end_lost"], v["redone"], v["lock_batches"], v["lock_tokens"],
          v["dynamic"], v["fixed"], v["stored"], v["spec_batches"] }'
    done
  done
} | tee "$out/counters.md"
