// SPDX-License-Identifier: GPL-2.0
/*
 * cluster.c - cluster membership in configfs, in the style of ocfs2's o2nm
 *
 *   /sys/kernel/config/ramster/<node name>/
 *	ipv4_address	dotted quad
 *	ipv4_port	1-65535
 *	role		peer, client or server
 *	capacity	pages this node holds for others (0 for a client)
 *	num		0-254, unique; only once address and port are set
 *	local		1 for this machine's node; only once num, address,
 *			port and role are set, and only one node is local
 *
 * A node directory is made with mkdir and removed with rmdir.  As in o2nm,
 * an attribute is written once (a second write is -EBUSY; the one
 * exception is the local node's capacity, which a lender may lower to
 * have pages recalled, or raise), a node is
 * visible to the rest of the module (by number) once its num is written,
 * and "local" comes last: setting it starts the node (listening, links),
 * through the ops the layer above gave ramster_cluster_init()
 * (lifecycle.c): membership knows nothing of what runs on it.  Userspace
 * fills this tree from cluster.conf (tools/ramster-conf.c:
 * "ramster-conf apply").
 *
 * Locking: ramster_cluster_lock (a mutex: configfs callbacks may sleep)
 * protects the node table and every node's attributes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ramster.h"
#include "auth.h"
#include "cluster.h"

static const struct ramster_cluster_ops *ramster_cluster_ops;

enum ramster_node_attr {
	RAMSTER_ATTR_ADDRESS,
	RAMSTER_ATTR_PORT,
	RAMSTER_ATTR_ROLE,
	RAMSTER_ATTR_CAPACITY,
	RAMSTER_ATTR_NUM,
};

/**
 * struct ramster_node - a configured node
 * @item: its configfs directory
 * @info: its attributes
 * @set: RAMSTER_ATTR_* bits of the attributes written
 * @local: this machine's node
 */
struct ramster_node {
	struct config_item item;
	struct ramster_node_info info;
	unsigned long set;
	bool local;
};

static DEFINE_MUTEX(ramster_cluster_lock);	/* see the file comment */
static struct ramster_node *ramster_nodes[RAMSTER_MAX_NODES];
static struct ramster_node *ramster_local_node;
/* The local node started once: the links run until the module goes. */
static bool ramster_cluster_started;

static const char * const ramster_role_names[RAMSTER_NR_ROLES] = {
	[RAMSTER_ROLE_PEER] = "peer",
	[RAMSTER_ROLE_CLIENT] = "client",
	[RAMSTER_ROLE_SERVER] = "server",
};

const char *ramster_role_name(enum ramster_role role)
{
	return role < RAMSTER_NR_ROLES ? ramster_role_names[role] : "?";
}

/* Parse a role name, with or without a trailing newline. */
int ramster_role_parse(const char *buf, enum ramster_role *role)
{
	int r = sysfs_match_string(ramster_role_names, buf);

	if (r < 0)
		return -EINVAL;
	*role = r;
	return 0;
}

static struct ramster_node *to_ramster_node(struct config_item *item)
{
	return container_of(item, struct ramster_node, item);
}

/*
 * Record one attribute under the lock: -EBUSY if it was written already or
 * the node is local (its configuration is then in use).
 */
static int ramster_node_set(struct ramster_node *node, int attr)
{
	lockdep_assert_held(&ramster_cluster_lock);
	if (node->local || test_bit(attr, &node->set))
		return -EBUSY;
	__set_bit(attr, &node->set);
	return 0;
}

/*
 * Store a parsed attribute value once: copy @size bytes of @value to
 * @field under the lock, unless the attribute was written already.
 */
static ssize_t ramster_node_store_once(struct ramster_node *node, int attr,
				       void *field, const void *value,
				       size_t size, size_t count)
{
	int ret;

	mutex_lock(&ramster_cluster_lock);
	ret = ramster_node_set(node, attr);
	if (!ret)
		memcpy(field, value, size);
	mutex_unlock(&ramster_cluster_lock);
	return ret ? ret : count;
}

/*********************************
 * attributes
 *********************************/
static ssize_t ramster_node_ipv4_address_show(struct config_item *item,
					      char *page)
{
	return sprintf(page, "%pI4\n", &to_ramster_node(item)->info.addr);
}

static ssize_t ramster_node_ipv4_address_store(struct config_item *item,
					       const char *page, size_t count)
{
	struct ramster_node *node = to_ramster_node(item);
	__be32 addr;

	if (!in4_pton(page, strcspn(page, "\n"), (u8 *)&addr, -1, NULL))
		return -EINVAL;
	return ramster_node_store_once(node, RAMSTER_ATTR_ADDRESS,
				       &node->info.addr, &addr, sizeof(addr),
				       count);
}

static ssize_t ramster_node_ipv4_port_show(struct config_item *item,
					   char *page)
{
	return sprintf(page, "%u\n", be16_to_cpu(to_ramster_node(item)->info.port));
}

static ssize_t ramster_node_ipv4_port_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct ramster_node *node = to_ramster_node(item);
	__be16 be_port;
	u16 port;

	if (kstrtou16(page, 10, &port) || !port)
		return -EINVAL;
	be_port = cpu_to_be16(port);
	return ramster_node_store_once(node, RAMSTER_ATTR_PORT,
				       &node->info.port, &be_port,
				       sizeof(be_port), count);
}

static ssize_t ramster_node_role_show(struct config_item *item, char *page)
{
	return sprintf(page, "%s\n",
		       ramster_role_name(to_ramster_node(item)->info.role));
}

static ssize_t ramster_node_role_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct ramster_node *node = to_ramster_node(item);
	enum ramster_role role;
	int ret;

	ret = ramster_role_parse(page, &role);
	if (ret)
		return ret;
	return ramster_node_store_once(node, RAMSTER_ATTR_ROLE,
				       &node->info.role, &role, sizeof(role),
				       count);
}

static ssize_t ramster_node_capacity_show(struct config_item *item,
					  char *page)
{
	return sprintf(page, "%llu\n", to_ramster_node(item)->info.capacity);
}

static ssize_t ramster_node_capacity_store(struct config_item *item,
					   const char *page, size_t count)
{
	struct ramster_node *node = to_ramster_node(item);
	u64 capacity;
	int ret;

	ret = kstrtou64(page, 10, &capacity);
	if (ret)
		return ret;

	/* The local node's capacity is the lender's knob: it may change. */
	mutex_lock(&ramster_cluster_lock);
	if (node->local) {
		if (node->info.role == RAMSTER_ROLE_CLIENT) {
			ret = capacity ? -EINVAL : 0;
		} else {
			node->info.capacity = capacity;
			ramster_cluster_ops->capacity_changed(capacity);
			pr_info("node %u: capacity now %llu pages\n",
				node->info.num, capacity);
		}
		mutex_unlock(&ramster_cluster_lock);
		return ret ? ret : count;
	}
	mutex_unlock(&ramster_cluster_lock);
	return ramster_node_store_once(node, RAMSTER_ATTR_CAPACITY,
				       &node->info.capacity, &capacity,
				       sizeof(capacity), count);
}

static ssize_t ramster_node_num_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", to_ramster_node(item)->info.num);
}

/* Does another numbered node have this address and port? */
static bool ramster_address_taken(const struct ramster_node *node)
{
	int i;

	for (i = 0; i < RAMSTER_MAX_NODES; i++) {
		const struct ramster_node *other = ramster_nodes[i];

		if (other && other != node && other->info.addr == node->info.addr &&
		    other->info.port == node->info.port)
			return true;
	}
	return false;
}

/*
 * Once address and port are set, as o2nm: the number makes the node
 * reachable, so its number and its address must both be unique.
 */
static ssize_t ramster_node_num_store(struct config_item *item,
				      const char *page, size_t count)
{
	struct ramster_node *node = to_ramster_node(item);
	u8 num;
	int ret;

	ret = kstrtou8(page, 10, &num);
	if (ret || num >= RAMSTER_MAX_NODES)
		return -ERANGE;

	mutex_lock(&ramster_cluster_lock);
	if (!test_bit(RAMSTER_ATTR_ADDRESS, &node->set) ||
	    !test_bit(RAMSTER_ATTR_PORT, &node->set))
		ret = -EINVAL;
	else if (ramster_nodes[num] || ramster_address_taken(node))
		ret = -EEXIST;
	else
		ret = ramster_node_set(node, RAMSTER_ATTR_NUM);
	if (!ret) {
		node->info.num = num;
		ramster_nodes[num] = node;
	}
	mutex_unlock(&ramster_cluster_lock);
	return ret ? ret : count;
}

static ssize_t ramster_node_local_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", to_ramster_node(item)->local);
}

/*
 * Last: every other attribute is set, and only one node is local.  Setting
 * it starts the transport: listening, and a link to every node configured
 * by then.
 */
static ssize_t ramster_node_local_store(struct config_item *item,
					const char *page, size_t count)
{
	struct ramster_node *node = to_ramster_node(item);
	const unsigned long needed = BIT(RAMSTER_ATTR_ADDRESS) |
		BIT(RAMSTER_ATTR_PORT) | BIT(RAMSTER_ATTR_ROLE) |
		BIT(RAMSTER_ATTR_NUM);
	struct ramster_node_info info;
	bool local;
	int ret;

	ret = kstrtobool(page, &local);
	if (ret)
		return ret;

	mutex_lock(&ramster_cluster_lock);
	if ((node->set & needed) != needed)
		ret = -EINVAL;
	else if (!local)
		ret = node->local ? -EBUSY : 0;	/* leaving: a later issue */
	else if (ramster_local_node)
		ret = -EBUSY;
	if (!ret && local) {
		node->local = true;
		ramster_local_node = node;
		info = node->info;
	}
	mutex_unlock(&ramster_cluster_lock);
	if (ret || !local)
		return ret ? ret : count;

	ret = ramster_cluster_ops->start_local(&info);
	if (ret) {
		pr_err("node %u: cannot start (%d)\n", info.num, ret);
		mutex_lock(&ramster_cluster_lock);
		node->local = false;
		ramster_local_node = NULL;
		mutex_unlock(&ramster_cluster_lock);
		return ret;
	}
	mutex_lock(&ramster_cluster_lock);
	ramster_cluster_started = true;
	mutex_unlock(&ramster_cluster_lock);
	pr_info("local node %u (%s), %pI4:%u, role %s\n", info.num,
		config_item_name(&node->item), &info.addr,
		be16_to_cpu(info.port), ramster_role_name(info.role));
	return count;
}

CONFIGFS_ATTR(ramster_node_, ipv4_address);
CONFIGFS_ATTR(ramster_node_, ipv4_port);
CONFIGFS_ATTR(ramster_node_, role);
CONFIGFS_ATTR(ramster_node_, capacity);
CONFIGFS_ATTR(ramster_node_, num);
CONFIGFS_ATTR(ramster_node_, local);

static struct configfs_attribute *ramster_node_attrs[] = {
	&ramster_node_attr_ipv4_address,
	&ramster_node_attr_ipv4_port,
	&ramster_node_attr_role,
	&ramster_node_attr_capacity,
	&ramster_node_attr_num,
	&ramster_node_attr_local,
	NULL,
};

/*********************************
 * node directories
 *********************************/
static void ramster_node_release(struct config_item *item)
{
	kfree(to_ramster_node(item));
}

static struct configfs_item_operations ramster_node_item_ops = {
	.release = ramster_node_release,
};

static const struct config_item_type ramster_node_type = {
	.ct_item_ops = &ramster_node_item_ops,
	.ct_attrs = ramster_node_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_item *ramster_cluster_make_item(struct config_group *group,
						     const char *name)
{
	struct ramster_node *node;

	if (strlen(name) > 63)
		return ERR_PTR(-ENAMETOOLONG);
	node = kzalloc(sizeof(*node), GFP_KERNEL);
	if (!node)
		return ERR_PTR(-ENOMEM);
	node->info.role = RAMSTER_ROLE_PEER;
	config_item_init_type_name(&node->item, name, &ramster_node_type);
	return &node->item;
}

/* rmdir: the node leaves the table; its memory goes with the last ref. */
static void ramster_cluster_drop_item(struct config_group *group,
				      struct config_item *item)
{
	struct ramster_node *node = to_ramster_node(item);

	mutex_lock(&ramster_cluster_lock);
	if (test_bit(RAMSTER_ATTR_NUM, &node->set) &&
	    ramster_nodes[node->info.num] == node)
		ramster_nodes[node->info.num] = NULL;
	if (ramster_local_node == node)
		ramster_local_node = NULL;
	mutex_unlock(&ramster_cluster_lock);
	config_item_put(item);
}

static struct configfs_group_operations ramster_cluster_group_ops = {
	.make_item = ramster_cluster_make_item,
	.drop_item = ramster_cluster_drop_item,
};

/*
 * The cluster key: write-only (no show, mode 0200), never logged.  It
 * must be written before the local node is set, which starts the links;
 * after that a new key is refused until the module is loaded again.
 */
static ssize_t ramster_cluster_key_store(struct config_item *item,
					 const char *page, size_t count)
{
	u8 key[RAMSTER_WIRE_CLUSTER_KEY_LEN];
	int ret;

	ret = ramster_auth_parse_key(page, count, key);
	if (ret) {
		pr_err("key: %d hex digits expected, not all zero\n",
		       2 * RAMSTER_WIRE_CLUSTER_KEY_LEN);
		return ret;
	}
	mutex_lock(&ramster_cluster_lock);
	if (ramster_cluster_started)
		ret = -EBUSY;
	else
		ret = ramster_auth_set_key(key);
	mutex_unlock(&ramster_cluster_lock);
	memzero_explicit(key, sizeof(key));
	/* configfs frees its buffer without clearing it: we do. */
	memzero_explicit((void *)page, count);
	if (ret == -EBUSY)
		pr_err("key: the links are running: a new key takes a reload\n");
	return ret ? ret : count;
}

CONFIGFS_ATTR_WO(ramster_cluster_, key);

static struct configfs_attribute *ramster_cluster_attrs[] = {
	&ramster_cluster_attr_key,
	NULL,
};

static const struct config_item_type ramster_cluster_type = {
	.ct_group_ops = &ramster_cluster_group_ops,
	.ct_attrs = ramster_cluster_attrs,
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem ramster_cluster_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = RAMSTER_NAME,
			.ci_type = &ramster_cluster_type,
		},
	},
};

/*********************************
 * what the rest of the module sees
 *********************************/
/* Copy a node's attributes out; -ENOENT if it has no number yet. */
int ramster_cluster_node(u8 num, struct ramster_node_info *info)
{
	int ret = -ENOENT;

	if (num >= RAMSTER_MAX_NODES)
		return -ENOENT;
	mutex_lock(&ramster_cluster_lock);
	if (ramster_nodes[num]) {
		*info = ramster_nodes[num]->info;
		ret = 0;
	}
	mutex_unlock(&ramster_cluster_lock);
	return ret;
}

/* This machine's node; -ENOENT until "local" is written. */
int ramster_cluster_local(struct ramster_node_info *info)
{
	int ret = -ENOENT;

	mutex_lock(&ramster_cluster_lock);
	if (ramster_local_node) {
		*info = ramster_local_node->info;
		ret = 0;
	}
	mutex_unlock(&ramster_cluster_lock);
	return ret;
}

/**
 * ramster_cluster_init - offer the membership tree in configfs
 * @ops: what to do when the local node is set or its capacity changes;
 *	both members are required
 *
 * Return: 0 or a negative errno.
 */
int ramster_cluster_init(const struct ramster_cluster_ops *ops)
{
	ramster_cluster_ops = ops;
	config_group_init(&ramster_cluster_subsys.su_group);
	mutex_init(&ramster_cluster_subsys.su_mutex);
	return configfs_register_subsystem(&ramster_cluster_subsys);
}

void ramster_cluster_exit(void)
{
	configfs_unregister_subsystem(&ramster_cluster_subsys);
}
