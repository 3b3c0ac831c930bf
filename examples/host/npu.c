/* npu.c — a host linked against libusmp through pkg-config: an NPU's SRAM
 * and DRAM, auto and exact, an infeasibility certificate, a log, threads. */
#include <usmp/usmp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUF 6

/* Counts the log messages (several planning threads may call it at once). */
static void count_log(void *ctx, int level, const char *algorithm,
                      const char *message)
{
	(void)level;
	(void)algorithm;
	(void)message;
	__atomic_add_fetch((int *)ctx, 1, __ATOMIC_RELAXED);
}

/* An Ethos-U55 style graph: SRAM (`sram_limit` bytes) and, when `dram`, an
 * unbounded DRAM both candidates of every buffer, SRAM first; relu1 runs in
 * place over conv1's output; conv2's scratch conflicts by an edge. */
static int build(usmp_problem *p, uint64_t sram_limit, int dram)
{
	static const struct {
		const char *name;
		uint64_t size;
		int64_t begin, end; /* end 0: no live range (conflict edges) */
	} t[NBUF] = {
		{"input", 150528, 0, 1},     {"conv1.out", 100000, 0, 3},
		{"relu1.out", 100000, 2, 4}, {"conv2.out", 80000, 3, 5},
		{"output", 4000, 4, 6},      {"conv2.scratch", 60000, 0, 0},
	};
	uint32_t sram, dram_pool = 0, id[NBUF];
	int rc = usmp_problem_add_pool(p, "sram", sram_limit, 16, &sram);
	if (!rc)
		rc = usmp_problem_add_pool_target(p, sram, "ethos-u55");
	if (!rc && dram)
		rc = usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 16, &dram_pool);
	if (!rc && dram)
		rc = usmp_problem_add_pool_target(p, dram_pool, "ethos-u55");
	for (int i = 0; !rc && i < NBUF; i++) {
		rc = usmp_problem_add_buffer(p, t[i].name, t[i].size, 16, &id[i]);
		if (!rc && t[i].end)
			rc = usmp_problem_set_live(p, id[i], t[i].begin, t[i].end);
		if (!rc)
			rc = usmp_problem_add_candidate(p, id[i], sram);
		if (!rc && dram)
			rc = usmp_problem_add_candidate(p, id[i], dram_pool);
	}
	/* relu1.out (born at conv1.out's last step) may start at or below it. */
	if (!rc)
		rc = usmp_problem_add_overlap(p, id[1], id[2], 0);
	if (!rc)
		rc = usmp_problem_add_conflict(p, id[5], id[3]);
	if (rc)
		fprintf(stderr, "npu: %s\n", usmp_problem_error(p));
	return rc;
}

/* Plan the graph with `algorithm`; print and keep the offsets. */
static int plan_with(usmp_registry *r, const char *algorithm, int print,
                     uint64_t offsets[NBUF])
{
	usmp_problem *p = usmp_problem_create();
	usmp_plan *plan = NULL;
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = algorithm};
	usmp_part_info info = {.struct_size = sizeof info};
	int rc = p ? build(p, 256 * 1024, 1) : USMP_ERR_NOMEM;

	if (rc)
		goto fail;
	rc = usmp_plan_compute(r, p, &o, &plan);
	if (rc) {
		fprintf(stderr, "npu: %s: %s\n", algorithm, usmp_plan_error(plan));
		goto fail;
	}
	usmp_plan_part(plan, 0, &info);
	if (print)
		printf("%s: %s, %llu bytes, lower bound %llu%s\n", algorithm,
		       info.algorithm, (unsigned long long)info.size,
		       (unsigned long long)info.lower_bound,
		       info.optimal ? ", optimal" : "");
	/* Spill: bytes outside their first candidate pool (SRAM here). */
	if (print)
		printf("  spill %llu bytes in %u buffers\n",
		       (unsigned long long)info.spill, info.spill_count);
	for (uint32_t b = 0; b < NBUF; b++) {
		uint32_t pool;
		usmp_plan_placement(plan, b, &pool, &offsets[b]);
		if (print)
			printf("  %-14s %s + %llu\n", usmp_problem_buffer_name(p, b),
			       usmp_problem_pool_name(p, pool),
			       (unsigned long long)offsets[b]);
	}
fail:
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	return rc;
}

/* SRAM of 200 KiB and no DRAM: print the certificate. */
static int infeasible(usmp_registry *r)
{
	usmp_problem *p = usmp_problem_create();
	usmp_plan *plan = NULL;
	usmp_infeasibility why = {.struct_size = sizeof why};
	int rc = p ? build(p, 200 * 1024, 0) : USMP_ERR_NOMEM;

	if (rc)
		goto fail;
	rc = usmp_plan_compute(r, p, NULL, &plan);
	printf("200 KiB SRAM, no DRAM: %s\n", usmp_status_name(rc));
	if (rc != USMP_ERR_INFEASIBLE ||
	    usmp_plan_infeasibility(plan, &why) != USMP_OK) {
		rc = USMP_ERR_INTERNAL;
		goto fail;
	}
	if (why.kind == USMP_INFEASIBLE_STEP && why.pool != USMP_NO_POOL)
		printf("  pool %s needs %llu bytes at step %lld, limit %llu\n",
		       usmp_problem_pool_name(p, why.pool),
		       (unsigned long long)why.total, (long long)why.step,
		       (unsigned long long)why.limit);
	for (uint32_t i = 0; i < why.buffer_count; i++)
		printf("  live there: %s\n",
		       usmp_problem_buffer_name(p, why.buffers[i]));
	printf("  message: %s\n", usmp_plan_error(plan));
	rc = USMP_OK;
fail:
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	return rc;
}

struct job {
	usmp_registry *r;
	const uint64_t *expect; /* the single-threaded offsets */
	int bad;
};

/* One of two threads sharing the registry, each planning its own problems. */
static void *worker(void *arg)
{
	struct job *j = arg;
	uint64_t got[NBUF];
	for (int i = 0; i < 10 && !j->bad; i++)
		j->bad = plan_with(j->r, "best_fit", 0, got) != USMP_OK ||
		         memcmp(got, j->expect, sizeof got) != 0;
	return NULL;
}

int main(void)
{
	usmp_registry *r = NULL;
	uint64_t a[NBUF], e[NBUF], bf[NBUF];
	int logged = 0, rc;
	pthread_t t[2];
	struct job jobs[2];

	rc = usmp_registry_create(NULL, &r);
	if (rc) {
		fprintf(stderr, "npu: %s\n", usmp_registry_error(r));
		goto fail;
	}
	/* Bind and set the log at start-up, before any thread plans. */
	rc = usmp_registry_set_log(r, count_log, &logged, USMP_LOG_DEBUG);
	if (!rc)
		rc = plan_with(r, "auto", 1, a);
	if (!rc)
		rc = plan_with(r, "exact", 1, e);
	if (!rc)
		rc = infeasible(r);
	if (!rc)
		rc = plan_with(r, "best_fit", 0, bf);
	if (rc)
		goto fail;
	printf("log messages: %d\n", logged);
	for (int i = 0; i < 2; i++) {
		jobs[i] = (struct job){r, bf, 0};
		if (pthread_create(&t[i], NULL, worker, &jobs[i]))
			jobs[i].bad = -1;
	}
	for (int i = 0; i < 2; i++)
		if (jobs[i].bad != -1)
			pthread_join(t[i], NULL);
	if (jobs[0].bad || jobs[1].bad) {
		fprintf(stderr, "npu: a thread's plan differs\n");
		rc = USMP_ERR_INTERNAL;
		goto fail;
	}
	printf("2 threads, one registry: 20 plans, each the same\n");
fail:
	usmp_registry_destroy(r);
	return rc ? 1 : 0;
}
