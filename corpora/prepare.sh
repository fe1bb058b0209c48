#!/bin/sh
# corpora/prepare.sh - prepare gpz's test and benchmark data in one command.
#
#   corpora/prepare.sh [--debtext] [--dest DIR] [--shared DIR] [--jobs N]
#
#   --dest DIR    where to write (default: <repo>/corpora/data, git-ignored)
#   --shared DIR  the read-only shared corpora
#                 (default: $GPZ_CORPORA, else <repo>/../shared/corpora)
#   --debtext     also build debtext100m / debtext1g from Debian packages
#                 (downloads about 225 MB; see corpora/README.md)
#   --jobs N      parallel jobs (default: number of CPUs, at most 8)
#
# Steps (each is skipped when its outputs exist and verify, so re-runs are cheap):
#   1. check the shared files against SHA256SUMS (and nyx/ against nyx/README.md)
#   2. expand silesia (.bz2/.xz) and dna (.gz) into DEST/silesia, DEST/dna and
#      check them against the shared EXPANDED.sha256 lists
#   3. expand Nyx-Quant into DEST/nyx/baryon_density.dat.b16
#   4. build DEST/bin/quantize from corpora/quantize.c and write Lorenzo
#      quantization codes of every field in scientific/ to DEST/quant/
#   5. (--debtext) build DEST/debtext100m and DEST/debtext1g
# If the shared corpora are absent, it says so and exits 0 (tests then skip).
set -eu
LC_ALL=C
export LC_ALL

say() { printf 'prepare: %s\n' "$*"; }
warn() { printf 'prepare: WARNING: %s\n' "$*" >&2; }
die() { printf 'prepare: ERROR: %s\n' "$*" >&2; exit 1; }

usage() {
    sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
}

SCRIPT_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd -P)
REPO=$(dirname -- "$SCRIPT_DIR")
DEST=$REPO/corpora/data
SHARED=${GPZ_CORPORA:-$REPO/../shared/corpora}
DEBTEXT=0
JOBS=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

while [ $# -gt 0 ]; do
    case $1 in
    --debtext) DEBTEXT=1 ;;
    --dest) [ $# -ge 2 ] || die "--dest needs a directory"; DEST=$2; shift ;;
    --dest=*) DEST=${1#--dest=} ;;
    --shared) [ $# -ge 2 ] || die "--shared needs a directory"; SHARED=$2; shift ;;
    --shared=*) SHARED=${1#--shared=} ;;
    --jobs) [ $# -ge 2 ] || die "--jobs needs a number"; JOBS=$2; shift ;;
    --jobs=*) JOBS=${1#--jobs=} ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
    esac
    shift
done
case $JOBS in '' | *[!0-9]*) die "--jobs wants a positive number" ;; esac
[ "$JOBS" -ge 1 ] || JOBS=1
[ "$JOBS" -le 8 ] || JOBS=8

START=$(date +%s)
# make DEST absolute (creating it) - called once we know there is work to do
make_dest() {
    mkdir -p -- "$DEST"
    DEST=$(cd -- "$DEST" && pwd -P)
}
STATUS=0 # becomes 1 when a check that does not stop the run fails

# ---------------------------------------------------------------- helpers

# sha256 of a file, hex only
sha_of() {
    _h=$(sha256sum < "$1")
    printf '%s\n' "${_h%% *}"
}

# newer A B: file A was modified after file B (POSIX replacement for test -nt)
newer() {
    [ -n "$(find "$1" -prune -newer "$2" 2>/dev/null)" ]
}

# size of a file in bytes
size_of() {
    wc -c < "$1" | tr -d ' '
}

# "N files, B bytes" for the plain files directly in a directory
dir_summary() {
    ls -ln -- "$1" | awk '$1 ~ /^-/ { n++; s += $5 }
        END { printf "%d files, %.1f MB (%d bytes)", n, s / 1e6, s }'
}

# Background jobs, at most $JOBS at a time; reap waits for all and fails if any did.
PIDS=
spawn() {
    "$@" &
    PIDS="$PIDS $!"
    set -- $PIDS
    if [ $# -ge "$JOBS" ]; then reap; fi
}
reap() {
    _failed=0
    for _p in $PIDS; do wait "$_p" || _failed=1; done
    PIDS=
    [ "$_failed" -eq 0 ] || die "a background step failed (see the messages above)"
}

# decompress TOOL SRC OUT: TOOL -dc SRC > OUT, atomically
decompress() {
    "$1" -dc < "$2" > "$3.part"
    mv -f -- "$3.part" "$3"
}

# ---------------------------------------------------------------- debtext

DEBTEXT_PKGS="dict-gcide wordnet-base linux-doc-6.1 python3.11-doc openjdk-17-doc linux-source-6.1"
# versions and checksums from ../shared/corpora/debtext.md
DEBTEXT_VERSIONS="dict-gcide=0.48.5+nmu2 wordnet-base=1:3.0-37 linux-doc-6.1=6.1.192-2
python3.11-doc=3.11.2-6+deb12u9 openjdk-17-doc=17.0.21.1+2-1~deb12u1 linux-source-6.1=6.1.192-2"
DEBTEXT100M_SHA=fe62c95180d788285b85623d62be375b721c740ff241f1b17164a3ae42b366fb
DEBTEXT1G_SHA=5daf29fb43308e35a8e922ce2a6774f5336c9047c46e3ca8491cc53241b81f66

# debtext_check: 0 when both files exist and match, 1 otherwise (and says which)
debtext_check() {
    _ok=0
    for _pair in "debtext100m $DEBTEXT100M_SHA 100000000" "debtext1g $DEBTEXT1G_SHA 1000000000"; do
        set -- $_pair
        if [ ! -f "$DEST/$1" ]; then
            say "$1: missing"; _ok=1; continue
        fi
        _got=$(sha_of "$DEST/$1")
        _size=$(size_of "$DEST/$1")
        if [ "$_got" = "$2" ] && [ "$_size" = "$3" ]; then
            say "$1: sha256 OK ($2)"
        else
            printf 'prepare: ERROR: %s: sha256 %s, %s bytes\n' "$1" "$_got" "$_size" >&2
            printf 'prepare: ERROR:   expected %s, %s bytes (debtext.md)\n' "$2" "$3" >&2
            printf 'prepare: ERROR:   %s holds DIFFERENT BYTES from the debtext.md original, most\n' "$1" >&2
            printf 'prepare: ERROR:   likely because the Debian package versions changed (the build lists\n' >&2
            printf 'prepare: ERROR:   them). Do not compare its results with numbers measured on the\n' >&2
            printf 'prepare: ERROR:   original. The file is kept.\n' >&2
            _ok=1
        fi
    done
    return $_ok
}

# build_debtext: sets DEBTEXT_STATUS to ok or MISMATCH; dies on hard errors.
# (Called as a plain command, never as a condition, so that set -e stays in force.)
build_debtext() {
    DEBTEXT_STATUS=MISMATCH
    if [ -f "$DEST/debtext100m" ] && [ -f "$DEST/debtext1g" ]; then
        say "debtext: already built, checking"
        if debtext_check; then
            DEBTEXT_STATUS=ok
        else
            warn "delete $DEST/debtext100m and $DEST/debtext1g to rebuild them"
        fi
        return 0
    fi
    command -v apt-get > /dev/null && command -v dpkg-deb > /dev/null ||
        die "debtext needs apt-get and dpkg-deb (a Debian/Ubuntu machine)"
    _scratch=$DEST/debtext-build
    rm -rf -- "$_scratch"
    mkdir -p -- "$_scratch"
    say "debtext: apt-get update"
    if ! apt-get update -qq > "$_scratch/apt-update.log" 2>&1; then
        warn "apt-get update failed (not root?); trying the download with the current package lists"
        sed 's/^/  /' "$_scratch/apt-update.log" >&2 || true
    fi
    say "debtext: apt-get download $DEBTEXT_PKGS (about 225 MB)"
    # as root, apt would hand the download to user _apt, who cannot write here
    _sandbox=
    if [ "$(id -u)" = 0 ]; then _sandbox="-o APT::Sandbox::User=root"; fi
    (cd "$_scratch" && apt-get download -q $_sandbox $DEBTEXT_PKGS) ||
        die "apt-get download failed (no network or no bookworm sources?); kept $_scratch"
    say "debtext: package versions (any that differ from debtext.md's are flagged):"
    _changed=0
    for _deb in "$_scratch"/*.deb; do
        _pkg=$(dpkg-deb -f "$_deb" Package)
        _ver=$(dpkg-deb -f "$_deb" Version)
        _want=$(printf '%s\n' $DEBTEXT_VERSIONS | sed -n "s/^$_pkg=//p")
        if [ "$_ver" = "$_want" ]; then
            say "  $_pkg $_ver"
        else
            say "  $_pkg $_ver   [CHANGED: debtext.md used $_want]"
            _changed=1
        fi
    done
    [ "$_changed" -eq 0 ] || warn "package versions differ from debtext.md: expect different bytes"
    say "debtext: extracting"
    for _deb in "$_scratch"/*.deb; do
        dpkg-deb -x "$_deb" "$_scratch/root"
    done
    (
        cd "$_scratch"
        for _need in root/usr/share/dictd/gcide.dict.dz root/usr/share/wordnet/data.noun \
            root/usr/share/doc/linux-doc-6.1 root/usr/share/doc/python3.11 \
            root/usr/share/doc/openjdk-17-jre-headless/api root/usr/src/linux-source-6.1.tar.xz; do
            [ -e "$_need" ] || die "debtext: $_need is missing from the packages"
        done
        say "debtext: assembling debtext1g"
        # The recipe of debtext.md, byte for byte (stdin closed so that an empty
        # find cannot make cat wait on the terminal).
        {
            gzip -dc < root/usr/share/dictd/gcide.dict.dz
            cat root/usr/share/wordnet/data.adj root/usr/share/wordnet/data.adv \
                root/usr/share/wordnet/data.noun root/usr/share/wordnet/data.verb
            find root/usr/share/doc/linux-doc-6.1 -name '*.txt' -print0 | LC_ALL=C sort -z | xargs -0 cat
            find root/usr/share/doc/python3.11 -name '*.html' -print0 | LC_ALL=C sort -z | xargs -0 cat
            find root/usr/share/doc/linux-doc-6.1 -name '*.html' -print0 | LC_ALL=C sort -z | xargs -0 cat
            find root/usr/share/doc/openjdk-17-jre-headless/api -name '*.html' -print0 | LC_ALL=C sort -z | xargs -0 cat
            xz -dc root/usr/src/linux-source-6.1.tar.xz
        } < /dev/null 2> /dev/null | head -c 1000000000 > debtext1g
        [ "$(size_of debtext1g)" = 1000000000 ] ||
            die "debtext: assembled only $(size_of debtext1g) bytes, want 10^9"
        head -c 100000000 debtext1g > debtext100m
    )
    mv -f -- "$_scratch/debtext1g" "$DEST/debtext1g"
    mv -f -- "$_scratch/debtext100m" "$DEST/debtext100m"
    rm -rf -- "$_scratch/root"
    if debtext_check; then
        DEBTEXT_STATUS=ok
        rm -rf -- "$_scratch"
    else
        say "debtext: kept the downloaded packages in $_scratch for inspection"
    fi
}

# ---------------------------------------------------------------- shared corpora

if [ ! -d "$SHARED" ] || [ ! -f "$SHARED/SHA256SUMS" ]; then
    say "shared corpora not found at $SHARED"
    say "(set GPZ_CORPORA or pass --shared DIR); nothing to prepare, corpus tests will skip"
    if [ "$DEBTEXT" -eq 1 ]; then
        make_dest
        build_debtext
        [ "$DEBTEXT_STATUS" = ok ] || exit 1
    fi
    exit 0
fi
SHARED=$(cd -- "$SHARED" && pwd -P)
make_dest
say "shared corpora: $SHARED"
say "destination:    $DEST (jobs: $JOBS)"

# 1. the shared files themselves
if ! (cd "$SHARED" && sha256sum -c --quiet --strict SHA256SUMS); then
    die "files in $SHARED do not match its SHA256SUMS (listed above): the shared corpora are damaged"
fi
# nyx/ is not in SHA256SUMS; its checksums are in nyx/README.md
NYX_TGZ_SHA=48de58e07fb50a1a6a87428d2e32a1a023ca891eb92c3491d169adcad853fc5e
NYX_DICT_SHA=3c4007de5b90c0d973c98cd30c56a885b9ec7de63ea16b1aacd6eba7eafcd95f
# sha256 of the expanded baryon_density.dat.b16 (measured from the verified tgz)
NYX_B16_SHA=589d647496350921aac42a253a9d55c36c4dd7c915071ceb492d07d284375f80
NYX_B16_SIZE=268435456
[ "$(sha_of "$SHARED/nyx/baryon_density.dat.b16.tgz")" = "$NYX_TGZ_SHA" ] ||
    die "$SHARED/nyx/baryon_density.dat.b16.tgz does not match nyx/README.md's sha256"
[ "$(sha_of "$SHARED/nyx/baryon_density.dat.dict")" = "$NYX_DICT_SHA" ] ||
    die "$SHARED/nyx/baryon_density.dat.dict does not match nyx/README.md's sha256"
say "shared files match SHA256SUMS and nyx/README.md"

# 2 + 3. expansions: check what is there, expand what is missing or wrong, in parallel
mkdir -p -- "$DEST/silesia" "$DEST/dna" "$DEST/nyx" "$DEST/bin" "$DEST/quant"
EXPANDED_NOW=
NYX_OUT=$DEST/nyx/baryon_density.dat.b16
if [ -f "$NYX_OUT" ] && [ "$(size_of "$NYX_OUT")" = "$NYX_B16_SIZE" ] &&
    [ "$(sha_of "$NYX_OUT")" = "$NYX_B16_SHA" ]; then
    :
else
    rm -rf -- "$DEST/nyx/.part"
    mkdir -p -- "$DEST/nyx/.part"
    spawn tar -xzf "$SHARED/nyx/baryon_density.dat.b16.tgz" -C "$DEST/nyx/.part"
    EXPANDED_NOW="$EXPANDED_NOW nyx"
fi
for SET in silesia dna; do
    while read -r WANT NAME; do
        OUT=$DEST/$SET/$NAME
        if [ -f "$OUT" ] && [ "$(sha_of "$OUT")" = "$WANT" ]; then continue; fi
        if [ -f "$SHARED/$SET/$NAME.bz2" ]; then
            spawn decompress bzip2 "$SHARED/$SET/$NAME.bz2" "$OUT"
        elif [ -f "$SHARED/$SET/$NAME.xz" ]; then
            spawn decompress xz "$SHARED/$SET/$NAME.xz" "$OUT"
        elif [ -f "$SHARED/$SET/$NAME.gz" ]; then
            spawn decompress gzip "$SHARED/$SET/$NAME.gz" "$OUT"
        else
            die "no compressed source for $SET/$NAME in $SHARED/$SET"
        fi
        EXPANDED_NOW="$EXPANDED_NOW $SET/$NAME"
    done < "$SHARED/$SET/EXPANDED.sha256"
done
reap
if [ -d "$DEST/nyx/.part" ]; then
    [ -f "$DEST/nyx/.part/baryon_density.dat.b16" ] ||
        die "the nyx tgz did not hold baryon_density.dat.b16"
    mv -f -- "$DEST/nyx/.part/baryon_density.dat.b16" "$NYX_OUT"
    rm -rf -- "$DEST/nyx/.part"
    [ "$(size_of "$NYX_OUT")" = "$NYX_B16_SIZE" ] || die "$NYX_OUT: wrong size"
    [ "$(sha_of "$NYX_OUT")" = "$NYX_B16_SHA" ] || die "$NYX_OUT: wrong sha256"
fi
for SET in silesia dna; do
    (cd "$DEST/$SET" && sha256sum -c --quiet --strict "$SHARED/$SET/EXPANDED.sha256") ||
        die "expanded $SET files do not match $SHARED/$SET/EXPANDED.sha256"
done
if [ -n "$EXPANDED_NOW" ]; then
    say "expanded:$EXPANDED_NOW"
fi
say "silesia, dna, nyx expanded and verified"

# 4. quantization codes
QSRC=$SCRIPT_DIR/quantize.c
QBIN=$DEST/bin/quantize
if [ ! -x "$QBIN" ] || newer "$QSRC" "$QBIN"; then
    say "building $QBIN"
    ${CC:-cc} -O2 -std=c11 -o "$QBIN.part" "$QSRC" -lm
    mv -f -- "$QBIN.part" "$QBIN"
fi

NYX_STATS=$DEST/nyx/baryon_density.dat.b16.stats
if [ ! -s "$NYX_STATS" ] || newer "$NYX_OUT" "$NYX_STATS" || newer "$QBIN" "$NYX_STATS"; then
    spawn sh -c '"$1" -s "$2" > "$3.part" && mv -f "$3.part" "$3"' sh "$QBIN" "$NYX_OUT" "$NYX_STATS"
fi

# Per-field facts from MANIFEST.json: file, fill value ("-" for none), number of
# invalid values (fill + NaN), dims ("-" when unknown).
FIELDS=$DEST/quant/fields.tsv
manifest_python() {
    python3 - "$1" << 'EOF'
import json, math, sys
for e in json.load(open(sys.argv[1])):
    fill = e.get("fill")
    if fill is None:
        fill = "-"
    else:
        fill = float(fill)
        fill = "nan" if math.isnan(fill) else repr(fill)
    invalid = int(e.get("n_fill") or 0) + int(e.get("n_nan") or 0)
    dims = "x".join(str(d) for d in e.get("shape_c_order", [])) or "-"
    print(e["file"], fill, invalid, dims, sep="\t")
EOF
}
manifest_awk() { # for pretty-printed JSON, one key per line
    awk -F'"' '
        /"file":/   { file = $4; fill = "-"; nf = 0; nn = 0 }
        /"fill":/   { v = $0; sub(/.*"fill": */, "", v); sub(/,? *$/, "", v); gsub(/"/, "", v)
                      fill = (v == "null") ? "-" : (v == "NaN" ? "nan" : v) }
        /"n_fill":/ { v = $0; gsub(/[^0-9]/, "", v); nf = v + 0 }
        /"n_nan":/  { v = $0; gsub(/[^0-9]/, "", v); nn = v + 0 }
        /^ *}/      { if (file != "") printf "%s\t%s\t%d\t-\n", file, fill, nf + nn; file = "" }
    ' "$1"
}
if command -v python3 > /dev/null 2>&1; then
    manifest_python "$SHARED/scientific/MANIFEST.json" > "$FIELDS.part"
else
    manifest_awk "$SHARED/scientific/MANIFEST.json" > "$FIELDS.part"
fi
mv -f -- "$FIELDS.part" "$FIELDS"

EBS="1e-2 1e-3 1e-4"
# quantize_field IN DTYPE DIMS EB FILL OUTBASE
quantize_field() {
    if [ "$5" = "-" ]; then
        "$QBIN" -i "$1" -t "$2" -d "$3" -e "$4" -o "$6.u16.part" > "$6.txt.part"
    else
        "$QBIN" -i "$1" -t "$2" -d "$3" -e "$4" -f "$5" -o "$6.u16.part" > "$6.txt.part"
    fi
    mv -f -- "$6.u16.part" "$6.u16"
    mv -f -- "$6.txt.part" "$6.txt"
}
# up_to_date OUTBASE NVALUES: the codes exist, have the right size and are newer
# than quantize
up_to_date() {
    [ -f "$1.u16" ] && [ -s "$1.txt" ] && newer "$1.u16" "$QBIN" &&
        [ "$(size_of "$1.u16")" = "$2" ]
}

NFIELDS=0
NQUANT=0
: > "$FIELDS.seen"
for IN in "$SHARED"/scientific/*.f32 "$SHARED"/scientific/*.f64; do
    [ -f "$IN" ] || continue
    BASE=${IN##*/}
    DTYPE=${BASE##*.}
    STEM=${BASE%.*}
    DIMS=${STEM##*_}
    NAME=${STEM%_*}
    case $DIMS in '' | x* | *x | *xx* | *[!0-9x]*) die "cannot read dims from $BASE" ;; esac
    [ "$NAME" != "$STEM" ] || die "cannot read dims from $BASE"
    FILL=-
    EXPECT_INVALID=-
    LINE=$(awk -F'\t' -v f="$BASE" '$1 == f' "$FIELDS")
    if [ -n "$LINE" ]; then
        FILL=$(printf '%s\n' "$LINE" | cut -f2)
        EXPECT_INVALID=$(printf '%s\n' "$LINE" | cut -f3)
        MDIMS=$(printf '%s\n' "$LINE" | cut -f4)
        [ "$MDIMS" = - ] || [ "$MDIMS" = "$DIMS" ] ||
            die "$BASE: dims $DIMS in the name but $MDIMS in MANIFEST.json"
    else
        warn "$BASE is not in MANIFEST.json: no fill value known"
    fi
    NVALUES=$(printf '%s\n' "$DIMS" | tr 'x' '\n' | awk '{ p *= $1 } BEGIN { p = 1 } END { print p }')
    NFIELDS=$((NFIELDS + 1))
    for EB in $EBS; do
        OUTBASE=$DEST/quant/$NAME.eb$EB
        NQUANT=$((NQUANT + 1))
        up_to_date "$OUTBASE" $((NVALUES * 2)) && continue
        spawn quantize_field "$IN" "$DTYPE" "$DIMS" "$EB" "$FILL" "$OUTBASE"
    done
    printf '%s\t%s\t%s\t%s\n' "$NAME" "$DTYPE" "$DIMS" "$EXPECT_INVALID" >> "$FIELDS.seen"
done
[ "$NFIELDS" -gt 0 ] || die "no .f32/.f64 fields in $SHARED/scientific"

# the 8 TREFHT ensemble members, one error bound over all of them, codes stacked
set --
for IN in "$SHARED"/scientific/cesm-ccsm-TREFHT-B06.*_110x64x128.f32; do
    [ -f "$IN" ] && set -- "$@" -i "$IN"
done
[ $# -eq 16 ] || die "expected 8 cesm-ccsm-TREFHT-B06.* members in $SHARED/scientific, found $(($# / 2))"
for EB in 1e-3 1e-4; do
    OUTBASE=$DEST/quant/TREFHT-8members.eb$EB
    NQUANT=$((NQUANT + 1))
    up_to_date "$OUTBASE" $((8 * 110 * 64 * 128 * 2)) && continue
    spawn sh -c 'q=$1 o=$2 e=$3; shift 3
        "$q" "$@" -t f32 -d 110x64x128 -e "$e" -o "$o.u16.part" > "$o.txt.part" &&
        mv -f "$o.u16.part" "$o.u16" && mv -f "$o.txt.part" "$o.txt"' \
        sh "$QBIN" "$OUTBASE" "$EB" "$@"
done
reap

# check the invalid-value counts against MANIFEST.json and write the index
INDEX=$DEST/quant/INDEX.tsv
printf 'codes\tsource\tdtype\tdims\trel_eb\tabs_eb\tn\tinvalid\toutliers\tentropy\tdistinct\n' > "$INDEX.part"
while IFS="$(printf '\t')" read -r NAME DTYPE DIMS EXPECT_INVALID; do
    for EB in $EBS; do
        TXT=$DEST/quant/$NAME.eb$EB.txt
        GOT_INVALID=$(tr ' ' '\n' < "$TXT" | sed -n 's/^invalid=//p')
        if [ "$EXPECT_INVALID" != - ] && [ "$GOT_INVALID" != "$EXPECT_INVALID" ]; then
            die "$NAME: $GOT_INVALID invalid values, MANIFEST.json says $EXPECT_INVALID"
        fi
        tr ' ' '\n' < "$TXT" | awk -F= -v codes="$NAME.eb$EB.u16" -v dt="$DTYPE" '
            { v[$1] = $2 }
            END { src = v["file"]; sub(/.*\//, "", src)
                  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", codes, src, dt,
                      v["dims"], v["rel_eb"], v["abs_eb"], v["n"], v["invalid"],
                      v["outliers"], v["entropy"], v["distinct"] }'
    done
done < "$FIELDS.seen" >> "$INDEX.part"
rm -f -- "$FIELDS.seen"
for EB in 1e-3 1e-4; do
    tr ' ' '\n' < "$DEST/quant/TREFHT-8members.eb$EB.txt" | awk -F= -v codes="TREFHT-8members.eb$EB.u16" '
        { v[$1] = $2 }
        END { printf "%s\t8 cesm-ccsm-TREFHT-B06.* members, one eb\tf32\t8x(%s)\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
                  codes, v["dims"], v["rel_eb"], v["abs_eb"], v["n"], v["invalid"],
                  v["outliers"], v["entropy"], v["distinct"] }'
done >> "$INDEX.part"
mv -f -- "$INDEX.part" "$INDEX"

# validation against the table in ../shared/corpora/debtext.md
stat_of() { # FILE KEY
    tr ' ' '\n' < "$1" | sed -n "s/^$2=//p"
}
say "validation against debtext.md (measured / expected):"
for CHECK in "cesm-ccsm-TREFHT-B06.57.eb1e-2 1.43 -" "cesm-ccsm-TREFHT-B06.57.eb1e-3 2.25 -" \
    "cesm-ccsm-TREFHT-B06.57.eb1e-4 4.93 -" "TREFHT-8members.eb1e-3 2.24 85" \
    "TREFHT-8members.eb1e-4 4.92 527"; do
    set -- $CHECK
    H=$(stat_of "$DEST/quant/$1.txt" entropy)
    D=$(stat_of "$DEST/quant/$1.txt" distinct)
    VERDICT=$(awk -v h="$H" -v eh="$2" -v d="$D" -v ed="$3" 'BEGIN {
        ok = (h - eh < 0.0051 && eh - h < 0.0051) && (ed == "-" || d == ed)
        print ok ? "ok" : "MISMATCH" }')
    if [ "$3" = - ]; then
        say "  $1: $H bits ($D symbols) / $2 bits  $VERDICT"
    else
        say "  $1: $H bits, $D symbols / $2 bits, $3 symbols  $VERDICT"
    fi
    [ "$VERDICT" = ok ] || STATUS=1
done
[ "$STATUS" -eq 0 ] || warn "quantization codes do not reproduce debtext.md's table"

# 5. debtext
DEBTEXT_STATUS=skipped
if [ "$DEBTEXT" -eq 1 ]; then
    build_debtext
    [ "$DEBTEXT_STATUS" = ok ] || STATUS=1
fi

# ---------------------------------------------------------------- summary

END=$(date +%s)
say "summary ($((END - START)) s):"
say "  $DEST/silesia  $(dir_summary "$DEST/silesia")"
say "  $DEST/dna      $(dir_summary "$DEST/dna")"
say "  $DEST/nyx      $(dir_summary "$DEST/nyx")"
say "                 baryon_density.dat.b16: 512^3 uint16 LE codes;$(sed 's/.*\( entropy=[^ ]*\).*\( distinct=[^ ]*\).*\( p512=[^ ]*\).*/\1\2\3/' "$NYX_STATS")"
say "  $DEST/quant    $NQUANT code files from $NFIELDS fields at rel eb $EBS (+ TREFHT-8members);"
say "                 $(ls -ln -- "$DEST/quant" | awk '$1 ~ /^-/ && $NF ~ /\.u16$/ { s += $5 } END { printf "%.1f MB", s / 1e6 }') of .u16; index with dims, eb, entropy: quant/INDEX.tsv"
say "  $DEST/bin/quantize"
if [ -f "$DEST/debtext100m" ] || [ -f "$DEST/debtext1g" ]; then
    say "  $DEST/debtext100m, debtext1g  (--debtext: $DEBTEXT_STATUS)"
else
    say "  debtext: not built (pass --debtext)"
fi
say "  shared, read-only, used in place: $SHARED (canterbury, calgary, snappy-testdata, scientific, ...)"
exit "$STATUS"
