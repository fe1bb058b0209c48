/* test_gpu_inflate.cu - gpz's DEFLATE decoder on the GPU (deflate/inflate.cu, gunzip_gpu.cu)
 * against the CPU's (inflate.c, gunzip.c):
 *  - pieces: gpz-written gzip pieces at levels 1, 6, 9 (with window symbols), zlib-written
 *    streams of every block kind, and the same corrupted (bit flips, truncations, random bytes,
 *    the hostile cases of the issue built by hand): the same result, the same number of symbols,
 *    the same symbols, whether markers are on or not, bytes or 16-bit output;
 *  - gpz_inflate on a GPU context and gpz_inflate_device: the same output or the same error as
 *    the CPU context, for whole streams, corrupted ones, lying indexes, small dst, several
 *    members with padding, zlib and raw (through the host);
 *  - gpz_inflate_member_at on a GPU context: batches decoded on the GPU with their window bytes
 *    filled in on the host, the same output as the input;
 *  - the shared corpora (when present) through gpz_inflate_device.
 *   test_gpu_inflate [pieces | quick | fallback]: 77 without a GPU; pieces: the piece tests only
 *   (for compute-sanitizer); quick: pieces and whole streams; fallback (with GPZ_TEST_GPU_FAIL=1):
 *   gpz_inflate's GPU attempt on an AUTO context fails and is redone on the CPU, same output. */
#include "cuda_test.h"

extern "C" {
#include "common/bits.h"
#include "deflate/deflate.h"
#include "deflate/deflate_gpu.h"
}

#include <string.h>
#include <string>
#include <utility>
#include <vector>
#include <zlib.h>

#define PIECE GPZ_DEFLATE_PIECE

static gpz_ctx *cpu, *gpu;

struct piece_in {
	std::vector<uint8_t> bytes;
	std::string what;
};

static std::vector<uint8_t> text(size_t n, uint64_t seed)
{
	std::vector<uint8_t> v(n);
	uint64_t st = seed;
	for (size_t i = 0; i < n; i++)
		v[i] = (i / 50000) % 4 == 3 ? (uint8_t)test_rand(&st)
		     : (i / 50000) % 4 == 2 ? 'x'
		     : i > 40000 && i % 7 == 0 ? v[i - 30000 - i % 977]
		     : (uint8_t)("lorem ipsum dolor sit amet, "[test_rand(&st) % 28]);
	return v;
}

static std::vector<uint8_t> gz(const std::vector<uint8_t> &src, int level, gpz_format f)
{
	std::vector<uint8_t> c(gpz_deflate_bound(src.size()));
	size_t len = 0;
	gpz_result r = gpz_deflate_compress(cpu, level, f, NULL, src.data(), src.size(), c.data(),
	                                    c.size(), &len);
	CHECK(r == GPZ_OK, "compress: %s", gpz_result_string(r));
	c.resize(len);
	return c;
}

static std::vector<uint8_t> zraw(const std::vector<uint8_t> &src, int level, int strategy,
                                 int mem)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	deflateInit2(&z, level, Z_DEFLATED, -15, mem, strategy);
	std::vector<uint8_t> c(deflateBound(&z, (uLong)src.size()) + 64);
	z.next_in = (Bytef *)src.data();
	z.avail_in = (uInt)src.size();
	z.next_out = c.data();
	z.avail_out = (uInt)c.size();
	deflate(&z, Z_FINISH);
	c.resize(z.total_out);
	deflateEnd(&z);
	return c;
}

/* The pieces of a gpz gzip stream, by its index. */
static void split(const std::vector<uint8_t> &c, std::vector<piece_in> &out, const char *what)
{
	struct gpz_gzip_member m;
	if (gpz_gzip_header(c.data(), c.size(), &m) != GPZ_OK || !m.np) {
		CHECK(0, "%s: no index", what);
		return;
	}
	size_t at = m.data;
	for (uint32_t k = 0; k < m.np; k++) {
		uint32_t len = m.lens[4 * k] | m.lens[4 * k + 1] << 8 | m.lens[4 * k + 2] << 16 |
		               (uint32_t)m.lens[4 * k + 3] << 24;
		out.push_back({ std::vector<uint8_t>(c.begin() + at, c.begin() + at + len),
		                std::string(what) + " piece " + std::to_string(k) });
		at += len;
	}
}

/* Every piece through both decoders, markers on or off, symbols or bytes. */
static void compare_pieces(const std::vector<piece_in> &ps, int markers, int symbols)
{
	size_t np = ps.size(), cap = PIECE, total = 0;
	std::vector<uint64_t> off(np + 1);
	for (size_t k = 0; k < np; k++)
		off[k + 1] = off[k] + ps[k].bytes.size();
	total = off[np];
	std::vector<uint8_t> in(total + 1);
	for (size_t k = 0; k < np; k++)
		memcpy(in.data() + off[k], ps[k].bytes.data(), ps[k].bytes.size());
	uint8_t *d_in;
	uint64_t *d_off;
	void *d_out, *d_room;
	gpz_gpu_infl_res *d_res;
	size_t osz = symbols ? 2 : 1;
	CU(cudaMalloc(&d_in, total + 1));
	CU(cudaMalloc(&d_off, (np + 1) * 8));
	CU(cudaMalloc(&d_out, np * cap * osz));
	CU(cudaMalloc(&d_room, gpz_gpu_inflate_room(np, cap)));
	CU(cudaMalloc(&d_res, np * sizeof(gpz_gpu_infl_res)));
	CU(cudaMemcpy(d_in, in.data(), total + 1, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(d_off, off.data(), (np + 1) * 8, cudaMemcpyHostToDevice));
	int flags = (symbols ? GPZ_GPU_INFL_SYMBOLS : 0) |
	            (markers ? GPZ_GPU_INFL_CHAINED | GPZ_GPU_INFL_FIRST_WINDOW : 0);
	gpz_result r = gpz_gpu_inflate_pieces(d_in, d_off, np, cap, np * cap, flags, d_out, d_room,
	                                      d_res, NULL);
	CHECK(r == GPZ_OK, "launch: %s", gpz_result_string(r));
	CU(cudaDeviceSynchronize());
	std::vector<gpz_gpu_infl_res> res(np);
	std::vector<uint8_t> out(np * cap * osz);
	CU(cudaMemcpy(res.data(), d_res, np * sizeof(gpz_gpu_infl_res), cudaMemcpyDeviceToHost));
	CU(cudaMemcpy(out.data(), d_out, out.size(), cudaMemcpyDeviceToHost));
	std::vector<uint16_t> sym(cap);
	int bad = 0;
	for (size_t k = 0; k < np && bad < 5; k++) {
		size_t n = 0;
		int final = 0;
		gpz_result rc = gpz_inflate_piece(in.data() + off[k], ps[k].bytes.size(), NULL, 0,
		                                  markers && symbols, sym.data(), cap, &n, &final);
		int same = (int)rc == res[k].result && n == res[k].n &&
		           (rc != GPZ_OK || (uint32_t)final == res[k].final);
		for (size_t i = 0; same && i < n; i++)
			same = symbols ? sym[i] == ((uint16_t *)out.data())[k * cap + i]
			               : sym[i] == out[k * cap + i];
		CHECK(same, "%s (markers %d, %s): CPU %s n=%zu final=%d, GPU %s n=%u final=%u",
		      ps[k].what.c_str(), markers, symbols ? "symbols" : "bytes", gpz_result_string(rc),
		      n, final, gpz_result_string((gpz_result)res[k].result), res[k].n, res[k].final);
		bad += !same;
	}
	CU(cudaFree(d_in));
	CU(cudaFree(d_off));
	CU(cudaFree(d_out));
	CU(cudaFree(d_room));
	CU(cudaFree(d_res));
}

static void put_bits(std::vector<uint8_t> &v, size_t &bit, unsigned val, unsigned n)
{
	for (unsigned i = 0; i < n; i++, bit++) {
		if (bit / 8 >= v.size())
			v.push_back(0);
		v[bit / 8] |= (uint8_t)(((val >> i) & 1) << (bit % 8));
	}
}

/* A final dynamic block's header: nlit, ndist, all 19 code-length code lengths (cl), then the
 * given fields (value, bits), each written lsb first. */
static std::vector<uint8_t> dyn_header(unsigned nlit, unsigned ndist, const uint8_t *cl,
                                       const std::vector<std::pair<unsigned, unsigned>> &fields)
{
	std::vector<uint8_t> v;
	size_t bit = 0;
	static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
		                           11, 4,  12, 3, 13, 2, 14, 1, 15 };
	put_bits(v, bit, 1, 1);
	put_bits(v, bit, 2, 2);
	put_bits(v, bit, nlit - 257, 5);
	put_bits(v, bit, ndist - 1, 5);
	put_bits(v, bit, 15, 4);
	for (int k = 0; k < 19; k++)
		put_bits(v, bit, cl[order[k]], 3);
	for (auto f : fields)
		put_bits(v, bit, f.first, f.second);
	return v;
}

static void hostile_pieces(std::vector<piece_in> &ps)
{
	uint8_t cl[19];
	/* over-subscribed code-length code: three 1-bit codes */
	memset(cl, 0, sizeof cl);
	cl[0] = cl[1] = cl[2] = 1;
	ps.push_back({ dyn_header(257, 1, cl, {}), "over-subscribed code-length code" });
	/* incomplete code-length code: one 2-bit code */
	memset(cl, 0, sizeof cl);
	cl[8] = 2;
	ps.push_back({ dyn_header(257, 1, cl, { { 0, 8 }, { 0, 8 }, { 0, 8 } }),
	               "incomplete code-length code" });
	/* a complete code-length code: 18 -> 00, 16 -> 010, 17 -> 011, 0..15 -> 5 bits */
	memset(cl, 0, sizeof cl);
	for (int s = 0; s < 16; s++)
		cl[s] = 5;
	cl[16] = cl[17] = 3;
	cl[18] = 2;
	/* a repeat past the end of the lengths: 18 with 127 + 11 = 138 zeros, twice: 276 > 258 */
	ps.push_back({ dyn_header(257, 1, cl, { { 0, 2 }, { 127, 7 }, { 0, 2 }, { 127, 7 } }),
	               "a code-length repeat past the end" });
	/* 16 (repeat the previous length) first */
	ps.push_back({ dyn_header(257, 1, cl, { { 2, 3 }, { 0, 2 } }),
	               "a repeat with nothing before it" });
	/* fixed block: a distance beyond the output (literal 'a', then length 3 distance 2) */
	{
		std::vector<uint8_t> v;
		size_t bit = 0;
		put_bits(v, bit, 1, 1);
		put_bits(v, bit, 1, 2);
		/* literal 97: code 0x30 + 97 = 0x91, 8 bits msb first */
		unsigned code = 0x30 + 97, rev = 0;
		for (int i = 0; i < 8; i++)
			rev |= ((code >> i) & 1) << (7 - i);
		put_bits(v, bit, rev, 8);
		put_bits(v, bit, 1 << 6, 7); /* symbol 257 (length 3): code 0000001, reversed */
		put_bits(v, bit, 1 << 4, 5); /* distance code 1 (distance 2): 00001 reversed */
		put_bits(v, bit, 0, 7);      /* end of block */
		ps.push_back({ v, "a distance beyond the start of the output" });
	}
	/* a stored block whose length and its complement disagree, and one longer than the input */
	ps.push_back({ { 1, 5, 0, 0xfa, 0xff, 'a', 'b', 'c', 'd', 'e' }, "stored NLEN mismatch" });
	ps.push_back({ { 1, 50, 0, 0xcd, 0xff, 'a', 'b' }, "stored longer than the input" });
	ps.push_back({ { 1, 2, 0, 0xfd, 0xff, 'a', 'b', 0 }, "bytes after the final block" });
	ps.push_back({ { 7 }, "block type 3" });
	ps.push_back({ {}, "empty input" });
	/* more output than the room of a piece: 4100 copies of 258 bytes */
	{
		std::vector<uint8_t> v;
		size_t bit = 0;
		put_bits(v, bit, 1, 1);
		put_bits(v, bit, 1, 2);
		put_bits(v, bit, 0x0c, 8); /* literal 0: code 0x30 reversed = 0x0c */
		for (int t = 0; t < 4100; t++) {
			/* symbol 285 (258): code 11000101, reversed 10100011 = 0xa3 */
			put_bits(v, bit, 0xa3, 8);
			put_bits(v, bit, 0, 5); /* distance 1 */
		}
		put_bits(v, bit, 0, 7);
		ps.push_back({ v, "more output than a piece holds" });
	}
}

static void piece_tests(void)
{
	std::vector<piece_in> ps;
	std::vector<uint8_t> src = text(3 * PIECE + 4321, 7);
	for (int level = 1; level <= 9; level += 4) {
		std::string w = "gpz L" + std::to_string(level);
		split(gz(src, level, GPZ_FORMAT_GZIP), ps, w.c_str());
	}
	std::vector<uint8_t> small(src.begin(), src.begin() + 200000);
	int strategies[] = { Z_DEFAULT_STRATEGY, Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE, Z_FILTERED };
	for (int level = 0; level <= 9; level += 3)
		for (int s : strategies) {
			std::vector<uint8_t> c = zraw(small, level, s, level == 9 ? 1 : 8);
			ps.push_back({ c, "zlib L" + std::to_string(level) + " s" + std::to_string(s) });
		}
	/* corrupted: bit flips, truncations, random bytes */
	uint64_t st = 3;
	size_t valid = ps.size();
	for (int t = 0; t < 600; t++) {
		piece_in p = ps[(size_t)(test_rand(&st) % valid)];
		if (p.bytes.empty())
			continue;
		if (t % 3 == 0)
			p.bytes.resize((size_t)(test_rand(&st) % p.bytes.size()));
		else
			for (int f = 0; f < 1 + t % 4; f++)
				p.bytes[(size_t)(test_rand(&st) % p.bytes.size())] ^=
					(uint8_t)(1u << (test_rand(&st) % 8));
		p.what += " mutated " + std::to_string(t);
		ps.push_back(p);
	}
	for (int t = 0; t < 600; t++) {
		std::vector<uint8_t> v(1 + (size_t)(test_rand(&st) % 700));
		for (auto &b : v)
			b = (uint8_t)test_rand(&st);
		if (t % 2)
			v[0] = (uint8_t)((v[0] & ~6u) | 4u); /* a dynamic block */
		ps.push_back({ v, "random " + std::to_string(t) });
	}
	hostile_pieces(ps);
	for (int markers = 0; markers <= 1; markers++)
		compare_pieces(ps, markers, 1);
	compare_pieces(ps, 0, 0);
	/* strict: the bits before a stored block's length must be zero */
	std::vector<uint8_t> pad = { 1 | 8, 2, 0, 0xfd, 0xff, 'h', 'i' };
	uint8_t *d_in, *d_out;
	void *d_room;
	uint64_t *d_off, off[2] = { 0, pad.size() };
	gpz_gpu_infl_res *d_res, res[2];
	CU(cudaMalloc(&d_in, 16));
	CU(cudaMalloc(&d_off, 16));
	CU(cudaMalloc(&d_out, 64));
	CU(cudaMalloc(&d_room, 256)); /* a piece of 64 symbols has no room: any pointer */
	CU(cudaMalloc(&d_res, sizeof(res)));
	CU(cudaMemcpy(d_in, pad.data(), pad.size(), cudaMemcpyHostToDevice));
	CU(cudaMemcpy(d_off, off, 16, cudaMemcpyHostToDevice));
	for (int strict = 0; strict <= 1; strict++) {
		gpz_gpu_inflate_pieces(d_in, d_off, 1, 64, 64, strict ? GPZ_GPU_INFL_STRICT : 0,
		                       d_out, d_room, d_res, NULL);
		CU(cudaMemcpy(res, d_res, sizeof(res[0]), cudaMemcpyDeviceToHost));
		CHECK(res[0].result == (strict ? GPZ_ERR_CORRUPT : GPZ_OK),
		      "stored padding 1, strict %d: %s", strict,
		      gpz_result_string((gpz_result)res[0].result));
	}
	CU(cudaFree(d_in));
	CU(cudaFree(d_off));
	CU(cudaFree(d_out));
	CU(cudaFree(d_room));
	CU(cudaFree(d_res));
	printf("pieces: %zu compared\n", ps.size());
}

/* gpz_inflate (host) and gpz_inflate_device on the GPU context against the CPU context. */
static void same_as_cpu(const std::vector<uint8_t> &c, size_t cap, gpz_format f, const char *what)
{
	std::vector<uint8_t> a(cap + 1), b(cap + 1);
	size_t na = 0, nb = 0, nd = 0;
	gpz_result ra = gpz_inflate(cpu, f, c.data(), c.size(), a.data(), cap, &na);
	gpz_result rb = gpz_inflate(gpu, f, c.data(), c.size(), b.data(), cap, &nb);
	CHECK(ra == rb && na == nb && !memcmp(a.data(), b.data(), na),
	      "%s: CPU %s (%zu bytes), GPU %s (%zu bytes)", what, gpz_result_string(ra), na,
	      gpz_result_string(rb), nb);
	uint8_t *d_src, *d_dst;
	CU(cudaMalloc(&d_src, c.size() + 1));
	CU(cudaMalloc(&d_dst, cap + 1));
	CU(cudaMemcpy(d_src, c.data(), c.size(), cudaMemcpyHostToDevice));
	gpz_result rd = gpz_inflate_device(gpu, f, d_src, c.size(), d_dst, cap, &nd, NULL);
	if (rd == GPZ_OK)
		CU(cudaMemcpy(b.data(), d_dst, nd, cudaMemcpyDeviceToHost));
	CHECK(ra == rd && na == nd && (rd != GPZ_OK || !memcmp(a.data(), b.data(), na)),
	      "%s: CPU %s (%zu bytes), device %s (%zu bytes)", what, gpz_result_string(ra), na,
	      gpz_result_string(rd), nd);
	CU(cudaFree(d_src));
	CU(cudaFree(d_dst));
}

static void stream_tests(void)
{
	std::vector<uint8_t> src = text(5 * PIECE + 777, 9);
	size_t sizes[] = { 0, 1, 100, PIECE - 1, PIECE, PIECE + 1, 2 * PIECE + 17, src.size() };
	for (size_t n : sizes)
		for (int level = 1; level <= 9; level += 4) {
			std::vector<uint8_t> s(src.begin(), src.begin() + n);
			std::vector<uint8_t> c = gz(s, level, GPZ_FORMAT_GZIP);
			std::string w = "gzip n=" + std::to_string(n) + " L" + std::to_string(level);
			same_as_cpu(c, n + 10, GPZ_FORMAT_GZIP, w.c_str());
			if (n == src.size()) { /* pieces alone at level 1: straight to bytes, or
			                        * (a piece short) the symbols' way */
				same_as_cpu(c, n - 1, GPZ_FORMAT_GZIP, "dst one byte short");
				same_as_cpu(c, n - PIECE - 5, GPZ_FORMAT_GZIP, "dst a piece short");
			}
			if (n == src.size() && level == 5) {
				for (gpz_format f = GPZ_FORMAT_ZLIB; f <= GPZ_FORMAT_DEFLATE;
				     f = (gpz_format)(f + 1))
					same_as_cpu(gz(s, level, f), n, f, "zlib / raw");
				/* two members and zero padding */
				std::vector<uint8_t> two = c;
				two.insert(two.end(), 5, 0);
				two.insert(two.end(), c.begin(), c.end());
				two.insert(two.end(), 3, 0);
				same_as_cpu(two, 2 * n, GPZ_FORMAT_GZIP, "two members, padding");
				two.push_back(7);
				same_as_cpu(two, 2 * n, GPZ_FORMAT_GZIP, "trailing garbage");
			}
		}
	/* a period shorter than the window: nearly every byte of a piece comes from before it */
	std::vector<uint8_t> per(4 * PIECE + 99);
	uint64_t st = 11;
	for (size_t i = 0; i < per.size(); i++)
		per[i] = i < 1000 ? (uint8_t)test_rand(&st) : per[i - 1000];
	same_as_cpu(gz(per, 9, GPZ_FORMAT_GZIP), per.size(), GPZ_FORMAT_GZIP, "period 1000");
	/* nearly incompressible Huffman-coded pieces (input about 0.96 of the output: 200 byte
	 * values at random), whose rounds the speculative decoder sizes for dense input */
	std::vector<uint8_t> dense(3 * PIECE + 777);
	for (size_t i = 0; i < dense.size(); i++)
		dense[i] = (uint8_t)(test_rand(&st) % 200);
	for (int level = 1; level <= 6; level += 5) {
		std::vector<uint8_t> dc = gz(dense, level, GPZ_FORMAT_GZIP);
		CHECK(dc.size() > dense.size() * 3 / 4 && dc.size() < dense.size(),
		      "dense input: %zu bytes of gzip for %zu", dc.size(), dense.size());
		same_as_cpu(dc, dense.size(), GPZ_FORMAT_GZIP, "dense pieces");
	}
	/* more pieces than one group of segments (16 x 16) in one batch, the last segment and
	 * group partial: every level of the tails' chain (inflate.cu) */
	std::vector<uint8_t> many = text(601 * PIECE + 4321, 5);
	std::vector<uint8_t> cut4 = gz(many, 4, GPZ_FORMAT_GZIP);
	same_as_cpu(cut4, many.size(), GPZ_FORMAT_GZIP, "602 pieces");
	/* its index claiming every entry cut (a lie but for every 32nd): the right output on both,
	 * the CPU's threads falling back to the chained path where a cut reaches back */
	CHECK(cut4[18] == GPZ_GZIP_INDEX_CUT && cut4[19] == GPZ_DFL_CUT_LOG, "cut index");
	cut4[19] = 0;
	gpz_store_le32(&cut4[24], gpz_gzip_index_crc(&cut4[16], &cut4[28], gpz_load_le32(&cut4[20])));
	same_as_cpu(cut4, many.size(), GPZ_FORMAT_GZIP, "602 pieces, every one claimed cut");
	std::vector<uint8_t> back(many.size());
	size_t nback = 0;
	CHECK(gpz_inflate(cpu, GPZ_FORMAT_GZIP, cut4.data(), cut4.size(), back.data(), back.size(),
	                  &nback) == GPZ_OK && nback == many.size() && back == many,
	      "every one claimed cut: the input back");
	same_as_cpu(gz(many, 1, GPZ_FORMAT_GZIP), many.size(), GPZ_FORMAT_GZIP, "602 pieces alone");
	/* corrupted and cut streams, lying indexes */
	std::vector<uint8_t> s(src.begin(), src.begin() + 3 * PIECE + 5);
	std::vector<uint8_t> c = gz(s, 6, GPZ_FORMAT_GZIP);
	for (int t = 0; t < 150; t++) {
		std::vector<uint8_t> bad = c;
		size_t at = 40 + (size_t)(test_rand(&st) % (bad.size() - 40));
		bad[at] ^= (uint8_t)(1 + test_rand(&st) % 255);
		same_as_cpu(bad, s.size(), GPZ_FORMAT_GZIP, ("flip at " + std::to_string(at)).c_str());
	}
	for (size_t cut = 0; cut < c.size(); cut += 1 + c.size() / 40) {
		std::vector<uint8_t> bad(c.begin(), c.begin() + cut);
		same_as_cpu(bad, s.size(), GPZ_FORMAT_GZIP, ("cut at " + std::to_string(cut)).c_str());
	}
	/* lying index entries (lengths from byte 28), the index's CRC-32 (byte 24) made to match so
	 * that the decoders use them; left unmatched, the index is ignored by both */
	for (int k = 0; k < 4; k++)
		for (int delta = -1; delta <= 1; delta += 2)
			for (int fix = 0; fix < 2; fix++) {
				std::vector<uint8_t> bad = c;
				bad[28 + 4 * k] = (uint8_t)(bad[28 + 4 * k] + delta);
				if (k < 3)
					bad[32 + 4 * k] = (uint8_t)(bad[32 + 4 * k] - delta);
				if (fix)
					gpz_store_le32(&bad[24], gpz_gzip_index_crc(&bad[16], &bad[28],
					                                            gpz_load_le32(&bad[20])));
				same_as_cpu(bad, s.size(), GPZ_FORMAT_GZIP,
				            ("index " + std::to_string(k) + " " + std::to_string(delta) +
				             (fix ? " crc" : ""))
				                    .c_str());
			}
	/* a chained stream whose index (CRC-32 matched) claims pieces alone: corrupt input */
	std::vector<uint8_t> lie = c;
	lie[16] = 6;
	lie[18] = GPZ_GZIP_INDEX_ALONE;
	lie[19] = 0; /* no cut period */
	gpz_store_le32(&lie[24], gpz_gzip_index_crc(&lie[16], &lie[28], gpz_load_le32(&lie[20])));
	same_as_cpu(lie, s.size(), GPZ_FORMAT_GZIP, "chained pieces marked alone");
	same_as_cpu(lie, s.size() - PIECE, GPZ_FORMAT_GZIP, "chained pieces marked alone, short dst");
	size_t na = 0;
	std::vector<uint8_t> out(s.size());
	CHECK(gpz_inflate(cpu, GPZ_FORMAT_GZIP, lie.data(), lie.size(), out.data(), out.size(),
	                  &na) == GPZ_ERR_CORRUPT, "chained pieces marked alone: not corrupt");
}

/* c through gpz_inflate_member_at on the GPU context into out: the result, *m its output. */
static gpz_result member_on_gpu(const std::vector<uint8_t> &c, std::vector<uint8_t> &out,
                                struct test_mem *m, uint64_t *used)
{
	uint64_t made = 0;
	memset(m, 0, sizeof(*m));
	m->src = c.data();
	m->size = c.size();
	m->dst = out.data();
	m->cap = out.size();
	return gpz_inflate_member_at(gpu, test_mem_read_at, c.size(), 0, test_mem_write, m, used,
	                             &made);
}

/* Through the engine: batches on the GPU, their windows filled on the host. */
static void member_tests(void)
{
	/* more pieces than a GPU lane's batch (512), so that batches take windows from before
	 * (chained pieces, level 4), or (level 1) need none */
	std::vector<uint8_t> src = text(1300 * PIECE + 12345, 21);
	std::vector<uint8_t> c, out(src.size() + 1);
	struct test_mem m;
	uint64_t used = 0;
	gpz_result r = GPZ_OK;
	for (int level = 1; level <= 4; level += 3) {
		c = gz(src, level, GPZ_FORMAT_GZIP);
		r = member_on_gpu(c, out, &m, &used);
		CHECK(r == GPZ_OK && used == c.size() && m.len == src.size() &&
		              !memcmp(out.data(), src.data(), src.size()),
		      "member_at on the GPU, L%d: %s, %zu of %zu bytes", level, gpz_result_string(r),
		      m.len, src.size());
		CHECK(gpz_ctx_gpu_fallbacks(gpu) == 0, "member_at fell back to the CPU");
	}
	/* a period of 1000 bytes: every byte of a batch comes from its window, more than the list
	 * holds, so the CPU redoes each batch after the first (no fallback counted) */
	std::vector<uint8_t> per(1300 * PIECE + 7);
	uint64_t st = 5;
	for (size_t i = 0; i < per.size(); i++)
		per[i] = i < 1000 ? (uint8_t)test_rand(&st) : per[i - 1000];
	std::vector<uint8_t> pc = gz(per, 4, GPZ_FORMAT_GZIP), pout(per.size() + 1);
	r = member_on_gpu(pc, pout, &m, &used);
	CHECK(r == GPZ_OK && m.len == per.size() && !memcmp(pout.data(), per.data(), per.size()),
	      "member_at, period 1000: %s, %zu of %zu", gpz_result_string(r), m.len, per.size());
	/* a flipped byte in the middle (level 4): an error, never wrong output */
	std::vector<uint8_t> bad = c;
	bad[c.size() / 2] ^= 0x20;
	r = member_on_gpu(bad, out, &m, &used);
	CHECK(r != GPZ_OK, "a flipped member accepted");
}

/* GPZ_TEST_GPU_FAIL=1: gpz_inflate's GPU attempt on an AUTO context (a 300 MiB member) fails
 * and the CPU redoes it. */
static int fallback_test(void)
{
	std::vector<uint8_t> src = text(((size_t)300 << 20) + 999, 33);
	std::vector<uint8_t> c = gz(src, 6, GPZ_FORMAT_GZIP), out(src.size() + 1);
	gpz_ctx *aut;
	size_t got = 0;
	if (gpz_ctx_create(&aut, GPZ_BACKEND_AUTO, 4) != GPZ_OK)
		return 1;
	gpz_result r = gpz_inflate(aut, GPZ_FORMAT_GZIP, c.data(), c.size(), out.data(), out.size(),
	                           &got);
	CHECK(r == GPZ_OK && got == src.size() && !memcmp(out.data(), src.data(), src.size()),
	      "fallback: %s, %zu of %zu", gpz_result_string(r), got, src.size());
	CHECK(gpz_ctx_gpu_fallbacks(aut) == 1, "fallbacks: %llu",
	      (unsigned long long)gpz_ctx_gpu_fallbacks(aut));
	gpz_ctx_free(aut);
	return 0;
}

static void corpus_file(const char *path, void *unused)
{
	(void)unused;
	size_t n = 0;
	uint8_t *d = test_read_file(path, &n);
	if (!d)
		return;
	std::vector<uint8_t> s(d, d + n);
	for (int level = 1; level <= 9; level += 5)
		same_as_cpu(gz(s, level, GPZ_FORMAT_GZIP), n, GPZ_FORMAT_GZIP, path);
	free(d);
}

/* The window pass's joins of 32-piece segments (gpz_gpu_inflate_resolve with d_joins): 130
 * pieces of words, a seventh of their bytes copied from 30-31 KB back (so that every piece's
 * start refers to the piece before; text()'s random stretches fell on every 32nd piece's start
 * here), coded chained (group 0: every segment's first piece refers to the one before)
 * and cut every 32 (GPZ_DFL_CUT), each through the pieces kernel and the window pass with and
 * without the joins' word: every output is the input, and the word says that the chained
 * stream needs the joins (1) and the cut one does not (0). */
static void joins_test(void)
{
	const size_t n = 130 * PIECE + 777, np = (n - 1) / PIECE + 1;
	std::vector<uint8_t> src(n);
	uint64_t st = 77;
	for (size_t i = 0; i < n; i++)
		src[i] = i > 40000 && i % 7 == 0 ? src[i - 30000 - i % 977]
		       : (uint8_t)("lorem ipsum dolor sit amet, "[test_rand(&st) % 28]);
	const size_t pcap = gpz_deflate_piece_cap(PIECE);
	for (int group : { 0, GPZ_DFL_CUT }) {
		std::vector<uint8_t> bufs(np * pcap);
		std::vector<gpz_dfl_piece> ps(np);
		for (size_t k = 0; k < np; k++)
			ps[k] = { bufs.data() + k * pcap, pcap, 0, 0, GPZ_OK };
		gpz_deflate_pieces(4, src.data(), 0, n, 6, group, 0, 1, GPZ_DFL_CHECK_NONE, ps.data());
		std::vector<uint64_t> off(np + 1);
		std::vector<uint8_t> in;
		for (size_t k = 0; k < np; k++) {
			CHECK(ps[k].r == GPZ_OK, "joins: piece %zu coded", k);
			in.insert(in.end(), ps[k].buf, ps[k].buf + ps[k].bytes);
			off[k + 1] = in.size();
		}
		uint8_t *d_in, *d_out;
		uint64_t *d_off;
		uint16_t *d_sym;
		void *d_room;
		gpz_gpu_infl_res *d_res;
		uint32_t *d_words, words[2];
		CU(cudaMalloc(&d_in, in.size()));
		CU(cudaMalloc(&d_off, (np + 1) * 8));
		CU(cudaMalloc(&d_sym, np * PIECE * 2));
		CU(cudaMalloc(&d_out, n));
		CU(cudaMalloc(&d_room, gpz_gpu_inflate_room(np, PIECE)));
		CU(cudaMalloc(&d_res, np * sizeof(gpz_gpu_infl_res)));
		CU(cudaMalloc(&d_words, 8));
		CU(cudaMemcpy(d_in, in.data(), in.size(), cudaMemcpyHostToDevice));
		CU(cudaMemcpy(d_off, off.data(), (np + 1) * 8, cudaMemcpyHostToDevice));
		for (int joins = 0; joins < 2; joins++) {
			CU(cudaMemset(d_out, 0, n));
			CU(cudaMemset(d_words, 0xff, 8));
			CHECK(gpz_gpu_inflate_pieces(d_in, d_off, np, PIECE, n,
			                             GPZ_GPU_INFL_SYMBOLS | GPZ_GPU_INFL_CHAINED, d_sym,
			                             d_room, d_res, NULL) == GPZ_OK &&
			              gpz_gpu_inflate_resolve(d_sym, n, NULL, PIECE, NULL, d_out, NULL, 0,
			                                      d_words, joins ? d_words + 1 : NULL,
			                                      NULL) == GPZ_OK,
			      "joins: launches");
			std::vector<uint8_t> out(n);
			CU(cudaMemcpy(out.data(), d_out, n, cudaMemcpyDeviceToHost));
			CU(cudaMemcpy(words, d_words, 8, cudaMemcpyDeviceToHost));
			CHECK(out == src, "joins: group %d, %s the joins' word: output differs", group,
			      joins ? "with" : "without");
			if (joins)
				CHECK(words[1] == (group == 0 ? 1u : 0u),
				      "joins: group %d: the word says %u", group, words[1]);
		}
		CU(cudaFree(d_in));
		CU(cudaFree(d_off));
		CU(cudaFree(d_sym));
		CU(cudaFree(d_out));
		CU(cudaFree(d_room));
		CU(cudaFree(d_res));
		CU(cudaFree(d_words));
	}
}

int main(int argc, char **argv)
{
	int fallback = argc > 1 && !strcmp(argv[1], "fallback");
	int quick = argc > 1 && !strcmp(argv[1], "quick");
	int pieces = argc > 1 && !strcmp(argv[1], "pieces");
	if (!gpu_test_start())
		return TEST_SKIP;
	if (gpz_ctx_create(&cpu, GPZ_BACKEND_CPU, 4) != GPZ_OK ||
	    gpz_ctx_create(&gpu, GPZ_BACKEND_GPU, 4) != GPZ_OK) {
		printf("FAIL: contexts\n");
		return 1;
	}
	if (fallback) {
		fallback_test();
	} else {
		piece_tests();
		joins_test();
		if (!pieces)
			stream_tests();
		if (!quick && !pieces)
			member_tests();
		const char *dir = quick || pieces ? NULL : test_corpora_dir();
		if (dir)
			printf("corpora: %d files\n", test_for_each_file(dir, corpus_file, NULL));
	}
	gpz_ctx_free(cpu);
	gpz_ctx_free(gpu);
	if (test_failures) {
		printf("FAIL: %d checks\n", test_failures);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
