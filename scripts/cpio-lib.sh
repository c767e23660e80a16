# shellcheck shell=bash
# Sourced by the initramfs builders (build-initramfs.sh,
# build-nbd-initramfs.sh).

# pack_cpio ROOT OUT: ROOT as a gzip'd newc cpio archive OUT, the form the
# kernel unpacks as an initramfs or as one member of it; reproducible
# (sorted, no timestamps of the build), and written whole or not at all.
pack_cpio() {
	(cd "$1" && find . -print0 | sort -z |
		cpio --null -o -H newc --quiet --reproducible) |
		gzip -1 > "$2.tmp"
	mv "$2.tmp" "$2"
}
