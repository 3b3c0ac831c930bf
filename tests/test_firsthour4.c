/* test_firsthour4.c — a compiler that dlopen()s libusmp, checked: its log
 * lines on success, two copies of the library, a library without plugins. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <usmp/usmp.h>

#include "support.h"

/* ---- log lines: what a host's logger gets ------------------------------- */

typedef struct log_sink {
	pthread_mutex_t lock;
	int errors, warnings, infos;
	char first_bad[512]; /* the first error or warning */
} log_sink;

static void sink(void *ctx, int level, const char *algorithm,
                 const char *message)
{
	log_sink *s = ctx;
	pthread_mutex_lock(&s->lock);
	if (level <= USMP_LOG_WARN && !s->errors && !s->warnings)
		snprintf(s->first_bad, sizeof s->first_bad, "%s: %s", algorithm,
		         message);
	s->errors += level == USMP_LOG_ERROR;
	s->warnings += level == USMP_LOG_WARN;
	s->infos += level >= USMP_LOG_INFO;
	pthread_mutex_unlock(&s->lock);
}

/* An NPU's problem: `n` buffers that may use the 64 KiB SRAM, else the
 * unbounded DRAM; sizes 256..16384 bytes, live 1 to 20 steps: more than the SRAM. */
static usmp_problem *npu_problem(uint32_t n)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t sram, dram, b;
	uint64_t seed = 4;
	cr_assert_eq(usmp_problem_add_pool(p, "sram", 64 * 1024, 16, &sram), 0);
	cr_assert_eq(usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 64, &dram), 0);
	for (uint32_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "t%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name,
		             256 * test_rand_range(&seed, 1, 64), 16, &b), 0);
		cr_assert_eq(usmp_problem_set_live(p, b, i,
		             i + (int64_t)test_rand_range(&seed, 1, 20)), 0);
		cr_assert_eq(usmp_problem_add_candidate(p, b, sram), 0);
		cr_assert_eq(usmp_problem_add_candidate(p, b, dram), 0);
	}
	return p;
}

/* exact tries stages in turn (the joint search of several pools stops at
 * 1000 buffers, then the parts); a stage that fails before another plans
 * is no error of the call: a host logging warnings and errors gets none
 * for a plan that succeeds, and the stage's reason at info. */
Test(firsthour4, exact_logs_no_error_for_a_plan_it_makes)
{
	usmp_registry *r = test_registry(NULL);
	log_sink s = {.lock = PTHREAD_MUTEX_INITIALIZER};
	cr_assert_eq(usmp_registry_set_log(r, sink, &s, USMP_LOG_INFO), 0);
	usmp_problem *p = npu_problem(1200);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "exact",
	                       .time_limit = 5};
	usmp_plan *plan = NULL;
	int rc = usmp_plan_compute(r, p, &o, &plan);
	cr_assert_eq(rc, USMP_OK, "%s", usmp_plan_error(plan));
	cr_assert_eq(s.errors + s.warnings, 0, "%d errors, %d warnings: %s",
	             s.errors, s.warnings, s.first_bad);
	cr_assert_gt(s.infos, 0);
	usmp_plan_destroy(plan);

	/* A call that fails still logs its error, at error. */
	uint32_t sram = 0, b;
	usmp_problem *q = usmp_problem_create();
	cr_assert_eq(usmp_problem_add_pool(q, "sram", 128, 16, &sram), 0);
	for (int i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof name, "x%d", i);
		cr_assert_eq(usmp_problem_add_buffer(q, name, 64, 16, &b), 0);
		cr_assert_eq(usmp_problem_set_live(q, b, 0, 2), 0);
		cr_assert_eq(usmp_problem_add_candidate(q, b, sram), 0);
	}
	cr_assert_eq(usmp_problem_add_conflict(q, 0, 1), 0); /* several-pool search */
	s.errors = s.warnings = s.infos = 0;
	rc = usmp_plan_compute(r, q, &o, &plan);
	cr_assert_eq(rc, USMP_ERR_INFEASIBLE, "%s", usmp_plan_error(plan));
	cr_assert_geq(s.errors, 1);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(q);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}
