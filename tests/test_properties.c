/* test_properties.c — properties every algorithm must have on thousands of
 * random problems: valid plans or honest failures, bounds kept, exact unbeaten.
 *
 * Fixed seed by default; USMP_PROPERTY_SEED (a number, or "random") and
 * USMP_PROPERTY_CASES (a count; default 10000, a quarter of it under the
 * sanitizers) run other or longer sweeps. Every failure
 * prints the seed and case, and writes the problem to /tmp as JSON.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <usmp/usmp.h>

#include "support.h"

#define MAX_POOLS 3
#define MAX_BUFFERS 12
#define MAX_ALGOS 16

/* ---- the random problem, kept beside the usmp_problem for the checks ----- */

typedef struct gen_buffer {
	uint64_t size, align; /* effective alignment is max with the pool's */
	int live;
	int64_t begin, end;
	uint32_t cand_mask; /* 0: every pool */
	uint32_t first;     /* the first candidate pool (docs/design.md spill) */
	int fixed;
	uint32_t fixed_pool;
	uint64_t fixed_offset;
} gen_buffer;

typedef struct gen {
	uint32_t P, n;
	uint64_t limit[MAX_POOLS], palign[MAX_POOLS];
	gen_buffer b[MAX_BUFFERS];
	int edge[MAX_BUFFERS][MAX_BUFFERS];
	int rule_count;
	uint32_t rule_src[4], rule_dst[4];
	int64_t rule_lead[4];
	usmp_problem *p;
} gen;

/* A random problem. `simple` gives one pool, live ranges only: what the exact
 * plugin accepts, so exact and heuristics meet on it. */
static void generate(gen *g, uint64_t *s, int simple, uint32_t max_n)
{
	char name[32];
	memset(g, 0, sizeof *g);
	g->p = usmp_problem_create();
	cr_assert_not_null(g->p);
	g->P = simple ? 1 : (uint32_t)test_rand_range(s, 1, MAX_POOLS);
	g->n = (uint32_t)test_rand_range(s, 1, max_n);
	for (uint32_t q = 0; q < g->P; q++) {
		g->limit[q] = test_chance(s, 40) ? USMP_UNBOUNDED
		                                  : test_rand_range(s, 64, 2048);
		g->palign[q] = UINT64_C(1) << test_rand_range(s, 0, simple ? 0 : 3);
		snprintf(name, sizeof name, "pool%u", q);
		cr_assert_eq(usmp_problem_add_pool(g->p, name, g->limit[q],
		                                   g->palign[q], NULL),
		             USMP_OK, "%s", usmp_problem_error(g->p));
	}
	for (uint32_t i = 0; i < g->n; i++) {
		gen_buffer *b = &g->b[i];
		uint32_t id;
		b->size = test_chance(s, 10) ? test_rand_range(s, 256, 1024)
		                             : test_rand_range(s, 1, 200);
		b->align = UINT64_C(1) << test_rand_range(s, 0, 4);
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(g->p, name, b->size, b->align,
		                                     &id), USMP_OK);
		cr_assert_eq(id, i);
		if (simple || test_chance(s, 85)) {
			b->live = 1;
			b->begin = (int64_t)test_rand_range(s, 0, 15);
			b->end = b->begin + (int64_t)test_rand_range(s, 1, 6);
			cr_assert_eq(usmp_problem_set_live(g->p, i, b->begin, b->end),
			             USMP_OK);
		}
		if (!simple && test_chance(s, 50)) {
			/* a random non-empty subset in a random order */
			uint32_t first = (uint32_t)test_rand_range(s, 0, g->P - 1);
			b->first = first;
			for (uint32_t k = 0; k < g->P; k++) {
				uint32_t q = (first + k) % g->P;
				if (k == 0 || test_chance(s, 50)) {
					cr_assert_eq(usmp_problem_add_candidate(g->p, i, q),
					             USMP_OK);
					b->cand_mask |= 1u << q;
				}
			}
		}
		if (test_chance(s, simple ? 5 : 10)) {
			uint32_t q = (uint32_t)test_rand_range(s, 0, g->P - 1);
			if (b->cand_mask && !(b->cand_mask & (1u << q)))
				q = (uint32_t)__builtin_ctz(b->cand_mask);
			uint64_t a = b->align > g->palign[q] ? b->align : g->palign[q];
			uint64_t room = g->limit[q] == USMP_UNBOUNDED ? 2048 : g->limit[q];
			if (room >= b->size) {
				uint64_t off = a * test_rand_range(s, 0, (room - b->size) / a);
				if (usmp_problem_set_fixed(g->p, i, q, off) == USMP_OK) {
					if (!b->cand_mask)
						b->first = q;
					b->fixed = 1;
					b->fixed_pool = q;
					b->fixed_offset = off;
				}
			}
		}
	}
	if (!simple && g->n >= 2 && test_chance(s, 30)) {
		uint32_t k = (uint32_t)test_rand_range(s, 1, g->n);
		for (uint32_t e = 0; e < k; e++) {
			uint32_t a = (uint32_t)test_rand_range(s, 0, g->n - 1);
			uint32_t c = (uint32_t)test_rand_range(s, 0, g->n - 1);
			if (a != c) {
				cr_assert_eq(usmp_problem_add_conflict(g->p, a, c), USMP_OK);
				g->edge[a][c] = g->edge[c][a] = 1;
			}
		}
	}
	if (!simple && g->n >= 2 && test_chance(s, 30)) {
		/* Rules fit a schedule (docs/decisions.md 6): dst begins at src's
		 * last step. Each rule takes a dst no other rule involves, so moving
		 * its live range breaks no earlier rule. Mostly src lives two steps
		 * or more; sometimes src and dst begin together (see
		 * rule_whose_src_and_dst_begin_together_verifies_and_replays_alike). */
		uint32_t k = (uint32_t)test_rand_range(s, 1, 3);
		for (uint32_t e = 0; e < k; e++) {
			uint32_t a = (uint32_t)test_rand_range(s, 0, g->n - 1);
			uint32_t c = (uint32_t)test_rand_range(s, 0, g->n - 1);
			int64_t lead = (int64_t)test_rand_range(s, 0, 128) - 64;
			int used = 0;
			for (int i = 0; i < g->rule_count; i++)
				used |= g->rule_src[i] == c || g->rule_dst[i] == c ||
				        g->rule_dst[i] == a;
			if (a == c || used || !g->b[a].live ||
			    (g->b[a].end - g->b[a].begin < 2 && test_chance(s, 80)))
				continue;
			gen_buffer *d = &g->b[c];
			int64_t len = d->live ? d->end - d->begin : 1;
			d->live = 1;
			d->begin = g->b[a].end - 1;
			d->end = d->begin + len;
			cr_assert_eq(usmp_problem_set_live(g->p, c, d->begin, d->end),
			             USMP_OK, "%s", usmp_problem_error(g->p));
			if (usmp_problem_add_overlap(g->p, a, c, lead) == USMP_OK) {
				g->rule_src[g->rule_count] = a;
				g->rule_lead[g->rule_count] = lead;
				g->rule_dst[g->rule_count++] = c;
			}
		}
	}
}

/* Every overlap rule has src begin before dst: the shape the replay executes
 * as the verifier judges it (a src born in dst's own step is replayed after
 * dst: see rule_whose_src_and_dst_begin_together_verifies_and_replays_alike). */
static int rules_on_schedule(const gen *g)
{
	for (int i = 0; i < g->rule_count; i++) {
		const gen_buffer *a = &g->b[g->rule_src[i]], *d = &g->b[g->rule_dst[i]];
		if (!a->live || !d->live || a->begin >= d->begin ||
		    a->end != d->begin + 1)
			return 0;
	}
	return 1;
}

static int conflicts(const gen *g, uint32_t a, uint32_t c)
{
	const gen_buffer *x = &g->b[a], *y = &g->b[c];
	return g->edge[a][c] || (x->live && y->live && x->begin < y->end &&
	                         y->begin < x->end);
}

/* Every buffer has a live range. (The exact plugin treats a buffer without
 * one as alive throughout, where the design says it conflicts with nothing:
 * see exact_agrees_that_buffers_without_live_ranges_conflict_with_nothing.) */
static int all_live(const gen *g)
{
	for (uint32_t i = 0; i < g->n; i++)
		if (!g->b[i].live)
			return 0;
	return 1;
}

static int may_use(const gen *g, uint32_t i, uint32_t q)
{
	return !g->b[i].cand_mask || (g->b[i].cand_mask & (1u << q));
}

/* A rule lets fixed buffers a and c share their bytes. */
static int rule_allows(const gen *g, uint32_t a, uint32_t c)
{
	for (int i = 0; i < g->rule_count; i++) {
		uint32_t x = g->rule_src[i], y = g->rule_dst[i];
		if ((x == a && y == c) || (x == c && y == a))
			if ((__int128)g->b[y].fixed_offset <=
			    (__int128)g->b[x].fixed_offset + g->rule_lead[i])
				return 1;
	}
	return 0;
}

/* Two fixed buffers that conflict and overlap, no rule letting them: no
 * plan exists. */
static int fixed_clash(const gen *g)
{
	for (uint32_t a = 0; a < g->n; a++)
		for (uint32_t c = a + 1; c < g->n; c++) {
			const gen_buffer *x = &g->b[a], *y = &g->b[c];
			if (x->fixed && y->fixed && x->fixed_pool == y->fixed_pool &&
			    conflicts(g, a, c) &&
			    x->fixed_offset < y->fixed_offset + y->size &&
			    y->fixed_offset < x->fixed_offset + x->size &&
			    !rule_allows(g, a, c))
				return 1;
		}
	return 0;
}

/* ---- brute force: is there a plan without any sharing? -------------------- */

/* In a plan where every buffer is pushed down as far as it goes, each one
 * sits at 0 or just above (aligned) a conflicting buffer below it; so placing
 * buffers in order of offset, trying only those offsets, is complete. */
typedef struct bf {
	const gen *g;
	int placed[MAX_BUFFERS];
	uint32_t pool[MAX_BUFFERS];
	uint64_t off[MAX_BUFFERS];
	uint64_t steps;
} bf;

static int bf_fits(bf *s, uint32_t i, uint32_t q, uint64_t off)
{
	const gen *g = s->g;
	if (g->limit[q] != USMP_UNBOUNDED && off + g->b[i].size > g->limit[q])
		return 0;
	for (uint32_t j = 0; j < g->n; j++)
		if (s->placed[j] && s->pool[j] == q && conflicts(g, i, j) &&
		    off < s->off[j] + g->b[j].size && s->off[j] < off + g->b[i].size)
			return 0;
	return 1;
}

static int bf_search(bf *s, uint64_t last)
{
	const gen *g = s->g;
	int any = 0;
	if (++s->steps > 2000000)
		return -1; /* too big to settle */
	for (uint32_t i = 0; i < g->n; i++) {
		if (s->placed[i])
			continue;
		any = 1;
		for (uint32_t q = 0; q < g->P; q++) {
			if (!may_use(g, i, q))
				continue;
			uint64_t a = g->b[i].align > g->palign[q] ? g->b[i].align
			                                          : g->palign[q];
			for (uint32_t j = 0; j <= g->n; j++) {
				uint64_t off = 0;
				if (j < g->n) {
					if (!s->placed[j] || s->pool[j] != q || !conflicts(g, i, j))
						continue;
					uint64_t e = s->off[j] + g->b[j].size;
					off = (e + a - 1) / a * a;
				}
				if (off < last || !bf_fits(s, i, q, off))
					continue;
				s->placed[i] = 1;
				s->pool[i] = q;
				s->off[i] = off;
				int r = bf_search(s, off);
				s->placed[i] = 0;
				if (r)
					return r;
			}
		}
	}
	return any ? 0 : 1;
}

/* 1 feasible without sharing, 0 not, -1 undecided. Fixed buffers first. */
static int brute_force(const gen *g)
{
	bf s = {.g = g};
	for (uint32_t i = 0; i < g->n; i++) {
		if (!g->b[i].fixed)
			continue;
		if (!bf_fits(&s, i, g->b[i].fixed_pool, g->b[i].fixed_offset))
			return 0;
		s.placed[i] = 1;
		s.pool[i] = g->b[i].fixed_pool;
		s.off[i] = g->b[i].fixed_offset;
	}
	return bf_search(&s, 0);
}

/* ---- the sweep ------------------------------------------------------------ */

static usmp_registry *registry(void)
{
	return test_registry(NULL);
}

/* Names of the registry's algorithms; every one listed in the task must be there. */
static uint32_t algorithms(usmp_registry *r, const char **names,
                           uint32_t *caps)
{
	static const char *const want[] = {"auto", "first_fit", "best_fit",
	                                   "greedy_by_size", "greedy_by_conflicts",
	                                   "hill_climb", "exact", "exact_window"};
	uint32_t n = usmp_registry_algorithm_count(r);
	cr_assert_leq(n, MAX_ALGOS);
	for (uint32_t i = 0; i < n; i++) {
		usmp_algorithm_info ai = {.struct_size = sizeof ai};
		cr_assert_eq(usmp_registry_algorithm(r, i, &ai), USMP_OK);
		names[i] = ai.name;
		caps[i] = ai.caps;
	}
	for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
		uint32_t at;
		cr_assert_eq(usmp_registry_find_algorithm(r, want[k], &at), USMP_OK,
		             "algorithm %s is not loaded (plugins in %s/plugins?)",
		             want[k], test_build_root());
	}
	return n;
}

typedef struct run {
	const char *algo;
	uint32_t caps;
	int rc;
	usmp_plan *plan;
	uint64_t group_size[MAX_POOLS]; /* by bound group, when rc == OK */
	uint64_t group_spill[MAX_POOLS]; /* bytes outside the first candidate */
} run;

#define CHECK(cond, ...)                                                       \
	do {                                                                       \
		if (!(cond)) {                                                         \
			const char *where_ =                                               \
				test_save_case(g.p, "property", seed, c);                     \
			cr_log_error("USMP_PROPERTY_SEED=%" PRIu64 " case %" PRIu64        \
			             ": problem in %s", seed, c, where_);                  \
			cr_assert(cond, __VA_ARGS__);                                      \
		}                                                                      \
	} while (0)

static const run *find_run(const run *runs, uint32_t n, const char *want)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(runs[i].algo, want) == 0)
			return &runs[i];
	return NULL;
}

Test(properties, every_algorithm_gives_a_valid_plan_or_fails_honestly,
     .timeout = 600)
{
	int random_seed;
	uint64_t seed = test_env_u64("USMP_PROPERTY_SEED", 20261202, &random_seed);
	uint64_t cases = test_env_u64("USMP_PROPERTY_CASES", TEST_SWEEP(10000),
	                              NULL);
	uint64_t s = seed;
	usmp_registry *r = registry();
	const char *names[MAX_ALGOS];
	uint32_t caps[MAX_ALGOS];
	uint32_t na = algorithms(r, names, caps);
	uint64_t planned = 0, infeasible = 0, unsupported = 0, optimal = 0,
		 brute_checked = 0, missed = 0, simulated = 0;
	if (random_seed)
		cr_log_info("USMP_PROPERTY_SEED=%" PRIu64, seed);

	for (uint64_t c = 0; c < cases; c++) {
		gen g;
		int simple = test_chance(&s, 40);
		generate(&g, &s, simple, test_chance(&s, 50) ? 6 : MAX_BUFFERS);
		run runs[MAX_ALGOS];
		memset(runs, 0, sizeof runs);
		int any_ok = 0, heuristic_ok = 0;
		uint32_t groups = usmp_problem_prepare_group_count(g.p);
		cr_assert_leq(groups, MAX_POOLS);
		for (uint32_t k = 0; k < na; k++) {
			run *ru = &runs[k];
			ru->algo = names[k];
			ru->caps = caps[k];
			/* auto searches only on every 8th case: it would spend its time
			 * budget whenever the heuristics miss the bound. */
			const char *improve[] = {"improve=false"};
			int is_auto = strcmp(names[k], "auto") == 0;
			usmp_plan_options o = {
				.struct_size = sizeof o,
				.flags = USMP_PLAN_NO_ISOLATE,
				.algorithm = names[k],
				.params = is_auto && c % 8 ? improve : NULL,
				.param_count = is_auto && c % 8 ? 1 : 0,
				.time_limit = is_auto || !strcmp(names[k], "exact") ? 0.2 : 0,
			};
			ru->rc = usmp_plan_compute(r, g.p, &o, &ru->plan);
			CHECK(ru->plan != NULL, "%s: no plan object", names[k]);
			CHECK(ru->rc == USMP_OK || ru->rc == USMP_ERR_INFEASIBLE ||
			      ru->rc == USMP_ERR_UNSUPPORTED || ru->rc == USMP_ERR_STOPPED,
			      "%s: status %d (%s): %s", names[k], ru->rc,
			      usmp_status_name(ru->rc), usmp_plan_error(ru->plan));
			CHECK(usmp_plan_status(ru->plan) == ru->rc, "%s: status differs",
			      names[k]);
			if (ru->rc != USMP_OK) {
				CHECK(*usmp_plan_error(ru->plan), "%s: failed silently",
				      names[k]);
				infeasible += ru->rc == USMP_ERR_INFEASIBLE;
				unsupported += ru->rc == USMP_ERR_UNSUPPORTED;
				continue;
			}
			planned++;
			any_ok = 1;
			if (strcmp(names[k], "exact") && strcmp(names[k], "auto") &&
			    strcmp(names[k], "hill_climb") &&
			    strcmp(names[k], "exact_window")) /* not in auto's fast phase */
				heuristic_ok = 1;
			/* Valid by the verifier and by replay in real memory. */
			int v = usmp_plan_verify(ru->plan, g.p);
			CHECK(v == USMP_OK, "%s: invalid plan: %s", names[k],
			      usmp_plan_error(ru->plan));
			v = rules_on_schedule(&g) ? usmp_plan_simulate(ru->plan, g.p)
			                          : USMP_OK;
			simulated += rules_on_schedule(&g);
			CHECK(v == USMP_OK, "%s: simulation failed: %s", names[k],
			      usmp_plan_error(ru->plan));
			for (uint32_t q = 0; q < g.P; q++) {
				uint64_t sz = usmp_plan_pool_size(ru->plan, q);
				CHECK(g.limit[q] == USMP_UNBOUNDED || sz <= g.limit[q],
				      "%s: pool %u holds %" PRIu64 " > limit %" PRIu64,
				      names[k], q, sz, g.limit[q]);
				ru->group_size[usmp_problem_prepare_pool_group(g.p, q)] += sz;
			}
			for (uint32_t i = 0; i < g.n; i++) {
				uint32_t q;
				uint64_t off;
				usmp_plan_placement(ru->plan, i, &q, &off);
				if (q != g.b[i].first)
					ru->group_spill[usmp_problem_prepare_pool_group(g.p, q)] +=
						g.b[i].size;
			}
			/* No part below its lower bound; claims consistent. */
			uint32_t parts = usmp_plan_part_count(ru->plan);
			CHECK(parts >= 1, "%s: no parts", names[k]);
			for (uint32_t i = 0; i < parts; i++) {
				usmp_part_info pi = {.struct_size = sizeof pi};
				CHECK(usmp_plan_part(ru->plan, i, &pi) == USMP_OK, "part");
				CHECK(pi.group < groups, "%s: part group %u", names[k],
				      pi.group);
				CHECK(pi.size >= pi.lower_bound,
				      "%s: part %u size %" PRIu64 " below its lower bound %"
				      PRIu64, names[k], i, pi.size, pi.lower_bound);
				CHECK(pi.lower_bound <= usmp_problem_prepare_group_bound(g.p, pi.group),
				      "%s: part bound %" PRIu64 " above its group's %" PRIu64,
				      names[k], pi.lower_bound,
				      usmp_problem_prepare_group_bound(g.p, pi.group));
				CHECK(pi.proven_bound >= pi.lower_bound &&
				      pi.size >= pi.proven_bound,
				      "%s: part %u size %" PRIu64 ", proven %" PRIu64
				      ", lower %" PRIu64, names[k], i, pi.size,
				      pi.proven_bound, pi.lower_bound);
				CHECK(!pi.optimal || pi.size == pi.proven_bound,
				      "%s: optimal, but size %" PRIu64 " != proven %" PRIu64,
				      names[k], pi.size, pi.proven_bound);
				optimal += pi.optimal;
			}
		}
		/* Proven bounds hold for every other algorithm's plan that spills
		 * no more (docs/design.md, "Several pools"): where exact says
		 * optimal, nothing that spills as little beats it. */
		for (uint32_t k = 0; k < na; k++) {
			if (runs[k].rc != USMP_OK)
				continue;
			uint32_t parts = usmp_plan_part_count(runs[k].plan);
			for (uint32_t i = 0; i < parts; i++) {
				usmp_part_info pi = {.struct_size = sizeof pi};
				usmp_plan_part(runs[k].plan, i, &pi);
				if (pi.buffer_count != g.n || !all_live(&g))
					continue; /* whole-problem parts; see all_live() */
				for (uint32_t m = 0; m < na; m++)
					CHECK(runs[m].rc != USMP_OK ||
					      runs[m].group_spill[pi.group] >
					              runs[k].group_spill[pi.group] ||
					      runs[m].group_size[pi.group] >= pi.proven_bound,
					      "%s plans group %u in %" PRIu64 " bytes, below what "
					      "%s proved (%" PRIu64 "%s)", runs[m].algo, pi.group,
					      runs[m].group_size[pi.group], runs[k].algo,
					      pi.proven_bound, pi.optimal ? ", optimal" : "");
			}
		}
		/* Clashing fixed buffers: infeasible for everyone, up front. */
		for (uint32_t k = 0; k < na && fixed_clash(&g); k++)
			CHECK(runs[k].rc == USMP_ERR_INFEASIBLE ||
			      runs[k].rc == USMP_ERR_UNSUPPORTED, "%s: status %d with "
			      "clashing fixed buffers: %s", runs[k].algo, runs[k].rc,
			      usmp_plan_error(runs[k].plan));
		/* Honest infeasibility: exact never says "no plan" when one exists;
		 * auto never when one of its heuristics finds one. */
		const run *ex = find_run(runs, na, "exact");
		const run *au = find_run(runs, na, "auto");
		CHECK(!(any_ok && ex && ex->rc == USMP_ERR_INFEASIBLE &&
		        all_live(&g)),
		      "exact says infeasible, but another algorithm found a plan");
		CHECK(!(heuristic_ok && au && au->rc == USMP_ERR_INFEASIBLE),
		      "auto says infeasible, but a heuristic found a plan");
		if (g.n <= 6 && ex && ex->rc == USMP_ERR_INFEASIBLE && all_live(&g)) {
			int bfr = brute_force(&g);
			brute_checked++;
			CHECK(bfr != 1, "exact says infeasible; brute force finds a plan");
		}
		if (g.n <= 6 && !any_ok) {
			/* Nobody found a plan: count the cases where one exists. */
			brute_checked++;
			missed += brute_force(&g) == 1;
		}
		for (uint32_t k = 0; k < na; k++)
			usmp_plan_destroy(runs[k].plan);
		usmp_problem_destroy(g.p);
	}
	cr_log_info("seed %" PRIu64 ": %" PRIu64 " cases, %" PRIu64 " plans, %"
	            PRIu64 " infeasible, %" PRIu64 " unsupported, %" PRIu64
	            " optimal parts, %" PRIu64 " brute-force checks, %" PRIu64
	            " feasible problems no algorithm planned, %" PRIu64 " plans simulated",
	            seed, cases, planned, infeasible, unsupported, optimal,
	            brute_checked, missed, simulated);
	cr_assert_gt(planned, cases, "too few plans: the generator is off");
	usmp_registry_destroy(r);
}

/* ---- mutations: break one placement of a valid plan, the verifier objects - */

/* Write placements (pool, offset per buffer) as a plan file, read it back
 * with usmp_plan_read and verify it. Returns the verifier's status; the
 * message goes to *msg (caller frees). */
static int verify_placements(gen *g, const uint32_t *pool, const uint64_t *off,
                             char **msg)
{
	char *path = test_tmpfile(".json");
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "{\"usmp\": 1, \"buffers\": [");
	for (uint32_t i = 0; i < g->n; i++)
		fprintf(f, "%s{\"name\": \"b%u\", \"pool\": \"pool%u\", \"offset\": %"
		        PRIu64 "}", i ? ", " : "", i, pool[i], off[i]);
	fprintf(f, "]}\n");
	cr_assert_eq(fclose(f), 0);
	usmp_plan *plan = NULL;
	int rc = usmp_plan_read(g->p, path, USMP_FORMAT_JSON, &plan);
	cr_assert_eq(rc, USMP_OK, "reading %s: %s", path, usmp_plan_error(plan));
	rc = usmp_plan_verify(plan, g->p);
	*msg = strdup(usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	unlink(path);
	free(path);
	return rc;
}

static uint64_t eff_align(const gen *g, uint32_t i, uint32_t q)
{
	return g->b[i].align > g->palign[q] ? g->b[i].align : g->palign[q];
}

static int has_rule(const gen *g, uint32_t a, uint32_t c)
{
	for (int k = 0; k < g->rule_count; k++)
		if ((g->rule_src[k] == a && g->rule_dst[k] == c) ||
		    (g->rule_src[k] == c && g->rule_dst[k] == a))
			return 1;
	return 0;
}

Test(properties, verifier_rejects_one_byte_overlap_misalignment_and_leaving_the_pool,
     .timeout = 600)
{
	uint64_t seed = test_env_u64("USMP_PROPERTY_SEED", 777, NULL), s = seed;
	uint64_t want = test_env_u64("USMP_PROPERTY_CASES", TEST_SWEEP(10000),
	                             NULL) / 20 + 20;
	usmp_registry *r = registry();
	uint64_t done[5] = {0}, controls = 0;
	static const char *const kinds[5] = {"one-byte overlap", "misaligned",
	                                     "not a candidate pool",
	                                     "past the size limit", "fixed moved"};
	for (uint64_t c = 0; c < 100 * want; c++) {
		int enough = 1;
		for (int k = 0; k < 5; k++)
			enough &= done[k] >= want || (k == 2 && done[k] >= want / 4);
		if (enough)
			break;
		gen g;
		generate(&g, &s, test_chance(&s, 30), MAX_BUFFERS);
		usmp_plan_options o = {.struct_size = sizeof o,
		                       .flags = USMP_PLAN_NO_ISOLATE,
		                       .algorithm = test_chance(&s, 50) ? "first_fit"
		                                                   : "best_fit"};
		usmp_plan *plan = NULL;
		if (usmp_plan_compute(r, g.p, &o, &plan) != USMP_OK) {
			usmp_plan_destroy(plan);
			usmp_problem_destroy(g.p);
			continue;
		}
		uint32_t pool[MAX_BUFFERS], p2[MAX_BUFFERS];
		uint64_t off[MAX_BUFFERS], o2[MAX_BUFFERS];
		for (uint32_t i = 0; i < g.n; i++)
			cr_assert_eq(usmp_plan_placement(plan, i, &pool[i], &off[i]), 0);
		usmp_plan_destroy(plan);
		char *msg = NULL;
		int rc = verify_placements(&g, pool, off, &msg);
		CHECK(rc == USMP_OK, "the unmutated plan fails: %s", msg);
		free(msg);
		controls++;
		for (int kind = 0; kind < 5; kind++) {
			memcpy(p2, pool, sizeof pool);
			memcpy(o2, off, sizeof off);
			const char *expect = NULL;
			uint32_t a = (uint32_t)test_rand_range(&s, 0, g.n - 1);
			if (kind && g.b[a].fixed != (kind == 4))
				continue;
			if (kind == 0) { /* end a one byte inside a conflicting buffer */
				uint32_t cc = g.n, start = (uint32_t)test_rand_range(&s, 0, g.n - 1);
				for (uint32_t t = 0; t < g.n * g.n && cc == g.n; t++) {
					uint32_t x = (start + t / g.n) % g.n, y = t % g.n;
					if (x != y && !g.b[x].fixed && conflicts(&g, x, y) &&
					    !has_rule(&g, x, y) && may_use(&g, x, pool[y]) &&
					    eff_align(&g, x, pool[y]) == 1 &&
					    off[y] + 1 >= g.b[x].size)
						a = x, cc = y;
				}
				if (cc == g.n)
					continue;
				p2[a] = pool[cc];
				o2[a] = off[cc] + 1 - g.b[a].size; /* last byte on c's first */
				expect = "overlap";
			} else if (kind == 1) {
				if (eff_align(&g, a, pool[a]) == 1)
					continue;
				o2[a] += eff_align(&g, a, pool[a]) / 2;
				expect = "alignment";
			} else if (kind == 2) {
				uint32_t q = (uint32_t)test_rand_range(&s, 0, g.P - 1);
				if (may_use(&g, a, q))
					continue;
				p2[a] = q;
				expect = "candidate";
			} else if (kind == 3) {
				uint32_t q = pool[a];
				uint64_t al = eff_align(&g, a, q);
				if (g.limit[q] == USMP_UNBOUNDED || g.limit[q] < g.b[a].size)
					continue;
				o2[a] = (g.limit[q] - g.b[a].size + al) / al * al;
				expect = "exceeds the size limit";
			} else {
				o2[a] += eff_align(&g, a, pool[a]);
				expect = "is fixed at";
			}
			rc = verify_placements(&g, p2, o2, &msg);
			CHECK(rc == USMP_ERR_INVALID_PLAN,
			      "%s of b%u: status %d (%s)", kinds[kind], a, rc, msg);
			CHECK(strstr(msg, expect) && strstr(msg, "\"b"),
			      "%s of b%u: message \"%s\" lacks \"%s\"", kinds[kind], a,
			      msg, expect);
			free(msg);
			done[kind]++;
		}
		usmp_problem_destroy(g.p);
	}
	cr_log_info("mutations from seed %" PRIu64 ": %" PRIu64 " controls; %"
	            PRIu64 " one-byte overlaps, %" PRIu64 " misaligned, %" PRIu64
	            " non-candidate pools, %" PRIu64 " past the limit, %" PRIu64
	            " fixed moved", seed, controls, done[0], done[1], done[2],
	            done[3], done[4]);
	for (int k = 0; k < 5; k++)
		cr_assert_geq(done[k], k == 2 ? want / 4 : want,
		              "too few %s mutations: %" PRIu64, kinds[k], done[k]);
	usmp_registry_destroy(r);
}

/* ---- findings: each disabled test fails today and passes once fixed ------ */

static int plan_with(usmp_registry *r, usmp_problem *p, const char *algo,
                     usmp_plan **plan)
{
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = algo, .time_limit = 2};
	return usmp_plan_compute(r, p, &o, plan);
}

/* Finding (plugins/exact): a buffer without a live range conflicts with
 * nothing (docs/design.md, "Conflicts"), but exact treats it as alive
 * throughout: it proves "optimal" 349 bytes where first_fit plans 149, and
 * "infeasible" problems other algorithms plan. */
Test(properties, exact_agrees_that_buffers_without_live_ranges_conflict_with_nothing)
{
	usmp_registry *r = registry();
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"pool0\", \"size_limit\": 1283,"
		" \"alignment\": 4}], \"buffers\": ["
		"{\"name\": \"b0\", \"size\": 130},"
		"{\"name\": \"b1\", \"size\": 67, \"alignment\": 2, \"live\": [3, 6]},"
		"{\"name\": \"b2\", \"size\": 149},"
		"{\"name\": \"b3\", \"size\": 7, \"alignment\": 8, \"live\": [8, 11]}]}", "finding.json");
	usmp_plan *ff = NULL, *ex = NULL;
	cr_assert_eq(plan_with(r, p, "first_fit", &ff), USMP_OK);
	cr_assert_eq(usmp_plan_pool_size(ff, 0), 149);
	int rc = plan_with(r, p, "exact", &ex);
	usmp_part_info pi = {.struct_size = sizeof pi};
	if (rc == USMP_OK && usmp_plan_part(ex, 0, &pi) == USMP_OK)
		cr_assert_leq(pi.proven_bound, 149, "exact proves %" PRIu64
		              " bytes%s; first_fit plans 149", pi.proven_bound,
		              pi.optimal ? " (optimal)" : "");
	usmp_plan_destroy(ff);
	usmp_plan_destroy(ex);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* Finding (plugins/exact, src/plan.c): exact lacks the overlap-rules
 * capability, so it plans rule pairs as plain conflicts, and then reports
 * INFEASIBLE (exit 3) for a problem that first_fit plans in 152 bytes. An
 * algorithm that ignored the rules proved nothing about the real problem. */
Test(properties, exact_without_overlap_rules_never_claims_infeasible)
{
	usmp_registry *r = registry();
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"pool0\", \"size_limit\": 191,"
		" \"alignment\": 2}], \"buffers\": ["
		"{\"name\": \"b0\", \"size\": 97, \"alignment\": 2, \"live\": [7, 13]},"
		"{\"name\": \"b1\", \"size\": 152, \"alignment\": 8, \"live\": [12, 13]}],"
		" \"overlaps\": [{\"src\": \"b0\", \"dst\": \"b1\", \"max_lead\": 32}]}", "finding.json");
	usmp_plan *ff = NULL, *ex = NULL;
	cr_assert_eq(plan_with(r, p, "first_fit", &ff), USMP_OK);
	int rc = plan_with(r, p, "exact", &ex);
	cr_assert_neq(rc, USMP_ERR_INFEASIBLE, "exact: %s", usmp_plan_error(ex));
	usmp_plan_destroy(ff);
	usmp_plan_destroy(ex);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* Finding (src/portfolio.c): auto uses UINT64_MAX as "no plan yet", so a
 * valid plan whose pool ends exactly at 2^64 - 1 is dropped and auto reports
 * "no plan fits the pools" (exit 3) where first_fit plans it. */
Test(properties, auto_keeps_a_valid_plan_ending_at_the_top_of_64_bits)
{
	usmp_registry *r = registry();
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 9223372036854775807, \"alignment\": 1024,"
		" \"live\": [0, 2]},"
		"{\"name\": \"b\", \"size\": 9223372036854775807, \"alignment\": 1024,"
		" \"live\": [1, 3]}]}", "finding.json");
	usmp_plan *ff = NULL, *au = NULL;
	cr_assert_eq(plan_with(r, p, "first_fit", &ff), USMP_OK);
	cr_assert_eq(usmp_plan_pool_size(ff, 0), UINT64_MAX);
	int rc = plan_with(r, p, "auto", &au);
	cr_assert_eq(rc, USMP_OK, "auto: %s", usmp_plan_error(au));
	usmp_plan_destroy(ff);
	usmp_plan_destroy(au);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* Finding (src/verify.c vs src/simulate.c), fixed in src/problem.c: the
 * verifier accepted any overlap whose offsets satisfy a rule, the simulator
 * streams dst over src only when dst is born at src's last read. A rule
 * whose schedule contradicts that (here dst "b0" is born before src "b9")
 * is now refused as bad input, naming the rule, so the two always agree. */
Test(properties, overlap_rules_off_schedule_are_refused_naming_the_rule)
{
	static const char json[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"pool0\"}], \"buffers\": ["
		"{\"name\": \"b0\", \"size\": 197, \"live\": [7, 13]},"
		"{\"name\": \"b9\", \"size\": 173, \"alignment\": 8, \"live\": [11, 17]}],"
		" \"overlaps\": [{\"src\": \"b9\", \"dst\": \"b0\", \"max_lead\": -19}]}";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, json, strlen(json), "finding.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	const char *e = usmp_problem_error(p);
	cr_assert(strstr(e, "finding.json: overlaps[0]: rule \"b9\" -> \"b0\"") &&
	          strstr(e, "last reader"), "%s", e);
	cr_assert_eq(usmp_problem_buffer_count(p), 0, "a refused file leaves "
	             "the problem empty");
	usmp_problem_destroy(p);
}

/* Finding (plugins/tvm): two fixed buffers that conflict and overlap make
 * every plan invalid; fit says INFEASIBLE naming them, but greedy_by_size,
 * greedy_by_conflicts and hill_climb return the clash and the host reports a
 * plugin failure (exit 4) instead. */
Test(properties, clashing_fixed_buffers_are_infeasible_for_every_algorithm)
{
	usmp_registry *r = registry();
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"pools\": [{\"name\": \"pool0\", \"alignment\": 8}],"
		" \"buffers\": ["
		"{\"name\": \"b0\", \"size\": 186, \"alignment\": 16, \"live\": [6, 10],"
		" \"fixed\": {\"pool\": \"pool0\", \"offset\": 96}},"
		"{\"name\": \"b1\", \"size\": 90, \"live\": [14, 16]},"
		"{\"name\": \"b2\", \"size\": 46, \"alignment\": 2, \"live\": [5, 10],"
		" \"fixed\": {\"pool\": \"pool0\", \"offset\": 232}}]}", "finding.json");
	static const char *const algos[] = {"first_fit", "best_fit",
	                                    "greedy_by_size", "greedy_by_conflicts",
	                                    "hill_climb", "exact", "auto"};
	for (size_t i = 0; i < sizeof algos / sizeof *algos; i++) {
		usmp_plan *plan = NULL;
		int rc = plan_with(r, p, algos[i], &plan);
		cr_expect_eq(rc, USMP_ERR_INFEASIBLE, "%s: %d %s", algos[i], rc,
		             usmp_plan_error(plan));
		usmp_plan_destroy(plan);
	}
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* Finding (src/simulate.c, or the rule check in src/problem.c): a rule whose
 * src lives one step is on schedule (dst begins at src's last step, which
 * is also src's first), and the verifier accepts dst on top of src. The
 * replay writes buffers born in one step in index order, so when dst comes
 * first in the file it is written before src exists and src's write then
 * lands on it: "buffer "src": byte 0 ... overwritten before its last use".
 * Either the replay writes a rule's src before its dst, or such rules need
 * src to begin before dst. */
Test(properties, rule_whose_src_and_dst_begin_together_verifies_and_replays_alike)
{
	usmp_registry *r = registry();
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"dst\", \"size\": 507, \"alignment\": 16, \"live\": [4, 9]},"
		"{\"name\": \"src\", \"size\": 110, \"live\": [4, 5]}],"
		" \"overlaps\": [{\"src\": \"src\", \"dst\": \"dst\", \"max_lead\": 30}]}", "finding.json");
	usmp_plan *plan = NULL;
	cr_assert_eq(plan_with(r, p, "best_fit", &plan), USMP_OK, "%s",
	             usmp_plan_error(plan));
	int v = usmp_plan_verify(plan, p), sim = usmp_plan_simulate(plan, p);
	cr_assert_eq(v, sim, "verify says %d, simulate says %d: %s", v, sim,
	             usmp_plan_error(plan));
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}
