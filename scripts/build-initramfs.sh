#!/usr/bin/env bash
# Build the guests' initramfs: busybox, the ramster modules, the static
# guest programs, /init and the test cases.
#
#   build-initramfs.sh OUT.cpio.gz MODULE_DIR
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)

die() { printf 'build-initramfs: error: %s\n' "$*" >&2; exit 1; }

build_guest_programs() {
	local out=$1 src
	for src in "$TOP"/tests/guest/*.c; do
		gcc -O2 -Wall -Wextra -Werror -static \
			-o "$out/bin/$(basename "$src" .c)" "$src"
	done
}

main() {
	[ $# -eq 2 ] || die "usage: build-initramfs.sh OUT.cpio.gz MODULE_DIR"
	local out=$1 moddir=$2
	STAGING=$(mktemp -d "${TMPDIR:-/tmp}/ramster-initramfs.XXXXXX")
	trap 'rm -rf "$STAGING"' EXIT
	local root=$STAGING

	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,lib/modules,cases,etc/ramster}
	cp /bin/busybox "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	cp "$moddir"/ramster.ko "$moddir"/ramster_kunit.ko "$root/lib/modules/"
	build_guest_programs "$root"
	cp "$TOP"/tests/guest/cases/*.sh "$root/cases/"
	cp "$TOP"/cluster-configs/*.conf "$root/etc/ramster/"
	install -m 0755 "$TOP/tests/guest/init" "$root/init"
	install -m 0755 "$TOP/tests/guest/ramster-node" "$root/bin/ramster-node"

	(cd "$root" && find . -print0 | sort -z |
		cpio --null -o -H newc --quiet --reproducible) |
		gzip -1 > "$out.tmp"
	mv "$out.tmp" "$out"
	echo "initramfs: $out ($(stat -c %s "$out") bytes)"
}

main "$@"
