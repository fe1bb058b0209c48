#!/bin/sh
# Check the layering of src/ (docs/ARCHITECTURE.md): a file may include headers of its own folder
# and of the folders below it, never above. Bottom to top:
#   common, gpu (0) < huffman (1) < lz, lzsym (2) < deflate (3) < container (4)
# Prints every include that breaks the rule and exits 1 when there is one.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
rank() {
	case $1 in
	common | gpu) echo 0 ;;
	huffman) echo 1 ;;
	lz | lzsym) echo 2 ;;
	deflate) echo 3 ;;
	container) echo 4 ;;
	*) echo 99 ;;
	esac
}
bad=0
for f in $(cd "$root" && find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort); do
	dir=$(echo "$f" | cut -d/ -f2)
	own=$(rank "$dir")
	if [ "$own" = 99 ]; then
		echo "layers: $f: folder src/$dir is not in the layer list"
		bad=1
		continue
	fi
	for inc in $(sed -n 's/^#include "\([a-z_]*\)\/.*"$/\1/p' "$root/$f"); do
		r=$(rank "$inc")
		if [ "$r" -gt "$own" ]; then
			echo "layers: $f (src/$dir) includes a header of src/$inc, a layer above it"
			bad=1
		fi
	done
done
[ "$bad" = 0 ] && echo "layers: src/ is layered"
exit "$bad"
