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

int ramster_cluster_init(void);
void ramster_cluster_exit(void);
int ramster_cluster_local(struct ramster_node_info *info);
int ramster_cluster_node(u8 num, struct ramster_node_info *info);
const char *ramster_role_name(enum ramster_role role);
int ramster_role_parse(const char *buf, enum ramster_role *role);

#endif /* _RAMSTER_CLUSTER_H */
