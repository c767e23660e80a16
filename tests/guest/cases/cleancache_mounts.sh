#!/bin/sh
# Cleancache pools and mounts, and rmmod with only clean pages.
#  1. A filesystem mounted before ramster is loaded gets a pool when it
#     registers: its evicted pages come back from cleancache.
#  2. umount closes the pool: its pages are dropped.
#  3. Another filesystem, whose files have the same inode numbers (made
#     first, and not written since: a write would invalidate), is mounted
#     next: none of the first one's pages is returned for them; the first
#     one mounted again reads its own data.
#  4. rmmod with only clean pages held (no swap): it works, they are
#     dropped, the files read right without a backend, and a reload gives
#     the mounted filesystem a pool again.
#
# results: cleancache_pool_for_earlier_mount cleancache_umount_drops_pool
# results: cleancache_same_inodes_other_fs cleancache_remount_reads_own
# results: cleancache_rmmod_with_clean_pages cleancache_mounts_no_kernel_warnings
# memory: 128M
# timeout: 300
# swap disk: no
# data disk: ext4 64M 64M
FILES=8
PAGES=512

# read_twice DIR SEED: evict, read (the pages are put when evicted next),
# evict, read again; prints the cleancache hits of the second read and
# fails if a page was wrong.
read_twice() {
	local g rc
	evict
	/bin/fileset read "$1" $FILES $PAGES "$2" forward > /tmp/read1
	rc=$?
	evict
	g=$(cc_stat succ_gets)
	/bin/fileset read "$1" $FILES $PAGES "$2" shuffled > /tmp/read2 || rc=1
	cat /tmp/read1 /tmp/read2 >&2
	echo $(($(cc_stat succ_gets) - g))
	return $rc
}

# The other filesystem's files, made before anything is in cleancache.
mount_data 1 /mnt/b || echo "cannot mount data disk 1"
mkdir -p /mnt/b/set
/bin/fileset create /mnt/b/set $FILES $PAGES 22
inodes_b=$(/bin/fileset inodes /mnt/b/set $FILES)
umount /mnt/b

# 1. Mounted first, then the backend.
mount_data 0 /mnt/a || echo "cannot mount data disk 0"
mkdir -p /mnt/a/set
/bin/fileset create /mnt/a/set $FILES $PAGES 21
load_ramster
pools=$(stat_of clean_pools)
hits=$(read_twice /mnt/a/set 21); rc=$?
check cleancache_pool_for_earlier_mount "pools=$pools hits=$hits rc=$rc" \
	test "$pools" = 1 -a "$hits" -gt 0 -a "$rc" = 0

# 2. umount: the pool and its pages go.
inodes_a=$(/bin/fileset inodes /mnt/a/set $FILES)
evict
before=$(stat_of clean_pages)
umount /mnt/a
after=$(stat_of clean_pages)
check cleancache_umount_drops_pool "clean pages $before -> $after, pools $(stat_of clean_pools)" \
	test "$before" -gt 0 -a "$after" = 0 -a "$(stat_of clean_pools)" = 0

# 3. The other filesystem: same inode numbers, other data (seed 22).
mount_data 1 /mnt/b || echo "cannot mount data disk 1"
echo "inodes: a: $inodes_a; b: $inodes_b"
hits=$(read_twice /mnt/b/set 22); rc=$?
grep BAD /tmp/read1 /tmp/read2 | head -n 3
check cleancache_same_inodes_other_fs "same inodes: $([ "$inodes_a" = "$inodes_b" ] && echo yes || echo no), rc=$rc hits=$hits" \
	test "$inodes_a" = "$inodes_b" -a "$rc" = 0 -a "$hits" -gt 0
umount /mnt/b
mount_data 0 /mnt/a
hits=$(read_twice /mnt/a/set 21); rc=$?
check cleancache_remount_reads_own "rc=$rc hits=$hits" \
	test "$rc" = 0 -a "$hits" -gt 0

# 4. rmmod with clean pages only: they are dropped.
evict
held=$(stat_of clean_pages)
stored=$(stat_of stored_pages)
rmmod ramster; rmmod_rc=$?
problem=
[ "$held" -gt 0 ] || problem="no clean page held"
[ "$stored" = 0 ] || problem="$problem $stored swap pages"
[ "$rmmod_rc" = 0 ] || problem="$problem rmmod failed"
puts=$(cc_stat puts)
hits=$(read_twice /mnt/a/set 21) || problem="$problem wrong-pages-without-backend"
[ "$(cc_stat puts)" = "$puts" ] || problem="$problem puts-without-backend"
load_ramster || problem="$problem reload-failed"
hits=$(read_twice /mnt/a/set 21) || problem="$problem wrong-pages-after-reload"
[ "$hits" -gt 0 ] || problem="$problem no-hits-after-reload"
umount /mnt/a
rmmod ramster || problem="$problem second-rmmod-failed"
check cleancache_rmmod_with_clean_pages "held $held clean pages: $problem" \
	test -z "$problem"
check cleancache_mounts_no_kernel_warnings "see dmesg" dmesg_clean
