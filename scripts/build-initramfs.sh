#!/usr/bin/env bash
# Build the guests' initramfs: busybox, the ramster modules, the product
# tools (tools/: /init, ramster-node, ramster-agent, ramster-conf), the
# cluster configs, and the tests (tests/guest/: the verifying workload,
# the frame fuzzer and the cases).  One image serves the cluster nodes,
# the demo and the test guests; the sources stay apart.
#
#   build-initramfs.sh OUT.cpio.gz MODULE_DIR
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/cpio-lib.sh
. "$TOP/scripts/cpio-lib.sh"

die() { printf 'build-initramfs: error: %s\n' "$*" >&2; exit 1; }

# compile_static OUT_DIR SOURCE...: each C file into OUT_DIR/its name.
compile_static() {
	local out=$1 src
	shift
	for src in "$@"; do
		gcc -O2 -Wall -Wextra -Werror -static \
			-o "$out/$(basename "$src" .c)" "$src"
	done
}

# What a cluster node runs: the product.
add_tools() {
	local root=$1
	compile_static "$root/bin" "$TOP"/tools/*.c "$TOP"/tools/guest/*.c
	install -m 0755 "$TOP/tools/guest/init" "$root/init"
	install -m 0755 "$TOP/tools/guest/ramster-node" "$root/bin/ramster-node"
	cp "$TOP"/cluster-configs/*.conf "$root/etc/ramster/"
}

# What the test guests (and the cluster tests) run besides.
add_tests() {
	local root=$1
	compile_static "$root/bin" "$TOP"/tests/guest/*.c
	cp "$TOP"/tests/guest/cases/*.sh "$root/cases/"
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
	add_tools "$root"
	add_tests "$root"

	pack_cpio "$root" "$out"
	echo "initramfs: $out ($(stat -c %s "$out") bytes)"
}

main "$@"
