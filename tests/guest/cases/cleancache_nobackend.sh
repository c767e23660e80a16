#!/bin/sh
# The cleancache kernel without a backend: the file tests of the
# cleancache case (the file set of twice the RAM read twice, and every
# coherency scenario) pass unchanged, and cleancache is never called.
#
# results: cleancache_nobackend_reread cleancache_nobackend_coherency
# results: cleancache_nobackend_no_kernel_warnings
# memory: 128M
# timeout: 600
# swap disk: no
# data disk: ext4 384M
mount_data 0 /mnt || echo "cannot mount data disk 0"
mkdir -p /mnt/set /mnt/coherency
files=$(( $(ram_mib) * 2 / 4 ))
/bin/fileset create /mnt/set "$files" 1024 11
evict
/bin/fileset read /mnt/set "$files" 1024 11 forward; rc1=$?
/bin/fileset read /mnt/set "$files" 1024 11 shuffled; rc2=$?
/bin/fileset coherency /mnt/coherency 5; rc3=$?
show_stats
calls=$(( $(cc_stat succ_gets) + $(cc_stat failed_gets) + $(cc_stat puts) + $(cc_stat invalidates) ))
check cleancache_nobackend_reread "rc=$rc1/$rc2, $calls cleancache calls" \
	test "$rc1" = 0 -a "$rc2" = 0 -a "$calls" = 0
check cleancache_nobackend_coherency "rc=$rc3, $calls cleancache calls" \
	test "$rc3" = 0 -a "$calls" = 0
umount /mnt
check cleancache_nobackend_no_kernel_warnings "see dmesg" dmesg_clean
