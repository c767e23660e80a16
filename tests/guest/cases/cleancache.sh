#!/bin/sh
# Cleancache with ramster as its backend, on an ext4 data disk.
#  1. A file set of twice the guest's RAM (text-like pages, about 2:1 with
#     lz4, one in eight random), read twice, the second time in another
#     order: the second pass gets pages from cleancache and reads fewer
#     sectors from the disk, and every page is right.  Figures: the hit
#     rate and the sectors saved.
#  2. Coherency: files whose old pages sit in cleancache are overwritten
#     (whole and partial pages), truncated and extended, punched, have a
#     range collapsed, are written with O_DIRECT and through mmap and
#     msync; evicted and read back twice, every page is the new data.
#
# results: cleancache_reread_hits cleancache_coherency_overwrite
# results: cleancache_coherency_truncate_extend cleancache_coherency_punch_hole
# results: cleancache_coherency_collapse_range cleancache_coherency_direct_io
# results: cleancache_coherency_mmap_write cleancache_no_kernel_warnings
# memory: 128M
# timeout: 600
# swap disk: no
# data disk: ext4 384M
load_ramster
mount_data 0 /mnt || echo "cannot mount data disk 0"
dev=$(data_disk 0)
mkdir -p /mnt/set /mnt/coherency

# 1. The file set: 4 MiB files, twice the RAM.
files=$(( $(ram_mib) * 2 / 4 ))
pages=$((files * 1024))
/bin/fileset create /mnt/set "$files" 1024 11
evict
s0=$(sectors_read "$dev")
/bin/fileset read /mnt/set "$files" 1024 11 forward > /tmp/pass1; rc1=$?
s1=$(sectors_read "$dev")
g1=$(cc_stat succ_gets)
clean=$(stat_of clean_pages)
ratio=$(awk -v p="$clean" -v b="$(stat_of clean_pool_size)" \
	'BEGIN { if (b) printf "%.2f", p * 4096 / b; else print 0 }')
/bin/fileset read /mnt/set "$files" 1024 11 shuffled > /tmp/pass2; rc2=$?
s2=$(sectors_read "$dev")
g2=$(cc_stat succ_gets)
cat /tmp/pass1 /tmp/pass2
show_stats
hits=$((g2 - g1))
read1=$((s1 - s0))
read2=$((s2 - s1))
figures=$(awk -v h="$hits" -v p="$pages" -v r1="$read1" -v r2="$read2" \
	-v c="$clean" -v ratio="$ratio" 'BEGIN {
	printf "%d files, %d pages: hits %d (%.1f%%), sectors read %d then %d (%.1f%% saved), %d clean pages kept after pass 1 at %s:1",
		p / 1024, p, h, 100 * h / p, r1, r2, r1 ? 100 * (r1 - r2) / r1 : 0, c, ratio }')
echo "reread: $figures"
bad=$(sed -n 's/.* bad=\([0-9]*\).*/\1/p' /tmp/pass1 /tmp/pass2 | awk '{ s += $1 } END { print s + 0 }')
if [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ "$bad" = 0 ] && [ "$hits" -gt 0 ] &&
	[ "$read2" -lt "$read1" ]; then
	ok "cleancache_reread_hits # $figures"
else
	not_ok cleancache_reread_hits "rc=$rc1/$rc2 bad=$bad; $figures"
fi

# 2. Coherency, one file per way of changing it.
puts=$(cc_stat puts)
/bin/fileset coherency /mnt/coherency 5 > /tmp/coherency 2>&1
cat /tmp/coherency
show_stats
puts=$(($(cc_stat puts) - puts))
for s in overwrite truncate_extend punch_hole collapse_range direct_io \
	mmap_write; do
	if grep -q "^coherency: $s ok" /tmp/coherency && [ "$puts" -gt 0 ] &&
		! grep -q "^BAD $s before" /tmp/coherency; then
		ok "cleancache_coherency_$s"
	else
		not_ok "cleancache_coherency_$s" "$puts puts; $(grep -m 2 -E "^(BAD $s |coherency: $s )" /tmp/coherency | tr '\n' ' ')"
	fi
done
umount /mnt
rmmod ramster
check cleancache_no_kernel_warnings "see dmesg" dmesg_clean
