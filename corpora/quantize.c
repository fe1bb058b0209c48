/*
 * quantize.c - turn raw scientific fields into cuSZ-style "dual-quant" Lorenzo
 * quantization codes (uint16, little-endian): the symbol streams that gpz's
 * Huffman-only mode is meant for.  Used by corpora/prepare.sh; see corpora/README.md.
 *
 * Build:  ${CC:-cc} -O2 -std=c11 -o quantize quantize.c -lm
 *
 * Usage:
 *   quantize -i IN [-i IN2 ...] -t f32|f64 -d D0xD1x... -e REL_EB [-f FILL] [-o OUT.u16]
 *       IN     raw little-endian array, C order (D0 slowest, last dim contiguous)
 *       REL_EB error bound relative to the value range, e.g. 1e-3
 *       FILL   a fill value marking invalid points (compared after conversion to
 *              the field's type); NaN and +-Inf are always invalid
 *       OUT    the codes, one uint16 LE per input value; omit it to print
 *              statistics only
 *     With several -i (all of the same type and dims, e.g. ensemble members),
 *     the value range is taken over all of them together (one error bound), each
 *     input is predicted as its own array, and the codes are written one input
 *     after the other ("stacked").
 *   quantize -s FILE.u16 [FILE.u16 ...]
 *       statistics of existing code files, taken over their concatenation
 *
 * Recipe:
 *   valid    = not NaN/Inf and not equal to FILL
 *   eb       = REL_EB * (max - min) over the valid values (REL_EB itself if max == min)
 *   x'       = x if valid, else min   (invalid points take the minimum valid value)
 *   q        = round(x' / (2*eb))     (int64; C round(): halves away from zero)
 *   r        = N-D Lorenzo residual of q: the first difference along every axis,
 *              values outside the array taken as 0 (1-D: q[i]-q[i-1];
 *              2-D: q[i][j]-q[i-1][j]-q[i][j-1]+q[i-1][j-1]; 3-D: 8 terms; ...)
 *   code     = r + 512 if |r| < 512, else 0 (an outlier)
 *
 * Output: one line of key=value pairs on stdout, among them
 *   entropy=<order-0 entropy of the codes, bits/symbol>  distinct=<distinct codes>
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RADIUS 512
#define MAX_DIMS 8
#define MAX_INPUTS 64

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("quantize: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void usage(void)
{
    fputs("usage: quantize -i IN [-i IN2 ...] -t f32|f64 -d D0xD1x... -e REL_EB [-f FILL]"
          " [-o OUT.u16]\n"
          "       quantize -s FILE.u16 [FILE.u16 ...]\n",
          stderr);
    exit(2);
}

/* Field description shared by all inputs. */
struct field {
    size_t esize;          /* 4 (f32) or 8 (f64) */
    size_t dims[MAX_DIMS]; /* dims[0] slowest */
    int nd;
    size_t n;              /* number of values */
    int have_fill;
    double fill;           /* already rounded to the field's type */
};

/* Read a whole file of exactly `want` bytes. */
static unsigned char *read_exact(const char *path, size_t want)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open %s: %s", path, strerror(errno));
    unsigned char *buf = malloc(want ? want : 1);
    if (!buf)
        die("out of memory reading %s", path);
    size_t got = fread(buf, 1, want, f);
    if (ferror(f))
        die("read error on %s", path);
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != want || extra)
        die("%s: size differs from the %zu bytes that its type and dims imply", path, want);
    return buf;
}

static double get_value(const unsigned char *raw, size_t i, size_t esize)
{
    const unsigned char *p = raw + i * esize;
    if (esize == 4) {
        uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    uint64_t u = 0;
    for (int k = 7; k >= 0; k--)
        u = u << 8 | p[k];
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static int is_valid(const struct field *fd, double v)
{
    return isfinite(v) && !(fd->have_fill && v == fd->fill);
}

/* Pass 1: range of the valid values and count of invalid ones. */
static void scan(const struct field *fd, const char *path, double *vmin, double *vmax,
                 size_t *ninvalid)
{
    unsigned char *raw = read_exact(path, fd->n * fd->esize);
    for (size_t i = 0; i < fd->n; i++) {
        double v = get_value(raw, i, fd->esize);
        if (!is_valid(fd, v)) {
            (*ninvalid)++;
            continue;
        }
        if (v < *vmin)
            *vmin = v;
        if (v > *vmax)
            *vmax = v;
    }
    free(raw);
}

/* Pass 2: prequantize, Lorenzo-predict, emit codes of one input. */
static void quantize_one(const struct field *fd, const char *path, double ebx2, double vmin,
                         FILE *out, const char *outpath, uint64_t *hist, size_t *outliers)
{
    size_t n = fd->n;
    unsigned char *raw = read_exact(path, n * fd->esize);
    int64_t *q = malloc(n * sizeof *q);
    if (!q)
        die("out of memory");
    for (size_t i = 0; i < n; i++) {
        double v = get_value(raw, i, fd->esize);
        if (!is_valid(fd, v))
            v = vmin;
        double t = round(v / ebx2);
        if (!(fabs(t) < 9007199254740992.0)) /* 2^53 */
            die("%s: prequantized value out of range", path);
        q[i] = (int64_t)t;
    }
    free(raw);

    /*
     * The N-D Lorenzo residual is the composition of a first difference along
     * each axis.  Walking each axis from the high end keeps q[i - stride]
     * unmodified when it is subtracted; coordinate 0 on that axis subtracts 0.
     */
    size_t stride = 1;
    for (int ax = fd->nd - 1; ax >= 0; ax--) {
        size_t block = stride * fd->dims[ax];
        for (size_t i = n; i-- > stride;)
            if (i % block >= stride)
                q[i] -= q[i - stride];
        stride = block;
    }

    unsigned char *codes = malloc(2 * n);
    if (!codes)
        die("out of memory");
    for (size_t i = 0; i < n; i++) {
        int64_t r = q[i];
        unsigned c = 0;
        if (r > -RADIUS && r < RADIUS)
            c = (unsigned)(r + RADIUS);
        else
            (*outliers)++;
        hist[c]++;
        codes[2 * i] = (unsigned char)(c & 0xff);
        codes[2 * i + 1] = (unsigned char)(c >> 8);
    }
    free(q);
    if (out && fwrite(codes, 1, 2 * n, out) != 2 * n)
        die("write error on %s", outpath);
    free(codes);
}

/* Order-0 statistics of a uint16 histogram, appended to the current line. */
static void print_stats(const uint64_t *hist, uint64_t total)
{
    double h = 0.0;
    unsigned distinct = 0, lo = 0, hi = 0;
    for (unsigned s = 0; s < 65536; s++) {
        if (!hist[s])
            continue;
        double p = (double)hist[s] / (double)total;
        h -= p * log2(p);
        if (!distinct)
            lo = s;
        hi = s;
        distinct++;
    }
    printf(" n=%llu entropy=%.4f distinct=%u min_code=%u max_code=%u code0=%llu p512=%.6f\n",
           (unsigned long long)total, h + 0.0, distinct, lo, hi,
           (unsigned long long)hist[0],
           total ? (double)hist[RADIUS] / (double)total : 0.0);
}

static int stats_mode(int nfiles, char **files)
{
    uint64_t *hist = calloc(65536, sizeof *hist);
    uint64_t total = 0;
    if (!hist)
        die("out of memory");
    for (int a = 0; a < nfiles; a++) {
        FILE *f = fopen(files[a], "rb");
        if (!f)
            die("cannot open %s: %s", files[a], strerror(errno));
        static unsigned char buf[1 << 16];
        size_t got, have = 0;
        while ((got = fread(buf + have, 1, sizeof buf - have, f)) > 0) {
            size_t len = have + got, i;
            for (i = 0; i + 1 < len; i += 2)
                hist[buf[i] | (unsigned)buf[i + 1] << 8]++;
            total += i / 2;
            have = len - i;
            if (have)
                buf[0] = buf[i];
        }
        if (ferror(f))
            die("read error on %s", files[a]);
        if (have)
            die("%s has an odd number of bytes", files[a]);
        fclose(f);
    }
    printf("files=%d", nfiles);
    print_stats(hist, total);
    free(hist);
    return 0;
}

int main(int argc, char **argv)
{
    const char *inputs[MAX_INPUTS];
    int ninputs = 0;
    const char *out = NULL, *type = NULL, *dimstr = NULL, *ebstr = NULL, *fillstr = NULL;

    if (argc >= 2 && strcmp(argv[1], "-s") == 0) {
        if (argc < 3)
            usage();
        return stats_mode(argc - 2, argv + 2);
    }
    for (int a = 1; a < argc; a++) {
        const char *opt = argv[a];
        if (++a >= argc || strlen(opt) != 2 || opt[0] != '-')
            usage();
        const char *val = argv[a];
        switch (opt[1]) {
        case 'i':
            if (ninputs == MAX_INPUTS)
                die("too many inputs (at most %d)", MAX_INPUTS);
            inputs[ninputs++] = val;
            break;
        case 'o': out = val; break;
        case 't': type = val; break;
        case 'd': dimstr = val; break;
        case 'e': ebstr = val; break;
        case 'f': fillstr = val; break;
        default: usage();
        }
    }
    if (!ninputs || !type || !dimstr || !ebstr)
        usage();

    struct field fd;
    memset(&fd, 0, sizeof fd);
    if (strcmp(type, "f32") == 0)
        fd.esize = 4;
    else if (strcmp(type, "f64") == 0)
        fd.esize = 8;
    else
        die("unknown type %s (want f32 or f64)", type);

    fd.n = 1;
    for (const char *p = dimstr; *p;) {
        char *end;
        errno = 0;
        unsigned long long d = strtoull(p, &end, 10);
        if (end == p || *p == '-' || errno || d == 0 || fd.nd == MAX_DIMS)
            die("bad dims %s", dimstr);
        if (d > SIZE_MAX / 16 / fd.n)
            die("dims too large: %s", dimstr);
        fd.dims[fd.nd++] = (size_t)d;
        fd.n *= (size_t)d;
        if (*end == 'x' && end[1])
            end++;
        else if (*end)
            die("bad dims %s", dimstr);
        p = end;
    }
    if (fd.nd == 0)
        die("bad dims %s", dimstr);

    char *end;
    double rel = strtod(ebstr, &end);
    if (*end || !(rel > 0.0) || !isfinite(rel))
        die("bad relative error bound %s", ebstr);

    if (fillstr && *fillstr) {
        double fill = strtod(fillstr, &end);
        if (*end)
            die("bad fill value %s", fillstr);
        if (!isnan(fill)) { /* a NaN fill needs nothing: NaN is always invalid */
            fd.have_fill = 1;
            fd.fill = fd.esize == 4 ? (double)(float)fill : fill;
        }
    }

    double vmin = INFINITY, vmax = -INFINITY;
    size_t ninvalid = 0;
    for (int k = 0; k < ninputs; k++)
        scan(&fd, inputs[k], &vmin, &vmax, &ninvalid);
    if (ninvalid == fd.n * (size_t)ninputs)
        die("%s: no valid values", inputs[0]);

    double range = vmax - vmin;
    double eb = range > 0.0 ? rel * range : rel;

    FILE *of = NULL;
    if (out && !(of = fopen(out, "wb")))
        die("cannot create %s: %s", out, strerror(errno));
    uint64_t *hist = calloc(65536, sizeof *hist);
    if (!hist)
        die("out of memory");
    size_t outliers = 0;
    for (int k = 0; k < ninputs; k++)
        quantize_one(&fd, inputs[k], 2.0 * eb, vmin, of, out, hist, &outliers);
    if (of && fclose(of) != 0)
        die("write error on %s", out);

    printf("file=%s inputs=%d dtype=%s dims=%s rel_eb=%s abs_eb=%.17g min=%.17g max=%.17g"
           " invalid=%zu outliers=%zu",
           inputs[0], ninputs, type, dimstr, ebstr, eb, vmin, vmax, ninvalid, outliers);
    print_stats(hist, (uint64_t)fd.n * (uint64_t)ninputs);
    free(hist);
    return 0;
}
