/* common.h — what the load programs share: memory and descriptor readings
 * from /proc, a clock, a PRNG and a registry over one plugin directory. */
#ifndef USMP_LOAD_COMMON_H
#define USMP_LOAD_COMMON_H
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <usmp/usmp.h>

/* A field of /proc/self/status in KiB ("VmRSS", "VmHWM"), or -1. */
static inline long proc_kib(const char *field)
{
	char line[256];
	long v = -1;
	size_t n = strlen(field);
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* Open file descriptors of this process. */
static inline int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory stream itself */
}

static inline double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process (all threads), seconds. */
static inline double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t rand64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A registry over `dir` only (no environment, no installed plugins). */
static inline usmp_registry *load_registry(const char *dir)
{
	usmp_registry_options o = {.struct_size = sizeof o,
	                           .flags = USMP_REGISTRY_NO_ENV |
	                                    USMP_REGISTRY_NO_DEFAULT_DIRS,
	                           .plugin_path = dir};
	usmp_registry *r = NULL;
	if (usmp_registry_create(&o, &r) != USMP_OK) {
		fprintf(stderr, "cannot create the registry\n");
		exit(1);
	}
	for (uint32_t i = 0; i < usmp_registry_diagnostic_count(r); i++)
		fprintf(stderr, "skipped plugin: %s\n", usmp_registry_diagnostic(r, i));
	return r;
}
#endif
