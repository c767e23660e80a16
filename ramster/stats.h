/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - counters, their debugfs files and the one-line summary
 */
#ifndef _RAMSTER_STATS_H
#define _RAMSTER_STATS_H

#include <linux/atomic.h>
#include <linux/types.h>

struct dentry;

/*
 * Every counter is one row of stats_list.h, from which both enum
 * ramster_stat and ramster_stat_names[] are made, so a counter cannot
 * have one and not the other; its rows are in summary column order, only
 * ever appended.  Gauges (stored_pages, pool_total_size,
 * same_filled_pages, remote_pages, foreign_pages, foreign_pool_size,
 * local_pages) go up and down; all others only count up.  rx_* count
 * received frames rejected by the validator, one per enum
 * ramster_wire_error, in its order.  There is one reject_* counter per
 * reason a store can be refused, and one load_* per way a load can fail.
 */
enum ramster_stat {
#define RAMSTER_STAT(id, name) RAMSTER_STAT_##id,
#include "stats_list.h"
#undef RAMSTER_STAT
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
struct dentry *ramster_stats_peer_dir(u8 node);
int ramster_stats_summary(char *buf, size_t size, const u64 *values);

#endif /* _RAMSTER_STATS_H */
