#!/bin/sh
# Boot, frontswap debugfs, module parameter validation, registration with
# zeroed counters, the KUnit suites, and rmmod of an empty backend.
#
# results: kernel_boots_frontswap_debugfs bad_module_params_refused
# results: ramster_loads_counters_zero kunit_suites_pass
# results: rmmod_empty_backend_and_reload no_kernel_warnings
# memory: 128M
# timeout: 180
# swap disk: no

# 1. The patched kernel boots and frontswap's debugfs is there, with the
#    curr_pages file the series adds.
missing=
for f in loads succ_stores failed_stores invalidates curr_pages; do
	[ -r "$FRONTSWAP/$f" ] || missing="$missing $f"
done
check kernel_boots_frontswap_debugfs "missing in $FRONTSWAP:$missing" \
	test -z "$missing"

# 2. Bad parameters: the load fails, with a message naming the problem.
bad=
for args in compressor=nope max_pool_percent=0 max_pool_percent=101 \
	max_pool_percent=abc max_compressed_percent=5 keepalive_ms=0 \
	request_timeout_ms=0 remote_interval_ms=0 remote_window=0; do
	if load_ramster "$args" 2>/dev/null; then
		bad="$bad loaded-with-$args"
		rmmod ramster
	fi
done
dmesg | grep 'ramster' | tail -n 12
dmesg | grep -q 'compressor "nope" is not available' ||
	bad="$bad no-message-for-compressor"
dmesg | grep -q 'max_pool_percent=101: must be a whole number from 1 to 100' ||
	bad="$bad no-message-for-max_pool_percent"
dmesg | grep -q 'keepalive_ms=0: must be a whole number from 10 to' ||
	bad="$bad no-message-for-keepalive_ms"
[ -e "$RAMSTER" ] && bad="$bad debugfs-left-behind"
check bad_module_params_refused "$bad" test -z "$bad"

# 3. A good load registers, and every counter starts at zero.
problem=
load_ramster || problem="insmod failed"
dmesg | grep -q 'ramster: registered: compressor lz4' ||
	problem="$problem no-registered-message"
summary=$(cat "$RAMSTER/summary" 2>/dev/null)
echo "summary: $summary"
[ -n "$summary" ] || problem="$problem no-summary"
for pair in $summary; do
	[ "${pair#*=}" = 0 ] || problem="$problem $pair"
	[ "$(cat "$RAMSTER/${pair%%=*}")" = "${pair#*=}" ] ||
		problem="$problem file-${pair%%=*}-differs"
done
check ramster_loads_counters_zero "$problem" test -z "$problem"

# 4. KUnit: every suite of ramster_kunit.ko passes.
insmod "$MODDIR/ramster_kunit.ko"
dmesg | sed -n '/Subtest: ramster_/,$p' | grep -E '(ok|Subtest|#)' |
	grep -v 'ramster: ' | head -n 60
suites_ok=$(dmesg | grep -cE '[^t] ok [0-9]+ (- )?ramster_(policy|index|entry_transitions|stats|wire|foreign|auth|cleancache|reconcile)$')
failures=$(dmesg | grep -cE 'not ok [0-9]+ ')
echo "kunit: $suites_ok suites ok, $failures failures"
check kunit_suites_pass "$suites_ok of 9 suites ok, $failures not ok" \
	test "$suites_ok" = 9 -a "$failures" = 0
rmmod ramster_kunit

# 5. With no page stored, rmmod works and frontswap is free again.
problem=
rmmod ramster || problem="rmmod failed"
dmesg | grep -q 'ramster: unregistered' || problem="$problem no-message"
load_ramster || problem="$problem reload-failed"
rmmod ramster || problem="$problem second-rmmod-failed"
check rmmod_empty_backend_and_reload "$problem" test -z "$problem"
check no_kernel_warnings "see dmesg" dmesg_clean
