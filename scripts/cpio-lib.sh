# shellcheck shell=bash
# Sourced by the initramfs builders (build-initramfs.sh,
# build-nbd-initramfs.sh, build-tool-initramfs.sh), which define die().

# pack_cpio ROOT OUT: ROOT as a gzip'd newc cpio archive OUT, the form the
# kernel unpacks as an initramfs or as one member of it; reproducible
# (sorted, no timestamps of the build), and written whole or not at all.
pack_cpio() {
	(cd "$1" && find . -print0 | sort -z |
		cpio --null -o -H newc --quiet --reproducible) |
		gzip -1 > "$2.tmp"
	mv "$2.tmp" "$2"
}

# add_with_libs ROOT BINARY DEST: BINARY as ROOT/DEST, and every library
# ldd names for it at its own path under ROOT (the dynamic loader too).
add_with_libs() {
	local root=$1 bin=$2 dest=$3 lib missing
	install -D -m 0755 "$bin" "$root/$dest"
	missing=$(ldd "$bin" | grep 'not found' || true)
	[ -z "$missing" ] || die "$(basename "$bin") needs libraries this host lacks: $missing"
	ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		while read -r lib; do
			mkdir -p "$root/$(dirname "$lib")"
			cp -L "$lib" "$root/$lib"
		done
}
