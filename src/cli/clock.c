/* clock.c — the command's clocks: wall seconds since the process started
 * (what a --time-limit counts from) and CPU seconds the process has used. */
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double cli_now(void)
{
	return seconds(CLOCK_MONOTONIC);
}

double cli_cpu_seconds(void)
{
	return seconds(CLOCK_PROCESS_CPUTIME_ID);
}

/* The process's start time in clock ticks since boot: field 22 of
 * /proc/self/stat, after the command name in parentheses (which may itself
 * hold spaces and parentheses: the last ')' ends it). 0 when unknown. */
static unsigned long long start_ticks(void)
{
	char buf[1024];
	unsigned long long ticks = 0;
	FILE *f = fopen("/proc/self/stat", "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *s = strrchr(buf, ')');
	if (!s)
		return 0;
	/* fields 3..21 to skip, then starttime */
	if (sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
	           "%*u %*d %*d %*d %*d %*d %*d %llu", &ticks) != 1)
		return 0;
	return ticks;
}

double cli_process_start(void)
{
	static double start;
	if (start > 0)
		return start;
	double now = cli_now();
	start = now;
#ifdef CLOCK_BOOTTIME
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long ticks = start_ticks();
	double boot = seconds(CLOCK_BOOTTIME);
	if (hz > 0 && ticks && boot > 0) {
		/* Ticks are whole: the start may read up to one tick early,
		 * which only counts a little more time as spent. */
		double age = boot - (double)ticks / (double)hz;
		if (age > 0 && age < 60)
			start = now - age;
	}
#endif
	return start;
}
