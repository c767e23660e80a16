/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - counters, their debugfs files and the one-line summary
 */
#ifndef _RAMSTER_STATS_H
#define _RAMSTER_STATS_H

#include <linux/atomic.h>
#include <linux/types.h>

/*
 * Every counter, in summary column order; ramster_stat_names[] in stats.c
 * has their names.  The summary is parsed by scripts, so its columns are
 * only ever appended: add new counters just before RAMSTER_NR_STATS, never
 * reorder, rename or remove (the KUnit suite enforces this).  Gauges
 * (stored_pages, pool_total_size, same_filled_pages, remote_pages,
 * foreign_pages, foreign_pool_size, local_pages) go up and down; all others only count
 * up.  rx_* count received frames rejected by the validator, one per
 * enum ramster_wire_error, in its order.  There is one reject_* counter per reason a store
 * can be refused, and one load_* per way a load can fail.
 */
enum ramster_stat {
	RAMSTER_STAT_STORED_PAGES,
	RAMSTER_STAT_POOL_TOTAL_SIZE,
	RAMSTER_STAT_SAME_FILLED_PAGES,
	RAMSTER_STAT_LOADS,
	RAMSTER_STAT_STORES,
	RAMSTER_STAT_INVALIDATES,
	RAMSTER_STAT_INVALIDATE_AREAS,
	RAMSTER_STAT_DUPLICATE_ENTRY,
	RAMSTER_STAT_REJECT_POOL_LIMIT,
	RAMSTER_STAT_REJECT_COMPRESS_POOR,
	RAMSTER_STAT_REJECT_COMPRESS_FAIL,
	RAMSTER_STAT_REJECT_ALLOC_FAIL,
	RAMSTER_STAT_REJECT_KMEMCACHE_FAIL,
	RAMSTER_STAT_REJECT_NO_AREA,
	RAMSTER_STAT_REJECT_UNLOADING,
	RAMSTER_STAT_LOAD_NOT_FOUND,
	RAMSTER_STAT_LOAD_DECOMPRESS_FAIL,
	RAMSTER_STAT_SHRINK_RUNS,
	RAMSTER_STAT_SHRINK_PAGES,
	RAMSTER_STAT_REMOTE_PAGES,
	RAMSTER_STAT_FOREIGN_PAGES,
	RAMSTER_STAT_FOREIGN_POOL_SIZE,
	RAMSTER_STAT_REMOTE_PUTS,
	RAMSTER_STAT_REMOTE_PUTS_REFUSED,
	RAMSTER_STAT_REMOTE_PUTS_FAILED,
	RAMSTER_STAT_REMOTE_LOADS,
	RAMSTER_STAT_REMOTE_LOADS_FAILED,
	RAMSTER_STAT_REMOTE_LOADS_TIMEOUT,
	RAMSTER_STAT_REMOTE_LOADS_BAD,
	RAMSTER_STAT_REMOTE_INVALIDATES,
	RAMSTER_STAT_REMOTE_INVALIDATES_LOST,
	RAMSTER_STAT_REMOTE_INVALIDATE_AREAS,
	RAMSTER_STAT_FOREIGN_PUTS,
	RAMSTER_STAT_FOREIGN_PUTS_FULL,
	RAMSTER_STAT_FOREIGN_PUTS_REFUSED,
	RAMSTER_STAT_FOREIGN_PUTS_NO_MEMORY,
	RAMSTER_STAT_FOREIGN_PUTS_STALE,
	RAMSTER_STAT_FOREIGN_GETS,
	RAMSTER_STAT_FOREIGN_GETS_NOT_FOUND,
	RAMSTER_STAT_FOREIGN_INVALIDATES,
	RAMSTER_STAT_FOREIGN_DROPPED,
	RAMSTER_STAT_BYTES_SENT,
	RAMSTER_STAT_BYTES_RECEIVED,
	RAMSTER_STAT_FRAMES_SENT,
	RAMSTER_STAT_FRAMES_RECEIVED,
	RAMSTER_STAT_LINK_UPS,
	RAMSTER_STAT_LINK_DOWNS,
	RAMSTER_STAT_HANDSHAKE_REJECTS,
	RAMSTER_STAT_PROTOCOL_ERRORS,
	RAMSTER_STAT_LATE_REPLIES,
	RAMSTER_STAT_RX_BAD_MAGIC,
	RAMSTER_STAT_RX_BAD_VERSION,
	RAMSTER_STAT_RX_UNKNOWN_TYPE,
	RAMSTER_STAT_RX_BAD_FLAGS,
	RAMSTER_STAT_RX_BAD_RESERVED,
	RAMSTER_STAT_RX_BAD_LENGTH,
	RAMSTER_STAT_RX_BAD_NODE,
	RAMSTER_STAT_RX_BEFORE_HANDSHAKE,
	RAMSTER_STAT_RX_BAD_CRC,
	RAMSTER_STAT_RX_BAD_PAYLOAD,
	RAMSTER_STAT_LOCAL_PAGES,
	RAMSTER_STAT_LINK_TIMEOUTS,
	RAMSTER_STAT_REQUEST_TIMEOUTS,
	RAMSTER_STAT_SUCTION_RUNS,
	RAMSTER_STAT_SUCTION_PAGES,
	RAMSTER_STAT_SUCTION_REMOTE_PAGES,
	RAMSTER_STAT_RECALLS_SENT,
	RAMSTER_STAT_RECALLS_RECEIVED,
	RAMSTER_STAT_RECALL_PAGES,
	RAMSTER_STAT_RECALL_UNMET,
	RAMSTER_STAT_REJECT_DRAINING,
	RAMSTER_NR_STATS
};

extern atomic64_t ramster_stat_values[RAMSTER_NR_STATS];
extern const char * const ramster_stat_names[RAMSTER_NR_STATS];

static inline void ramster_stat_inc(enum ramster_stat stat)
{
	atomic64_inc(&ramster_stat_values[stat]);
}

static inline void ramster_stat_add(enum ramster_stat stat, u64 n)
{
	atomic64_add(n, &ramster_stat_values[stat]);
}

static inline void ramster_stat_dec(enum ramster_stat stat)
{
	atomic64_dec(&ramster_stat_values[stat]);
}

static inline void ramster_stat_set(enum ramster_stat stat, u64 value)
{
	atomic64_set(&ramster_stat_values[stat], value);
}

static inline u64 ramster_stat_read(enum ramster_stat stat)
{
	return atomic64_read(&ramster_stat_values[stat]);
}

int ramster_stats_init(void (*refresh)(void));
void ramster_stats_exit(void);
struct dentry *ramster_stats_debugfs_root(void);
int ramster_stats_summary(char *buf, size_t size, const u64 *values);

#endif /* _RAMSTER_STATS_H */
