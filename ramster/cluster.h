/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cluster.h - cluster membership: the nodes configured in configfs
 */
#ifndef _RAMSTER_CLUSTER_H
#define _RAMSTER_CLUSTER_H

#include <linux/types.h>

#define RAMSTER_MAX_NODES	255	/* numbers 0..254, as in cluster.conf */

enum ramster_role {
	RAMSTER_ROLE_PEER,	/* sends pages and holds pages for others */
	RAMSTER_ROLE_CLIENT,	/* only sends */
	RAMSTER_ROLE_SERVER,	/* only holds pages for others */
	RAMSTER_NR_ROLES
};

/**
 * struct ramster_node_info - what the rest of the module sees of a node
 * @num: node number
 * @addr: IPv4 address, network order
 * @port: TCP port, network order
 * @role: enum ramster_role
 * @capacity: pages it holds for other nodes
 */
struct ramster_node_info {
	u8 num;
	__be32 addr;
	__be16 port;
	enum ramster_role role;
	u64 capacity;
};

/* Does a node of @role send its pages to other nodes? */
static inline bool ramster_role_sends(enum ramster_role role)
{
	return role == RAMSTER_ROLE_PEER || role == RAMSTER_ROLE_CLIENT;
}

/* Does it hold other nodes' pages? */
static inline bool ramster_role_holds(enum ramster_role role)
{
	return role == RAMSTER_ROLE_PEER || role == RAMSTER_ROLE_SERVER;
}

/*
 * Two nodes are linked if one may send pages that the other may hold
 * (so client-client and server-server pairs are not).
 */
static inline bool ramster_roles_linked(enum ramster_role a,
					enum ramster_role b)
{
	return (ramster_role_sends(a) && ramster_role_holds(b)) ||
	       (ramster_role_holds(a) && ramster_role_sends(b));
}

/**
 * struct ramster_cluster_ops - what membership asks of the layer above
 * @start_local: "local" was written for the node @local: start it.  A
 *	negative errno refuses the write (the node stays not local).
 * @capacity_changed: the local node's capacity was written again
 *
 * Called from configfs writes, in process context; @capacity_changed
 * with the membership lock held.
 */
struct ramster_cluster_ops {
	int (*start_local)(const struct ramster_node_info *local);
	void (*capacity_changed)(u64 pages);
};

int ramster_cluster_init(const struct ramster_cluster_ops *ops);
void ramster_cluster_exit(void);
int ramster_cluster_local(struct ramster_node_info *info);
int ramster_cluster_node(u8 num, struct ramster_node_info *info);
const char *ramster_role_name(enum ramster_role role);
int ramster_role_parse(const char *buf, enum ramster_role *role);

#endif /* _RAMSTER_CLUSTER_H */
