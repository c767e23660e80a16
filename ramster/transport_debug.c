// SPDX-License-Identifier: GPL-2.0
/*
 * transport_debug.c - the links in debugfs (built with CONFIG_DEBUG_FS)
 *
 * As o2net's netdebug.c: inspection only.  peers/<num>/ gets the link's
 * files (state, link_ups, link_downs, frames_handled); the services add
 * theirs to the same directory.  "links" shows every link on one line.
 * A peer's files go with the peer (a failed start, module exit): they
 * point into it.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "ramster.h"
#include "stats.h"
#include "transport.h"
#include "transport_internal.h"

static int ramster_peer_state_show(struct seq_file *m, void *v)
{
	struct ramster_peer *peer = m->private;

	seq_printf(m, "%s\n", ramster_link_state_name(READ_ONCE(peer->state)));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_peer_state);

/* A u64 of the peer's, written under its lock or by its thread alone. */
static int ramster_peer_u64_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%llu\n", READ_ONCE(*(u64 *)m->private));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_peer_u64);

/* Every link, one line each ("holders" and "owners" have the pages). */
static int ramster_links_show(struct seq_file *m, void *v)
{
	int i;

	seq_puts(m, "node address               role   state      ups downs security\n");
	for (i = 0; i < RAMSTER_MAX_NODES; i++) {
		struct ramster_peer *peer = ramster_peers[i];

		if (!peer)
			continue;
		seq_printf(m, "%-4u %pI4:%-5u %-6s %-10s %3llu %5llu %s\n",
			   i, &peer->info.addr, be16_to_cpu(peer->info.port),
			   ramster_role_name(peer->info.role),
			   ramster_link_state_name(READ_ONCE(peer->state)),
			   READ_ONCE(peer->link_ups),
			   READ_ONCE(peer->link_downs),
			   READ_ONCE(peer->security));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_links);

void ramster_peer_debugfs_add(struct ramster_peer *peer)
{
	struct dentry *dir = ramster_stats_peer_dir(peer->info.num);
	const struct {
		const char *name;
		u64 *val;
	} u64s[] = {
		{ "link_ups", &peer->link_ups },
		{ "link_downs", &peer->link_downs },
		{ "frames_handled", &peer->frames_handled },
		{ "tx_queued_bytes", &peer->txq_bytes },
		{ "tx_queued_page_bytes", &peer->txq_page_bytes },
		{ "tx_queued_max_bytes", &peer->txq_max_bytes },
		{ "tx_queued_page_max_bytes", &peer->txq_page_max_bytes },
		{ "tx_queue_refused", &peer->txq_refused },
	};
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(u64s) + 1 != ARRAY_SIZE(peer->debugfs));
	peer->debugfs[0] = debugfs_create_file("state", 0444, dir, peer,
					       &ramster_peer_state_fops);
	for (i = 0; i < ARRAY_SIZE(u64s); i++)
		peer->debugfs[i + 1] = debugfs_create_file(u64s[i].name, 0444,
							   dir, u64s[i].val,
							   &ramster_peer_u64_fops);
}

void ramster_peer_debugfs_remove(struct ramster_peer *peer)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(peer->debugfs); i++) {
		debugfs_remove(peer->debugfs[i]);
		peer->debugfs[i] = NULL;
	}
}

void ramster_transport_debugfs_init(struct dentry *root)
{
	debugfs_create_file("links", 0444, root, NULL, &ramster_links_fops);
}
