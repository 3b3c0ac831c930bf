/* test_overlap_rules.c — overlap rules cannot lie: on thousands of random
 * problems with rules, the verifier accepts a plan exactly when the replay does.
 *
 * Each random problem has up to 8 buffers in one or two pools and overlap
 * rules in every shape: chains, fan-in, fan-out, random pairs, cycles, rules
 * between buffers in different pools or without live ranges, negative and
 * positive max_lead, plus explicit conflicts. A problem whose rules close a
 * cycle must be refused, naming the first rule that closes it and a true
 * cycle; the rule is then dropped and the problem tried again. Each accepted
 * problem is planned by every algorithm of the registry, and also gets random
 * placements (often invalid), and for every plan
 *
 *     usmp_plan_verify accepts  <=>  usmp_plan_simulate accepts and every
 *                                    conflict the replay cannot see holds
 *
 * where the conflicts the replay cannot see are explicit edges between
 * buffers not alive together (checked here from the definition in
 * docs/formats.md). Random placements keep each buffer's own constraints
 * (candidate pool, alignment, limit, fixed offset), so only sharing decides.
 *
 * Fixed seed by default. USMP_PROPERTY_SEED (a number, or "random") and
 * USMP_PROPERTY_CASES (a count of problems; default 5000, a quarter of it
 * under the sanitizers) run other or longer
 * sweeps, e.g. USMP_PROPERTY_SEED=random USMP_PROPERTY_CASES=100000. Every
 * failure prints the seed and case and writes the problem to /tmp as JSON.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <usmp/usmp.h>

#include "internal.h"
#include "support.h"

#define MAX_N 8
#define MAX_RULES 12
#define MAX_ALGOS 16
#define PLACEMENTS 8

typedef struct rule {
	uint32_t src, dst;
	int64_t lead;
} rule;

typedef struct desc {
	uint32_t P, n;
	uint64_t limit[2], palign[2];
	uint64_t size[MAX_N], align[MAX_N];
	int live[MAX_N];
	int64_t begin[MAX_N], end[MAX_N];
	uint32_t cand[MAX_N]; /* mask; 0 = every pool */
	int fixed[MAX_N];
	uint32_t fixed_pool[MAX_N];
	uint64_t fixed_offset[MAX_N];
	int edge[MAX_N][MAX_N];
	int edge_count;
	uint32_t edge_a[16], edge_b[16];
	rule rules[MAX_RULES];
	int rule_count;
} desc;

/* ---- the random problem ----------------------------------------------------- */

static int has_pair(const desc *d, uint32_t a, uint32_t b)
{
	for (int i = 0; i < d->rule_count; i++)
		if (d->rules[i].src == a && d->rules[i].dst == b)
			return 1;
	return 0;
}

static void add_rule(desc *d, uint64_t *s, uint32_t a, uint32_t b)
{
	if (a == b || d->rule_count == MAX_RULES || has_pair(d, a, b))
		return;
	int64_t lead = test_chance(s, 85) ? (int64_t)test_rand_range(s, 0, 12) - 6
	                             : (int64_t)test_rand_range(s, 0, 80) - 40;
	d->rules[d->rule_count++] = (rule){a, b, lead};
}

/* Distinct random buffers into out[0..k). */
static void pick(const desc *d, uint64_t *s, uint32_t *out, uint32_t k)
{
	uint32_t perm[MAX_N];
	for (uint32_t i = 0; i < d->n; i++)
		perm[i] = i;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t j = (uint32_t)test_rand_range(s, i, d->n - 1), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
		out[i] = perm[i];
	}
}

/* Rules in one of several shapes (several shapes may stack). */
static void make_rules(desc *d, uint64_t *s)
{
	uint32_t v[MAX_N], k;
	int shapes = (int)test_rand_range(s, 1, 3);
	for (int sh = 0; sh < shapes; sh++) {
		switch (test_rand_range(s, 0, 5)) {
		case 0: /* chain a -> b -> c ... */
		case 1: /* cycle: a chain closed back to its start */
			k = (uint32_t)test_rand_range(s, 2, d->n < 4 ? d->n : 4);
			pick(d, s, v, k);
			for (uint32_t i = 0; i + 1 < k; i++)
				add_rule(d, s, v[i], v[i + 1]);
			if (sh == 1 || test_chance(s, 25))
				add_rule(d, s, v[k - 1], v[0]);
			break;
		case 2: /* fan-in: several sources, one dst */
			k = (uint32_t)test_rand_range(s, 2, d->n < 4 ? d->n : 4);
			pick(d, s, v, k);
			for (uint32_t i = 1; i < k; i++)
				add_rule(d, s, v[i], v[0]);
			break;
		case 3: /* fan-out: one source, several dsts */
			k = (uint32_t)test_rand_range(s, 2, d->n < 4 ? d->n : 4);
			pick(d, s, v, k);
			for (uint32_t i = 1; i < k; i++)
				add_rule(d, s, v[0], v[i]);
			break;
		default: /* random pairs */
			k = (uint32_t)test_rand_range(s, 1, 4);
			for (uint32_t i = 0; i < k; i++) {
				pick(d, s, v, 2);
				add_rule(d, s, v[0], v[1]);
			}
		}
	}
}

/* Live ranges that fit the rules: dst begins at src's last step. Each
 * buffer has a first step B and a last step L (L >= B); a rule between
 * live buffers makes B(dst) and L(src) one point. Points are merged, given
 * random times, then raised until every L >= B (a cycle makes all equal). */
static void make_times(desc *d, uint64_t *s)
{
	uint32_t parent[2 * MAX_N];
	int64_t t[2 * MAX_N];
	for (uint32_t i = 0; i < 2 * d->n; i++)
		parent[i] = i;
	for (int r = 0; r < d->rule_count; r++) {
		uint32_t a = d->rules[r].src, b = d->rules[r].dst;
		if (!d->live[a] || !d->live[b])
			continue;
		uint32_t x = 2 * b, y = 2 * a + 1; /* B(dst), L(src) */
		while (parent[x] != x)
			x = parent[x];
		while (parent[y] != y)
			y = parent[y];
		parent[x] = y;
	}
	for (uint32_t i = 0; i < d->n; i++) {
		t[2 * i] = (int64_t)test_rand_range(s, 0, 6);
		t[2 * i + 1] = t[2 * i] + (int64_t)test_rand_range(s, 0, 2);
	}
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t i = 0; i < d->n; i++) {
			uint32_t x = 2 * i, y = 2 * i + 1;
			while (parent[x] != x)
				x = parent[x];
			while (parent[y] != y)
				y = parent[y];
			if (t[x] > t[y]) {
				t[y] = t[x];
				changed = 1;
			}
		}
	}
	for (uint32_t i = 0; i < d->n; i++) {
		uint32_t x = 2 * i, y = 2 * i + 1;
		while (parent[x] != x)
			x = parent[x];
		while (parent[y] != y)
			y = parent[y];
		d->begin[i] = t[x];
		d->end[i] = t[y] + 1;
	}
}

static uint64_t eff_align(const desc *d, uint32_t i, uint32_t q)
{
	return d->align[i] > d->palign[q] ? d->align[i] : d->palign[q];
}

static int may_use(const desc *d, uint32_t i, uint32_t q)
{
	return !d->cand[i] || (d->cand[i] & (1u << q));
}

static void generate(desc *d, uint64_t *s)
{
	memset(d, 0, sizeof *d);
	d->P = test_chance(s, 70) ? 1 : 2;
	d->n = (uint32_t)test_rand_range(s, 2, MAX_N);
	for (uint32_t q = 0; q < d->P; q++) {
		d->limit[q] = test_chance(s, 80) ? USMP_UNBOUNDED
		                                  : test_rand_range(s, 64, 160);
		d->palign[q] = test_chance(s, 80) ? 1 : 4;
	}
	for (uint32_t i = 0; i < d->n; i++) {
		d->size[i] = test_chance(s, 30) ? test_rand_range(s, 1, 4)
		                                 : test_rand_range(s, 1, 24);
		d->align[i] = test_chance(s, 75)
		                      ? 1
		                      : UINT64_C(1) << test_rand_range(s, 1, 3);
		d->live[i] = test_chance(s, 90);
		if (d->P == 2 && test_chance(s, 40))
			d->cand[i] = 1u << test_rand_range(s, 0, 1);
	}
	make_rules(d, s);
	make_times(d, s);
	if (test_chance(s, 35)) {
		int k = (int)test_rand_range(s, 1, 4);
		for (int e = 0; e < k; e++) {
			uint32_t v[2];
			pick(d, s, v, 2);
			if (d->edge[v[0]][v[1]])
				continue;
			d->edge[v[0]][v[1]] = d->edge[v[1]][v[0]] = 1;
			d->edge_a[d->edge_count] = v[0];
			d->edge_b[d->edge_count++] = v[1];
		}
	}
	for (uint32_t i = 0; i < d->n; i++) {
		if (!test_chance(s, 8))
			continue;
		uint32_t q = d->cand[i] ? (uint32_t)__builtin_ctz(d->cand[i])
		                        : (uint32_t)test_rand_range(s, 0, d->P - 1);
		uint64_t a = eff_align(d, i, q);
		d->fixed[i] = 1;
		d->fixed_pool[i] = q;
		d->fixed_offset[i] = a * test_rand_range(s, 0, 32 / a);
	}
}

static usmp_problem *build(const desc *d)
{
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	test_add_pools(p, "pool", d->P, d->limit, d->palign);
	for (uint32_t i = 0; i < d->n; i++) {
		uint32_t cand[2], ncand = 0;
		for (uint32_t q = 0; q < d->P; q++)
			if (d->cand[i] & (1u << q))
				cand[ncand++] = q;
		test_add_buffer(p, i, &(test_buffer){
			.size = d->size[i], .align = d->align[i], .live = d->live[i],
			.begin = d->begin[i], .end = d->end[i], .ncand = ncand,
			.cand = cand, .fixed = d->fixed[i],
			.fixed_pool = d->fixed_pool[i],
			.fixed_offset = d->fixed_offset[i]});
	}
	for (int e = 0; e < d->edge_count; e++)
		cr_assert_eq(usmp_problem_add_conflict(p, d->edge_a[e], d->edge_b[e]),
		             USMP_OK);
	for (int r = 0; r < d->rule_count; r++)
		cr_assert_eq(usmp_problem_add_overlap(p, d->rules[r].src,
		                                      d->rules[r].dst,
		                                      d->rules[r].lead),
		             USMP_OK, "%s", usmp_problem_error(p));
	return p;
}

/* ---- cycles, from the definition -------------------------------------------- */

/* Whether rules[0..k) reach b from a (a path of one rule or more). */
static int reaches(const desc *d, int k, uint32_t a, uint32_t b)
{
	int seen[MAX_N] = {0};
	uint32_t stack[MAX_N * MAX_RULES + 1], top = 0;
	stack[top++] = a;
	while (top) {
		uint32_t x = stack[--top];
		for (int r = 0; r < k; r++) {
			if (d->rules[r].src != x)
				continue;
			uint32_t y = d->rules[r].dst;
			if (y == b)
				return 1;
			if (!seen[y]) {
				seen[y] = 1;
				stack[top++] = y;
			}
		}
	}
	return 0;
}

/* The first rule that closes a cycle with the rules before it, or -1. */
static int closing_rule(const desc *d)
{
	for (int k = 0; k < d->rule_count; k++)
		if (reaches(d, k, d->rules[k].dst, d->rules[k].src))
			return k;
	return -1;
}

/* The refusal names rule k and a true cycle through it among rules[0..k]. */
static void check_cycle_message(const desc *d, int k, const char *msg)
{
	char want[96];
	snprintf(want, sizeof want, "overlaps[%d]: rule \"b%u\" -> \"b%u\" closes "
	         "a cycle of overlap rules: ", k, d->rules[k].src, d->rules[k].dst);
	cr_assert(strncmp(msg, want, strlen(want)) == 0, "got: %s\nwant: %s...",
	          msg, want);
	/* "bX" -> "bY" -> ... back to the first, each step a rule. */
	const char *at = msg + strlen(want);
	unsigned first, prev, cur, steps = 0;
	int used = 0;
	cr_assert_eq(sscanf(at, "\"b%u\"%n", &first, &used), 1, "%s", msg);
	cr_assert_eq(first, d->rules[k].dst, "%s", msg);
	at += used;
	prev = first;
	while (*at) {
		cr_assert_eq(sscanf(at, " -> \"b%u\"%n", &cur, &used), 1, "%s", msg);
		at += used;
		int found = 0;
		for (int r = 0; r <= k; r++)
			found |= d->rules[r].src == prev && d->rules[r].dst == cur;
		cr_assert(found, "no rule b%u -> b%u in: %s", prev, cur, msg);
		prev = cur;
		steps++;
	}
	cr_assert_eq(prev, first, "the cycle does not close: %s", msg);
	cr_assert_geq(steps, 2, "%s", msg);
}

/* ---- what the replay cannot see --------------------------------------------- */

static int rule_holds(const desc *d, uint32_t a, uint32_t b,
                      const usmp_placement *pl)
{
	for (int r = 0; r < d->rule_count; r++)
		if (d->rules[r].src == a && d->rules[r].dst == b &&
		    (__int128)pl[b].offset <=
		            (__int128)pl[a].offset + d->rules[r].lead)
			return 1;
	return 0;
}

/* Explicit edges between buffers not alive together: allowed to share bytes
 * only by a rule that holds. */
static int unseen_conflicts_hold(const desc *d, const usmp_placement *pl)
{
	for (int e = 0; e < d->edge_count; e++) {
		uint32_t a = d->edge_a[e], b = d->edge_b[e];
		if (d->live[a] && d->live[b] && d->begin[a] < d->end[b] &&
		    d->begin[b] < d->end[a])
			continue; /* the replay sees this one */
		if (pl[a].pool != pl[b].pool ||
		    pl[a].offset >= pl[b].offset + d->size[b] ||
		    pl[b].offset >= pl[a].offset + d->size[a])
			continue;
		if (!rule_holds(d, a, b, pl) && !rule_holds(d, b, a, pl))
			return 0;
	}
	return 1;
}

/* ---- the sweep ---------------------------------------------------------------- */

typedef struct stats {
	uint64_t problems, cycles_refused, plans, placements, accepted,
		 rejected, replay_rejected, unseen_rejected, shared_by_rule;
} stats;

/* Some byte shared by two buffers alive together (a rule allowed it). */
static int shares_bytes(const desc *d, const usmp_placement *pl)
{
	for (uint32_t a = 0; a < d->n; a++)
		for (uint32_t b = a + 1; b < d->n; b++)
			if (d->live[a] && d->live[b] && d->begin[a] < d->end[b] &&
			    d->begin[b] < d->end[a] && pl[a].pool == pl[b].pool &&
			    pl[a].offset < pl[b].offset + d->size[b] &&
			    pl[b].offset < pl[a].offset + d->size[a])
				return 1;
	return 0;
}

/* verify <=> replay and the unseen conflicts, on one plan. */
static void compare(const desc *d, usmp_problem *p, usmp_plan *plan,
                    const char *who, uint64_t seed, uint64_t c, stats *st)
{
	int v = usmp_plan_verify(plan, p);
	char *vmsg = strdup(usmp_plan_error(plan));
	int sim = usmp_plan_simulate(plan, p);
	char *smsg = strdup(usmp_plan_error(plan));
	int unseen = unseen_conflicts_hold(d, plan->placements);
	cr_assert(v == USMP_OK || v == USMP_ERR_INVALID_PLAN, "%s: verify %d: %s",
	          who, v, vmsg);
	cr_assert(sim == USMP_OK || sim == USMP_ERR_INVALID_PLAN,
	          "%s: simulate %d: %s", who, sim, smsg);
	if ((v == USMP_OK) != (sim == USMP_OK && unseen)) {
		char where[512] = "";
		int at = 0;
		for (uint32_t i = 0; i < d->n && at < (int)sizeof where - 40; i++)
			at += snprintf(where + at, sizeof where - (size_t)at,
			               " b%u@pool%u:%" PRIu64, i, plan->placements[i].pool,
			               plan->placements[i].offset);
		cr_log_error("USMP_PROPERTY_SEED=%" PRIu64 " case %" PRIu64
		             ": problem in %s; placements%s", seed, c,
		             test_save_case(p, "overlap-rules", seed, c), where);
		cr_assert_fail("%s: verify says %s (%s), the replay %s (%s), unseen "
		               "conflicts %s", who, v ? "invalid" : "valid", vmsg,
		               sim ? "invalid" : "valid", smsg,
		               unseen ? "hold" : "broken");
	}
	st->accepted += v == USMP_OK;
	st->rejected += v != USMP_OK;
	st->replay_rejected += sim != USMP_OK;
	st->unseen_rejected += !unseen;
	st->shared_by_rule += v == USMP_OK && shares_bytes(d, plan->placements);
	free(vmsg);
	free(smsg);
}

/* A random placement keeping each buffer's own constraints; offsets often
 * close to a rule partner's, where max_lead decides. */
static void random_placement(const desc *d, uint64_t *s, usmp_placement *pl)
{
	for (uint32_t i = 0; i < d->n; i++) {
		if (d->fixed[i]) {
			pl[i].pool = d->fixed_pool[i];
			pl[i].offset = d->fixed_offset[i];
			continue;
		}
		uint32_t q;
		do
			q = (uint32_t)test_rand_range(s, 0, d->P - 1);
		while (!may_use(d, i, q));
		int64_t off = (int64_t)test_rand_range(s, 0, 40);
		/* Next to a rule partner placed before: at the edge max_lead
		 * draws (offset(dst) = offset(src) + max_lead), give or take 3. */
		int r = d->rule_count ? (int)test_rand_range(
		                                 s, 0, (uint64_t)d->rule_count - 1)
		                      : 0;
		if (d->rule_count && test_chance(s, 70)) {
			const rule *ru = &d->rules[r];
			uint32_t o = ru->src == i ? ru->dst : ru->dst == i ? ru->src : i;
			if (o < i && may_use(d, i, pl[o].pool)) {
				int64_t edge = ru->dst == i ? ru->lead : -ru->lead;
				q = pl[o].pool;
				off = (int64_t)pl[o].offset + edge + (int64_t)test_rand_range(s, 0, 6) - 3;
			}
		}
		uint64_t a = eff_align(d, i, q);
		uint64_t o = off < 0 ? 0 : (uint64_t)off / a * a;
		if (d->limit[q] != USMP_UNBOUNDED && o + d->size[i] > d->limit[q])
			o = 0;
		pl[i].pool = q;
		pl[i].offset = o;
	}
}

Test(overlap_rules, verify_accepts_exactly_what_the_replay_accepts,
     .timeout = 600)
{
	int random_seed;
	uint64_t seed = test_env_u64("USMP_PROPERTY_SEED", 20261203, &random_seed);
	uint64_t cases = test_env_u64("USMP_PROPERTY_CASES", TEST_SWEEP(5000),
	                              NULL), s = seed;
	usmp_registry *r = test_registry(NULL);
	const char *names[MAX_ALGOS];
	uint32_t na = usmp_registry_algorithm_count(r);
	stats st = {0};
	if (random_seed)
		cr_log_info("USMP_PROPERTY_SEED=%" PRIu64, seed);
	cr_assert_leq(na, MAX_ALGOS);
	for (uint32_t i = 0; i < na; i++) {
		usmp_algorithm_info ai = {.struct_size = sizeof ai};
		cr_assert_eq(usmp_registry_algorithm(r, i, &ai), USMP_OK);
		names[i] = ai.name;
	}
	for (uint64_t c = 0; c < cases; c++) {
		desc d;
		generate(&d, &s);
		/* Cycles are refused, naming the first closing rule; drop it. */
		int k;
		while ((k = closing_rule(&d)) >= 0) {
			usmp_problem *p = build(&d);
			int rc = usmp__problem_prepare(p);
			cr_assert_eq(rc, USMP_ERR_INVALID, "case %" PRIu64 ": a cycle "
			             "closed by rule %d is accepted", c, k);
			check_cycle_message(&d, k, usmp_problem_error(p));
			usmp_problem_destroy(p);
			st.cycles_refused++;
			memmove(&d.rules[k], &d.rules[k + 1],
			        (size_t)(d.rule_count - k - 1) * sizeof *d.rules);
			d.rule_count--;
		}
		usmp_problem *p = build(&d);
		cr_assert_eq(usmp__problem_prepare(p), USMP_OK, "case %" PRIu64
		             ": %s", c, usmp_problem_error(p));
		st.problems++;
		for (uint32_t a = 0; a < na; a++) {
			usmp_plan_options o = {
				.struct_size = sizeof o,
				.flags = USMP_PLAN_NO_ISOLATE,
				.algorithm = names[a],
				.time_limit = 0.2,
			};
			usmp_plan *plan = NULL;
			int rc = usmp_plan_compute(r, p, &o, &plan);
			cr_assert_not_null(plan);
			if (rc == USMP_OK) {
				cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK,
				             "case %" PRIu64 ": %s plans invalidly: %s", c,
				             names[a], usmp_plan_error(plan));
				compare(&d, p, plan, names[a], seed, c, &st);
				st.plans++;
			}
			usmp_plan_destroy(plan);
		}
		for (int t = 0; t < PLACEMENTS; t++) {
			usmp_plan *plan = usmp__plan_alloc(p);
			cr_assert_not_null(plan);
			random_placement(&d, &s, plan->placements);
			compare(&d, p, plan, "random placement", seed, c, &st);
			st.placements++;
			usmp_plan_destroy(plan);
		}
		usmp_problem_destroy(p);
	}
	cr_log_info("seed %" PRIu64 ": %" PRIu64 " problems, %" PRIu64 " cycles "
	            "refused, %" PRIu64 " plans, %" PRIu64 " random placements; "
	            "verify accepted %" PRIu64 " (%" PRIu64 " sharing bytes), "
	            "rejected %" PRIu64 " (replay rejected %" PRIu64 ", unseen "
	            "conflicts %" PRIu64 ")", seed, st.problems, st.cycles_refused,
	            st.plans, st.placements, st.accepted, st.shared_by_rule,
	            st.rejected, st.replay_rejected, st.unseen_rejected);
	/* The generator reaches every side of the property. */
	cr_assert_gt(st.cycles_refused, cases / 20);
	cr_assert_gt(st.plans, cases);
	cr_assert_gt(st.shared_by_rule, cases / 10);
	cr_assert_gt(st.replay_rejected, cases);
	cr_assert_gt(st.unseen_rejected, cases / 50);
	usmp_registry_destroy(r);
}

/* ---- shapes, one by one ------------------------------------------------------- */

/* A plan placing buffer i at offsets[i] in pool 0. */
static usmp_plan *placed(usmp_problem *p, const uint64_t *offsets)
{
	usmp_plan *plan = usmp__plan_alloc(p);
	cr_assert_not_null(plan);
	for (uint32_t i = 0; i < usmp_problem_buffer_count(p); i++) {
		plan->placements[i].pool = 0;
		plan->placements[i].offset = offsets[i];
	}
	return plan;
}

/* Verify and replay give `want`; the replay's message holds `needle`. */
static void both_say(usmp_problem *p, const uint64_t *offsets, int want,
                     const char *needle)
{
	usmp_plan *plan = placed(p, offsets);
	int v = usmp_plan_verify(plan, p);
	char *vmsg = strdup(usmp_plan_error(plan));
	int sim = usmp_plan_simulate(plan, p);
	cr_assert_eq(v, want, "verify: %s", vmsg);
	cr_assert_eq(sim, want, "replay: %s", usmp_plan_error(plan));
	if (needle)
		cr_assert(strstr(usmp_plan_error(plan), needle), "replay: %s",
		          usmp_plan_error(plan));
	free(vmsg);
	usmp_plan_destroy(plan);
}

Test(overlap_rules, a_rule_each_way_is_refused_naming_the_cycle)
{
	static const char json[] =
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 8, \"live\": [0, 1]},"
		"{\"name\": \"b\", \"size\": 8, \"live\": [0, 1]}],"
		" \"overlaps\": [{\"src\": \"a\", \"dst\": \"b\"},"
		" {\"src\": \"b\", \"dst\": \"a\"}]}";
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_parse(p, json, strlen(json), "cycle.json",
	                                USMP_FORMAT_JSON, USMP_UNBOUNDED),
	             USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p),
	                 "cycle.json: overlaps[1]: rule \"b\" -> \"a\" closes a "
	                 "cycle of overlap rules: \"a\" -> \"b\" -> \"a\"");
	cr_assert_eq(usmp_problem_buffer_count(p), 0, "a refused file leaves "
	             "the problem empty");
	usmp_problem_destroy(p);

	/* The command line: bad input, exit 2, the same message. */
	char *path = test_write_tmp(".json", json), *out = NULL;
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "USMP_PLUGIN_PATH= '%s' bound '%s'", test_cli(),
	         path);
	cr_assert_eq(test_run(cmd, &out), 2, "%s", out);
	cr_assert(strstr(out, "overlaps[1]: rule \"b\" -> \"a\" closes a cycle of "
	                      "overlap rules: \"a\" -> \"b\" -> \"a\""), "%s", out);
	free(out);
	unlink(path);
	free(path);
}

Test(overlap_rules, the_first_rule_closing_a_cycle_is_named_and_long_cycles_cut)
{
	char name[16];
	usmp_problem *p = usmp_problem_create();
	for (uint32_t i = 0; i < 12; i++) {
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 4, 1, NULL), USMP_OK);
	}
	/* Buffers without live ranges: any rule fits their (absent) schedule,
	 * but a cycle is still no op order. Rules are checked when used. */
	for (uint32_t i = 0; i < 12; i++)
		cr_assert_eq(usmp_problem_add_overlap(p, i, (i + 1) % 12, 0), USMP_OK);
	cr_assert_eq(usmp__problem_prepare(p), USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_problem_error(p),
	                 "overlaps[11]: rule \"b11\" -> \"b0\" closes a cycle of "
	                 "overlap rules: \"b0\" -> \"b1\" -> \"b2\" -> \"b3\" -> "
	                 "... -> \"b8\" -> \"b9\" -> \"b10\" -> \"b11\" -> \"b0\" "
	                 "(12 rules)");
	/* A shorter cycle closed earlier is the one named: b3 -> b1 closes
	 * b1 -> b2 -> b3 -> b1 before the last rule closes the long one. */
	usmp_problem_destroy(p);
	p = usmp_problem_create();
	for (uint32_t i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "b%u", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 4, 1, NULL), USMP_OK);
	}
	cr_assert_eq(usmp_problem_add_overlap(p, 0, 1, 0), USMP_OK);
	cr_assert_eq(usmp_problem_add_overlap(p, 1, 2, 0), USMP_OK);
	cr_assert_eq(usmp_problem_add_overlap(p, 2, 3, 0), USMP_OK);
	cr_assert_eq(usmp_problem_add_overlap(p, 3, 4, 0), USMP_OK);
	cr_assert_eq(usmp_problem_add_overlap(p, 3, 1, 0), USMP_OK);
	cr_assert_eq(usmp_problem_add_overlap(p, 4, 0, 0), USMP_OK);
	usmp_plan *plan = NULL;
	usmp_registry *r = test_registry(NULL);
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE,
	                       .algorithm = "first_fit"};
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_plan_error(plan),
	                 "overlaps[4]: rule \"b3\" -> \"b1\" closes a cycle of "
	                 "overlap rules: \"b1\" -> \"b2\" -> \"b3\" -> \"b1\"");
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* One src read by two ops' outputs: each dst keeps its own max_lead. */
Test(overlap_rules, fan_out_holds_every_dst_to_its_own_lead)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"s\", \"size\": 16, \"live\": [0, 2]},"
		"{\"name\": \"d1\", \"size\": 8, \"live\": [1, 3]},"
		"{\"name\": \"d2\", \"size\": 8, \"live\": [1, 3]}],"
		" \"overlaps\": [{\"src\": \"s\", \"dst\": \"d1\"},"
		" {\"src\": \"s\", \"dst\": \"d2\"}]}", "shape.json");
	/* d1 in place over s's first half: fine. d2 over the second half needs
	 * offset(d2) 8 <= offset(s) 0 + 0: broken, whatever d1 did first. */
	both_say(p, (uint64_t[]){0, 0, 8}, USMP_ERR_INVALID_PLAN,
	         "buffer \"s\": byte 8 (pool \"default\" address 8) is "
	         "overwritten by byte 0 of buffer \"d2\" at step 1");
	both_say(p, (uint64_t[]){0, 4, 16}, USMP_ERR_INVALID_PLAN,
	         "by byte 0 of buffer \"d1\"");
	both_say(p, (uint64_t[]){0, 0, 16}, USMP_OK, NULL);
	usmp_problem_destroy(p);
}

/* A buffer born at src's last step without a rule from src may not touch
 * src, not even the bytes a rule's dst has finished with. */
Test(overlap_rules, a_buffer_without_a_rule_never_writes_over_a_live_src)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"s\", \"size\": 16, \"live\": [0, 2]},"
		"{\"name\": \"d\", \"size\": 8, \"live\": [1, 3]},"
		"{\"name\": \"e\", \"size\": 8, \"live\": [1, 3]}],"
		" \"overlaps\": [{\"src\": \"s\", \"dst\": \"d\"}]}", "shape.json");
	both_say(p, (uint64_t[]){0, 0, 8}, USMP_ERR_INVALID_PLAN,
	         "buffer \"s\": byte 8 (pool \"default\" address 8) is "
	         "overwritten by buffer \"e\" at step 1, before its last use at "
	         "step 1");
	both_say(p, (uint64_t[]){8, 0, 16}, USMP_ERR_INVALID_PLAN,
	         "overwritten by buffer \"e\"");
	both_say(p, (uint64_t[]){0, 0, 16}, USMP_OK, NULL);
	usmp_problem_destroy(p);
}

/* a -> b -> c with b alive one step: c meets a, and no rule joins them, so
 * c may not take a's bytes even where b took them first. */
Test(overlap_rules, a_chain_does_not_let_its_ends_share)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 8, \"live\": [0, 2]},"
		"{\"name\": \"b\", \"size\": 8, \"live\": [1, 2]},"
		"{\"name\": \"c\", \"size\": 8, \"live\": [1, 3]}],"
		" \"overlaps\": [{\"src\": \"a\", \"dst\": \"b\"},"
		" {\"src\": \"b\", \"dst\": \"c\"}]}", "shape.json");
	both_say(p, (uint64_t[]){0, 0, 0}, USMP_ERR_INVALID_PLAN,
	         "buffer \"a\": byte 0 (pool \"default\" address 0) is "
	         "overwritten by buffer \"c\" at step 1");
	both_say(p, (uint64_t[]){0, 0, 8}, USMP_OK, NULL); /* c over b only */
	usmp_problem_destroy(p);
	/* When b lives on, c no longer meets a: the chain shares in place. */
	p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 8, \"live\": [0, 2]},"
		"{\"name\": \"b\", \"size\": 8, \"live\": [1, 3]},"
		"{\"name\": \"c\", \"size\": 8, \"live\": [2, 4]}],"
		" \"overlaps\": [{\"src\": \"a\", \"dst\": \"b\"},"
		" {\"src\": \"b\", \"dst\": \"c\"}]}", "shape.json");
	both_say(p, (uint64_t[]){0, 0, 0}, USMP_OK, NULL);
	usmp_problem_destroy(p);
}

/* One op reading twenty sources into one dst (a concatenation): every
 * source streamed, however many. */
Test(overlap_rules, fan_in_of_twenty_sources_replays)
{
	char json[4096];
	int at = snprintf(json, sizeof json, "{\"usmp\": 1, \"buffers\": ["
	                  "{\"name\": \"d\", \"size\": 80, \"live\": [1, 3]}");
	for (int i = 0; i < 20; i++)
		at += snprintf(json + at, sizeof json - (size_t)at, ", {\"name\": "
		               "\"s%d\", \"size\": 4, \"live\": [0, 2]}", i);
	at += snprintf(json + at, sizeof json - (size_t)at, "], \"overlaps\": [");
	for (int i = 0; i < 20; i++)
		at += snprintf(json + at, sizeof json - (size_t)at,
		               "%s{\"src\": \"s%d\", \"dst\": \"d\"}", i ? ", " : "", i);
	snprintf(json + at, sizeof json - (size_t)at, "]}");
	usmp_problem *p = test_parse_json(json, "shape.json");
	uint64_t off[21] = {0};
	for (int i = 0; i < 20; i++)
		off[1 + i] = 4 * (uint64_t)i; /* d byte 4i lands on s_i byte 0 */
	both_say(p, off, USMP_OK, NULL);
	off[20] = 72; /* s19 over s18's bytes: no rule between sources */
	both_say(p, off, USMP_ERR_INVALID_PLAN, "\"s18\"");
	usmp_problem_destroy(p);
}
