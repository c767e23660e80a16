// SPDX-License-Identifier: GPL-2.0
/*
 * workload - a verifying memory workload for swap tests
 *
 * Allocates N MiB of anonymous memory and fills every page with contents
 * derived from (seed, page index, version): same-filled pages, compressible
 * text-like pages and incompressible random pages, mixed by a hash of the
 * index.  Then it runs several passes that verify every page, in sequential,
 * random and reverse order, and rewrite a quarter of the pages with their
 * next version (so that a stale copy of an older version is caught, not
 * only a lost one).  Every mismatch is reported with its page index and
 * kind; the exit status is 1 if any page was wrong.
 *
 * Options:
 *   -m MIB      size of the verified area (required)
 *   -s SEED     seed (default 1)
 *   -p PASSES   verify passes (default 3)
 *   -H MIB      after filling, touch a temporary "hog" area of this size
 *               and free it, pushing the verified area out to swap
 *   -r FILE     after filling (and the hog), create FILE and wait until
 *               FILE.go exists before verifying: lets a test act while
 *               the pages sit in swap (swapoff, rmmod, shrink)
 *   -T USEC     pause USEC microseconds before each page it verifies: a
 *               slow reader, so that a test can act while its loads are
 *               in flight whatever the machine's speed
 *   -C INDEX    corrupt one byte of page INDEX after filling: proves that
 *               the verifier catches a wrong page (self-test only; with -U,
 *               the counter word of page INDEX of the first process: as
 *               a stale page would be, which only the check on access
 *               catches, since the access overwrites the counter)
 *   -M MARKER   start every compressible page with MARKER (at most 31
 *               characters): a known pattern to look for on the wire
 *   -R PERCENT  this percent of the pages random (incompressible), the
 *               rest half same-filled, half compressible (default: the
 *               mix below, 3 same-filled, 3 compressible, 4 random in 10)
 *   -X          the realistic mix (tests/bench.sh), after what is measured
 *               of anonymous memory: 10 in 100 zero pages (a rewritten one
 *               becomes same-filled, non-zero), 12 in 100 random, the other
 *               78 compressible (about 2-3x with lz4); -R wins over -X
 *   -Z SECONDS  no swap workload: make 1024 pages of the mix, then compress
 *               them over and over for SECONDS with an LZ4-style block
 *               compressor of this file's (greedy, a 4096-entry hash table,
 *               lz4's skip acceleration), one page at a time as zswap does;
 *               prints pages/s and the ratio.  The same loop on the host
 *               and in a guest gives the emulator's slowdown factor
 *   -U          usemem-style, as linux-mm measures swap (vm-scalability's
 *               usemem): instead of the verify passes, -P processes each
 *               take their share of the area (a private mapping each,
 *               their own seed), write every page of it in order, then
 *               make PASSES x its pages accesses at uniformly random pages,
 *               each reading and incrementing a counter in the page's first
 *               word (checked on the way: a page that comes back older or
 *               as another page counts as bad), then check every page whole
 *               (the counter makes every page non-uniform: no page of -U
 *               is same-filled)
 *   -P PROCS    processes of -U (default 2, the guests' CPUs; at most 64)
 *   -G          the sort workload's input: text lines of MIB MiB in all (a
 *               16-hex-digit key from the seed, then 5 to 24 words of the
 *               vocabulary below) on stdout, for a real program to sort
 *   -V          its check: reads the sorted lines on stdin; every line must
 *               be >= the one before (bytes, as LC_ALL=C sort orders) and
 *               the lines must be those -G made with the same -m and -s,
 *               as many and the same (an order-independent hash); a line
 *               lost, doubled or changed counts as bad
 *   -F          put the process's robust futex list head alone in a page
 *               nothing else touches: the kernel reads it when the process
 *               exits (futex_cleanup()), so a killed process's exit faults
 *               on a page that went to swap early (or to another machine)
 *   -S          the upper half of the area is tmpfs: a memfd mapped shared
 *               over it, so that its pages go to swap through shmem
 *               (shmem_writepage(), shmem_swapin_folio(), and
 *               shmem_unuse() at swapoff) while the lower half stays
 *               anonymous memory; the same pages, versions and checks
 *   -q          quieter: no per-pass lines
 *
 * The last line is machine-readable:
 *   workload: result pages=N bad=B fill_ms=F verify_ms=V total_ms=T
 * (with -U, fill_ms is the slowest process's fill and the line ends with
 * procs=P accesses=A; with -V, pages is MIB in pages, fill_ms the time to
 * the first sorted line, verify_ms the rest, and the line ends with
 * lines=L)
 * or with -Z:
 *   workload: compress pages=N ms=T pages_per_s=P ratio=R text_ratio=C
 * (R: bytes in over bytes out over the mix; C: the same for its
 * compressible pages alone)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mix64.h"

#define PAGE		4096UL
#define MAX_REPORTS	20

enum kind { SAME_FILLED, COMPRESSIBLE, RANDOM, NR_KINDS };
static const char *const kind_names[] = { "same-filled", "compressible",
					  "random" };

struct area {
	uint8_t *base;
	size_t pages;
	uint32_t *version;	/* current version of every page */
	uint64_t seed;
	const char *marker;	/* "" or the start of compressible pages */
	int random_pct;		/* -R, or -1 for the default mix */
	int realistic;		/* -X */
};

static uint64_t page_key(const struct area *a, size_t idx, uint32_t ver)
{
	return mix64(a->seed * 0x9e3779b97f4a7c15ULL ^ mix64(idx) ^
		     ((uint64_t)ver << 40));
}

/*
 * 3 in 10 same-filled, 3 in 10 compressible, 4 in 10 random (or -R, or
 * -X: 10 in 100 same-filled, all zero at version 0, 12 random, 78
 * compressible).
 */
static enum kind page_kind(const struct area *a, size_t idx)
{
	uint64_t h = mix64(a->seed ^ (idx * 0x2545f4914f6cdd1dULL));
	unsigned int r = h % 10, p;

	if (a->realistic && a->random_pct < 0) {
		p = h % 100;
		return p < 10 ? SAME_FILLED : p < 22 ? RANDOM : COMPRESSIBLE;
	}
	if (a->random_pct >= 0) {
		p = h % 100;
		if (p < (unsigned int)a->random_pct)
			return RANDOM;
		return (h >> 32) & 1 ? COMPRESSIBLE : SAME_FILLED;
	}
	return r < 3 ? SAME_FILLED : r < 6 ? COMPRESSIBLE : RANDOM;
}

/* 16 words of 8 bytes for compressible pages */
static const char vocabulary[] =
	"ramster swaps   pages topeers in"
	"cluster of nodesremote  memory, "
	"local   pool andfrontswpzsmalloc"
	"lz4 lzo zstd    kernel  sockets ";

/* The next value of the xorshift64 generator in *X (never 0 if *X is not). */
static uint64_t xorshift64(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void make_page(const struct area *a, size_t idx, uint32_t ver,
		      uint64_t *out)
{
	uint64_t key = page_key(a, idx, ver), x = key | 1;
	size_t i, n = PAGE / sizeof(uint64_t);
	char *text = (char *)out;

	switch (page_kind(a, idx)) {
	case SAME_FILLED:
		/*
		 * Half of them zero pages (all of them with -X), which differ
		 * only by absence.
		 */
		if (a->realistic && a->random_pct < 0)
			key &= ~1ULL;
		for (i = 0; i < n; i++)
			out[i] = (key & 1) ? key : 0;
		if (!(key & 1) && ver) {
			/* Versioned zero pages would all look alike. */
			for (i = 0; i < n; i++)
				out[i] = key | 1;
		}
		break;
	case COMPRESSIBLE:
		/*
		 * Words drawn from a vocabulary of 16: compresses to about
		 * 40-50% with lz4, like real anonymous memory, not to nothing.
		 */
		for (i = 0; i < n; i++)
			memcpy(&out[i], &vocabulary[(xorshift64(&x) % 16) * 8], 8);
		snprintf(text, 96, "%s%spage %zu version %u key %016" PRIx64 " ",
			 a->marker, *a->marker ? " " : "", idx, ver, key);
		break;
	default:
		for (i = 0; i < n; i++)
			out[i] = xorshift64(&x);
		break;
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void write_page(struct area *a, size_t idx, uint32_t ver)
{
	make_page(a, idx, ver, (uint64_t *)(a->base + idx * PAGE));
	a->version[idx] = ver;
}

static size_t check_page(const struct area *a, size_t idx, uint64_t *want,
			 size_t *reported)
{
	const uint8_t *got = a->base + idx * PAGE;
	size_t off;

	make_page(a, idx, a->version[idx], want);
	if (!memcmp(got, want, PAGE))
		return 0;
	if ((*reported)++ < MAX_REPORTS) {
		for (off = 0; off < PAGE && got[off] == ((uint8_t *)want)[off];
		     off++)
			;
		printf("workload: BAD page %zu (%s, version %u): first difference at byte %zu: got %02x want %02x\n",
		       idx, kind_names[page_kind(a, idx)], a->version[idx],
		       off, got[off], ((uint8_t *)want)[off]);
	}
	return 1;
}

/* A random permutation of [0, n), from the seed. */
static size_t *permutation(size_t n, uint64_t seed)
{
	size_t *p = malloc(n * sizeof(*p)), i, j, t;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = mix64(seed + i) % (i + 1);
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	return p;
}

static void hog(size_t mib)
{
	size_t len = mib << 20, i;
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("workload: hog mmap");
		exit(2);
	}
	for (i = 0; i < len; i += PAGE)
		p[i] = (uint8_t)(i >> 12) | 1;
	munmap(p, len);
}

static void wait_for_go(const char *ready)
{
	char go[4096];
	struct stat st;
	FILE *f;

	snprintf(go, sizeof(go), "%s.go", ready);
	f = fopen(ready, "w");
	if (!f) {
		perror("workload: ready file");
		exit(2);
	}
	fclose(f);
	printf("workload: paused, waiting for %s\n", go);
	fflush(stdout);
	while (stat(go, &st) != 0)
		usleep(100000);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: workload -m MIB [-s SEED] [-p PASSES] [-H MIB] [-r FILE] [-T USEC] [-C INDEX] [-M MARKER] [-R PERCENT] [-X] [-F] [-S] [-q]\n"
		"       workload -U -m MIB [-P PROCS] [-s SEED] [-p PASSES] [-R PERCENT] [-X]\n"
		"       workload -G|-V -m MIB [-s SEED]\n"
		"       workload -Z SECONDS [-s SEED] [-R PERCENT] [-X]\n");
	exit(2);
}

/* -F: an empty robust futex list, its head alone in a cold page. */
static void robust_list_in_cold_page(void)
{
	struct robust_list_head *head;

	head = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (head == MAP_FAILED) {
		perror("workload: mmap");
		exit(2);
	}
	head->list.next = &head->list;
	head->futex_offset = 0;
	head->list_op_pending = NULL;
	if (syscall(SYS_set_robust_list, head, sizeof(*head))) {
		perror("workload: set_robust_list");
		exit(2);
	}
}

/*
 * -S: map a memfd of the upper half of BASE's PAGES pages over it, shared
 * (its pages are tmpfs pages, written to swap by shmem); 0 or -1.
 */
static int tmpfs_upper_half(uint8_t *base, size_t pages)
{
	size_t lower = pages / 2, upper = pages - lower;
	void *p;
	int fd;

	fd = memfd_create("workload", 0);
	if (fd < 0 || ftruncate(fd, (off_t)(upper * PAGE)) < 0)
		return -1;
	p = mmap(base + lower * PAGE, upper * PAGE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? -1 : 0;
}

#define SORT_LINE_MAX 256

/* Line I of -G's output (with its newline) in BUF; returns its length. */
static size_t sort_line(uint64_t seed, size_t i, char *buf)
{
	uint64_t k = mix64(seed * 0x9e3779b97f4a7c15ULL ^ mix64(i)), x = k | 1;
	size_t n = (size_t)sprintf(buf, "%016" PRIx64, k), w, words = 5 + k % 20;

	for (w = 0; w < words; w++) {
		buf[n++] = ' ';
		memcpy(buf + n, &vocabulary[(xorshift64(&x) % 16) * 8], 8);
		n += 8;
	}
	buf[n++] = '\n';
	return n;
}

/* An order-independent digest of a multiset of lines: a sum of hashes. */
static uint64_t line_hash(const char *line, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)line[i]) * 0x100000001b3ULL;
	return mix64(h);
}

/*
 * The lines -G makes for MIB: written to @out if not NULL (-G), their
 * digest added to *@digest if not NULL (-V's expectation).  Returns how
 * many, or 0 if writing failed.
 */
static size_t sort_lines(uint64_t seed, size_t mib, FILE *out,
			 uint64_t *digest)
{
	char buf[SORT_LINE_MAX];
	size_t bytes = 0, i, len;

	for (i = 0; bytes < mib << 20; i++) {
		len = sort_line(seed, i, buf);
		if (digest)
			*digest += line_hash(buf, len);
		if (out && fwrite(buf, 1, len, out) != len) {
			perror("workload: write");
			return 0;
		}
		bytes += len;
	}
	return i;
}

/* -G: the input, MIB MiB of lines on stdout. */
static int sort_generate(uint64_t seed, size_t mib)
{
	return !sort_lines(seed, mib, stdout, NULL) || fflush(stdout) ? 2 : 0;
}

/* -V: the sorted lines on stdin checked against what -G made. */
static int sort_verify(uint64_t seed, size_t mib)
{
	uint64_t t0 = now_ms(), t_first = 0, t_end, digest, want_digest;
	size_t want, lines = 0, bad = 0, cap_a = 0, cap_b = 0;
	char *line = NULL, *prev = NULL, *t;
	ssize_t len, prev_len = -1;
	size_t cap;

	digest = 0;
	while ((len = getline(&line, &cap_a, stdin)) > 0) {
		if (!lines)
			t_first = now_ms();
		lines++;
		digest += line_hash(line, (size_t)len);
		if (prev_len >= 0 && strcmp(prev, line) > 0 && bad++ < MAX_REPORTS)
			printf("workload: BAD order at line %zu: %.40s after %.40s\n",
			       lines, line, prev);
		t = prev;
		prev = line;
		line = t;
		prev_len = len;
		cap = cap_a;
		cap_a = cap_b;
		cap_b = cap;
	}
	t_end = now_ms();
	if (!lines)
		t_first = t_end;
	/* After the clock: the expectation competes with nobody for the CPU. */
	want_digest = 0;
	want = sort_lines(seed, mib, NULL, &want_digest);
	if (lines != want || digest != want_digest) {
		printf("workload: BAD output: %zu lines (want %zu), digest %016" PRIx64 " (want %016" PRIx64 ")\n",
		       lines, want, digest, want_digest);
		bad++;
	}
	printf("workload: result pages=%zu bad=%zu fill_ms=%" PRIu64 " verify_ms=%" PRIu64 " total_ms=%" PRIu64 " lines=%zu\n",
	       (mib << 20) / PAGE, bad, t_first - t0, t_end - t_first,
	       t_end - t0, lines);
	free(line);
	free(prev);
	return bad ? 1 : 0;
}

#define MAX_PROCS 64

/* What each -U process tells the parent (a shared page). */
struct usemem_result {
	uint64_t fill_ms;
	uint64_t bad;
	uint64_t accesses;
	int done;
};

/* The first word of page IDX of a -U area after COUNT accesses. */
static uint64_t usemem_tag(const struct area *a, size_t idx, uint32_t count)
{
	return (mix64(a->seed * 0x9e3779b97f4a7c15ULL ^ idx) << 32) | count;
}

/* A -U page whose bytes differ from WANT's, reported (the first few). */
static void usemem_bad(const struct area *a, size_t idx, const uint8_t *want,
		       size_t len, size_t *reported, const char *when)
{
	const uint8_t *got = a->base + idx * PAGE;
	size_t off;

	if ((*reported)++ >= MAX_REPORTS)
		return;
	for (off = 0; off < len - 1 && got[off] == want[off]; off++)
		;
	printf("workload: BAD page %zu (%s, %u accesses) %s: first difference at byte %zu: got %02x want %02x\n",
	       idx, kind_names[page_kind(a, idx)], a->version[idx], when, off,
	       got[off], want[off]);
}

/*
 * One -U process over its own area of PAGES pages: the sequential
 * write, the random accesses (a->version counts each page's accesses),
 * then every page checked whole.
 */
static void usemem_child(struct area *a, int passes, long corrupt,
			 struct usemem_result *res)
{
	uint64_t t0 = now_ms(), *want, *w, tag;
	size_t i, idx, reported = 0, bad = 0, n = a->pages * (size_t)passes;

	a->base = mmap(NULL, a->pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a->version = calloc(a->pages, sizeof(*a->version));
	want = aligned_alloc(PAGE, PAGE);
	if (a->base == MAP_FAILED || !a->version || !want) {
		fprintf(stderr, "workload: cannot allocate %zu pages: %s\n",
			a->pages, strerror(errno));
		exit(2);
	}
	for (i = 0; i < a->pages; i++) {
		make_page(a, i, 0, (uint64_t *)(a->base + i * PAGE));
		*(uint64_t *)(a->base + i * PAGE) = usemem_tag(a, i, 0);
	}
	/* The counter: only the check on access can tell it is stale. */
	if (corrupt >= 0 && (size_t)corrupt < a->pages)
		a->base[corrupt * PAGE] ^= 0x40;
	res->fill_ms = now_ms() - t0;
	for (i = 0; i < n; i++) {
		idx = mix64(a->seed * 0x2545f4914f6cdd1dULL + i) % a->pages;
		w = (uint64_t *)(a->base + idx * PAGE);
		tag = usemem_tag(a, idx, a->version[idx]);
		if (*w != tag) {
			usemem_bad(a, idx, (const uint8_t *)&tag, sizeof(tag),
				   &reported, "on access");
			bad++;
		}
		*w = usemem_tag(a, idx, ++a->version[idx]);
	}
	for (i = 0; i < a->pages; i++) {
		make_page(a, i, 0, want);
		want[0] = usemem_tag(a, i, a->version[i]);
		if (memcmp(a->base + i * PAGE, want, PAGE)) {
			usemem_bad(a, i, (const uint8_t *)want, PAGE, &reported,
				   "at the end");
			bad++;
		}
	}
	res->bad = bad;
	res->accesses = n;
	res->done = 1;
}

/* -U: PROCS processes, each over its share of MIB (-C: the first's). */
static int usemem(struct area *a, size_t mib, int procs, int passes,
		  long corrupt)
{
	struct usemem_result *res;
	uint64_t t0 = now_ms(), fill = 0, bad = 0, accesses = 0, t_end;
	size_t pages = (mib << 20) / PAGE;
	int c, failed = 0, status;
	pid_t pid[MAX_PROCS];

	res = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		perror("workload: mmap");
		return 2;
	}
	fflush(stdout);
	for (c = 0; c < procs; c++) {
		pid[c] = fork();
		if (pid[c] < 0) {
			perror("workload: fork");
			while (c--) {
				kill(pid[c], SIGKILL);
				waitpid(pid[c], NULL, 0);
			}
			return 2;
		}
		if (!pid[c]) {
			a->pages = pages / procs + ((size_t)c < pages % procs);
			a->seed += (uint64_t)c * 0x100000001ULL;
			usemem_child(a, passes, c ? -1 : corrupt, &res[c]);
			fflush(stdout);
			_exit(0);
		}
	}
	/* A child that died (the OOM killer, a SIGBUS) failed, once. */
	for (c = 0; c < procs; c++)
		if (waitpid(pid[c], &status, 0) != pid[c] || !WIFEXITED(status) ||
		    WEXITSTATUS(status) || !res[c].done)
			failed++;
	t_end = now_ms();
	for (c = 0; c < procs; c++) {
		if (res[c].fill_ms > fill)
			fill = res[c].fill_ms;
		bad += res[c].bad;
		accesses += res[c].accesses;
	}
	if (failed)
		printf("workload: %d of %d processes did not finish\n", failed, procs);
	printf("workload: result pages=%zu bad=%" PRIu64 " fill_ms=%" PRIu64 " verify_ms=%" PRIu64 " total_ms=%" PRIu64 " procs=%d accesses=%" PRIu64 "\n",
	       pages, bad, fill, t_end - t0 - fill, t_end - t0, procs, accesses);
	return bad || failed ? 1 : 0;
}

static uint32_t read32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* lz4's length encoding: 15 in the token, then bytes of 255 and the rest. */
static uint8_t *lz4_len(uint8_t *op, size_t len)
{
	for (len -= 15; len >= 255; len -= 255)
		*op++ = 255;
	*op++ = (uint8_t)len;
	return op;
}

static uint8_t *lz4_literals(uint8_t *op, uint8_t *token,
			     const uint8_t *from, size_t lit)
{
	*token = (uint8_t)((lit >= 15 ? 15 : lit) << 4);
	if (lit >= 15)
		op = lz4_len(op, lit);
	memcpy(op, from, lit);
	return op + lit;
}

/*
 * One page in LZ4's block format, greedy as LZ4_compress_default(): a hash
 * of 4 bytes finds the last position with them, a match is extended as far
 * as it goes, the search steps further after every 64 misses.  Returns the
 * compressed size (DST: at least PAGE + PAGE / 255 + 16 bytes).
 */
static size_t lz4_page(const uint8_t *src, uint8_t *dst)
{
	uint16_t table[4096];
	const uint8_t *ip = src + 1, *anchor = src, *ref, *m, *r;
	const uint8_t *mflimit = src + PAGE - 12, *matchlimit = src + PAGE - 5;
	uint8_t *op = dst, *token;
	unsigned int misses = 0;
	uint32_t seq, h;
	size_t mlen;

	memset(table, 0, sizeof(table));
	while (ip < mflimit) {
		seq = read32(ip);
		h = (seq * 2654435761U) >> 20;
		ref = src + table[h];
		table[h] = (uint16_t)(ip - src);
		if (read32(ref) != seq || ref >= ip) {
			ip += 1 + (misses++ >> 6);
			continue;
		}
		misses = 0;
		for (m = ip + 4, r = ref + 4; m < matchlimit && *m == *r; m++, r++)
			;
		token = op++;
		op = lz4_literals(op, token, anchor, ip - anchor);
		*op++ = (uint8_t)(ip - ref);
		*op++ = (uint8_t)((ip - ref) >> 8);
		mlen = m - ip - 4;
		*token |= mlen >= 15 ? 15 : mlen;
		if (mlen >= 15)
			op = lz4_len(op, mlen);
		ip = anchor = m;
	}
	token = op++;
	op = lz4_literals(op, token, anchor, src + PAGE - anchor);
	return op - dst;
}

/* -Z: the compression loop, for SECONDS; see the header. */
static int compress_loop(struct area *a, unsigned int seconds)
{
	size_t n = 1024, i, done = 0, in = 0, out = 0, text_in = 0, text_out = 0;
	uint8_t *pages = aligned_alloc(PAGE, n * PAGE);
	uint8_t *dst = malloc(2 * PAGE);
	uint64_t t0, t;
	size_t len;

	if (!pages || !dst) {
		fprintf(stderr, "workload: out of memory\n");
		return 2;
	}
	a->pages = n;
	for (i = 0; i < n; i++)
		make_page(a, i, 0, (uint64_t *)(pages + i * PAGE));
	t0 = now_ms();
	do {
		for (i = 0; i < n; i++) {
			len = lz4_page(pages + i * PAGE, dst);
			in += PAGE;
			out += len;
			if (page_kind(a, i) == COMPRESSIBLE) {
				text_in += PAGE;
				text_out += len;
			}
		}
		done += n;
		t = now_ms();
	} while (t - t0 < seconds * 1000ULL);
	printf("workload: compress pages=%zu ms=%" PRIu64 " pages_per_s=%" PRIu64 " ratio=%.2f text_ratio=%.2f\n",
	       done, t - t0, done * 1000 / (t - t0 ? t - t0 : 1),
	       (double)in / out, text_out ? (double)text_in / text_out : 0.0);
	return 0;
}

int main(int argc, char **argv)
{
	size_t mib = 0, hog_mib = 0, i, k, bad = 0, reported = 0;
	long corrupt = -1;
	uint64_t t0, t_fill, t_end, *want;
	const char *ready = NULL;
	int passes = 3, quiet = 0, opt, pass;
	struct area a = { .seed = 1, .marker = "", .random_pct = -1 };
	unsigned int compress_seconds = 0;
	int use_mem = 0, procs = 2, sort_mode = 0, cold_robust = 0, tmpfs = 0;
	size_t *perm;
	unsigned long pace_us = 0;

	while ((opt = getopt(argc, argv, "m:s:p:H:r:T:C:M:R:XZ:FSqUP:GV")) != -1) {
		switch (opt) {
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 's': a.seed = strtoull(optarg, NULL, 0); break;
		case 'p': passes = atoi(optarg); break;
		case 'H': hog_mib = strtoul(optarg, NULL, 0); break;
		case 'r': ready = optarg; break;
		case 'T': pace_us = strtoul(optarg, NULL, 0); break;
		case 'C': corrupt = strtol(optarg, NULL, 0); break;
		case 'M': a.marker = optarg; break;
		case 'R': a.random_pct = atoi(optarg); break;
		case 'X': a.realistic = 1; break;
		case 'Z': compress_seconds = strtoul(optarg, NULL, 0); break;
		case 'F': cold_robust = 1; break;
		case 'S': tmpfs = 1; break;
		case 'q': quiet = 1; break;
		case 'U': use_mem = 1; break;
		case 'P': procs = atoi(optarg); break;
		case 'G':
		case 'V': sort_mode = opt; break;
		default: usage();
		}
	}
	if (compress_seconds && a.random_pct <= 100 && strlen(a.marker) <= 31) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		return compress_loop(&a, compress_seconds);
	}
	if (!mib || passes < 1 || strlen(a.marker) > 31 || a.random_pct > 100)
		usage();

	if (sort_mode == 'G')
		return sort_generate(a.seed, mib);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sort_mode == 'V')
		return sort_verify(a.seed, mib);
	if (use_mem) {
		if (cold_robust || tmpfs || procs < 1 || procs > MAX_PROCS ||
		    (mib << 20) / PAGE < (size_t)procs)
			usage();
		return usemem(&a, mib, procs, passes, corrupt);
	}
	a.pages = (mib << 20) / PAGE;
	a.base = mmap(NULL, a.pages * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a.version = calloc(a.pages, sizeof(*a.version));
	want = aligned_alloc(PAGE, PAGE);
	perm = permutation(a.pages, a.seed);
	if (a.base == MAP_FAILED || !a.version || !want || !perm) {
		fprintf(stderr, "workload: cannot allocate %zu MiB: %s\n", mib,
			strerror(errno));
		return 2;
	}
	if (tmpfs && tmpfs_upper_half(a.base, a.pages)) {
		fprintf(stderr, "workload: cannot map a memfd: %s\n",
			strerror(errno));
		return 2;
	}

	if (cold_robust)
		robust_list_in_cold_page();
	t0 = now_ms();
	for (i = 0; i < a.pages; i++)
		write_page(&a, i, 0);
	if (corrupt >= 0 && (size_t)corrupt < a.pages)
		a.base[corrupt * PAGE + 100] ^= 0x40;
	if (hog_mib)
		hog(hog_mib);
	t_fill = now_ms();
	if (!quiet)
		printf("workload: filled %zu pages (%zu MiB) in %" PRIu64 " ms\n",
		       a.pages, mib, t_fill - t0);
	if (ready)
		wait_for_go(ready);

	for (pass = 0; pass < passes; pass++) {
		size_t pass_bad = 0;
		uint64_t tp = now_ms();

		for (k = 0; k < a.pages; k++) {
			/* sequential, random, reverse, random, ... */
			i = pass % 2 ? perm[k] :
			    pass % 4 == 2 ? a.pages - 1 - k : k;
			if (pace_us)
				usleep(pace_us);
			pass_bad += check_page(&a, i, want, &reported);
			/* Rewrite a quarter: the next pass must see it. */
			if (pass + 1 < passes && mix64(i + pass) % 4 == 0)
				write_page(&a, i, a.version[i] + 1);
		}
		bad += pass_bad;
		if (!quiet)
			printf("workload: pass %d (%s) verified %zu pages, %zu bad, %" PRIu64 " ms\n",
			       pass, pass % 2 ? "random" :
			       pass % 4 == 2 ? "reverse" : "sequential",
			       a.pages, pass_bad, now_ms() - tp);
	}
	t_end = now_ms();
	printf("workload: result pages=%zu bad=%zu fill_ms=%" PRIu64 " verify_ms=%" PRIu64 " total_ms=%" PRIu64 "\n",
	       a.pages, bad, t_fill - t0, t_end - t_fill, t_end - t0);
	return bad ? 1 : 0;
}
