// SPDX-License-Identifier: GPL-2.0
/*
 * fileset - files with known contents, for the cleancache tests
 *
 * Every page of every file is derived from (seed, file, page, version):
 * a header naming them, then text-like words drawn from a vocabulary of
 * 32 (about 2:1 with lz4, like ordinary text and binaries), except one
 * page in eight, which is random (incompressible, like compressed media).
 * A page that reads back wrong is reported with the seed, file, page and
 * version its header names, so that a stale page (an older version, or
 * another filesystem's file) is told from a corrupt one.
 *
 *   fileset create DIR FILES PAGES SEED
 *           FILES files DIR/fNNNNN of PAGES pages each, version 1, synced
 *   fileset read DIR FILES PAGES SEED forward|shuffled
 *           read them all (shuffled: in an order drawn from SEED) and
 *           verify every page; prints
 *           "fileset: read pages=N bad=B ms=T"
 *   fileset rewrite DIR FILES PAGES SEED OLD-SEED forward|shuffled
 *           file by file, in the reverse of the order "read ... OLD-SEED
 *           ORDER" took (its last files first: their pages left the page
 *           cache last): truncate the file and write it anew from SEED
 *           with O_DIRECT (nothing of it in the page cache), and read it
 *           back at once, so that little else happens to cleancache
 *           between the truncation and the read: a stale copy of the old
 *           data is read if one is kept;
 *           prints "fileset: rewrite pages=N bad=B ms=T"
 *   fileset inodes DIR FILES
 *           the inode number of each file, on one line
 *   fileset coherency DIR SEED
 *           each way of changing a file whose old pages sit in cleancache
 *           (overwrite, truncate and extend, punch a hole, collapse a
 *           range, O_DIRECT, mmap and msync), then evict and read back;
 *           prints "coherency: NAME ok" or "coherency: NAME bad ..." per
 *           scenario
 *
 * Eviction is "echo 1 > /proc/sys/vm/drop_caches" after a sync: clean
 * pages leave the page cache, which offers them to cleancache (not 3:
 * dropping slab caches runs the shrinkers, and a cleancache backend's
 * shrinker empties it).  The exit status is 1 if any page was wrong.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mix64.h"

#define PAGE		4096UL
#define MAX_REPORTS	10
#define HEADER_FMT	"fileset seed %08" PRIx64 " file %05u page %08" PRIu64 \
			" version %03u\n"

static const char vocabulary[] =
	"the     page    cache   of      a       file    is      kept    "
	"clean   when    its     data    are     on      disk    and     "
	"ramster keeps   copies  in      memory  for     reads   that    "
	"come    back    later   without device  access  so      fast    ";

static int reports;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* The contents of one version of one page; version 0 is a zero page. */
static void make_page(uint64_t seed, unsigned int file, uint64_t page,
		      unsigned int version, uint8_t *out)
{
	uint64_t x = mix64(seed * 0x9e3779b97f4a7c15ULL ^ mix64(file) ^
			   mix64(page << 16 | version)) | 1;
	uint64_t *words = (uint64_t *)out;
	size_t i, n = PAGE / sizeof(uint64_t);
	int random = (x >> 8) % 8 == 0;

	if (!version) {
		memset(out, 0, PAGE);
		return;
	}
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (random)
			words[i] = x;
		else
			memcpy(&words[i], &vocabulary[(x % 32) * 8], 8);
	}
	snprintf((char *)out, 80, HEADER_FMT, seed, file, page, version);
}

/* Says what a wrong page is: its header if it has one. */
static void report(const char *what, unsigned int file, uint64_t page,
		   unsigned int version, const uint8_t *got)
{
	char header[80];

	if (reports++ >= MAX_REPORTS)
		return;
	memcpy(header, got, sizeof(header) - 1);
	header[sizeof(header) - 1] = 0;
	if (strncmp(header, "fileset ", 8))
		strcpy(header, got[0] || memcmp(got, got + 1, PAGE - 1) ?
		       "(no header)\n" : "(zero page)\n");
	printf("BAD %s: file %u page %" PRIu64 " wanted version %u, read %s",
	       what, file, page, version, header);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void path_of(char *buf, size_t size, const char *dir, unsigned int f)
{
	snprintf(buf, size, "%s/f%05u", dir, f);
}

static void write_all(int fd, const void *buf, size_t len, off_t off)
{
	if (pwrite(fd, buf, len, off) != (ssize_t)len)
		die("pwrite");
}

static void evict(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "1\n", 2) != 2)
		die("drop_caches");
	close(fd);
}

/*
 * File @f of the set, version 1 from @seed, synced.  @direct: written
 * with O_DIRECT, so none of it is left in the page cache (the guests have
 * no fadvise) and a read goes to cleancache, then the disk.
 */
static void create_file(const char *path, unsigned int f, uint64_t pages,
			uint64_t seed, int direct)
{
	uint8_t *buf;
	uint64_t p;
	int fd;

	if (posix_memalign((void **)&buf, PAGE, PAGE))
		die("posix_memalign");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | (direct ? O_DIRECT : 0),
		  0644);
	if (fd < 0)
		die(path);
	for (p = 0; p < pages; p++) {
		make_page(seed, f, p, 1, buf);
		write_all(fd, buf, PAGE, p * PAGE);
	}
	if (fsync(fd))
		die("fsync");
	close(fd);
	free(buf);
}

static int create(const char *dir, unsigned int files, uint64_t pages,
		  uint64_t seed)
{
	char path[256];
	unsigned int f;

	for (f = 0; f < files; f++) {
		path_of(path, sizeof(path), dir, f);
		create_file(path, f, pages, seed, 0);
	}
	return 0;
}

/* Read a whole file and compare each page with @want(page). */
static uint64_t verify_file(const char *path, unsigned int f, uint64_t pages,
			    uint64_t seed, const unsigned int *versions,
			    const char *what)
{
	uint8_t got[PAGE], want[PAGE];
	uint64_t p, bad = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die(path);
	for (p = 0; p < pages; p++) {
		if (pread(fd, got, PAGE, p * PAGE) != (ssize_t)PAGE)
			die("pread");
		make_page(seed, f, p, versions ? versions[p] : 1, want);
		if (memcmp(got, want, PAGE)) {
			report(what, f, p, versions ? versions[p] : 1, got);
			bad++;
		}
	}
	close(fd);
	return bad;
}

/* The order "read" takes the files in (malloc'ed). */
static unsigned int *read_order(unsigned int files, uint64_t seed,
				const char *order)
{
	unsigned int *perm = malloc(files * sizeof(*perm));
	unsigned int i, j, t;

	if (!perm)
		die("malloc");
	for (i = 0; i < files; i++)
		perm[i] = i;
	if (!strcmp(order, "shuffled")) {
		for (i = files - 1; i > 0; i--) {
			j = mix64(seed ^ (i * 0x2545f4914f6cdd1dULL)) % (i + 1);
			t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
	}
	return perm;
}

static int read_set(const char *dir, unsigned int files, uint64_t pages,
		    uint64_t seed, const char *order)
{
	unsigned int *perm = read_order(files, seed, order);
	uint64_t bad = 0, start = now_ms();
	char path[256];
	unsigned int i;

	for (i = 0; i < files; i++) {
		path_of(path, sizeof(path), dir, perm[i]);
		bad += verify_file(path, perm[i], pages, seed, NULL, "read");
	}
	printf("fileset: read pages=%" PRIu64 " bad=%" PRIu64 " ms=%" PRIu64 "\n",
	       files * pages, bad, now_ms() - start);
	free(perm);
	return bad ? 1 : 0;
}

static int rewrite(const char *dir, unsigned int files, uint64_t pages,
		   uint64_t seed, uint64_t old_seed, const char *order)
{
	unsigned int *perm = read_order(files, old_seed, order);
	uint64_t bad = 0, start = now_ms();
	char path[256];
	unsigned int i;

	for (i = files; i-- > 0;) {
		path_of(path, sizeof(path), dir, perm[i]);
		create_file(path, perm[i], pages, seed, 1);
		bad += verify_file(path, perm[i], pages, seed, NULL, "rewrite");
	}
	printf("fileset: rewrite pages=%" PRIu64 " bad=%" PRIu64 " ms=%" PRIu64 "\n",
	       files * pages, bad, now_ms() - start);
	free(perm);
	return bad ? 1 : 0;
}

static int inodes(const char *dir, unsigned int files)
{
	char path[256];
	struct stat st;
	unsigned int f;

	for (f = 0; f < files; f++) {
		path_of(path, sizeof(path), dir, f);
		if (stat(path, &st))
			die(path);
		printf("%s%lu", f ? " " : "", (unsigned long)st.st_ino);
	}
	printf("\n");
	return 0;
}

/*
 * One coherency scenario: a file of COH_PAGES pages at version 1 whose
 * pages are in cleancache (read once, then evicted), changed by @change,
 * which records what each page must now be (a version, 0 for zeros) and
 * the file's length in pages, then evicted and read back twice (the
 * second time from the copies put after the first).
 */
#define COH_PAGES	64

struct scenario {
	const char *name;
	uint64_t seed;
	int fd;
	unsigned int file;
	unsigned int versions[COH_PAGES];
	uint64_t pages;
	/* After a collapse: page p >= 8 holds what page p + 4 held. */
	int collapsed;
	/* A partial page: bytes [from, to) of page @page are @version's. */
	struct {
		uint64_t page;
		unsigned int from, to, version;
	} partial;
};

static void write_page(struct scenario *s, uint64_t p, unsigned int version)
{
	uint8_t buf[PAGE];

	make_page(s->seed, s->file, p, version, buf);
	write_all(s->fd, buf, PAGE, p * PAGE);
	s->versions[p] = version;
}

static void overwrite(struct scenario *s)
{
	uint8_t buf[PAGE];
	uint64_t p;

	/* Whole pages (no read first) and part of a page (read first). */
	for (p = 10; p < 20; p++)
		write_page(s, p, 2);
	make_page(s->seed, s->file, 20, 2, buf);
	write_all(s->fd, buf + 1000, 2000, 20 * PAGE + 1000);
	s->partial.page = 20;
	s->partial.from = 1000;
	s->partial.to = 3000;
	s->partial.version = 2;
}

static void truncate_extend(struct scenario *s)
{
	uint64_t p;

	if (ftruncate(s->fd, 30 * PAGE + 100) || ftruncate(s->fd, COH_PAGES * PAGE))
		die("ftruncate");
	for (p = 31; p < COH_PAGES; p++)
		s->versions[p] = 0;
	s->partial.page = 30;
	s->partial.from = 100;
	s->partial.to = PAGE;
	s->partial.version = 0;
	/* Blocks again under part of the range: written with version 3. */
	for (p = 40; p < 44; p++)
		write_page(s, p, 3);
}

static void punch_hole(struct scenario *s)
{
	uint64_t p;

	if (fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      40 * PAGE, 10 * PAGE) ||
	    fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      52 * PAGE + 1000, 2000))
		die("fallocate punch");
	for (p = 40; p < 50; p++)
		s->versions[p] = 0;
	s->partial.page = 52;
	s->partial.from = 1000;
	s->partial.to = 3000;
	s->partial.version = 0;
	/* Blocks allocated again in part of the hole, then written. */
	if (fallocate(s->fd, FALLOC_FL_KEEP_SIZE, 44 * PAGE, 4 * PAGE))
		die("fallocate");
	for (p = 44; p < 48; p++)
		write_page(s, p, 3);
}

/* Pages 8-11 go; every later page moves down by 4: its index changes. */
static void collapse_range(struct scenario *s)
{
	uint64_t p;

	if (fallocate(s->fd, FALLOC_FL_COLLAPSE_RANGE, 8 * PAGE, 4 * PAGE))
		die("fallocate collapse");
	s->pages = COH_PAGES - 4;
	for (p = 8; p < s->pages; p++)
		s->versions[p] = 1;
	s->collapsed = 1;
}

static void direct_io(struct scenario *s)
{
	char path[256];
	uint8_t *buf;
	uint64_t p;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", s->fd);
	fd = open(path, O_WRONLY | O_DIRECT);
	if (fd < 0)
		die("open O_DIRECT");
	if (posix_memalign((void **)&buf, PAGE, PAGE))
		die("posix_memalign");
	for (p = 5; p < 10; p++) {
		make_page(s->seed, s->file, p, 2, buf);
		write_all(fd, buf, PAGE, p * PAGE);
		s->versions[p] = 2;
	}
	free(buf);
	close(fd);
}

static void mmap_write(struct scenario *s)
{
	uint8_t *map;
	uint64_t p;

	map = mmap(NULL, COH_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   s->fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	for (p = 3; p < 6; p++) {
		make_page(s->seed, s->file, p, 2, map + p * PAGE);
		s->versions[p] = 2;
	}
	if (msync(map, COH_PAGES * PAGE, MS_SYNC))
		die("msync");
	munmap(map, COH_PAGES * PAGE);
}

/* Which page's data page @p must hold: p + 4 from 8 on once collapsed. */
static uint64_t source_page(const struct scenario *s, uint64_t p)
{
	return s->collapsed && p >= 8 ? p + 4 : p;
}

static uint64_t check(struct scenario *s, const char *dir, const char *round)
{
	uint8_t got[PAGE], want[PAGE], part[PAGE];
	char path[256], what[64];
	uint64_t p, bad = 0;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, s->name);
	snprintf(what, sizeof(what), "%s %s", s->name, round);
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		die(path);
	if ((uint64_t)st.st_size != s->pages * PAGE) {
		printf("BAD %s: size %lld, wanted %" PRIu64 "\n", what,
		       (long long)st.st_size, s->pages * PAGE);
		bad++;
	}
	for (p = 0; p < s->pages; p++) {
		if (pread(fd, got, PAGE, p * PAGE) != (ssize_t)PAGE)
			die("pread");
		make_page(s->seed, s->file, source_page(s, p), s->versions[p],
			  want);
		if (p == s->partial.page) {
			make_page(s->seed, s->file, p, s->partial.version, part);
			memcpy(want + s->partial.from, part + s->partial.from,
			       s->partial.to - s->partial.from);
		}
		if (memcmp(got, want, PAGE)) {
			report(what, s->file, p, s->versions[p], got);
			bad++;
		}
	}
	close(fd);
	return bad;
}

static int coherency(const char *dir, uint64_t seed)
{
	static const struct {
		const char *name;
		void (*change)(struct scenario *s);
	} scenarios[] = {
		{ "overwrite", overwrite },
		{ "truncate_extend", truncate_extend },
		{ "punch_hole", punch_hole },
		{ "collapse_range", collapse_range },
		{ "direct_io", direct_io },
		{ "mmap_write", mmap_write },
	};
	struct scenario s[sizeof(scenarios) / sizeof(scenarios[0])];
	unsigned int i, n = sizeof(scenarios) / sizeof(scenarios[0]);
	uint64_t p, bad, total = 0;
	char path[256];

	/* Every file at version 1, read once, then evicted to cleancache. */
	for (i = 0; i < n; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].name = scenarios[i].name;
		s[i].seed = seed;
		s[i].file = 1000 + i;
		s[i].pages = COH_PAGES;
		s[i].partial.page = UINT64_MAX;
		snprintf(path, sizeof(path), "%s/%s", dir, s[i].name);
		s[i].fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (s[i].fd < 0)
			die(path);
		for (p = 0; p < COH_PAGES; p++)
			write_page(&s[i], p, 1);
		if (fsync(s[i].fd))
			die("fsync");
	}
	evict();
	for (i = 0; i < n; i++)
		total += check(&s[i], dir, "before");
	evict();

	/* The old pages are in cleancache now: change the files. */
	for (i = 0; i < n; i++) {
		scenarios[i].change(&s[i]);
		if (fsync(s[i].fd))
			die("fsync");
	}
	evict();
	for (i = 0; i < n; i++) {
		bad = check(&s[i], dir, "after");
		evict();
		bad += check(&s[i], dir, "again");
		printf("coherency: %s %s", s[i].name, bad ? "bad" : "ok");
		if (bad)
			printf(" %" PRIu64 " wrong pages", bad);
		printf("\n");
		total += bad;
		close(s[i].fd);
	}
	return total ? 1 : 0;
}

static uint64_t number(const char *arg)
{
	char *end;
	uint64_t v = strtoull(arg, &end, 0);

	if (!*arg || *end) {
		fprintf(stderr, "fileset: not a number: %s\n", arg);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && !strcmp(argv[1], "create"))
		return create(argv[2], number(argv[3]), number(argv[4]),
			      number(argv[5]));
	if (argc == 7 && !strcmp(argv[1], "read"))
		return read_set(argv[2], number(argv[3]), number(argv[4]),
				number(argv[5]), argv[6]);
	if (argc == 8 && !strcmp(argv[1], "rewrite"))
		return rewrite(argv[2], number(argv[3]), number(argv[4]),
			       number(argv[5]), number(argv[6]), argv[7]);
	if (argc == 4 && !strcmp(argv[1], "inodes"))
		return inodes(argv[2], number(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "coherency"))
		return coherency(argv[2], number(argv[3]));
	fprintf(stderr, "usage: fileset create|read|rewrite|inodes|coherency ... (see the source)\n");
	return 2;
}
