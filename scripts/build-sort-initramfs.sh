#!/usr/bin/env bash
# The benchmark's real program (tests/bench.sh, workload "sort"): GNU
# sort from Debian's coreutils (this host's /usr/bin/sort, installed on
# every Debian system) and the libraries it links, as a cpio member
# appended to a guest's or a cluster node's initramfs.  Not in the base
# initramfs: about 2.5 MiB of RAM (the guests' root is ramfs) that only
# the sort workload needs.
#
#   build-sort-initramfs.sh OUT.cpio.gz
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/cpio-lib.sh
. "$TOP/scripts/cpio-lib.sh"

die() { printf 'build-sort-initramfs: error: %s\n' "$*" >&2; exit 1; }

main() {
	[ $# -eq 1 ] || die "usage: build-sort-initramfs.sh OUT.cpio.gz"
	local out=$1 sort
	sort=$(command -v sort) || die "no sort on this host (coreutils)"
	sort --version | head -n 1 | grep -q 'GNU coreutils' ||
		die "$sort is not GNU sort"
	STAGING=$(mktemp -d "${TMPDIR:-/tmp}/ramster-sort.XXXXXX")
	trap 'rm -rf "$STAGING"' EXIT
	add_with_libs "$STAGING" "$(readlink -f "$sort")" usr/bin/sort
	pack_cpio "$STAGING" "$out"
	echo "sort: $out ($(stat -c %s "$out") bytes)"
}

main "$@"
