/* portfolio.c — "auto", the default algorithm, built into libusmp: run the
 * fast heuristics, stop at the lower bound, else spend the rest on search. */
#include "plan.h"
#include "portfolio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"

static bool is_warm(const struct member *m)
{
	return m->knob && !strcmp(m->knob, "warm=true");
}

typedef struct run_state {
	const usmp__call *call; /* auto's own call: members' calls copy it */
	usmp_registry *r;
	const usmp_view *v;
	usmp__host_ctx *hc; /* the call's context: members get hc->host */
	const usmp_host *h; /* &hc->host, for auto's own log and progress */
	usmp_placement *best; /* the caller's output array */
	usmp_placement *trial;
	uint64_t best_size; /* valid when have_best */
	uint64_t best_spill; /* valid when have_best (plan_spill) */
	uint64_t spill_floor; /* no plan of the part spills less (spill_floor.c) */
	int have_best;
	char *winner;
	int first_error;
	char *error_text;
	int proved_infeasible; /* an exact member said no plan fits */
	uint64_t *hw;          /* scratch: a high-water mark per pool */

	/* The plan of the run (auto_plan). */
	shape sh;
	bool improve;      /* search when no heuristic reaches the bound */
	bool window_first; /* the part goes to exact_window early */
	int ran;           /* members that produced a plan */
	double first_cost; /* seconds the member that made the first plan took;
	                    * first_fit's estimate when by_estimate */
	bool by_estimate;  /* the first plan came from a cheaper member because
	                    * first_fit's estimate did not fit the time left */
	char done[POLICY_COUNT]; /* the heuristic rows run so far */
	size_t idx[POLICY_COUNT]; /* heuristic rows by gain per cost */
	size_t nidx;
	double verify_cost; /* seconds the last verification of a plan took */
	double call_s; /* the last member call's usmp__call.call_s */
	double isolate_s; /* a volunteer's child-process overhead: measured by
	                   * the last isolated one, USMP__ISOLATE_OVERHEAD before */
	uint64_t best_digest; /* placements_digest of best when it was verified */
	/* A member's proven bound holds for plans that spill no more than its
	 * own (docs/design.md, "What optimal claims"): the least spill of the
	 * members that raised it, and hc's bound before the first did. */
	uint64_t bound_spill;
	int bound_raised, prev_reported, prev_optimal;
	uint64_t prev_proven;
	/* Seconds past the deadline each member call ran (from the later of
	 * its start and the deadline to its return): the first plan's calls
	 * summed, and the largest of any other call, whose algorithm is
	 * late_name (killed by its watcher when late_killed). blame_overrun
	 * names the cause from them. */
	double first_late, member_late;
	char late_name[USMP__HOST_NAME];
	bool late_killed;
} run_state;

/* A digest of a plan's placements (FNV-1a over their pools and offsets):
 * auto tells its caller that the plan it returns is the one it verified
 * (usmp__call.verified) only when the digest is unchanged, so a member that
 * wrote past its own array cannot slip a changed plan through. */
static uint64_t placements_digest(const usmp_view *v, const usmp_placement *pl)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		h = (h ^ pl[i].pool) * 0x100000001b3ull;
		h = (h ^ pl[i].offset) * 0x100000001b3ull;
	}
	return h;
}

/* The plan's spill: the bytes of buffers placed outside their first
 * candidate pool (saturating). */
static uint64_t plan_spill(const usmp_view *v, const usmp_placement *pl)
{
	uint64_t spill = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		if (b->candidate_count &&
		    pl[i].pool != v->candidates[b->candidate_start])
			spill = b->size > UINT64_MAX - spill ? UINT64_MAX
			                                     : spill + b->size;
	}
	return spill;
}

/* Whether a plan of spill `spill` and size `size` is better than one of
 * spill `best_spill` and size `best_size`: less spill, else smaller
 * (docs/design.md, "Several pools: the objective"); on a tie the plan
 * auto already has stays (the earlier member's). The one ranking auto
 * keeps its incumbent by. */
static bool better_plan(uint64_t spill, uint64_t size, uint64_t best_spill,
                        uint64_t best_size)
{
	if (spill != best_spill)
		return spill < best_spill;
	return size < best_size;
}

static uint64_t plan_size(const usmp_view *v, const usmp_placement *pl,
                          uint64_t *hw)
{
	memset(hw, 0, v->pool_count * sizeof *hw);
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		uint64_t top = pl[i].offset + v->buffers[i].size;
		if (pl[i].pool < v->pool_count && top > hw[pl[i].pool])
			hw[pl[i].pool] = top;
	}
	uint64_t total = 0;
	for (uint32_t j = 0; j < v->pool_count; j++)
		total = total + hw[j] < total ? UINT64_MAX : total + hw[j];
	return total;
}

static void reset_trial(const usmp_view *v, usmp_placement *pl)
{
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		pl[i] = (usmp_placement){USMP_NO_POOL, 0, 0};
		if (b->flags & USMP_BUFFER_FIXED)
			pl[i] = (usmp_placement){b->fixed_pool, 0, b->fixed_offset};
	}
}

/* After a member's call: a volunteer's report_bound is dropped (the host's
 * bound state goes back to what it was before the call); a table member
 * that raised the bound has it recorded with the spill it holds for. */
static void member_bound(run_state *s, int st, bool volunteer, int reported,
                         int optimal, uint64_t proven)
{
	usmp__host_ctx *hc = s->hc;
	if (volunteer) {
		hc->reported = reported;
		hc->optimal = optimal;
		hc->proven_bound = proven;
	} else if (hc->reported &&
	           (!reported || hc->proven_bound > proven ||
	            hc->optimal != optimal)) {
		/* The bound this member raised holds for plans spilling no
		 * more than its own; without a plan of its own, for plans
		 * without spill. */
		uint64_t spill = st == USMP_OK ? plan_spill(s->v, s->trial) : 0;
		if (!s->bound_raised) {
			s->bound_raised = 1;
			s->prev_reported = reported;
			s->prev_optimal = optimal;
			s->prev_proven = proven;
			s->bound_spill = spill;
		} else if (spill < s->bound_spill) {
			s->bound_spill = spill;
		}
	}
}

/* After a member's call that began at t0 and worked to the deadline dl (0:
 * none): the time it ran past dl, on the first plan's account when it was
 * making the first plan (first), else kept when the largest so far. */
static void note_late(run_state *s, const char *name, double t0, double dl,
                      bool first, bool killed)
{
	if (dl <= 0)
		return;
	double late = usmp__now() - (t0 > dl ? t0 : dl);
	if (late <= 0)
		return;
	if (first) {
		s->first_late += late;
	} else if (late > s->member_late) {
		s->member_late = late;
		snprintf(s->late_name, sizeof s->late_name, "%s", name);
		s->late_killed = killed;
	}
}

/* When auto returns past `deadline` (its caller's), the part's overrun
 * cause (usmp_part_info.overrun_cause): what took at least half of the
 * time past it, the first plan or the latest member (then named in
 * overrun_by), else unknown rather than a wrong name (auto's own work
 * between members, a late member's successors each a little late). */
static void blame_overrun(run_state *s, double deadline)
{
	usmp__host_ctx *hc = s->hc;
	double past = deadline > 0 ? usmp__now() - deadline : 0;
	hc->overrun_by[0] = '\0';
	hc->overrun_cause = USMP_OVERRUN_NONE;
	if (past <= 0)
		return;
	if (s->member_late >= s->first_late && 2 * s->member_late >= past) {
		snprintf(hc->overrun_by, sizeof hc->overrun_by, "%s",
		         s->late_name);
		hc->overrun_cause = s->late_killed ? USMP_OVERRUN_STOPPED
		                                   : USMP_OVERRUN_LATE;
	} else if (2 * s->first_late >= past) {
		hc->overrun_cause = USMP_OVERRUN_FIRST_PLAN;
	} else {
		hc->overrun_cause = USMP_OVERRUN_UNKNOWN;
	}
}

/* A shipped member failed with st: an exact one's "infeasible" is a proof
 * (recorded for the part's message when it is about this problem, not a
 * stricter one with rules as conflicts); the first failure is what auto
 * says when no member plans. */
static void member_failed(run_state *s, const usmp__algo *a, int st)
{
	usmp__host_ctx *hc = s->hc;
	if (st == USMP_ERR_INFEASIBLE && (a->caps & USMP_CAP_EXACT)) {
		s->proved_infeasible = 1;
		if (!hc->proved_by[0] && (!s->v->overlap_count ||
		                          (a->caps & USMP_CAP_OVERLAP_RULES)))
			snprintf(hc->proved_by, sizeof hc->proved_by, "%s",
			         a->name);
	}
	if (!s->first_error && st != USMP_ERR_UNSUPPORTED) {
		s->first_error = st;
		usmp__set_msg(&s->error_text, "no member found a plan; the "
		              "first to fail: %s (%s)", a->name,
		              usmp_status_name(st));
	}
}

/* Run one member through the one dispatch path (usmp__dispatch): algorithm
 * a with its defaults plus `knob` (one "key=value" or NULL), warm-started
 * when `warm`; keep its plan when valid and better. A table member runs in
 * auto's process (auto itself runs isolated when any plugin would). A
 * volunteer (a plugin's algorithm with USMP_CAP_PORTFOLIO) is never trusted
 * further than any plugin: it runs isolated when a plugin call would be,
 * what it fails with is a note, never auto's error, and what it claims with
 * report_bound is dropped. Returns 1 when the member ran and produced a
 * plan, 0 when skipped or failed. */
static int run_algo(run_state *s, const usmp__algo *a, const char *knob,
                    bool warm, bool volunteer)
{
	char *msg = NULL;
	int produced = 0;
	if (!a || a->builtin || usmp__check_caps(a, s->v, NULL))
		return 0;
	usmp__knobs k;
	if (usmp__knobs_init(&k, &a->sig))
		return 0;
	if (knob && usmp__knobs_set(&k, a->name, knob, &msg))
		goto out; /* the plugin lacks the knob: an older version; skip */
	if (warm && s->have_best)
		memcpy(s->trial, s->best, s->v->buffer_count * sizeof *s->trial);
	else
		reset_trial(s->v, s->trial);
	usmp__host_ctx *hc = s->hc;
	int reported = hc->reported, optimal = hc->optimal;
	uint64_t proven = hc->proven_bound;
	double t0 = usmp__now();
	usmp__call call = {
		.r = s->r, .algo = a, .knobs = &k, .view = s->v, .hc = hc,
		.out = s->trial, .member = true,
		.flags = volunteer ? s->call->flags : USMP_PLAN_NO_ISOLATE,
	};
	/* A volunteer called in this process could write into the view its
	 * plan is verified by (plan.c seals the part's view the same way). */
	usmp__view_seal seal = {.on = volunteer &&
	                              !usmp__dispatch_isolates(s->r, a, call.flags)};
	if (seal.on)
		usmp__view_seal_make(&seal, s->v);
	double dl = hc->deadline;
	bool first = hc->patient > 0;
	int st = usmp__dispatch(&call);
	s->call_s = call.call_s;
	msg = call.error;
	call.error = NULL;
	usmp__call_finish(&call);
	note_late(s, a->name, t0, dl, first, volunteer && call.overran);
	if (seal.on && usmp__view_seal_broken(&seal, (usmp_view *)(uintptr_t)s->v)) {
		if (!hc->view_writer)
			hc->view_writer = a;
		st = USMP_ERR_PLUGIN;
		usmp__set_msg(&msg, "wrote into the read-only problem view");
	}
	member_bound(s, st, volunteer, reported, optimal, proven);
	{
		char line[200];
		snprintf(line, sizeof line, "%s%s%s returned %s after %.1f ms",
		         a->name, knob ? ":" : "", knob ? knob : "",
		         usmp_status_name(st), (usmp__now() - t0) * 1e3);
		s->h->log(s->h, USMP_LOG_DEBUG, line);
	}
	if (st && volunteer) {
		char line[700];
		snprintf(line, sizeof line, "volunteer %s failed (%s%s%s); "
		         "ignored", a->name, usmp_status_name(st), msg ? ": " : "",
		         msg ? msg : "");
		s->h->log(s->h, USMP_LOG_WARN, line);
		goto out;
	}
	if (st) {
		member_failed(s, a, st);
		goto out;
	}
	usmp__free_msg(&msg);
	uint64_t size = plan_size(s->v, s->trial, s->hw);
	uint64_t spill = plan_spill(s->v, s->trial);
	bool better = !s->have_best ||
	              better_plan(spill, size, s->best_spill, s->best_size);
	/* A shipped member's plan no better than the best is dropped
	 * unverified (verifying a million buffers costs a sweep); a volunteer's
	 * is always verified, so that what it does wrong is said. */
	if (!volunteer && !better) {
		produced = 1;
		goto out;
	}
	double t_verify = usmp__now();
	int bad = usmp__verify(s->v, s->trial, &msg);
	s->verify_cost = usmp__now() - t_verify;
	if (bad) {
		/* Never trust a member: an invalid plan is dropped, and said; a
		 * volunteer's with its file and the command that tests it, as
		 * the direct path says it (plan.c). */
		char *note = volunteer ? usmp__registry_contract_note(s->r, a)
		                       : NULL;
		char *line = usmp__format_msg("%s%s returned an invalid plan "
		                              "(dropped): %s%s%s",
		                              volunteer ? "volunteer " : "", a->name,
		                              msg ? msg : "?", note ? "; " : "",
		                              note ? note : "");
		s->h->log(s->h, USMP_LOG_WARN, line ? line : "a member returned "
		          "an invalid plan (dropped)");
		free(line);
		usmp__free_msg(&note);
		goto out;
	}
	produced = 1;
	if (better) {
		s->have_best = 1;
		s->best_size = size;
		s->best_spill = spill;
		memcpy(s->best, s->trial, s->v->buffer_count * sizeof *s->best);
		s->best_digest = placements_digest(s->v, s->best);
		free(s->winner);
		size_t len = strlen(a->name) + (knob ? strlen(knob) + 1 : 0) + 1;
		s->winner = malloc(len);
		if (s->winner)
			snprintf(s->winner, len, "%s%s%s", a->name, knob ? ":" : "",
			         knob ? knob : "");
		s->h->progress(s->h, size);
	}
out:
	usmp__free_msg(&msg);
	usmp__knobs_finish(&k);
	return produced;
}

/* Run a row of the policy table. */
static int run_member(run_state *s, const struct member *m)
{
	return run_algo(s, usmp__registry_algo(s->r, m->algorithm), m->knob,
	                is_warm(m), false);
}

/* should_stop for the heuristics while no plan exists: only a cancel stops
 * them, so the first plan arrives even when it arrives late (a plan late
 * beats no plan; a million buffers take seconds even for first fit). */
static bool only_cancel(const usmp__host_ctx *c)
{
	return usmp__cancelled(c->cancel);
}

/* The most auto may stretch its default time limit by on a part of n
 * buffers, in seconds (budget.h). */
static double stretch_max(uint32_t n)
{
	return USMP__AUTO_STRETCH_BASE + USMP__AUTO_STRETCH_PER_BUFFER * n;
}

/* Under the default limit (the caller set none), a part whose first plan
 * alone took longer than the limit (a million buffers take seconds) would
 * get no search at all, however much it could gain. Such a part with a large
 * piece gives exact_window as long again as the first plan took (at most
 * stretch_max): the default means "a good plan soon", and one window pass
 * costs less than the first plan did. A limit the caller set is never
 * stretched. The caller restores the deadline afterwards. */
static void stretch_default_limit(const usmp__call *call, double t_start)
{
	usmp__host_ctx *c = call->hc;
	const usmp_view *v = call->view;
	double now = usmp__now();
	if (!call->default_budget || c->deadline <= 0 || now < c->deadline)
		return;
	double grace = now - t_start;
	double cap = stretch_max(v->buffer_count);
	usmp__host_set_deadline(c, now + (grace < cap ? grace : cap));
}

/* Seconds left before the deadline (a large number when there is none). */
static double time_left(const usmp__host_ctx *c)
{
	return c->deadline > 0 ? c->deadline - usmp__now() : 1e30;
}

/* The heuristic members in the order they run on a part of class cls: by
 * gain per cost, highest first; table order on ties. */
static size_t heuristic_order(int cls, size_t *idx)
{
	size_t k = 0;
	for (size_t i = 0; i < POLICY_COUNT; i++) {
		if (usmp__policy[i].role == ROLE_SEARCH)
			continue;
		double key = usmp__policy[i].gain[cls] / usmp__policy[i].cost;
		size_t j = k++;
		while (j > 0 && usmp__policy[idx[j - 1]].gain[cls] / usmp__policy[idx[j - 1]].cost <
		                        key) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	return k;
}

/* The summed cost of the heuristics not run yet whose cost is at most
 * CHEAP_COST (all but hill_climb). */
#define CHEAP_COST 10.0
static double cheap_cost(const char *done)
{
	double sum = 0;
	for (size_t i = 0; i < POLICY_COUNT; i++)
		if (!done[i] && usmp__policy[i].role != ROLE_SEARCH &&
		    usmp__policy[i].cost <= CHEAP_COST)
			sum += usmp__policy[i].cost;
	return sum;
}

/* A search member that already ran as a heuristic (hill_climb): no need to
 * run it again with the same knobs. */
static bool ran_as_heuristic(const struct member *m, const char *done)
{
	for (size_t i = 0; i < POLICY_COUNT; i++)
		if (done[i] && !strcmp(usmp__policy[i].algorithm, m->algorithm) &&
		    !usmp__policy[i].knob && !m->knob)
			return true;
	return false;
}

/* The gain of exact_window's first SEARCH row for a shape. */
static int window_gain(int cls)
{
	for (size_t i = 0; i < POLICY_COUNT; i++)
		if (usmp__policy[i].role == ROLE_SEARCH && is_warm(&usmp__policy[i]))
			return usmp__policy[i].gain[cls];
	return 0;
}

/* The best plan cannot be beaten: its size is at the lower bound (which
 * holds for every plan, whatever it spills) and its spill at the spill
 * floor (usmp__spill_floor: no valid plan spills less). A plan at the size
 * bound that spills more may lose to one of less spill and larger size:
 * auto goes on. */
static bool at_bound(const run_state *s)
{
	return s->have_best && s->best_size <= s->v->lower_bound &&
	       s->best_spill <= s->spill_floor;
}

/* first_fit's estimated seconds on the part, from its shape (budget.h). */
static double fit_estimate(const run_state *s)
{
	return USMP__AUTO_FIT_PER_ALIVE * s->v->buffer_count * s->sh.alive;
}

/* A member's estimated seconds: cost x first_fit's time (measured when it
 * made the first plan, else estimated); a time-index member by its own
 * per-buffer cost when first_fit did not fit (the relative cost, measured
 * at 27k-59k buffers, over-reads it there by ten times). */
static double member_estimate(const run_state *s, const struct member *m)
{
	if (s->by_estimate && m->index == INDEX_TIME)
		return USMP__AUTO_TIME_PER_BUFFER * s->v->buffer_count;
	if (s->by_estimate && m->index == INDEX_SWEEP)
		return USMP__AUTO_SWEEP_PER_BUFFER * s->v->buffer_count;
	return m->cost * s->first_cost;
}

/* Run the heuristic members not run yet (s->done[i] == 0), in s->idx
 * order, whose estimated cost fits `share` of the time left; stops at the
 * bound or the deadline. Members run mark s->done[i]. */
static void run_heuristics(run_state *s, double share)
{
	const usmp_host *h = s->h;
	double budget = share * time_left(s->hc), t0 = usmp__now();
	for (size_t k = 0; k < s->nidx; k++) {
		size_t i = s->idx[k];
		if (s->done[i])
			continue;
		if (at_bound(s) || h->should_stop(h))
			return;
		double spent = usmp__now() - t0;
		if (member_estimate(s, &usmp__policy[i]) > budget - spent)
			continue; /* does not fit: maybe a cheaper one does */
		s->done[i] = 1;
		run_member(s, &usmp__policy[i]);
	}
}

/* A volunteer's estimated seconds: its declared cost (1, as first_fit,
 * when it declares none) x the first plan's time, plus the overhead of its
 * child process when it runs in one (*isolated). */
static double volunteer_cost(const run_state *s, const usmp__algo *a,
                             bool *isolated)
{
	*isolated = usmp__dispatch_isolates(s->r, a, s->call->flags);
	return (a->cost > 0 ? a->cost : 1.0) * s->first_cost +
	       (*isolated ? s->isolate_s : 0);
}

/* The info line on what volunteer a took: its function's own time (in
 * its child when isolated), as a multiple of the first plan's, which is
 * what its declared cost stands for; a fork, the wait and the verifying
 * are said apart, as they are no part of it. */
static void volunteer_took(run_state *s, const usmp__algo *a, double took,
                           double first_cost)
{
	char line[300];
	double own = s->call_s > 0 ? s->call_s : took;
	int n = snprintf(line, sizeof line, "volunteer %s took %.1f ms, %.2f "
	                 "times the first plan (declared cost %g)", a->name,
	                 own * 1e3, first_cost > 0 ? own / first_cost : 0,
	                 a->cost);
	if (s->call_s > 0 && took > own && n > 0 && (size_t)n < sizeof line)
		snprintf(line + n, sizeof line - (size_t)n, "; %.1f ms with %s"
		         "the host's checks", took * 1e3,
		         usmp__dispatch_isolates(s->r, a, s->call->flags)
		                 ? "its child process and " : "");
	s->h->log(s->h, USMP_LOG_INFO, line);
}

/* Run every volunteer (a plugin algorithm with USMP_CAP_PORTFOLIO), in
 * registry order, with its default knobs: while no plan is at the bound
 * and time remains, each whose estimated cost (its declared cost x the time
 * the first plan took, plus its child process's overhead when isolated:
 * volunteer_cost) fits the time left; every one while no plan exists.
 * Logs what each took as a multiple of the first plan (its measured cost),
 * and at info why one did not run (a capability the part needs, a plan
 * already at the bound, the time), so that its author can tell.
 * Returns how many produced a plan. */
static int run_volunteers(run_state *s)
{
	double first_cost = s->first_cost;
	const usmp_host *h = s->h;
	int ran = 0;
	for (uint32_t i = 0; i < usmp__registry_algo_count(s->r); i++) {
		const usmp__algo *a = usmp__registry_algo_at(s->r, i);
		if (!a || a->builtin || !(a->caps & USMP_CAP_PORTFOLIO))
			continue;
		char line[300];
		char *why = NULL;
		if (usmp__check_caps(a, s->v, &why)) {
			snprintf(line, sizeof line, "volunteer %s not run: %s", a->name,
			         why ? why : "it lacks a capability the part needs");
			usmp__free_msg(&why);
			h->log(h, USMP_LOG_INFO, line);
			continue;
		}
		if (at_bound(s)) {
			snprintf(line, sizeof line, "volunteer %s not run: the plan "
			         "of %s is at the lower bound (%llu byte%s)", a->name,
			         s->winner ? s->winner : "an earlier member",
			         (unsigned long long)s->v->lower_bound,
			         usmp__s(s->v->lower_bound));
			h->log(h, USMP_LOG_INFO, line);
			continue;
		}
		if (only_cancel(s->hc) || (s->have_best && h->should_stop(h))) {
			snprintf(line, sizeof line, "volunteer %s not run: %s", a->name,
			         only_cancel(s->hc) ? "the call was cancelled"
			                            : "the time limit has passed");
			h->log(h, USMP_LOG_INFO, line);
			continue;
		}
		bool isolated;
		double est = volunteer_cost(s, a, &isolated);
		if (s->have_best && est > time_left(s->hc)) {
			char child[64] = "";
			if (isolated)
				snprintf(child, sizeof child, " (%.1f ms of it for its "
				         "child process)", s->isolate_s * 1e3);
			snprintf(line, sizeof line, "volunteer %s skipped: "
			         "estimated %.1f ms%s, %.1f ms left", a->name, est * 1e3,
			         child, time_left(s->hc) * 1e3);
			h->log(h, USMP_LOG_INFO, line);
			continue;
		}
		double t0 = usmp__now();
		s->call_s = 0;
		ran += run_algo(s, a, NULL, false, true);
		double took = usmp__now() - t0;
		volunteer_took(s, a, took, first_cost);
		if (isolated && s->call_s > 0 && took > s->call_s)
			s->isolate_s = took - s->call_s;
	}
	return ran;
}

/* When every buffer is alive with every other (or the sizes alive at the
 * peak add up to all of them), the lower bound is the sum of the sizes and
 * laying the buffers end to end reaches it: O(n), where a fit heuristic
 * costs a scan of every placed buffer per placement (100,000 buffers alive
 * at once: minutes). Only for one pool, no fixed offsets, sizes that keep
 * the alignments; returns true with the plan in out when the stack is at
 * the bound and within the pool. */
static bool stack_at_bound(const usmp_view *v, usmp_placement *out)
{
	if (v->pool_count != 1 || !v->buffer_count)
		return false;
	uint64_t top = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		if (b->flags & USMP_BUFFER_FIXED)
			return false;
		top += b->size;
		if (top < b->size || top > v->lower_bound)
			return false; /* above the bound: not worth it */
	}
	top = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		bool ok = true;
		uint64_t at = usmp_align_up(top, usmp_buffer_alignment(v, i, 0), &ok);
		if (!ok || at + v->buffers[i].size < at)
			return false;
		out[i] = (usmp_placement){0, 0, at};
		top = at + v->buffers[i].size;
	}
	return top <= v->lower_bound && top <= v->pools[0].size_limit;
}

/* When first_fit's estimated time (fit_estimate) exceeds the time left:
 * the first plan from the member with the highest gain for the shape among
 * those estimated cheaper than first_fit and within USMP__AUTO_FIRST_SLACK
 * times the cheapest of them (first_fit_sweep on WIDE and MANY parts, at
 * 1.1-1.3 times a time-index greedy's cost for a plan 1.04-1.06 times the bound
 * where the greedy's is 2.9-3.0 times; lower estimate, then table order,
 * on ties), allowed to finish; first_fit and the rest then run only as
 * their estimates fit (run_heuristics). Sets s->by_estimate when it made a
 * plan. */
static void first_by_estimate(run_state *s)
{
	double est = fit_estimate(s), left = time_left(s->hc);
	if (est <= left || only_cancel(s->hc))
		return;
	s->by_estimate = true;
	s->first_cost = est;
	size_t pick = POLICY_COUNT;
	double least = est;
	for (size_t i = 0; i < POLICY_COUNT; i++)
		if (usmp__policy[i].role != ROLE_SEARCH &&
		    member_estimate(s, &usmp__policy[i]) < least)
			least = member_estimate(s, &usmp__policy[i]);
	for (size_t i = 0; i < POLICY_COUNT; i++) {
		if (usmp__policy[i].role == ROLE_SEARCH)
			continue;
		double e = member_estimate(s, &usmp__policy[i]);
		if (e >= est || e > least * USMP__AUTO_FIRST_SLACK)
			continue;
		int g = usmp__policy[i].gain[s->sh.cls];
		double pe = pick < POLICY_COUNT ? member_estimate(s, &usmp__policy[pick]) : 0;
		if (pick == POLICY_COUNT || g > usmp__policy[pick].gain[s->sh.cls] ||
		    (g == usmp__policy[pick].gain[s->sh.cls] && e < pe))
			pick = i;
	}
	if (pick < POLICY_COUNT)
		least = member_estimate(s, &usmp__policy[pick]);
	if (pick < POLICY_COUNT) {
		char line[300];
		snprintf(line, sizeof line, "first_fit estimated %.2f s "
		         "(%u buffers, %u alive), %.2f s left: first plan by %s "
		         "(estimated %.2f s)", est, s->v->buffer_count, s->sh.alive,
		         left, usmp__policy[pick].algorithm, least);
		s->h->log(s->h, USMP_LOG_INFO, line);
		s->done[pick] = 1;
		usmp__host_patient(s->hc, true);
		s->ran += run_member(s, &usmp__policy[pick]);
		usmp__host_patient(s->hc, false);
	}
	if (!s->have_best) {
		s->by_estimate = false; /* no plan: the FIRST rows, as always */
		s->first_cost = 0;
	}
}

/* The first plan: by estimate when first_fit would not fit the time left
 * (first_by_estimate), else (or when that made none) FIRST members in table
 * order until one fits, each allowed to finish (a watcher never kills it
 * for time either). Sets s->first_cost to what the member that made it
 * took. */
static void auto_first_plan(run_state *s)
{
	first_by_estimate(s);
	for (size_t i = 0; i < POLICY_COUNT && !s->have_best; i++) {
		if (usmp__policy[i].role != ROLE_FIRST)
			continue;
		if (only_cancel(s->hc))
			break;
		double t_member = usmp__now();
		s->done[i] = 1;
		usmp__host_patient(s->hc, true);
		s->ran += run_member(s, &usmp__policy[i]);
		usmp__host_patient(s->hc, false);
		if (s->have_best)
			s->first_cost = usmp__now() - t_member;
	}
}

/* Say when the first plan came in and how late, against the deadline auto
 * works to (the one rule a time limit allows to break: the first plan is
 * always finished; bench/deadline/run.py reads this line). */
static void log_first_plan(const run_state *s, double t_start)
{
	if (!s->have_best)
		return;
	double now = usmp__now(), dl = s->hc->deadline;
	char line[300];
	if (dl > 0 && now > dl)
		snprintf(line, sizeof line, "first plan by %s after %.1f ms, "
		         "%.1f ms past its deadline", s->winner ? s->winner : "?",
		         (now - t_start) * 1e3, (now - dl) * 1e3);
	else
		snprintf(line, sizeof line, "first plan by %s after %.1f ms, "
		         "within its deadline", s->winner ? s->winner : "?",
		         (now - t_start) * 1e3);
	s->h->log(s->h, USMP_LOG_INFO, line);
}

/* The other heuristics that fit all the time left; on a part that goes to
 * exact_window, only when the cheap ones (cost at most CHEAP_COST) all fit
 * its share (USMP__AUTO_WINDOW_SHARE): a few of them would take time from
 * the window search (BERT-6 at 64 tokens, 8,790 buffers, jittered: 1.0122
 * instead of 1.0000 when five ran first under load). While no plan fits
 * yet: every heuristic, each allowed to finish until one makes a plan. */
static void auto_heuristics(run_state *s)
{
	const usmp_host *h = s->h;
	double share = s->window_first ? USMP__AUTO_WINDOW_SHARE : 1.0;
	if (s->have_best && (!s->window_first ||
	                     cheap_cost(s->done) * s->first_cost <=
	                             share * time_left(s->hc))) {
		run_heuristics(s, share);
		return;
	}
	for (size_t i = 0; i < POLICY_COUNT && !only_cancel(s->hc); i++) {
		if (usmp__policy[i].role == ROLE_SEARCH || s->done[i] ||
		    (s->have_best && h->should_stop(h)))
			continue;
		bool first = !s->have_best;
		s->done[i] = 1;
		if (first)
			usmp__host_patient(s->hc, true);
		s->ran += run_member(s, &usmp__policy[i]);
		if (first)
			usmp__host_patient(s->hc, false);
	}
}

/* The SEARCH rows, in table order, where their gain for the part's shape
 * is not 0: exact in feasibility mode only while no plan fits;
 * exact_window before exact (row 1) on a large piece, after it (row 3) on
 * parts of WINDOW_FIRST buffers or more else; stops at the bound, the
 * deadline, or the first member that accepts the part (exact_window giving
 * up early leaves the rest to exact, never hill_climb). */
static void auto_search(run_state *s)
{
	const usmp_host *h = s->h;
	bool windowed = false;
	size_t j = 0; /* index among the SEARCH rows */
	for (size_t i = 0; i < POLICY_COUNT; i++) {
		const struct member *m = &usmp__policy[i];
		if (m->role != ROLE_SEARCH)
			continue;
		size_t row = j++;
		if (!m->gain[s->sh.cls])
			continue;
		bool feasibility = m->knob && !strcmp(m->knob, "minimize=false");
		if (feasibility && s->have_best)
			continue;
		if (is_warm(m) && (!s->have_best || (row == 1) != s->window_first ||
		                   s->v->buffer_count < WINDOW_FIRST))
			continue;
		if (windowed && strcmp(m->algorithm, "exact"))
			continue;
		if (ran_as_heuristic(m, s->done))
			continue;
		int got = run_member(s, m);
		if (h->should_stop(h) || at_bound(s))
			break;
		if (got && is_warm(m))
			windowed = true;
		else if (got && !feasibility)
			break;
	}
}

/* auto's status when no member made a plan, said in its log. */
static int auto_no_plan(run_state *s)
{
	const usmp_host *h = s->h;
	if (only_cancel(s->hc)) {
		/* cancelled before any member made a plan: no member may have
		 * run at all, which says nothing about the plugins */
		h->log(h, USMP_LOG_ERROR, "cancelled before any member made a "
		       "plan");
		return USMP_ERR_STOPPED;
	}
	if (!s->ran && !s->first_error) {
		const char *missing = usmp__registry_missing_plugindir(s->r);
		char line[1024];
		snprintf(line, sizeof line, "no installed algorithm can plan "
		         "this part (%s%s)", missing ? "no plugins: " : "are the "
		         "plugins installed?", missing ? missing : "");
		h->log(h, USMP_LOG_ERROR, line);
		return USMP_ERR_UNSUPPORTED;
	}
	if (!s->proved_infeasible && h->should_stop(h)) {
		/* Heuristics that did not fit prove nothing: out of time. */
		h->log(h, USMP_LOG_ERROR, "no member found a plan that fits "
		       "before the time limit");
		return USMP_ERR_STOPPED;
	}
	if (s->error_text)
		h->log(h, USMP_LOG_ERROR, s->error_text);
	return s->first_error ? s->first_error : USMP_ERR_INFEASIBLE;
}

/* What auto decides before running any member: the part's shape, whether
 * it goes to exact_window early, the order of the heuristics. */
static void auto_prepare(run_state *s)
{
	const usmp__algo *wa = usmp__registry_algo(s->r, "exact_window");
	s->sh = usmp__measure_shape(s->v);
	/* A large part goes to exact_window as soon as its heuristics that
	 * fit their share of the time have run. */
	s->window_first = s->improve && wa && !wa->builtin &&
	                  !usmp__check_caps(wa, s->v, NULL) &&
	                  s->sh.large_piece && window_gain(s->sh.cls);
	s->nidx = heuristic_order(s->sh.cls, s->idx);
}

/* auto: the first plan, the other heuristics, the volunteers, the search,
 * then the heuristics that did not fit before; c->who gets the winner. */
static int auto_plan(usmp__call *c)
{
	const usmp__knobs *k = c->knobs;
	const usmp_view *v = c->view;
	usmp__host_ctx *hc = c->hc;
	const usmp_host *h = &hc->host;
	double t_start = usmp__now();
	run_state s = {.call = c, .r = c->r, .v = v, .hc = hc, .h = h,
	               .isolate_s = USMP__ISOLATE_OVERHEAD,
	               .best = c->out, .best_size = UINT64_MAX};
	s.improve = k && k->sig && k->sig->count ? k->values[0].b : true;
	s.hw = calloc(v->pool_count ? v->pool_count : 1, sizeof *s.hw);
	s.trial = malloc((v->buffer_count ? v->buffer_count : 1) * sizeof *s.trial);
	int st = USMP_OK;
	if (!s.hw || !s.trial) {
		st = USMP_ERR_NOMEM;
		goto out;
	}
	if (stack_at_bound(v, c->out)) {
		if (usmp__verify(v, c->out, NULL) == USMP_OK) {
			h->progress(h, plan_size(v, c->out, s.hw));
			c->who = usmp__strdup("stack");
			c->verified = true;
			goto out;
		}
		reset_trial(v, c->out);
	}
	s.spill_floor = usmp__spill_floor(v);
	auto_prepare(&s);
	auto_first_plan(&s);
	log_first_plan(&s, t_start);
	/* Whatever runs from here on ends early enough that its plan can
	 * still be verified (as the first was) by the deadline: every member
	 * works to the deadline less that verification. */
	double deadline = hc->deadline;
	if (s.have_best && deadline > 0 && s.verify_cost > 0)
		usmp__host_set_deadline(hc, deadline - s.verify_cost);
	auto_heuristics(&s);
	/* Plugins' volunteers, after the shipped heuristics, when time allows. */
	s.ran += run_volunteers(&s);
	if (s.improve && s.window_first && s.have_best && !at_bound(&s) &&
	    !only_cancel(hc)) {
		double before = hc->deadline;
		stretch_default_limit(c, t_start);
		/* The time it grants past the deadline is the first plan's. */
		if (hc->deadline > before)
			s.first_late += hc->deadline - usmp__now();
	}
	if (s.improve && !at_bound(&s) && !h->should_stop(h))
		auto_search(&s);
	/* Time left after the search: the heuristics that did not fit. */
	if (s.have_best)
		run_heuristics(&s, 1.0);
	/* Put the caller's deadline back (not the watcher's copy: the call is
	 * about to return, and an earlier deadline there could only make the
	 * watcher kill it on the way out). */
	hc->deadline = deadline;
	blame_overrun(&s, deadline);
	if (!s.have_best) {
		st = auto_no_plan(&s);
		goto out;
	}
	/* A bound proven for plans of less spill than the one kept says
	 * nothing about it: back to the bound before it (the host's lower
	 * bound holds for every plan). */
	if (s.bound_raised && plan_spill(v, s.best) > s.bound_spill) {
		hc->reported = s.prev_reported;
		hc->optimal = s.prev_optimal;
		hc->proven_bound = s.prev_proven;
	}
	c->who = s.winner;
	s.winner = NULL;
	c->verified = placements_digest(v, c->out) == s.best_digest;
out:
	free(s.winner);
	usmp__free_msg(&s.error_text);
	free(s.trial);
	free(s.hw);
	return st;
}

const usmp__builtin usmp__builtins[] = {
	{
		.name = "auto",
		.summary = "portfolio: fast heuristics, stop at the lower bound, "
		           "else search for the rest of the time limit (default 1 s)",
		.params = "improve:bool=true",
		.param_help = "improve: spend the remaining time on exact or "
		              "improving search when no heuristic reaches the bound\n",
		.caps = USMP_CAP_MULTI_POOL | USMP_CAP_OVERLAP_RULES |
		        USMP_CAP_FIXED_OFFSETS | USMP_CAP_ANYTIME |
		        USMP_CAP_EXPLICIT_CONFLICTS | USMP_CAP_EXACT,
		.portfolio = true,
		.fn = auto_plan,
	},
};
const uint32_t usmp__builtin_count = sizeof usmp__builtins / sizeof *usmp__builtins;
