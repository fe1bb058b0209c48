#!/bin/bash
# tool_sync_test.sh - when the tool syncs a new file before naming it: where a crash could lose
# data (the input removed after the output; a file replaced), and not beside a kept input.
# fsync calls are counted by an LD_PRELOAD module (fsync_log.c).
#
# Usage: bash tool_sync_test.sh PATH/TO/gpz PATH/TO/fsync_log.so SCRATCH_DIR
set -eu
[ $# -eq 3 ] || { echo "usage: $0 GPZ FSYNC_LOG_SO SCRATCH_DIR" >&2; exit 2; }
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
GPZ=$(abs "$1") SHIM=$(abs "$2")
[ -x "$GPZ" ] && [ -f "$SHIM" ] || { echo "FAIL: $GPZ or $SHIM missing" >&2; exit 1; }
mkdir -p "$3"
W=$(mktemp -d "$3/sync.XXXXXX")
cd "$W"
LOG=$W/fsyncs
# an ASan build's runtime wants to come first; the module before it is expected here
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

# syncs DESC CMD...: run CMD with the module, print how many fsyncs it made
syncs() {
	rm -f "$LOG"
	GPZ_TEST_FSYNC_LOG=$LOG LD_PRELOAD=$SHIM "$@" >/dev/null 2>err || {
		echo "FAIL  $* exited $?" >&2; sed 's/^/      stderr: /' err >&2; exit 1; }
	if grep -q "LD_PRELOAD" err; then # the module was not loaded: nothing would be counted
		echo "FAIL  $*: $(cat err)" >&2
		exit 1
	fi
	if [ -f "$LOG" ]; then wc -l <"$LOG" | tr -d ' '; else echo 0; fi
}
check() { # check DESC COND
	if eval "$2"; then echo "ok    $1"; else echo "FAIL  $1 ($2)"; exit 1; fi
}

seq 1 200000 >data
cp data keep

n=$(syncs "$GPZ" -q data) || exit 1 # data -> data.gpz, data removed
check "compress, the input removed: the new file synced ($n fsyncs)" '[ "$n" -ge 1 ] && [ ! -e data ] && [ -s data.gpz ]'
n=$(syncs "$GPZ" -q -d -k data.gpz) || exit 1
check "decompress -k, a new file beside the kept input: not synced" '[ "$n" = 0 ] && cmp -s data keep'
n=$(syncs "$GPZ" -q -d -f -k data.gpz) || exit 1
check "decompress -f -k over an existing file: synced ($n fsyncs)" '[ "$n" -ge 1 ] && cmp -s data keep'
rm -f data
n=$(syncs "$GPZ" -q -d -o out data.gpz) || exit 1
check "decompress -o, the input kept: not synced" '[ "$n" = 0 ] && cmp -s out keep'
n=$(syncs "$GPZ" -q -d --rm -o out2 data.gpz) || exit 1
check "decompress -o --rm, the input removed: synced ($n fsyncs)" '[ "$n" -ge 1 ] && cmp -s out2 keep && [ ! -e data.gpz ]'
n=$(syncs "$GPZ" -q --format=gzip -c keep) || exit 1 # to standard output (here /dev/null): nothing named
check "compress -c: no sync" '[ "$n" = 0 ]'

cd / && rm -rf "$W"
echo "tool_sync_test: all checks passed"
