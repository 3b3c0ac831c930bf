/* threads.c — one registry shared by several threads planning different
 * problems at once; every plan must equal the single-threaded reference.
 *
 * Usage: threads PLUGINDIR [THREADS] [ROUNDS] [CSV]
 * CSV, a problem exact cannot finish quickly (run.sh passes MiniMalloc's
 * D), is planned with no time limit and cancelled from another thread by an
 * atomic store, as docs/hosts.md says to set the flag.
 * Prints "ok - ..." / "not ok - ..." lines (tests/threads/run.sh numbers them
 * as TAP) and exits non-zero when any check fails. Built and run under
 * ThreadSanitizer by run.sh, so a data race in the registry, the selection
 * rules, the host services or a plugin is reported even when the plans agree.
 */
#include <usmp/usmp.h>

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64

/* What each job plans with. Only deterministic choices: auto without its
 * time-bounded improvement phase, given a budget every heuristic fits in
 * (plan_job), runs its whole portfolio of heuristics, whatever the load. */
static const char *const algorithms[] = {
	"first_fit", "best_fit", "auto:improve=false", "first_fit:order=all",
	"best_fit:order=lifetime", "greedy_by_conflicts",
};
#define ALGO_COUNT (sizeof algorithms / sizeof algorithms[0])

/* The result of one plan, kept for comparison. */
typedef struct result {
	uint32_t n;
	uint32_t *pool;
	uint64_t *offset;
	uint64_t size;
	char algorithm[64];
} result;

typedef struct job {
	uint64_t seed;
	const char *algorithm;
	result ref;
} job;

typedef struct worker {
	pthread_t tid;
	int index;
	usmp_registry *r;
	job *jobs;
	size_t job_count, thread_count, rounds;
	size_t planned, mismatches, failures, query_failures;
	char first_error[512];
} worker;

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A problem of two parts: an NPU part whose buffers prefer a small SRAM and
 * spill to DRAM (with explicit conflicts and in-place overlap rules), and a
 * CPU part in its own pool. Returns NULL with a message on failure. */
static usmp_problem *make_problem(uint64_t seed, char *err, size_t errlen)
{
	usmp_problem *p = usmp_problem_create();
	uint64_t s = seed;
	uint32_t sram, dram, tcm, n, id;
	int rc = USMP_ERR_NOMEM;
	int64_t *ends = NULL;
	unsigned char *in_rule = NULL;

	if (!p)
		goto fail;
	n = 150 + (uint32_t)(next(&s) % 150);
	if ((rc = usmp_problem_add_pool(p, "sram", 96 * 1024, 16, &sram)) ||
	    (rc = usmp_problem_add_pool_target(p, sram, "ethos-u55")) ||
	    (rc = usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 64, &dram)) ||
	    (rc = usmp_problem_add_pool_target(p, dram, "ethos-u55")) ||
	    (rc = usmp_problem_add_pool(p, "tcm", USMP_UNBOUNDED, 8, &tcm)) ||
	    (rc = usmp_problem_add_pool_target(p, tcm, "cortex-m55")))
		goto fail;
	ends = calloc(n ? n : 1, sizeof *ends);
	in_rule = calloc(n ? n : 1, 1);
	if (!ends || !in_rule) {
		rc = USMP_ERR_NOMEM;
		goto fail;
	}
	for (uint32_t i = 0; i < n; i++) {
		char name[32];
		int npu = next(&s) % 10 < 7;
		int64_t begin = (int64_t)(next(&s) % 120);
		uint64_t size = 64 + next(&s) % 16384;

		snprintf(name, sizeof name, "%s%" PRIu32, npu ? "npu" : "cpu", i);
		if ((rc = usmp_problem_add_buffer(p, name, size,
		                                  UINT64_C(1) << (next(&s) % 6),
		                                  &id)) ||
		    (rc = usmp_problem_set_live(p, id, begin,
		                                ends[id] = begin + 1 + (int64_t)(next(&s) % 12))))
			goto fail;
		if (npu) {
			if ((rc = usmp_problem_add_candidate(p, id, sram)) ||
			    (rc = usmp_problem_add_candidate(p, id, dram)))
				goto fail;
		} else if ((rc = usmp_problem_add_candidate(p, id, tcm))) {
			goto fail;
		}
	}
	/* Explicit conflicts and overlap rules between buffers of one part
	 * (same name prefix); the ids are those just added. */
	for (uint32_t k = 0; k < n / 8; k++) {
		uint32_t a = (uint32_t)(next(&s) % n), b = (uint32_t)(next(&s) % n);
		const char *na = usmp_problem_buffer_name(p, a);
		const char *nb = usmp_problem_buffer_name(p, b);
		if (a == b || na[0] != nb[0])
			continue;
		if (k % 2) {
			rc = usmp_problem_add_conflict(p, a, b);
		} else {
			/* A rule is one op streaming a into b: b is born at a's
			 * last read. Each buffer takes part in one rule at most,
			 * so moving b's range never breaks an earlier rule. */
			if (in_rule[a] || in_rule[b])
				continue;
			in_rule[a] = in_rule[b] = 1;
			int64_t len = 1 + (int64_t)(next(&s) % 12);
			if ((rc = usmp_problem_set_live(p, b, ends[a] - 1,
			                                ends[a] - 1 + len)))
				goto fail;
			ends[b] = ends[a] - 1 + len;
			rc = usmp_problem_add_overlap(p, a, b,
			                              -(int64_t)(next(&s) % 256));
		}
		if (rc == USMP_ERR_INVALID)
			continue; /* a duplicate rule: fine, skip it */
		if (rc)
			goto fail;
	}
	free(ends);
	free(in_rule);
	return p;
fail:
	free(ends);
	free(in_rule);
	snprintf(err, errlen, "problem %" PRIu64 ": %s: %s", seed,
	         usmp_status_name(rc), p ? usmp_problem_error(p) : "no memory");
	usmp_problem_destroy(p);
	return NULL;
}

static void result_free(result *r)
{
	free(r->pool);
	free(r->offset);
	memset(r, 0, sizeof *r);
}

/* Plan job j's problem (built fresh) and fill *res. 0, or -1 with err. */
static int plan_job(usmp_registry *r, const job *j, result *res, char *err,
                    size_t errlen)
{
	usmp_plan_options o;
	usmp_plan *plan = NULL;
	usmp_problem *p = make_problem(j->seed, err, errlen);
	int status = -1;

	memset(res, 0, sizeof *res);
	if (!p)
		return -1;
	memset(&o, 0, sizeof o);
	o.struct_size = sizeof o;
	o.flags = USMP_PLAN_NO_ISOLATE;
	o.algorithm = j->algorithm;
	/* auto runs a heuristic only while its estimated cost fits the time
	 * left: with an hour, all of them run, on a loaded machine too. */
	o.time_limit = 3600;
	int rc = usmp_plan_compute(r, p, &o, &plan);
	if (rc) {
		snprintf(err, errlen, "problem %" PRIu64 " with %s: %s: %s", j->seed,
		         j->algorithm, usmp_status_name(rc),
		         plan ? usmp_plan_error(plan) : "no memory");
		goto out;
	}
	if ((rc = usmp_plan_verify(plan, p))) {
		snprintf(err, errlen, "problem %" PRIu64 " with %s: verify: %s",
		         j->seed, j->algorithm, usmp_plan_error(plan));
		goto out;
	}
	res->n = usmp_problem_buffer_count(p);
	res->pool = calloc(res->n ? res->n : 1, sizeof *res->pool);
	res->offset = calloc(res->n ? res->n : 1, sizeof *res->offset);
	if (!res->pool || !res->offset) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (uint32_t b = 0; b < res->n; b++)
		if (usmp_plan_placement(plan, b, &res->pool[b], &res->offset[b])) {
			snprintf(err, errlen, "no placement for buffer %" PRIu32, b);
			goto out;
		}
	for (uint32_t k = 0; k < usmp_problem_pool_count(p); k++)
		res->size += usmp_plan_pool_size(plan, k);
	usmp_part_info part;
	memset(&part, 0, sizeof part);
	part.struct_size = sizeof part;
	if (usmp_plan_part_count(plan) != 2 || usmp_plan_part(plan, 0, &part)) {
		snprintf(err, errlen, "problem %" PRIu64 ": expected 2 parts, got %"
		         PRIu32, j->seed, usmp_plan_part_count(plan));
		goto out;
	}
	snprintf(res->algorithm, sizeof res->algorithm, "%s", part.algorithm);
	status = 0;
out:
	if (status)
		result_free(res);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	return status;
}

static int same(const result *a, const result *b)
{
	if (a->n != b->n || a->size != b->size ||
	    strcmp(a->algorithm, b->algorithm))
		return 0;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->pool[i] != b->pool[i] || a->offset[i] != b->offset[i])
			return 0;
	return 1;
}

/* Read-only registry queries, run between plans. */
static int query(usmp_registry *r)
{
	usmp_selection sel;
	usmp_algorithm_info ai;
	uint32_t idx;

	memset(&sel, 0, sizeof sel);
	sel.struct_size = sizeof sel;
	if (usmp_registry_select(r, "query-1", NULL, &sel) ||
	    strcmp(sel.algorithm, "best_fit") || !strstr(sel.params, "order=area"))
		return -1;
	if (usmp_registry_select(r, "cortex-m55", "first_fit:order=lifetime",
	                         &sel) || strcmp(sel.algorithm, "first_fit"))
		return -1;
	if (usmp_registry_find_algorithm(r, "first_fit", &idx))
		return -1;
	memset(&ai, 0, sizeof ai);
	ai.struct_size = sizeof ai;
	if (usmp_registry_algorithm(r, idx, &ai) || strcmp(ai.name, "first_fit"))
		return -1;
	return 0;
}

static void *work(void *arg)
{
	worker *w = arg;
	char err[512];

	for (size_t round = 0; round < w->rounds; round++) {
		/* Each thread its own jobs, in a rotating order. */
		for (size_t k = (size_t)w->index; k < w->job_count;
		     k += w->thread_count) {
			size_t ji = (k + round * 7) % w->job_count;
			result res;
			if (plan_job(w->r, &w->jobs[ji], &res, err, sizeof err)) {
				if (!w->failures++)
					snprintf(w->first_error, sizeof w->first_error, "%s",
					         err);
				continue;
			}
			w->planned++;
			if (!same(&res, &w->jobs[ji].ref) && !w->mismatches++)
				snprintf(w->first_error, sizeof w->first_error,
				         "problem %" PRIu64 " with %s: plan differs from "
				         "the single-threaded one (%" PRIu64 " vs %" PRIu64
				         " bytes)", w->jobs[ji].seed, w->jobs[ji].algorithm,
				         res.size, w->jobs[ji].ref.size);
			result_free(&res);
			if (query(w->r))
				w->query_failures++;
		}
	}
	return NULL;
}

/* The other thread of the cancel check: sets the flag once exact runs. */
static void *cancel_soon(void *flag)
{
	struct timespec ts = {0, 200 * 1000 * 1000};
	nanosleep(&ts, NULL);
	__atomic_store_n((int *)flag, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* exact on `csv` without a time limit, cancelled 0.2 s in: its best plan,
 * stopped (or none yet: USMP_ERR_STOPPED). 0, or -1 with err. Under
 * ThreadSanitizer the library's reads of the flag race with no store. */
static int cancel_check(usmp_registry *r, const char *csv, char *err,
                        size_t errlen)
{
	static volatile int flag;
	usmp_problem *p = usmp_problem_create();
	usmp_plan *plan = NULL;
	pthread_t t;
	int status = -1;
	if (!p || usmp_problem_read(p, csv, USMP_FORMAT_AUTO, USMP_UNBOUNDED)) {
		snprintf(err, errlen, "%s: %s", csv,
		         p ? usmp_problem_error(p) : "no memory");
		goto out;
	}
	usmp_plan_options o;
	memset(&o, 0, sizeof o);
	o.struct_size = sizeof o;
	o.flags = USMP_PLAN_NO_ISOLATE;
	o.algorithm = "exact";
	o.time_limit = INFINITY;
	o.cancel = &flag;
	if (pthread_create(&t, NULL, cancel_soon, (void *)&flag)) {
		snprintf(err, errlen, "no thread");
		goto out;
	}
	int rc = usmp_plan_compute(r, p, &o, &plan);
	pthread_join(t, NULL);
	double limit = -1;
	int stopped = 0;
	if (rc == USMP_OK)
		usmp_plan_part_limit(plan, 0, &limit, &stopped);
	if ((rc == USMP_OK && stopped) || rc == USMP_ERR_STOPPED)
		status = 0;
	else
		snprintf(err, errlen, "%s, stopped %d: %s", usmp_status_name(rc),
		         stopped, plan ? usmp_plan_error(plan) : "no memory");
out:
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	return status;
}

int main(int argc, char **argv)
{
	usmp_registry_options ro;
	usmp_registry *r = NULL;
	worker workers[MAX_THREADS];
	size_t threads = argc > 2 ? strtoul(argv[2], NULL, 10) : 8;
	size_t rounds = argc > 3 ? strtoul(argv[3], NULL, 10) : 3;
	size_t job_count;
	job *jobs = NULL;
	char err[512];
	int failed = 0;

	if (argc < 2 || threads < 1 || threads > MAX_THREADS || rounds < 1) {
		fprintf(stderr, "usage: threads PLUGINDIR [THREADS<=64] [ROUNDS]\n");
		return 2;
	}
	memset(&ro, 0, sizeof ro);
	ro.struct_size = sizeof ro;
	ro.flags = USMP_REGISTRY_NO_ENV | USMP_REGISTRY_NO_DEFAULT_DIRS;
	ro.plugin_path = argv[1];
	if (usmp_registry_create(&ro, &r)) {
		printf("not ok - registry created\n");
		return 1;
	}
	for (uint32_t i = 0; i < usmp_registry_diagnostic_count(r); i++)
		fprintf(stderr, "# skipped: %s\n", usmp_registry_diagnostic(r, i));
	/* Bindings are set up before any thread starts (binding is not
	 * thread-safe). A rule bound through the API outranks the options'
	 * algorithm, so it names a target no part has: the jobs' algorithms
	 * decide the plans, the rule is read by the concurrent queries. */
	static const char *const knob[] = {"order=area"};
	if (usmp_registry_bind(r, "query-*", "best_fit", knob, 1)) {
		printf("not ok - bind query-*=best_fit: %s\n", usmp_registry_error(r));
		usmp_registry_destroy(r);
		return 1;
	}

	job_count = 3 * threads;
	jobs = calloc(job_count, sizeof *jobs);
	if (!jobs)
		return 1;
	int ref_ok = 1;
	for (size_t i = 0; i < job_count; i++) {
		jobs[i].seed = 1000 + i;
		jobs[i].algorithm = algorithms[i % ALGO_COUNT];
	}
	for (size_t i = 0; i < job_count; i++) {
		if (plan_job(r, &jobs[i], &jobs[i].ref, err, sizeof err)) {
			printf("# reference: %s\n", err);
			ref_ok = 0;
		}
	}
	printf("%s - %zu single-threaded reference plans computed and verified\n",
	       ref_ok ? "ok" : "not ok", job_count);
	if (!ref_ok) {
		failed = 1;
		goto out;
	}

	for (size_t t = 0; t < threads; t++) {
		worker *w = &workers[t];
		memset(w, 0, sizeof *w);
		w->index = (int)t;
		w->r = r;
		w->jobs = jobs;
		w->job_count = job_count;
		w->thread_count = threads;
		w->rounds = rounds;
		if (pthread_create(&w->tid, NULL, work, w)) {
			printf("not ok - thread %zu started\n", t);
			threads = t;
			failed = 1;
			break;
		}
	}
	for (size_t t = 0; t < threads; t++) {
		worker *w = &workers[t];
		pthread_join(w->tid, NULL);
		int good = !w->failures && !w->mismatches && w->planned > 0;
		printf("%s - thread %zu: %zu plans, each verified and equal to the "
		       "single-threaded plan\n", good ? "ok" : "not ok", t,
		       w->planned);
		if (!good)
			printf("# %zu failed, %zu differ: %s\n", w->failures,
			       w->mismatches, w->first_error);
		failed |= !good;
	}
	size_t qf = 0;
	for (size_t t = 0; t < threads; t++)
		qf += workers[t].query_failures;
	printf("%s - concurrent registry queries (select, find, algorithm info) "
	       "answered consistently\n", qf ? "not ok" : "ok");
	failed |= qf != 0;
	if (argc > 4) {
		int bad = cancel_check(r, argv[4], err, sizeof err);
		printf("%s - exact without a time limit stops at a cancel another "
		       "thread stores atomically\n", bad ? "not ok" : "ok");
		if (bad)
			printf("# %s\n", err);
		failed |= bad;
	}
out:
	for (size_t i = 0; i < job_count; i++)
		result_free(&jobs[i].ref);
	free(jobs);
	usmp_registry_destroy(r);
	return failed;
}
