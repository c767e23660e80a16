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
 *   -C INDEX    corrupt one byte of page INDEX after filling: proves that
 *               the verifier catches a wrong page (self-test only)
 *   -M MARKER   start every compressible page with MARKER (at most 31
 *               characters): a known pattern to look for on the wire
 *   -R PERCENT  this percent of the pages random (incompressible), the
 *               rest half same-filled, half compressible (default: the
 *               mix below, 3 same-filled, 3 compressible, 4 random in 10)
 *   -q          quieter: no per-pass lines
 *
 * The last line is machine-readable:
 *   workload: result pages=N bad=B fill_ms=F verify_ms=V total_ms=T
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
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
};

static uint64_t page_key(const struct area *a, size_t idx, uint32_t ver)
{
	return mix64(a->seed * 0x9e3779b97f4a7c15ULL ^ mix64(idx) ^
		     ((uint64_t)ver << 40));
}

/* 3 in 10 same-filled, 3 in 10 compressible, 4 in 10 random (or -R). */
static enum kind page_kind(const struct area *a, size_t idx)
{
	uint64_t h = mix64(a->seed ^ (idx * 0x2545f4914f6cdd1dULL));
	unsigned int r = h % 10, p;

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

static void make_page(const struct area *a, size_t idx, uint32_t ver,
		      uint64_t *out)
{
	uint64_t key = page_key(a, idx, ver), x = key | 1;
	size_t i, n = PAGE / sizeof(uint64_t);
	char *text = (char *)out;

	switch (page_kind(a, idx)) {
	case SAME_FILLED:
		/* Half of them zero pages, which differ only by absence. */
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
		for (i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			memcpy(&out[i], &vocabulary[(x % 16) * 8], 8);
		}
		snprintf(text, 96, "%s%spage %zu version %u key %016" PRIx64 " ",
			 a->marker, *a->marker ? " " : "", idx, ver, key);
		break;
	default:
		for (i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			out[i] = x;
		}
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
		"usage: workload -m MIB [-s SEED] [-p PASSES] [-H MIB] [-r FILE] [-C INDEX] [-M MARKER] [-R PERCENT] [-q]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	size_t mib = 0, hog_mib = 0, i, k, bad = 0, reported = 0;
	long corrupt = -1;
	uint64_t t0, t_fill, t_end, *want;
	const char *ready = NULL;
	int passes = 3, quiet = 0, opt, pass;
	struct area a = { .seed = 1, .marker = "", .random_pct = -1 };
	size_t *perm;

	while ((opt = getopt(argc, argv, "m:s:p:H:r:C:M:R:q")) != -1) {
		switch (opt) {
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 's': a.seed = strtoull(optarg, NULL, 0); break;
		case 'p': passes = atoi(optarg); break;
		case 'H': hog_mib = strtoul(optarg, NULL, 0); break;
		case 'r': ready = optarg; break;
		case 'C': corrupt = strtol(optarg, NULL, 0); break;
		case 'M': a.marker = optarg; break;
		case 'R': a.random_pct = atoi(optarg); break;
		case 'q': quiet = 1; break;
		default: usage();
		}
	}
	if (!mib || passes < 1 || strlen(a.marker) > 31 || a.random_pct > 100)
		usage();

	setvbuf(stdout, NULL, _IOLBF, 0);
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
