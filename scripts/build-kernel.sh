#!/usr/bin/env bash
# Build a guest kernel from Debian's linux-source-6.1.
#
#   build-kernel.sh OUTDIR [SERIES [FRAGMENT...]]
#
# OUTDIR/src is the extracted (and patched) tree, OUTDIR/bzImage the result.
# SERIES is a quilt-style series file; without it (or with "") the tree stays
# vanilla (the "unpatched 6.1" of the benchmark).  The config is tinyconfig
# merged with kernel-patches/config.fragment, then with each FRAGMENT given
# (kernel-patches/debug.fragment for the debug flavour), and every fragment
# option (CONFIG_X=V, or "# CONFIG_X is not set") is checked in the final
# .config because merge_config.sh drops options with unmet dependencies
# without failing.
#
# RAMSTER_FRAGMENT_LATER_OK=1 (check-bisect.sh, and the vanilla kernel): a
# tree with only a prefix of the series, or none of it, may not define an
# option the fragment sets for a later patch (e.g. CONFIG_CLEANCACHE);
# such an option is skipped, with a message, instead of failing.  An
# option the tree does define is still checked.
#
# Re-running is incremental.  What is applied is recorded by content: when the
# series or a patch changes, the old series is reverse-applied (so touched
# files get new mtimes and make rebuilds them) and the new one applied.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
FRAGMENT=$TOP/kernel-patches/config.fragment
# The fragments merged after FRAGMENT (main's arguments).
EXTRA_FRAGMENTS=()
START=$(date +%s)

log() { printf '[kernel %4ss] %s\n' "$(($(date +%s) - START))" "$*"; }
die() { printf 'build-kernel: error: %s\n' "$*" >&2; exit 1; }

series_patches() {
	local series=$1
	[ -n "$series" ] || return 0
	# Comments and blank lines are allowed in series files.
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series"
}

# A stamp of everything that decides the source tree's content.
tree_stamp() {
	local series=$1 p
	{
		stat -c '%s %Y' "$TARBALL"
		series_patches "$series" | while read -r p; do
			echo "$p"
			sha256sum < "$(dirname "$series")/$p"
		done
	} | sha256sum | cut -d' ' -f1
}

# extract SRC [--touch]: --touch gives every file a new mtime, needed when
# objects from an earlier tree exist and must not be taken as up to date.
extract() {
	local src=$1
	shift
	log "extracting $(basename "$TARBALL")"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -C "$src.tmp" -xJf "$TARBALL" --strip-components=1 "$@"
	mv "$src.tmp" "$src"
	mkdir -p "$src/.ramster-applied"
}

# Undo the recorded series, newest first.  Returns 1 if that is impossible.
unapply_recorded() {
	local src=$1 applied=$1/.ramster-applied p
	[ -f "$applied/series" ] || return 0
	tac "$applied/series" | while read -r p; do
		log "reverting $p"
		patch -d "$src" -p1 -R -s --no-backup-if-mismatch \
			< "$applied/$p" || exit 1
	done || return 1
	rm -f "$applied"/*
}

apply_series() {
	local src=$1 series=$2 applied=$1/.ramster-applied p n=0 total
	total=$(series_patches "$series" | wc -l)
	while read -r p; do
		n=$((n + 1))
		log "applying [$n/$total] $p"
		patch -d "$src" -p1 -s -N --no-backup-if-mismatch \
			< "$(dirname "$series")/$p" ||
			die "patch $p does not apply (see output above)"
		cp "$(dirname "$series")/$p" "$applied/$p"
		echo "$p" >> "$applied/series"
	done < <(series_patches "$series")
}

prepare_tree() {
	local src=$1 series=$2 want have
	want=$(tree_stamp "$series")
	have=$(cat "$src/.ramster-applied/stamp" 2>/dev/null || true)
	if [ -d "$src" ] && [ "$want" = "$have" ]; then
		log "source tree up to date"
		return
	fi
	if [ ! -d "$src/.ramster-applied" ]; then
		extract "$src"
	elif ! unapply_recorded "$src"; then
		log "recorded series does not reverse cleanly; starting over"
		extract "$src" --touch
	fi
	rm -f "$src/.ramster-applied/stamp"
	apply_series "$src" "$series"
	echo "$want" > "$src/.ramster-applied/stamp"
}

# set_later CONFIG_X FRAGMENT...: does one of the FRAGMENTs set X (a
# value, or "is not set")?
set_later() {
	local opt=$1 frag
	shift
	for frag in "$@"; do
		grep -qE "^(# )?${opt}(=| is not set$)" "$frag" && return 0
	done
	return 1
}

# defined_in_tree SRC CONFIG_X: does a Kconfig file of SRC define X?
defined_in_tree() {
	grep -rqsE --include='Kconfig*' "^[[:space:]]*(menu)?config ${2#CONFIG_}\$" "$1"
}

configure() {
	local src=$1 obj=$2 want have opt line frag names
	want=$( { cat "$FRAGMENT" "${EXTRA_FRAGMENTS[@]}"
		cat "$src/.ramster-applied/stamp"; } |
		sha256sum | cut -d' ' -f1)
	have=$(cat "$obj/.fragment-stamp" 2>/dev/null || true)
	if [ -f "$obj/.config" ] && [ "$want" = "$have" ]; then
		log "config up to date"
		return
	fi
	names=$(basename "$FRAGMENT")
	for frag in "${EXTRA_FRAGMENTS[@]}"; do
		names="$names + $(basename "$frag")"
	done
	log "configuring: tinyconfig + $names"
	mkdir -p "$obj"
	make -s -C "$src" O="$obj" ARCH=x86_64 tinyconfig >/dev/null
	KCONFIG_CONFIG="$obj/.config" "$src/scripts/kconfig/merge_config.sh" \
		-m -O "$obj" "$obj/.config" "$FRAGMENT" "${EXTRA_FRAGMENTS[@]}" >/dev/null
	make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig >/dev/null
	# merge_config.sh reports but tolerates unmet options: we do not.
	# An option a later fragment sets again is that fragment's to check
	# (the later value wins, as in merge_config.sh: the debug kernel's
	# hung-task threshold).
	local missing=0 frags=("$FRAGMENT" "${EXTRA_FRAGMENTS[@]}") i
	for i in "${!frags[@]}"; do
		frag=${frags[$i]}
		while read -r line; do
			case "$line" in
			CONFIG_*=*) opt=${line%%=*} ;;
			"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *} ;;
			*) continue ;;
			esac
			if set_later "$opt" "${frags[@]:$((i + 1))}"; then
				continue
			elif ! grep -qx -- "$line" "$obj/.config" &&
				[ "${RAMSTER_FRAGMENT_LATER_OK:-}" = 1 ] &&
				! defined_in_tree "$src" "$opt"; then
				log "$opt: not in this tree (a later patch's), skipped"
			elif ! grep -qx -- "$line" "$obj/.config"; then
				echo "build-kernel: $(basename "$frag"): $opt: wanted" \
					"'$line', got '$(grep -E "^(# )?${opt}[= ]" \
					"$obj/.config" || echo unset)'" >&2
				missing=$((missing + 1))
			fi
		done < <(sed -e '/^# CONFIG_.* is not set$/b' -e 's/#.*//' "$frag")
	done
	[ "$missing" -eq 0 ] ||
		die "$missing option(s) of the fragments not set"
	echo "$want" > "$obj/.fragment-stamp"
}

build() {
	local src=$1 obj=$2 jobs
	jobs=$(nproc)
	log "building bzImage with -j$jobs (ccache: ${CCACHE_DIR:-~/.ccache})"
	# Fixed build identity, and paths made relative, so that ccache hits
	# across trees (patched, vanilla), clones and rebuilds.
	export KBUILD_BUILD_USER=ramster KBUILD_BUILD_HOST=build
	export KBUILD_BUILD_TIMESTAMP="2024-01-01"
	export CCACHE_BASEDIR=$OUT/.. CCACHE_NOHASHDIR=1
	make -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" -j"$jobs" \
		bzImage modules 2>&1 |
		while IFS= read -r line; do
			case "$line" in
			*": error:"*|*": warning:"*|*"Error "*) echo "$line" ;;
			*"  CC "*|*"  LD "*|*"  AR "*)
				n=$(( ${n:-0} + 1 ))
				[ $((n % 200)) -ne 0 ] ||
					log "... $n objects, now: ${line##* }"
				;;
			esac
		done
	[ "${PIPESTATUS[0]}" -eq 0 ] || die "kernel build failed"
	cp "$obj/arch/x86/boot/bzImage" "$OUT/bzImage"
	log "done: $OUT/bzImage ($(stat -c %s "$OUT/bzImage") bytes)"
}

main() {
	[ $# -ge 1 ] || die "usage: build-kernel.sh OUTDIR [SERIES [FRAGMENT...]]"
	OUT=$(mkdir -p "$1" && cd "$1" && pwd)
	local series=${2:-} frag
	for frag in "${@:3}"; do
		[ -f "$frag" ] || die "$frag: no such fragment"
		EXTRA_FRAGMENTS+=("$(cd "$(dirname "$frag")" && pwd)/$(basename "$frag")")
	done
	[ -z "$series" ] || series=$(cd "$(dirname "$series")" && pwd)/$(basename "$series")
	[ -f "$TARBALL" ] || die "$TARBALL missing: run 'make deps'"
	prepare_tree "$OUT/src" "$series"
	configure "$OUT/src" "$OUT/obj"
	build "$OUT/src" "$OUT/obj"
}

main "$@"
