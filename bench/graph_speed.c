/* graph_speed.c — CPU time of libusmp's algorithm-facing core on one problem:
 * groups and bounds, the view, the interval index, neighbour walks, the verifier.
 *
 * Build by hand against the internal static library (not part of meson):
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc -Ibuild bench/graph_speed.c \
 *      build/src/libusmp_internal.a -lffi -ljansson -ldl -lm -lpthread \
 *      -o /tmp/graph_speed
 *   /tmp/graph_speed PROBLEM [PLAN]
 * e.g. PROBLEM = bench/workloads/out/cnn_1m.csv and PLAN written by
 *   build/src/cli/usmp plan PROBLEM -a first_fit -o /tmp/cnn_1m.plan.csv
 * With PLAN it verifies it, then moves one buffer by one byte and verifies
 * again (the second run should name a violation, unless that buffer is free).
 */
#include "internal.h"

#include <stdlib.h>
#include <sys/resource.h>

static double cpu(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return (double)r.ru_utime.tv_sec + (double)r.ru_utime.tv_usec * 1e-6 +
	       (double)r.ru_stime.tv_sec + (double)r.ru_stime.tv_usec * 1e-6;
}

static int count(void *arg, uint32_t other)
{
	(void)other;
	(*(uint64_t *)arg)++;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s PROBLEM [PLAN]\n", argv[0]);
		return 2;
	}
	usmp_problem *p = usmp_problem_create();
	if (!p || usmp_problem_read(p, argv[1], USMP_FORMAT_AUTO, USMP_UNBOUNDED)) {
		fprintf(stderr, "%s\n", p ? usmp_problem_error(p) : "out of memory");
		return 1;
	}
	printf("%s: %u buffers\n", argv[1], usmp_problem_buffer_count(p));
	double t = cpu();
	if (usmp__problem_prepare(p)) {
		fprintf(stderr, "%s\n", usmp_problem_error(p));
		return 1;
	}
	printf("prepare (groups, group bounds)   %7.3f s  groups %u, bound[0] %llu\n",
	       cpu() - t, p->group_count,
	       (unsigned long long)p->group_bound[0]);
	usmp__view_store vs;
	char *msg = NULL;
	t = cpu();
	if (usmp__view_build(p, NULL, 0, &vs, &msg)) {
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	printf("view (CSR, degrees, bound)       %7.3f s\n", cpu() - t);
	t = cpu();
	uint64_t lb = usmp__lower_bound(&vs.view);
	printf("lower bound alone                %7.3f s  %llu\n", cpu() - t,
	       (unsigned long long)lb);
	usmp__interval_index ix;
	t = cpu();
	if (usmp__interval_index_build(&ix, &vs.view))
		return 1;
	printf("interval index                   %7.3f s\n", cpu() - t);
	uint64_t visits = 0;
	t = cpu();
	for (uint32_t b = 0; b < vs.view.buffer_count; b++)
		usmp__for_each_neighbor(&vs.view, &ix, b, count, &visits);
	printf("every buffer's neighbours        %7.3f s  %llu visits\n", cpu() - t,
	       (unsigned long long)visits);
	if (argc > 2) {
		usmp_plan *plan = NULL;
		if (usmp_plan_read(p, argv[2], USMP_FORMAT_AUTO, &plan)) {
			fprintf(stderr, "%s\n", plan ? usmp_plan_error(plan) : "?");
			return 1;
		}
		t = cpu();
		int rc = usmp__verify(&vs.view, plan->placements, &msg);
		printf("verify                           %7.3f s  %s\n", cpu() - t,
		       rc ? msg : "valid");
		if (plan->buffer_count) {
			plan->placements[plan->buffer_count / 2].offset += 1;
			t = cpu();
			rc = usmp__verify(&vs.view, plan->placements, &msg);
			printf("verify, one buffer moved 1 byte  %7.3f s  %s\n", cpu() - t,
			       rc ? msg : "valid");
		}
		usmp_plan_destroy(plan);
	}
	usmp__free_msg(&msg);
	usmp__interval_index_finish(&ix);
	usmp__view_finish(&vs);
	usmp_problem_destroy(p);
	return 0;
}
