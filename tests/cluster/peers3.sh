# shellcheck shell=bash
# peers3: everyone lends, everyone borrows (tests/configs/peers-3.conf):
# three peers at 2.5x their RAM at once.
#
# results: cluster_three_peers_under_pressure cluster_peers3_no_kernel_warnings
# timeout: 1800

# shellcheck source=tests/cluster/lib.sh
. "$TOP/tests/cluster/lib.sh"

three_peers_under_pressure() {
	local num mem bad
	mem=$(node_mem 1)
	for num in 1 2 3; do load_bg "$num" $((mem * 5 / 2)) "$num"; done
	LOADING="1 2 3" watch_loads 1200 1:remote_pages 2:remote_pages 3:remote_pages ||
		problem "workloads did not finish"
	"$CLUSTER" stat > "$RAMSTER_CLUSTER_DIR/stat.txt" 2>&1 || true
	for num in 1 2 3; do
		bad=$(load_bad "$num")
		[ "$bad" = 0 ] || problem "node $num bad pages: $bad"
		[ "${WATCH_MAX[$num:remote_pages]:-0}" -gt 0 ] ||
			problem "node $num never had remote pages"
	done
	session_down || problem "down failed: $(tail -n 1 "$DOWN_LOG")"
	FIGURES="peak remote pages ${WATCH_MAX[1:remote_pages]:-0}/${WATCH_MAX[2:remote_pages]:-0}/${WATCH_MAX[3:remote_pages]:-0}, 0 bad"
}

session_up "$TOP/tests/configs/peers-3.conf"
check cluster_three_peers_under_pressure three_peers_under_pressure
check cluster_peers3_no_kernel_warnings check_consoles_clean
