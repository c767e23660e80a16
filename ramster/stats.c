// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - counters, their debugfs files and the one-line summary
 *
 * /sys/kernel/debug/ramster/ has one read-only file per counter, named as
 * in RAMSTER_STATS(), and a file "summary" with every counter on one line
 * as name=value pairs in RAMSTER_STATS() order, so that a script can
 * sample all of them at once and keep working when columns are appended.
 */
#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stringify.h>

#include "ramster.h"
#include "stats.h"

atomic64_t ramster_stat_values[RAMSTER_NR_STATS];

/* In enum order: both are made from the rows of stats_list.h. */
const char * const ramster_stat_names[RAMSTER_NR_STATS] = {
#define RAMSTER_STAT(id, name) __stringify(name),
#include "stats_list.h"
#undef RAMSTER_STAT
};
EXPORT_SYMBOL_IF_KUNIT(ramster_stat_names);

static struct dentry *ramster_debugfs_root;
static struct dentry *ramster_debugfs_peers;
static struct dentry *ramster_debugfs_peer[U8_MAX + 1];
static DEFINE_MUTEX(ramster_debugfs_lock);	/* creates the peer dirs */
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
EXPORT_SYMBOL_IF_KUNIT(ramster_stats_summary);

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
	ramster_debugfs_peers = NULL;
	memset(ramster_debugfs_peer, 0, sizeof(ramster_debugfs_peer));
	ramster_stats_refresh = NULL;
}

/* Where later parts (per-peer directories) add their files. */
struct dentry *ramster_stats_debugfs_root(void)
{
	return ramster_debugfs_root;
}

/**
 * ramster_stats_peer_dir - peers/<node>/, where each layer puts its files
 * about another node
 * @node: the node
 *
 * Return: the directory, made on first use (an error pointer without
 * debugfs, which debugfs_create_*() accept).
 */
struct dentry *ramster_stats_peer_dir(u8 node)
{
	char name[8];

	mutex_lock(&ramster_debugfs_lock);
	if (!ramster_debugfs_peers)
		ramster_debugfs_peers = debugfs_create_dir("peers",
							   ramster_debugfs_root);
	if (!ramster_debugfs_peer[node]) {
		snprintf(name, sizeof(name), "%u", node);
		ramster_debugfs_peer[node] =
			debugfs_create_dir(name, ramster_debugfs_peers);
	}
	mutex_unlock(&ramster_debugfs_lock);
	return ramster_debugfs_peer[node];
}
