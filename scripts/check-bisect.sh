#!/usr/bin/env bash
# make check-bisect: build the kernel at every prefix of the patch series,
# so that each patch builds on its own (bisectability).  Slow: one
# incremental build per patch, in build/kernel-bisect.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
SERIES=$TOP/kernel-patches/series
WORK=$TOP/build/kernel-bisect

main() {
	local total n prefix
	total=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES" | wc -l)
	mkdir -p "$WORK"
	for n in $(seq 1 "$total"); do
		prefix=$WORK/series
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES" | head -n "$n" > "$prefix"
		# The series file names patches relative to its own directory.
		ln -sf "$TOP"/kernel-patches/*.patch "$WORK/"
		echo "=== [$n/$total] up to $(tail -n 1 "$prefix")"
		RAMSTER_FRAGMENT_LATER_OK=1 \
			"$TOP/scripts/build-kernel.sh" "$WORK" "$prefix" ||
			{ echo "check-bisect: the series does not build at patch $n"; exit 1; }
	done
	echo "check-bisect: all $total prefixes build"
}

main "$@"
