/*
 * deflate-tune: zlib's level 9 and deflateTune() settings on the items of a
 * real uncompressed dump (issue 19, dump speed).  Reads a `btrfs image -c0`
 * dump, deflates every item but the superblock as one stream each (as a
 * -c9 dump does) with level 9 and the given tuning, and prints the summed
 * stream size, its ratio to zlib's untuned level 9, and the CPU time of
 * both.  With -z, runs of 32 and more zero bytes are taken out of every item
 * first (how much of the time the zeroed free space costs).  Not built by
 * make:  cc -O2 -o deflate-tune bench/deflate-tune.c -lz
 * usage: deflate-tune [-z] DUMP [GOOD LAZY NICE CHAIN]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

struct item { const uint8_t *p; uint32_t len; };

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Deflate every item with level 9 and tune[] (NULL: zlib's own); the summed size. */
static uint64_t deflate_all(const struct item *it, int n, const int *tune, double *secs)
{
	uLong cap = compressBound(1U << 28);
	uint8_t *out = malloc(cap);
	double t0 = cpu_seconds();
	uint64_t sum = 0;

	if (!out)
		exit(1);
	for (int i = 0; i < n; i++) {
		z_stream zs = { 0 };

		if (deflateInit(&zs, 9) != Z_OK ||
		    (tune && deflateTune(&zs, tune[0], tune[1], tune[2], tune[3]) != Z_OK))
			exit(1);
		zs.next_in = (uint8_t *)it[i].p;
		zs.avail_in = it[i].len;
		zs.next_out = out;
		zs.avail_out = cap;
		if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
			exit(1);
		sum += zs.total_out;
		deflateEnd(&zs);
	}
	*secs = cpu_seconds() - t0;
	free(out);
	return sum;
}

int main(int argc, char **argv)
{
	int strip = argc > 1 && !strcmp(argv[1], "-z"), n = 0, tune[4];
	uint64_t total = 0, zeros = 0, size0, size1;
	struct item *it = NULL;
	uint8_t *buf;
	double t0, t1;
	long len;
	FILE *f;

	argv += strip;
	argc -= strip;
	if (argc != 2 && argc != 6) {
		fprintf(stderr, "usage: deflate-tune [-z] DUMP [GOOD LAZY NICE CHAIN]\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return perror(argv[1]), 1;
	buf = malloc(len);
	if (!buf || fread(buf, 1, len, f) != (size_t)len)
		return perror(argv[1]), 1;
	fclose(f);
	/* clusters: 1024-byte index (nritems at 16, items {u64, u32} from 21), payloads */
	for (long pos = 0; pos + 1024 <= len;) {
		uint32_t nr = le32(buf + pos + 16);
		long p = pos + 1024;

		it = realloc(it, (n + nr) * sizeof(*it));
		for (uint32_t i = 0; i < nr && it; i++) {
			uint32_t sz = le32(buf + pos + 21 + 12 * i + 8);

			if (p + (long)sz > len || buf[pos + 20] != 0) {
				fprintf(stderr, "%s: not a -c0 dump or truncated\n", argv[1]);
				return 1;
			}
			if (pos || i)       /* the superblock item aside */
				it[n++] = (struct item){ buf + p, sz };
			p += sz;
		}
		pos = (p + 1023) / 1024 * 1024;
	}
	for (int i = 0; i < n; i++) {
		uint8_t *p = (uint8_t *)it[i].p;
		uint32_t w = 0, r = 0;

		total += it[i].len;
		while (r < it[i].len) {
			uint32_t e = r;

			while (e < it[i].len && !p[e])
				e++;
			zeros += e - r;
			if (strip && e - r >= 32)
				r = e;
			else if (e == r)
				p[w++] = p[r++];
			else
				while (r < e)
					p[w++] = p[r++];
		}
		if (strip)
			it[i].len = w;
	}
	printf("%d items, %llu bytes, %.1f%% zero bytes%s\n", n, (unsigned long long)total,
	       100.0 * zeros / total, strip ? " (zero runs >= 32 taken out)" : "");
	size0 = deflate_all(it, n, NULL, &t0);
	printf("zlib level 9: %llu bytes, %.3f s CPU\n", (unsigned long long)size0, t0);
	if (argc == 6) {
		for (int i = 0; i < 4; i++)
			tune[i] = atoi(argv[2 + i]);
		size1 = deflate_all(it, n, tune, &t1);
		printf("tuned %d %d %d %d: %llu bytes (%+lld, ratio %.5f), %.3f s CPU (ratio %.3f)\n",
		       tune[0], tune[1], tune[2], tune[3], (unsigned long long)size1,
		       (long long)(size1 - size0), (double)size1 / size0, t1, t1 / t0);
	}
	return 0;
}
