/* plugin_harness.h — calling a built algorithm plugin directly from a test:
 * a hand-built problem view, a minimal host table, a brute-force checker. */
#ifndef USMP_TEST_PLUGIN_HARNESS_H
#define USMP_TEST_PLUGIN_HARNESS_H
#include <usmp/plugin.h>

/* The algorithm `algo` of build_root/plugins/<plugin>.so; NULL when the
 * plugin or the algorithm cannot be found (a message goes to stderr). */
const usmp_algorithm *th_algorithm(const char *plugin, const char *algo);

/* Entry point types by knob signature. */
typedef int (*th_fn0)(const usmp_view *, const usmp_host *, usmp_placement *);
typedef int (*th_fn_str)(const usmp_view *, const usmp_host *,
                         usmp_placement *, const char *);
typedef int (*th_fn_u64_u32)(const usmp_view *, const usmp_host *,
                             usmp_placement *, uint64_t, uint32_t);

/* A problem under construction; th_view() freezes it into a usmp_view. */
typedef struct th_problem th_problem;

th_problem *th_new(void);
void th_free(th_problem *p);
/* Returns the pool index. limit USMP_UNBOUNDED for none. */
uint32_t th_pool(th_problem *p, const char *name, uint64_t limit,
                 uint64_t alignment);
/* A buffer live in [begin, end); returns its index. */
uint32_t th_buffer(th_problem *p, const char *name, uint64_t size,
                   uint64_t alignment, int64_t begin, int64_t end);
/* A buffer without a live range (conflicts only through edges). */
uint32_t th_buffer_nolive(th_problem *p, const char *name, uint64_t size,
                          uint64_t alignment);
/* Candidate pools in priority order (default: every pool, index order). */
void th_candidates(th_problem *p, uint32_t b, uint32_t count,
                   const uint32_t *pools);
void th_fixed(th_problem *p, uint32_t b, uint32_t pool, uint64_t offset);
void th_edge(th_problem *p, uint32_t a, uint32_t b);
void th_rule(th_problem *p, uint32_t src, uint32_t dst, int64_t max_lead);
/* The view (valid until th_free or the next change). A default pool
 * "default" (unbounded, alignment 1) is added when there is none. */
const usmp_view *th_view(th_problem *p);

/* A host table: malloc-backed allocator that counts live blocks, logging
 * into last_log, should_stop true after stop_after calls (0 = never), the
 * last progress and report_bound kept. */
typedef struct th_host {
	usmp_host host; /* first */
	const usmp_view *view;
	char last_log[1024];
	int log_count;
	long live_allocs;
	unsigned stop_after, stop_calls;
	uint64_t progress_best;
	bool reported, optimal; /* report_bound called; its last arguments */
	uint64_t bound;
} th_host;

void th_host_init(th_host *h, const usmp_view *v);

/* Placements prefilled as the host does (NO_POOL, fixed ones placed). */
usmp_placement *th_out(const usmp_view *v);

/* Brute-force all-pairs validity check. With partial, NO_POOL entries are
 * allowed (they are skipped). Returns 1 when valid, else 0 with a reason. */
int th_check(const usmp_view *v, const usmp_placement *pl, int partial,
             char *why, size_t why_len);
/* Sum over pools of the high-water marks. */
uint64_t th_total(const usmp_view *v, const usmp_placement *pl);

/* Random problems for property tests. */
typedef struct th_random_opts {
	uint32_t buffers;    /* number of buffers */
	uint32_t pools;      /* 1..4 */
	int bounded;         /* give pools random (sometimes tight) limits */
	int edges;           /* add random explicit edges and unlived buffers */
	int rules;           /* add overlap rules between conflicting pairs */
	int fixed;           /* pin some buffers */
	int alignments;      /* random alignments */
} th_random_opts;

th_problem *th_random(uint64_t *rng, const th_random_opts *o);
/* th_random with options drawn too: 1 to max_buffers buffers, 1 to 3
 * pools, each of the other options on or off. */
th_problem *th_random_any(uint64_t *rng, uint32_t max_buffers);

/* A large, realistic-looking problem: n buffers, two per time step, living
 * 1..40 steps, an SRAM pool (1 MiB, 16-aligned) before DRAM, some DRAM-only
 * and some fixed (in DRAM, far up), in-place rules between neighbours in
 * time, a few explicit edges. */
th_problem *th_scale(uint64_t *rng, uint32_t n);

/* Every buffer i of v at offset want[i] in the plan o of `algo` (the test
 * fails naming the algorithm, the buffer and both offsets). */
void th_expect_offsets(const usmp_view *v, const usmp_placement *o,
                       const char *algo, const uint64_t *want);

#endif
