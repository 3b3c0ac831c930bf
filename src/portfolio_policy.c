/* portfolio_policy.c — auto's policy as data: its members, their cost and gain
 * by the part's shape (measured here), the table `usmp list -v` reads back. */
#include "portfolio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The portfolio's policy, as data: every member, what it is for, what it
 * costs and what it is expected to gain, by problem shape.
 *
 * FIRST members make the first plan: tried in this order until one fits,
 * each allowed to finish whatever the deadline (a plan late beats no plan).
 * HEURISTIC members then run in order of gain per cost for the part's shape
 * while their estimated cost (cost x the time the first plan took) fits the
 * budget they get: all the time left; on a part that goes to exact_window,
 * USMP__AUTO_WINDOW_SHARE of it (budget.h), and only when all the cheap
 * ones fit there together.
 * Those that did not fit run after the search when time remains. Every shipped heuristic is a member, so with the time to run them
 * auto is never behind any of them (tests/test_auto_box.c).
 * SEARCH members get the time that remains when no plan is at the bound,
 * in table order, where their gain for the shape is not 0; the first that
 * accepts the part is used. exact in feasibility mode runs only while no
 * plan fits. exact_window starts from the best plan so far (warm=true: auto
 * puts it in the output array). Its first row goes before exact on parts
 * with a piece of WINDOW_FIRST buffers or more (a piece: buffers between
 * two times no live range crosses), which the whole-problem exact search
 * rarely improves within a time limit (or refuses: > 10,000 buffers); when
 * it stops early above the bound, exact may use the time left. Parts of many
 * small pieces go to exact first (it solves pieces apart), and to the second
 * exact_window row only when exact refuses. With hundreds or thousands of
 * buffers alive over many decades (WIDE) the window search solved no window
 * on any XLA trace and overran its deadline by seconds, and exact (beyond
 * 10,000 buffers it refuses) built its model for 0.25 CPU s on 5,000
 * buffers with 1,000 alive and searched no node: gain 0 there, so WIDE
 * parts get the heuristics only (exact still looks for a first plan that
 * fits when none does).
 *
 * cost: time of one run as a multiple of first_fit by size, measured on the
 * XLA traces (27k-59k buffers, 3k-5k alive) and the generated workloads
 * (docs/performance.md): the other first_fit orders 0.8-1.1, best_fit
 * 1.2-2.2 by size and area, TVM's greedies 0.7-1.0; hill_climb's 500
 * re-placements from the swapped position cost 200-300 first fits (2,000
 * and 10,500 buffers with 300-400 alive), counted as 400 to be safe;
 * first_fit_sweep 0.25-0.35 on the XLA traces, counted as 0.5.
 * gain: how often the member gave the smallest heuristic plan on the
 * training problems of each shape (out of ten; ties count for each; WIDE:
 * the eight XLA traces and four field.py shapes), so the
 * likely winners run first when not all fit: FEW = at most 100 buffers
 * alive at once (CNN and transformer inference streams), MANY = more alive
 * with sizes within four decades (training steps, MiniMalloc), WIDE = more
 * alive over four decades or more (XLA traces). A member with gain 0 still
 * runs when it fits: "never behind" needs every heuristic. first_fit_sweep's
 * WIDE gain: the smallest plan on trace R (1.0002; 1.0033-1.27 on the other
 * seven, where first_fit reaches 1.0000-1.0009) and, within the time, on
 * field.py's xla_500k_10k and xla_1m_10k. FEW and MANY, from gen.py's
 * 1k/10k cnn, transformer and training streams only: the smallest plan on
 * transformer_10k (1.0000; first_fit 1.0084), 1.0026-1.57 elsewhere; 1 on
 * both (on MANY above the greedy's 0, so first_by_estimate takes it).
 *
 * RANKING: a member's plan replaces the incumbent when it is better by
 * the several-pool objective (better_plan: less spill, then smaller; the
 * earlier member's on a tie), and "at the bound" (at_bound) means the
 * size reaches the lower bound and the spill is no more than the spill
 * floor (usmp__spill_floor, spill_floor.c: the forced spill plus what each
 * limited pool's first-choice buffers alive together must move out), so
 * no plan can beat it: a plan at the size bound that spills more than
 * that does not end the run.
 *
 * VOLUNTEERS are not in the table: every plugin algorithm that declares
 * USMP_CAP_PORTFOLIO (ABI 1.2). They run after the heuristics of the first
 * pass, before the search, each when its declared cost (usmp_algorithm.cost,
 * 1 when unknown) x the first plan's time fits the time left (every one
 * while no plan exists), isolated as any plugin call would be
 * (usmp__dispatch); what they fail with is a logged note (run_algo).
 * usmp_registry_member reads this table and the volunteers back for
 * `usmp list -v`. */
const struct member usmp__policy[] = {
	/* algorithm      knob               role      cost   FEW MANY WIDE  index */
	{"first_fit", "order=size", ROLE_FIRST, 1.0, {10, 8, 9}, INDEX_FIT},
	{"best_fit", "order=size", ROLE_FIRST, 1.8, {4, 3, 4}, INDEX_FIT},
	{"best_fit", "order=lifetime", ROLE_HEURISTIC, 1.4, {4, 2, 0}, INDEX_FIT},
	{"best_fit", "order=area", ROLE_HEURISTIC, 2.2, {4, 2, 1}, INDEX_FIT},
	{"best_fit", "order=conflicts", ROLE_HEURISTIC, 1.3, {4, 1, 0}, INDEX_FIT},
	{"first_fit", "order=lifetime", ROLE_HEURISTIC, 1.1, {4, 1, 0}, INDEX_FIT},
	{"first_fit", "order=area", ROLE_HEURISTIC, 1.0, {4, 2, 2}, INDEX_FIT},
	{"first_fit", "order=conflicts", ROLE_HEURISTIC, 1.1, {4, 1, 0}, INDEX_FIT},
	{"first_fit_sweep", NULL, ROLE_HEURISTIC, 0.5, {1, 1, 2}, INDEX_SWEEP},
	{"greedy_by_size", NULL, ROLE_HEURISTIC, 1.0, {2, 0, 0}, INDEX_TIME},
	{"greedy_by_conflicts", NULL, ROLE_HEURISTIC, 1.0, {2, 0, 0}, INDEX_TIME},
	{"hill_climb", NULL, ROLE_HEURISTIC, 400.0, {2, 0, 0}, INDEX_FIT},
	/* SEARCH: the first that accepts the part is used */
	{"exact", "minimize=false", ROLE_SEARCH, 0, {10, 10, 10}, INDEX_FIT},
	{"exact_window", "warm=true", ROLE_SEARCH, 0, {10, 10, 0}, INDEX_FIT},
	{"exact", NULL, ROLE_SEARCH, 0, {10, 10, 0}, INDEX_FIT},
	{"exact_window", "warm=true", ROLE_SEARCH, 0, {10, 10, 0}, INDEX_FIT},
	{"hill_climb", NULL, ROLE_SEARCH, 0, {2, 0, 0}, INDEX_FIT},
};
_Static_assert(sizeof usmp__policy / sizeof *usmp__policy == POLICY_COUNT,
               "POLICY_COUNT is the number of rows");

/* A shape is MANY or WIDE above this many buffers alive at once, WIDE when
 * the sizes also span this many decades (largest / smallest). */
#define FEW_ALIVE 100u
#define WIDE_DECADES 4.0

/* Above this many buffers the pieces are not measured (exact refuses). */
#define PIECES_MAX 100000u

shape usmp__measure_shape(const usmp_view *v)
{
	shape sh = {.cls = SHAPE_FEW, .large_piece = v->buffer_count > PIECES_MAX};
	uint64_t lo = UINT64_MAX, hi = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		uint64_t z = v->buffers[i].size;
		lo = z && z < lo ? z : lo;
		hi = z > hi ? z : hi;
	}
	sh.decades = hi >= lo ? log10((double)hi / (double)lo) : 0;
	/* begins and ends sorted apart (the radix sort the sweeps share) */
	size_t sz = v->buffer_count ? v->buffer_count : 1;
	uint64_t *begins = malloc(sz * sizeof *begins);
	uint64_t *ends = malloc(sz * sizeof *ends);
	uint32_t *by_begin = malloc(sz * sizeof *by_begin);
	uint32_t n = 0;
	if (!begins || !ends || !by_begin) {
		sh.large_piece = v->buffer_count >= WINDOW_FIRST;
		goto out;
	}
	for (uint32_t i = 0; i < v->buffer_count; i++)
		if (v->buffers[i].flags & USMP_BUFFER_LIVE) {
			begins[n] = usmp__time_key(v->buffers[i].begin);
			ends[n] = usmp__time_key(v->buffers[i].end);
			by_begin[n++] = i;
		}
	if (usmp__sort_pairs(begins, by_begin, n) ||
	    usmp__sort_pairs(ends, NULL, n)) {
		sh.large_piece = v->buffer_count >= WINDOW_FIRST;
		goto out;
	}
	uint32_t piece = 0, largest = 0, done = 0;
	uint64_t end = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t b = begins[i];
		uint64_t e = usmp__time_key(v->buffers[by_begin[i]].end);
		if (piece && b >= end)
			piece = 0;
		if (!piece || e > end)
			end = e;
		if (++piece > largest)
			largest = piece;
		while (done < n && ends[done] <= b)
			done++; /* half-open ranges: ended before this begin */
		if (i + 1 - done > sh.alive)
			sh.alive = i + 1 - done;
	}
	if (v->buffer_count >= WINDOW_FIRST && largest >= WINDOW_FIRST)
		sh.large_piece = true;
out:
	free(begins);
	free(ends);
	free(by_begin);
	if (sh.alive > FEW_ALIVE)
		sh.cls = sh.decades >= WIDE_DECADES ? SHAPE_WIDE : SHAPE_MANY;
	return sh;
}

/* ---- the table, as the registry's public query sees it ------------------ */

static bool is_volunteer(const usmp__algo *a)
{
	return a && !a->builtin && (a->caps & USMP_CAP_PORTFOLIO);
}

uint32_t usmp_registry_member_count(const usmp_registry *r)
{
	if (!r)
		return 0;
	uint32_t n = (uint32_t)POLICY_COUNT;
	for (uint32_t i = 0; i < usmp__registry_algo_count(r); i++)
		n += is_volunteer(usmp__registry_algo_at(r, i));
	return n;
}

int usmp_registry_member(const usmp_registry *r, uint32_t i,
                         usmp_member_info *info)
{
	if (!r || !info || info->struct_size < sizeof(uint32_t))
		return USMP_ERR_INVALID;
	usmp_member_info full = {.struct_size = info->struct_size,
	                         .algorithm = UINT32_MAX, .knobs = ""};
	if (i < POLICY_COUNT) {
		static const uint32_t roles[] = {
			[ROLE_FIRST] = USMP_MEMBER_FIRST,
			[ROLE_HEURISTIC] = USMP_MEMBER_HEURISTIC,
			[ROLE_SEARCH] = USMP_MEMBER_SEARCH};
		static const uint32_t bits[SHAPE_COUNT] = {
			USMP_SHAPE_FEW, USMP_SHAPE_MANY, USMP_SHAPE_WIDE};
		const struct member *m = &usmp__policy[i];
		full.role = roles[m->role];
		full.name = m->algorithm;
		full.knobs = m->knob ? m->knob : "";
		full.cost = m->role == ROLE_SEARCH ? 0 : m->cost;
		for (int c = 0; c < SHAPE_COUNT; c++)
			if (m->gain[c])
				full.shapes |= bits[c];
		uint32_t idx;
		if (!usmp_registry_find_algorithm(r, m->algorithm, &idx))
			full.algorithm = idx;
	} else {
		uint32_t k = i - (uint32_t)POLICY_COUNT, a = 0;
		const usmp__algo *v = NULL;
		for (; a < usmp__registry_algo_count(r); a++) {
			v = usmp__registry_algo_at(r, a);
			if (is_volunteer(v) && k-- == 0)
				break;
		}
		if (a == usmp__registry_algo_count(r))
			return USMP_ERR_NOT_FOUND;
		full.role = USMP_MEMBER_VOLUNTEER;
		full.name = v->name;
		full.cost = v->cost;
		full.algorithm = a;
		full.shapes = USMP_SHAPE_FEW | USMP_SHAPE_MANY | USMP_SHAPE_WIDE;
	}
	size_t n = info->struct_size < sizeof full ? info->struct_size
	                                           : sizeof full;
	memcpy(info, &full, n);
	return USMP_OK;
}

