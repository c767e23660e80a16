#!/bin/sh
# zswap from the same kernel image (zswap.enabled=1 on the command line);
# ramster cannot take the frontswap slot zswap holds, and says so.
#
# results: zswap_same_image ramster_refused_while_zswap_registered
# results: zswap_no_kernel_warnings
# memory: 128M
# timeout: 600
# swap disk: yes
# kernel args: zswap.enabled=1 zswap.compressor=lz4 zswap.zpool=zsmalloc
swap_on
if load_ramster 2>/dev/null; then busy=no; rmmod ramster; else busy=yes; fi
dmesg | grep -q 'another backend (zswap?) is registered' || busy="$busy,no-message"
watch_max "$DBG/zswap/stored_pages" /tmp/max_stored & watcher=$!
run_workload $(( $(ram_mib) * 3 )); rc=$?
kill $watcher
grep -r . "$DBG/zswap/" | sed 's|.*/zswap/||' | tr '\n' ' '; echo
check zswap_same_image "rc=$rc bad=$(bad_pages) zswap_max_stored=$(cat /tmp/max_stored)" \
	test "$rc" = 0 -a "$(bad_pages)" = 0 -a "$(cat /tmp/max_stored)" -gt 0
check ramster_refused_while_zswap_registered "refused: $busy" test "$busy" = yes
check zswap_no_kernel_warnings "see dmesg" dmesg_clean
