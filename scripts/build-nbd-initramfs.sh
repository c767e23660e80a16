#!/usr/bin/env bash
# The benchmark's NBD peer (tests/bench.sh, configuration "nbd"): Debian's
# nbd-server, the libraries it links and its configuration, as a cpio
# member that ramster-cluster appends to the nodes' initramfs
# (RAMSTER_EXTRA_INITRD).  Not in the base initramfs: it is about 8 MiB of
# libraries that no test needs.  The package is downloaded (apt-get
# download, never installed: the host runs no nbd-server) into
# build/nbd-server/.
#
#   build-nbd-initramfs.sh OUT.cpio.gz
#
# The export "swap" is /tmp/nbd.img on the peer (the guests' root is
# ramfs, so the file is the peer's RAM); the peer creates it before
# starting the server.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
DEBS=$TOP/build/nbd-server

die() { printf 'build-nbd-initramfs: error: %s\n' "$*" >&2; exit 1; }

# fetch: build/nbd-server/root/bin/nbd-server, from Debian's package.
fetch() {
	local deb
	[ -x "$DEBS/root/bin/nbd-server" ] && return
	rm -rf "$DEBS"
	mkdir -p "$DEBS"
	echo "nbd: downloading Debian's nbd-server"
	(cd "$DEBS" && apt-get download -q nbd-server > download.log 2>&1) ||
		die "apt-get download nbd-server failed: $(tail -n 1 "$DEBS/download.log")"
	deb=$(ls "$DEBS"/nbd-server_*.deb)
	dpkg-deb -x "$deb" "$DEBS/root"
	[ -x "$DEBS/root/bin/nbd-server" ] || die "no bin/nbd-server in $deb"
}

# add_with_libs ROOT BINARY DEST: BINARY as ROOT/DEST, and every library
# ldd names for it at its own path under ROOT (the dynamic loader too).
add_with_libs() {
	local root=$1 bin=$2 dest=$3 lib
	install -D -m 0755 "$bin" "$root/$dest"
	ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		while read -r lib; do
			mkdir -p "$root/$(dirname "$lib")"
			cp -L "$lib" "$root/$lib"
		done
}

main() {
	[ $# -eq 1 ] || die "usage: build-nbd-initramfs.sh OUT.cpio.gz"
	local out=$1 root
	fetch
	STAGING=$(mktemp -d "${TMPDIR:-/tmp}/ramster-nbd.XXXXXX")
	trap 'rm -rf "$STAGING"' EXIT
	root=$STAGING
	add_with_libs "$root" "$DEBS/root/bin/nbd-server" usr/bin/nbd-server
	mkdir -p "$root/etc/nbd-server" "$root/var/run"
	cat > "$root/etc/nbd-server/config" <<- EOF
		# The benchmark's export (scripts/build-nbd-initramfs.sh).
		[generic]
		    port = 10809
		[swap]
		    exportname = /tmp/nbd.img
	EOF
	(cd "$root" && find . -print0 | sort -z |
		cpio --null -o -H newc --quiet --reproducible) |
		gzip -1 > "$out.tmp"
	mv "$out.tmp" "$out"
	echo "nbd: $out ($(stat -c %s "$out") bytes)"
}

main "$@"
