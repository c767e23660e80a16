#!/usr/bin/env bash
# The benchmark's NBD peer (tests/bench.sh, configuration "nbd"): Debian's
# nbd-server, the libraries it links and its configuration, and the
# client's nbd-attach (tests/bench/nbd-attach.c), as a cpio member that
# ramster-cluster appends to the nodes' initramfs (RAMSTER_EXTRA_INITRD).
# Not in the base initramfs: about 11 MiB that no test needs, and the
# guests' files stay in their RAM.  The package is downloaded (apt-get
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
# shellcheck source=scripts/cpio-lib.sh
. "$TOP/scripts/cpio-lib.sh"
DEBS=$TOP/build/nbd-server

die() { printf 'build-nbd-initramfs: error: %s\n' "$*" >&2; exit 1; }

# fetch: NBD_SERVER, nbd-server under build/nbd-server/root, from
# Debian's package.
fetch() {
	local deb p
	for p in usr/bin bin usr/sbin sbin; do
		NBD_SERVER=$DEBS/root/$p/nbd-server
		[ -x "$NBD_SERVER" ] && return
	done
	rm -rf "$DEBS"
	mkdir -p "$DEBS"
	echo "nbd: downloading Debian's nbd-server"
	(cd "$DEBS" && apt-get download -q nbd-server > download.log 2>&1) ||
		die "apt-get download nbd-server failed: $(tail -n 1 "$DEBS/download.log")"
	deb=$(ls "$DEBS"/nbd-server_*.deb)
	dpkg-deb -x "$deb" "$DEBS/root"
	for p in usr/bin bin usr/sbin sbin; do
		NBD_SERVER=$DEBS/root/$p/nbd-server
		[ -x "$NBD_SERVER" ] && return
	done
	die "no nbd-server in $deb"
}

main() {
	[ $# -eq 1 ] || die "usage: build-nbd-initramfs.sh OUT.cpio.gz"
	local out=$1 root
	fetch
	STAGING=$(mktemp -d "${TMPDIR:-/tmp}/ramster-nbd.XXXXXX")
	trap 'rm -rf "$STAGING"' EXIT
	root=$STAGING
	add_with_libs "$root" "$NBD_SERVER" usr/bin/nbd-server
	gcc -O2 -Wall -Wextra -Werror -static -o "$root/usr/bin/nbd-attach" \
		"$TOP/tests/bench/nbd-attach.c"
	mkdir -p "$root/etc/nbd-server" "$root/var/run"
	cat > "$root/etc/nbd-server/config" <<- EOF
		# The benchmark's export (scripts/build-nbd-initramfs.sh).
		[generic]
		    port = 10809
		[swap]
		    exportname = /tmp/nbd.img
	EOF
	pack_cpio "$root" "$out"
	echo "nbd: $out ($(stat -c %s "$out") bytes)"
}

main "$@"
