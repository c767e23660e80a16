// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - counters, their debugfs files and the one-line summary
 *
 * /sys/kernel/debug/ramster/ has one read-only file per counter, named as
 * in RAMSTER_STATS(), and a file "summary" with every counter on one line
 * as name=value pairs in RAMSTER_STATS() order, so that a script can
 * sample all of them at once and keep working when columns are appended.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "ramster.h"
#include "stats.h"

atomic64_t ramster_stat_values[RAMSTER_NR_STATS];

const char * const ramster_stat_names[RAMSTER_NR_STATS] = {
	[RAMSTER_STAT_STORED_PAGES] = "stored_pages",
	[RAMSTER_STAT_POOL_TOTAL_SIZE] = "pool_total_size",
	[RAMSTER_STAT_SAME_FILLED_PAGES] = "same_filled_pages",
	[RAMSTER_STAT_LOADS] = "loads",
	[RAMSTER_STAT_STORES] = "stores",
	[RAMSTER_STAT_INVALIDATES] = "invalidates",
	[RAMSTER_STAT_INVALIDATE_AREAS] = "invalidate_areas",
	[RAMSTER_STAT_DUPLICATE_ENTRY] = "duplicate_entry",
	[RAMSTER_STAT_REJECT_POOL_LIMIT] = "reject_pool_limit",
	[RAMSTER_STAT_REJECT_COMPRESS_POOR] = "reject_compress_poor",
	[RAMSTER_STAT_REJECT_COMPRESS_FAIL] = "reject_compress_fail",
	[RAMSTER_STAT_REJECT_ALLOC_FAIL] = "reject_alloc_fail",
	[RAMSTER_STAT_REJECT_KMEMCACHE_FAIL] = "reject_kmemcache_fail",
	[RAMSTER_STAT_REJECT_NO_AREA] = "reject_no_area",
	[RAMSTER_STAT_REJECT_UNLOADING] = "reject_unloading",
	[RAMSTER_STAT_LOAD_NOT_FOUND] = "load_not_found",
	[RAMSTER_STAT_LOAD_DECOMPRESS_FAIL] = "load_decompress_fail",
	[RAMSTER_STAT_SHRINK_RUNS] = "shrink_runs",
	[RAMSTER_STAT_SHRINK_PAGES] = "shrink_pages",
	[RAMSTER_STAT_REMOTE_PAGES] = "remote_pages",
	[RAMSTER_STAT_FOREIGN_PAGES] = "foreign_pages",
	[RAMSTER_STAT_FOREIGN_POOL_SIZE] = "foreign_pool_size",
	[RAMSTER_STAT_REMOTE_PUTS] = "remote_puts",
	[RAMSTER_STAT_REMOTE_PUTS_REFUSED] = "remote_puts_refused",
	[RAMSTER_STAT_REMOTE_PUTS_FAILED] = "remote_puts_failed",
	[RAMSTER_STAT_REMOTE_LOADS] = "remote_loads",
	[RAMSTER_STAT_REMOTE_LOADS_FAILED] = "remote_loads_failed",
	[RAMSTER_STAT_REMOTE_LOADS_TIMEOUT] = "remote_loads_timeout",
	[RAMSTER_STAT_REMOTE_LOADS_BAD] = "remote_loads_bad",
	[RAMSTER_STAT_REMOTE_INVALIDATES] = "remote_invalidates",
	[RAMSTER_STAT_REMOTE_INVALIDATES_LOST] = "remote_invalidates_lost",
	[RAMSTER_STAT_REMOTE_INVALIDATE_AREAS] = "remote_invalidate_areas",
	[RAMSTER_STAT_FOREIGN_PUTS] = "foreign_puts",
	[RAMSTER_STAT_FOREIGN_PUTS_FULL] = "foreign_puts_full",
	[RAMSTER_STAT_FOREIGN_PUTS_REFUSED] = "foreign_puts_refused",
	[RAMSTER_STAT_FOREIGN_PUTS_NO_MEMORY] = "foreign_puts_no_memory",
	[RAMSTER_STAT_FOREIGN_PUTS_STALE] = "foreign_puts_stale",
	[RAMSTER_STAT_FOREIGN_GETS] = "foreign_gets",
	[RAMSTER_STAT_FOREIGN_GETS_NOT_FOUND] = "foreign_gets_not_found",
	[RAMSTER_STAT_FOREIGN_INVALIDATES] = "foreign_invalidates",
	[RAMSTER_STAT_FOREIGN_DROPPED] = "foreign_dropped",
	[RAMSTER_STAT_BYTES_SENT] = "bytes_sent",
	[RAMSTER_STAT_BYTES_RECEIVED] = "bytes_received",
	[RAMSTER_STAT_FRAMES_SENT] = "frames_sent",
	[RAMSTER_STAT_FRAMES_RECEIVED] = "frames_received",
	[RAMSTER_STAT_LINK_UPS] = "link_ups",
	[RAMSTER_STAT_LINK_DOWNS] = "link_downs",
	[RAMSTER_STAT_HANDSHAKE_REJECTS] = "handshake_rejects",
	[RAMSTER_STAT_PROTOCOL_ERRORS] = "protocol_errors",
	[RAMSTER_STAT_LATE_REPLIES] = "late_replies",
	[RAMSTER_STAT_RX_BAD_MAGIC] = "rx_bad_magic",
	[RAMSTER_STAT_RX_BAD_VERSION] = "rx_bad_version",
	[RAMSTER_STAT_RX_UNKNOWN_TYPE] = "rx_unknown_type",
	[RAMSTER_STAT_RX_BAD_FLAGS] = "rx_bad_flags",
	[RAMSTER_STAT_RX_BAD_RESERVED] = "rx_bad_reserved",
	[RAMSTER_STAT_RX_BAD_LENGTH] = "rx_bad_length",
	[RAMSTER_STAT_RX_BAD_NODE] = "rx_bad_node",
	[RAMSTER_STAT_RX_BEFORE_HANDSHAKE] = "rx_before_handshake",
	[RAMSTER_STAT_RX_BAD_CRC] = "rx_bad_crc",
	[RAMSTER_STAT_RX_BAD_PAYLOAD] = "rx_bad_payload",
	[RAMSTER_STAT_LOCAL_PAGES] = "local_pages",
	[RAMSTER_STAT_LINK_TIMEOUTS] = "link_timeouts",
	[RAMSTER_STAT_REQUEST_TIMEOUTS] = "request_timeouts",
	[RAMSTER_STAT_SUCTION_RUNS] = "suction_runs",
	[RAMSTER_STAT_SUCTION_PAGES] = "suction_pages",
	[RAMSTER_STAT_SUCTION_REMOTE_PAGES] = "suction_remote_pages",
	[RAMSTER_STAT_RECALLS_SENT] = "recalls_sent",
	[RAMSTER_STAT_RECALLS_RECEIVED] = "recalls_received",
	[RAMSTER_STAT_RECALL_PAGES] = "recall_pages",
	[RAMSTER_STAT_RECALL_UNMET] = "recall_unmet",
	[RAMSTER_STAT_REJECT_DRAINING] = "reject_draining",
};
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_stat_names);

static struct dentry *ramster_debugfs_root;
/* Brings the gauges that are computed, not counted, up to date. */
static void (*ramster_stats_refresh)(void);

/**
 * ramster_stats_summary - format counters as the one-line summary
 * @buf: output buffer
 * @size: its size
 * @values: RAMSTER_NR_STATS values, in RAMSTER_STATS() order
 *
 * Return: the length written (without the terminating NUL), or -ENOSPC if
 * @buf is too small for the whole line.
 */
int ramster_stats_summary(char *buf, size_t size, const u64 *values)
{
	size_t len = 0;
	int i, n;

	for (i = 0; i < RAMSTER_NR_STATS; i++) {
		n = snprintf(buf + len, size - len, "%s%s=%llu",
			     i ? " " : "", ramster_stat_names[i], values[i]);
		if (n >= size - len)
			return -ENOSPC;
		len += n;
	}
	n = snprintf(buf + len, size - len, "\n");
	if (n >= size - len)
		return -ENOSPC;
	return len + n;
}
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_stats_summary);

static int ramster_stat_get(void *data, u64 *val)
{
	if (ramster_stats_refresh)
		ramster_stats_refresh();
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(ramster_stat_fops, ramster_stat_get, NULL, "%llu\n");

static int ramster_summary_show(struct seq_file *m, void *v)
{
	u64 values[RAMSTER_NR_STATS];
	char *line;
	int i, len;

	if (ramster_stats_refresh)
		ramster_stats_refresh();
	for (i = 0; i < RAMSTER_NR_STATS; i++)
		values[i] = atomic64_read(&ramster_stat_values[i]);
	line = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	len = ramster_stats_summary(line, PAGE_SIZE, values);
	if (len > 0)
		seq_write(m, line, len);
	kfree(line);
	return len < 0 ? len : 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_summary);

/**
 * ramster_stats_init - zero the counters and create the debugfs files
 * @refresh: called before counters are read, to compute the gauges that
 *	are not counted as they change; may be NULL
 *
 * Return: 0.  Without debugfs the counters still work, unseen.
 */
int ramster_stats_init(void (*refresh)(void))
{
	int i;

	for (i = 0; i < RAMSTER_NR_STATS; i++)
		atomic64_set(&ramster_stat_values[i], 0);
	ramster_stats_refresh = refresh;

	ramster_debugfs_root = debugfs_create_dir(RAMSTER_NAME, NULL);
	for (i = 0; i < RAMSTER_NR_STATS; i++)
		debugfs_create_file_unsafe(ramster_stat_names[i], 0444,
					   ramster_debugfs_root,
					   &ramster_stat_values[i],
					   &ramster_stat_fops);
	debugfs_create_file("summary", 0444, ramster_debugfs_root, NULL,
			    &ramster_summary_fops);
	return 0;
}

void ramster_stats_exit(void)
{
	debugfs_remove_recursive(ramster_debugfs_root);
	ramster_debugfs_root = NULL;
	ramster_stats_refresh = NULL;
}

/* Where later parts (per-peer directories) add their files. */
struct dentry *ramster_stats_debugfs_root(void)
{
	return ramster_debugfs_root;
}
