// SPDX-License-Identifier: GPL-2.0
/*
 * ramster-conf - read, check and query o2cb-style cluster.conf files
 *
 * The format is ocfs2's cluster.conf: a "cluster:" stanza and one "node:"
 * stanza per node, each followed by tab-indented "key = value" lines.
 * Blank lines and lines starting with '#' are ignored.  ramster adds
 * per-node keys to the o2cb ones:
 *
 *   cluster:  name, node_count
 *   node:     name, number, ip_address, ip_port, cluster      (o2cb)
 *             role       peer | client | server               (ramster)
 *             memory     guest RAM in MiB
 *             capacity   pages this node holds for others (0 for clients)
 *             pool_percent  local pool limit, percent of RAM
 *
 * Every error names the file and line.  The same program checks configs on
 * the host before any guest starts and, in the guests, will fill configfs.
 *
 *   ramster-conf check FILE            exit 0 if valid, errors on stderr
 *   ramster-conf nodes FILE            one line per node: num name ip port role
 *   ramster-conf get FILE NUM KEY      one value of node NUM ("cluster" for
 *                                      the cluster's keys: NUM is ignored)
 *   ramster-conf apply FILE LOCAL [DIR]
 *                                      fill configfs (DIR, default
 *                                      /sys/kernel/config/ramster) with
 *                                      every node, in the order the
 *                                      module requires, and make node
 *                                      number LOCAL this machine's: last
 *
 * The cluster key (32 random bytes shared by every node of a cluster: it
 * authenticates the links and encrypts the pages on them) is a file of 64
 * hex digits and a newline, readable by its owner only:
 *
 *   ramster-conf keygen FILE           a new key in FILE (created 0600;
 *                                      an existing file is never
 *                                      overwritten)
 *   ramster-conf keycheck FILE         exit 0 if FILE is a usable key
 *   ramster-conf setkey FILE [DIR]     give the key of FILE to the module
 *                                      (DIR/key, default
 *                                      /sys/kernel/config/ramster/key),
 *                                      before "apply"
 *
 * No command ever prints a key, not even part of one in an error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_NODES	64
#define MAX_LINE	512
#define MAX_VALUE	64
#define KEY_BYTES	32
#define KEY_HEX		(2 * KEY_BYTES)
#define CONFIGFS	"/sys/kernel/config/ramster"

enum { K_NAME, K_NUMBER, K_IP, K_PORT, K_CLUSTER, K_ROLE, K_MEMORY,
	K_CAPACITY, K_POOL, NR_NODE_KEYS };

static const char *const node_keys[NR_NODE_KEYS] = {
	"name", "number", "ip_address", "ip_port", "cluster", "role",
	"memory", "capacity", "pool_percent",
};

struct node {
	int line;				/* of its "node:" header */
	char value[NR_NODE_KEYS][MAX_VALUE];
	int key_line[NR_NODE_KEYS];		/* 0: not given */
};

struct conf {
	const char *file;
	char name[MAX_VALUE];
	char node_count[MAX_VALUE];
	int name_line, node_count_line, cluster_line;
	struct node nodes[MAX_NODES];
	int nr_nodes;
	int errors;
};

static void error_at(struct conf *c, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: error: ", c->file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	c->errors++;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && strchr(" \t\r\n", end[-1]))
		*--end = '\0';
	return s;
}

/* A whole decimal number in [min, max]; -1 if it is not. */
static long parse_range(const char *s, long min, long max)
{
	char *end;
	long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	return v;
}

static int node_key(const char *key)
{
	int k;

	for (k = 0; k < NR_NODE_KEYS; k++)
		if (!strcmp(key, node_keys[k]))
			return k;
	return -1;
}

static void set_node_key(struct conf *c, struct node *n, int lineno,
			 const char *key, const char *value)
{
	int k = node_key(key);

	if (k < 0) {
		error_at(c, lineno, "unknown node key '%s' (known: name, number, ip_address, ip_port, cluster, role, memory, capacity, pool_percent)",
			 key);
		return;
	}
	if (n->key_line[k]) {
		error_at(c, lineno, "'%s' given twice in this node (first at line %d)",
			 key, n->key_line[k]);
		return;
	}
	if (strlen(value) >= MAX_VALUE) {
		error_at(c, lineno, "value of '%s' is too long", key);
		return;
	}
	strcpy(n->value[k], value);
	n->key_line[k] = lineno;
}

static void set_cluster_key(struct conf *c, int lineno, const char *key,
			    const char *value)
{
	char *dst;
	int *where;

	if (!strcmp(key, "name")) {
		dst = c->name;
		where = &c->name_line;
	} else if (!strcmp(key, "node_count")) {
		dst = c->node_count;
		where = &c->node_count_line;
	} else {
		error_at(c, lineno, "unknown cluster key '%s' (known: name, node_count)",
			 key);
		return;
	}
	if (*where) {
		error_at(c, lineno, "'%s' given twice (first at line %d)", key,
			 *where);
		return;
	}
	if (strlen(value) >= MAX_VALUE) {
		error_at(c, lineno, "value of '%s' is too long", key);
		return;
	}
	strcpy(dst, value);
	*where = lineno;
}

static void parse(struct conf *c, FILE *f)
{
	enum { NONE, CLUSTER, NODE } stanza = NONE;
	char buf[MAX_LINE], *line, *eq, *key, *value;
	int lineno = 0;

	while (fgets(buf, sizeof(buf), f)) {
		lineno++;
		if (!strchr(buf, '\n') && !feof(f)) {
			error_at(c, lineno, "line too long");
			while (fgets(buf, sizeof(buf), f) && !strchr(buf, '\n'))
				;
			continue;
		}
		line = trim(buf);
		if (!*line || *line == '#')
			continue;
		if (buf[0] != ' ' && buf[0] != '\t') {
			/* A stanza header starts in the first column. */
			if (!strcmp(line, "cluster:")) {
				if (c->cluster_line)
					error_at(c, lineno, "second cluster: stanza (first at line %d)",
						 c->cluster_line);
				c->cluster_line = lineno;
				stanza = CLUSTER;
			} else if (!strcmp(line, "node:")) {
				if (c->nr_nodes == MAX_NODES) {
					error_at(c, lineno, "more than %d nodes",
						 MAX_NODES);
					stanza = NONE;
					continue;
				}
				c->nodes[c->nr_nodes++].line = lineno;
				stanza = NODE;
			} else {
				error_at(c, lineno, "expected 'cluster:' or 'node:', got '%s'",
					 line);
				stanza = NONE;
			}
			continue;
		}
		eq = strchr(line, '=');
		if (!eq) {
			error_at(c, lineno, "expected 'key = value', got '%s'",
				 line);
			continue;
		}
		*eq = '\0';
		key = trim(line);
		value = trim(eq + 1);
		if (!*key || !*value) {
			error_at(c, lineno, "empty key or value");
			continue;
		}
		if (stanza == CLUSTER)
			set_cluster_key(c, lineno, key, value);
		else if (stanza == NODE)
			set_node_key(c, &c->nodes[c->nr_nodes - 1], lineno, key,
				     value);
		else
			error_at(c, lineno, "'%s' outside of a stanza", key);
	}
}

static void check_node(struct conf *c, struct node *n)
{
	struct in_addr addr;
	int k;

	for (k = 0; k < NR_NODE_KEYS; k++)
		if (!n->key_line[k])
			error_at(c, n->line, "node has no '%s'", node_keys[k]);
	if (n->key_line[K_NUMBER] &&
	    parse_range(n->value[K_NUMBER], 0, 254) < 0)
		error_at(c, n->key_line[K_NUMBER], "number '%s': must be 0 to 254",
			 n->value[K_NUMBER]);
	if (n->key_line[K_IP] && inet_pton(AF_INET, n->value[K_IP], &addr) != 1)
		error_at(c, n->key_line[K_IP], "ip_address '%s' is not an IPv4 address",
			 n->value[K_IP]);
	if (n->key_line[K_PORT] && parse_range(n->value[K_PORT], 1, 65535) < 0)
		error_at(c, n->key_line[K_PORT], "ip_port '%s': must be 1 to 65535",
			 n->value[K_PORT]);
	if (n->key_line[K_ROLE] && strcmp(n->value[K_ROLE], "peer") &&
	    strcmp(n->value[K_ROLE], "client") &&
	    strcmp(n->value[K_ROLE], "server"))
		error_at(c, n->key_line[K_ROLE], "role '%s': must be peer, client or server",
			 n->value[K_ROLE]);
	if (n->key_line[K_MEMORY] &&
	    parse_range(n->value[K_MEMORY], 64, 1 << 20) < 0)
		error_at(c, n->key_line[K_MEMORY], "memory '%s': MiB, at least 64",
			 n->value[K_MEMORY]);
	if (n->key_line[K_CAPACITY] &&
	    parse_range(n->value[K_CAPACITY], 0, 1L << 30) < 0)
		error_at(c, n->key_line[K_CAPACITY], "capacity '%s': a number of pages",
			 n->value[K_CAPACITY]);
	if (n->key_line[K_POOL] && parse_range(n->value[K_POOL], 1, 100) < 0)
		error_at(c, n->key_line[K_POOL], "pool_percent '%s': must be 1 to 100",
			 n->value[K_POOL]);
	if (n->key_line[K_CLUSTER] && c->name_line &&
	    strcmp(n->value[K_CLUSTER], c->name))
		error_at(c, n->key_line[K_CLUSTER], "cluster '%s' is not this file's cluster '%s'",
			 n->value[K_CLUSTER], c->name);
	if (n->key_line[K_ROLE] && n->key_line[K_CAPACITY] &&
	    !strcmp(n->value[K_ROLE], "client") &&
	    strcmp(n->value[K_CAPACITY], "0"))
		error_at(c, n->key_line[K_CAPACITY], "a client holds no pages for others: capacity must be 0");
}

/* Two nodes may not share a number, a name, or an address and port. */
static void check_unique(struct conf *c)
{
	struct node *a, *b;
	int i, j;

	for (i = 0; i < c->nr_nodes; i++) {
		for (j = 0; j < i; j++) {
			a = &c->nodes[j];
			b = &c->nodes[i];
			if (b->key_line[K_NUMBER] && a->key_line[K_NUMBER] &&
			    !strcmp(a->value[K_NUMBER], b->value[K_NUMBER]))
				error_at(c, b->key_line[K_NUMBER], "duplicate number %s (also at line %d)",
					 b->value[K_NUMBER], a->key_line[K_NUMBER]);
			if (b->key_line[K_NAME] && a->key_line[K_NAME] &&
			    !strcmp(a->value[K_NAME], b->value[K_NAME]))
				error_at(c, b->key_line[K_NAME], "duplicate name %s (also at line %d)",
					 b->value[K_NAME], a->key_line[K_NAME]);
			if (b->key_line[K_IP] && a->key_line[K_IP] &&
			    !strcmp(a->value[K_IP], b->value[K_IP]) &&
			    !strcmp(a->value[K_PORT], b->value[K_PORT]))
				error_at(c, b->key_line[K_IP], "duplicate address %s:%s (also at line %d)",
					 b->value[K_IP], b->value[K_PORT],
					 a->key_line[K_IP]);
		}
	}
}

static void check(struct conf *c)
{
	int i;

	if (!c->cluster_line)
		error_at(c, 1, "no 'cluster:' stanza");
	else if (!c->name_line)
		error_at(c, c->cluster_line, "cluster has no 'name'");
	if (c->cluster_line && !c->node_count_line)
		error_at(c, c->cluster_line, "cluster has no 'node_count'");
	else if (c->node_count_line &&
		 parse_range(c->node_count, 1, MAX_NODES) != c->nr_nodes)
		error_at(c, c->node_count_line, "node_count = %s, but the file has %d node stanzas",
			 c->node_count, c->nr_nodes);
	for (i = 0; i < c->nr_nodes; i++)
		check_node(c, &c->nodes[i]);
	check_unique(c);
}

static int load(struct conf *c, const char *file)
{
	FILE *f = fopen(file, "r");

	memset(c, 0, sizeof(*c));
	c->file = file;
	if (!f) {
		fprintf(stderr, "%s: error: %s\n", file, strerror(errno));
		return -1;
	}
	parse(c, f);
	fclose(f);
	check(c);
	if (c->errors) {
		fprintf(stderr, "%s: %d error(s)\n", file, c->errors);
		return -1;
	}
	return 0;
}

static int cmd_get(struct conf *c, const char *num, const char *key)
{
	int i, k;

	if (!strcmp(num, "cluster")) {
		if (!strcmp(key, "name"))
			return puts(c->name) < 0;
		if (!strcmp(key, "node_count"))
			return puts(c->node_count) < 0;
	} else if ((k = node_key(key)) >= 0) {
		for (i = 0; i < c->nr_nodes; i++)
			if (!strcmp(c->nodes[i].value[K_NUMBER], num))
				return puts(c->nodes[i].value[k]) < 0;
		fprintf(stderr, "%s: no node %s\n", c->file, num);
		return 1;
	}
	fprintf(stderr, "%s: no key '%s'\n", c->file, key);
	return 1;
}

static int write_attr(const char *dir, const char *attr, const char *value)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "ramster-conf: %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = write(fd, value, strlen(value));
	if (n < 0)
		fprintf(stderr, "ramster-conf: %s = %s: %s\n", path, value,
			strerror(errno));
	close(fd);
	return n < 0 ? -1 : 0;
}

/* Address and port before num, num before local, local last of all. */
static int cmd_apply(struct conf *c, const char *local, const char *root)
{
	static const int order[] = { K_IP, K_PORT, K_ROLE, K_CAPACITY, K_NUMBER };
	/* configfs attribute names, o2nm's, for the keys of cluster.conf */
	static const char *const attr[NR_NODE_KEYS] = {
		[K_IP] = "ipv4_address", [K_PORT] = "ipv4_port",
		[K_ROLE] = "role", [K_CAPACITY] = "capacity", [K_NUMBER] = "num",
	};
	struct node *n, *me = NULL;
	char dir[512];
	int i, k;

	for (i = 0; i < c->nr_nodes; i++) {
		n = &c->nodes[i];
		snprintf(dir, sizeof(dir), "%s/%s", root, n->value[K_NAME]);
		if (mkdir(dir, 0755) && errno != EEXIST) {
			fprintf(stderr, "ramster-conf: mkdir %s: %s\n", dir,
				strerror(errno));
			return 1;
		}
		for (k = 0; k < (int)(sizeof(order) / sizeof(order[0])); k++)
			if (write_attr(dir, attr[order[k]], n->value[order[k]]))
				return 1;
		if (!strcmp(n->value[K_NUMBER], local))
			me = n;
	}
	if (!me) {
		fprintf(stderr, "%s: no node number %s\n", c->file, local);
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/%s", root, me->value[K_NAME]);
	if (write_attr(dir, "local", "1"))
		return 1;
	printf("ramster-conf: %d nodes configured, local node %s (%s)\n",
	       c->nr_nodes, local, me->value[K_NAME]);
	return 0;
}

/*
 * The cluster key.  Buffers that held it are cleared before they go;
 * messages name the file and what is wrong, never its contents.
 */
static int key_error(const char *file, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ramster-conf: %s: ", file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static int cmd_keygen(const char *file)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char key[KEY_BYTES];
	char hex[KEY_HEX + 1];
	size_t got = 0;
	ssize_t n;
	int fd, i, ret = 0;

	while (got < sizeof(key)) {
		n = getrandom(key + got, sizeof(key) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return key_error(file, "getrandom: %s", strerror(errno));
		got += n;
	}
	for (i = 0; i < KEY_BYTES; i++) {
		hex[2 * i] = digits[key[i] >> 4];
		hex[2 * i + 1] = digits[key[i] & 15];
	}
	hex[KEY_HEX] = '\n';
	explicit_bzero(key, sizeof(key));
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (fd < 0 && errno == EEXIST) {
		explicit_bzero(hex, sizeof(hex));
		return key_error(file, "exists already: a cluster key is never overwritten (every node of the cluster holds it; remove the file first to replace it everywhere)");
	}
	if (fd < 0) {
		explicit_bzero(hex, sizeof(hex));
		return key_error(file, "%s", strerror(errno));
	}
	/* The umask may only have taken bits away; be sure of 0600. */
	if (fchmod(fd, 0600) || write(fd, hex, sizeof(hex)) != sizeof(hex) ||
	    fsync(fd)) {
		ret = key_error(file, "cannot write: %s", strerror(errno));
		unlink(file);
	}
	explicit_bzero(hex, sizeof(hex));
	if (close(fd) && !ret) {
		ret = key_error(file, "cannot write: %s", strerror(errno));
		unlink(file);
	}
	if (!ret)
		printf("ramster-conf: new cluster key in %s (mode 0600)\n", file);
	return ret;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * read_key FILE HEX: HEX gets the key's 64 digits and a newline (what
 * the module's configfs attribute takes).  The file must be exactly
 * that (the newline optional) and readable by its owner only.
 */
static int read_key(const char *file, char hex[KEY_HEX + 1])
{
	char buf[KEY_HEX + 2];
	struct stat st;
	size_t got = 0;
	ssize_t n;
	int fd, i, ret = 0;

	fd = open(file, O_RDONLY);
	if (fd < 0)
		return key_error(file, "%s", strerror(errno));
	if (fstat(fd, &st)) {
		ret = key_error(file, "%s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = key_error(file, "not a regular file");
		goto out;
	}
	if (st.st_mode & 077) {
		ret = key_error(file, "mode %04o: a cluster key must be readable by its owner only (chmod 600 %s)",
				st.st_mode & 07777, file);
		goto out;
	}
	while (got < sizeof(buf)) {
		n = read(fd, buf + got, sizeof(buf) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = key_error(file, "%s", strerror(errno));
			goto out;
		}
		if (!n)
			break;
		got += n;
	}
	if (got == KEY_HEX + 1 && buf[KEY_HEX] == '\n')
		got--;
	if (got != KEY_HEX) {
		ret = key_error(file, "not a cluster key: want %d hex digits and a newline (ramster-conf keygen makes one)",
				KEY_HEX);
		goto out;
	}
	for (i = 0; i < KEY_HEX; i++) {
		if (hex_digit(buf[i]) < 0) {
			ret = key_error(file, "not a cluster key: character %d is not a hex digit",
					i + 1);
			goto out;
		}
		hex[i] = buf[i];
	}
	hex[KEY_HEX] = '\n';
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return ret;
}

static int cmd_keycheck(const char *file)
{
	char hex[KEY_HEX + 1];
	int ret = read_key(file, hex);

	explicit_bzero(hex, sizeof(hex));
	if (!ret)
		printf("%s: a cluster key: ok\n", file);
	return ret;
}

/* One write of the whole key: the module takes it or says why not. */
static int cmd_setkey(const char *file, const char *root)
{
	char hex[KEY_HEX + 1], path[512];
	ssize_t n;
	int fd;

	if (read_key(file, hex))
		return 1;
	snprintf(path, sizeof(path), "%s/key", root);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		explicit_bzero(hex, sizeof(hex));
		fprintf(stderr, "ramster-conf: %s: %s\n", path, strerror(errno));
		return 1;
	}
	n = write(fd, hex, sizeof(hex));
	explicit_bzero(hex, sizeof(hex));
	if (n != sizeof(hex) || close(fd)) {
		fprintf(stderr, "ramster-conf: %s: the module refused the key: %s\n",
			path, n < 0 ? strerror(errno) : "short write");
		return 1;
	}
	printf("ramster-conf: cluster key of %s given to the module\n", file);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ramster-conf check FILE\n"
		"       ramster-conf nodes FILE\n"
		"       ramster-conf get FILE NUM|cluster KEY\n"
		"       ramster-conf apply FILE LOCAL_NUM [CONFIGFS_DIR]\n"
		"       ramster-conf keygen KEYFILE\n"
		"       ramster-conf keycheck KEYFILE\n"
		"       ramster-conf setkey KEYFILE [CONFIGFS_DIR]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct conf conf;
	struct node *n;
	int i;

	if (argc < 3)
		usage();
	/* The key commands read no cluster.conf. */
	if (!strcmp(argv[1], "keygen") && argc == 3)
		return cmd_keygen(argv[2]);
	if (!strcmp(argv[1], "keycheck") && argc == 3)
		return cmd_keycheck(argv[2]);
	if (!strcmp(argv[1], "setkey") && (argc == 3 || argc == 4))
		return cmd_setkey(argv[2], argc == 4 ? argv[3] : CONFIGFS);
	if (load(&conf, argv[2]))
		return 1;
	if (!strcmp(argv[1], "check") && argc == 3) {
		printf("%s: cluster %s, %d nodes: ok\n", argv[2], conf.name,
		       conf.nr_nodes);
		return 0;
	}
	if (!strcmp(argv[1], "nodes") && argc == 3) {
		for (i = 0; i < conf.nr_nodes; i++) {
			n = &conf.nodes[i];
			printf("%s %s %s %s %s\n", n->value[K_NUMBER],
			       n->value[K_NAME], n->value[K_IP],
			       n->value[K_PORT], n->value[K_ROLE]);
		}
		return 0;
	}
	if (!strcmp(argv[1], "get") && argc == 5)
		return cmd_get(&conf, argv[3], argv[4]);
	if (!strcmp(argv[1], "apply") && (argc == 4 || argc == 5))
		return cmd_apply(&conf, argv[3],
				 argc == 5 ? argv[4] : CONFIGFS);
	usage();
	return 2;
}
