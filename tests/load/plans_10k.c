/* plans_10k.c — many plans in one process: memory, descriptors and child
 * processes must stay flat. Prints RSS and open descriptors every 1000 plans.
 *   plans_10k PLUGIN_DIR [COUNT] [isolate|no_isolate|default] */
#include "common.h"

#include <sys/wait.h>
#include <errno.h>

static const char *const algos[] = {"first_fit", "best_fit", "greedy_by_size",
                                    "greedy_by_conflicts", "hill_climb",
                                    "exact", "auto"};

/* A fresh problem: 200 buffers on a time line, 2 pools, a few edges. */
static usmp_problem *make_problem(uint64_t *s)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t id;
	char name[32];
	if (!p)
		return NULL;
	usmp_problem_add_pool(p, "sram", 1 << 20, 16, NULL);
	usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 64, NULL);
	for (uint32_t i = 0; i < 200; i++) {
		snprintf(name, sizeof name, "t%u", i);
		if (usmp_problem_add_buffer(p, name, 1 + rand64(s) % 8192, 16, &id))
			break;
		int64_t b = (int64_t)(i / 2 + rand64(s) % 8);
		usmp_problem_set_live(p, id, b, b + 1 + (int64_t)(rand64(s) % 12));
	}
	for (uint32_t k = 0; k < 20; k++) {
		uint32_t a = (uint32_t)(rand64(s) % 200), c = (uint32_t)(rand64(s) % 200);
		if (a != c)
			usmp_problem_add_conflict(p, a, c);
	}
	return p;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: plans_10k PLUGIN_DIR [COUNT] "
		                "[isolate|no_isolate|default]\n");
		return 2;
	}
	long count = argc > 2 ? atol(argv[2]) : 10000;
	uint32_t flags = USMP_PLAN_NO_ISOLATE;
	if (argc > 3 && !strcmp(argv[3], "isolate"))
		flags = USMP_PLAN_ISOLATE;
	else if (argc > 3 && !strcmp(argv[3], "default"))
		flags = 0;
	usmp_registry *r = load_registry(argv[1]);
	uint64_t s = 42;
	long ok = 0, failed = 0;
	enum { NA = sizeof algos / sizeof *algos };
	long by_status[NA][USMP_ERR_INTERNAL + 1] = {{0}};
	double t0 = now_s();
	long rss0 = -1;
	printf("%8s %10s %8s %8s %9s\n", "plans", "rss_kib", "fds", "children",
	       "seconds");
	for (long i = 1; i <= count; i++) {
		usmp_problem *p = make_problem(&s);
		size_t ai = (size_t)i % NA;
		const char *algo = algos[ai];
		usmp_plan_options o = {.struct_size = sizeof o, .flags = flags,
		                       .algorithm = algo, .time_limit = 0.02};
		usmp_plan *plan = NULL;
		int rc = usmp_plan_compute(r, p, &o, &plan);
		if (rc == USMP_OK && usmp_plan_verify(plan, p) != USMP_OK)
			rc = USMP_ERR_INVALID_PLAN;
		if (rc == USMP_OK)
			ok++;
		else if (rc != USMP_ERR_UNSUPPORTED)
			failed++;
		if (rc >= 0 && rc <= USMP_ERR_INTERNAL)
			by_status[ai][rc]++;
		usmp_plan_destroy(plan);
		usmp_problem_destroy(p);
		if (i % 1000 == 0) {
			/* Reap nothing: a leaked child would show up here. */
			int children = 0;
			while (waitpid(-1, NULL, WNOHANG) > 0)
				children++;
			long rss = proc_kib("VmRSS");
			if (rss0 < 0)
				rss0 = rss;
			printf("%8ld %10ld %8d %8d %9.1f\n", i, rss, open_fds(),
			       children, now_s() - t0);
			fflush(stdout);
		}
	}
	printf("done: %ld valid plans, %ld failures (not counting unsupported); RSS %ld KiB after the "
	       "first 1000, %ld KiB at the end, peak %ld KiB\n",
	       ok, failed, rss0, proc_kib("VmRSS"), proc_kib("VmHWM"));
	for (size_t a = 0; a < NA; a++)
		for (int st = 1; st <= USMP_ERR_INTERNAL; st++)
			if (by_status[a][st])
				printf("  %s: %ld x %s\n", algos[a], by_status[a][st],
				       usmp_status_name(st));
	usmp_registry_destroy(r);
	return failed ? 1 : 0;
}
