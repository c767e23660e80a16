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

static int ramster_peer_ups_show(struct seq_file *m, void *v)
{
	struct ramster_peer *peer = m->private;

	seq_printf(m, "%llu\n", READ_ONCE(peer->link_ups));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_peer_ups);

static int ramster_peer_downs_show(struct seq_file *m, void *v)
{
	struct ramster_peer *peer = m->private;

	seq_printf(m, "%llu\n", READ_ONCE(peer->link_downs));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_peer_downs);

static int ramster_peer_handled_show(struct seq_file *m, void *v)
{
	struct ramster_peer *peer = m->private;

	seq_printf(m, "%llu\n", READ_ONCE(peer->frames_handled));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_peer_handled);

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

	peer->debugfs[0] = debugfs_create_file("state", 0444, dir, peer,
					       &ramster_peer_state_fops);
	peer->debugfs[1] = debugfs_create_file("link_ups", 0444, dir, peer,
					       &ramster_peer_ups_fops);
	peer->debugfs[2] = debugfs_create_file("link_downs", 0444, dir, peer,
					       &ramster_peer_downs_fops);
	peer->debugfs[3] = debugfs_create_file("frames_handled", 0444, dir,
					       peer, &ramster_peer_handled_fops);
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
