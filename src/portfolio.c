/* portfolio.c — "auto", the default algorithm, built into libusmp: run the
 * fast heuristics, stop at the lower bound, else spend the rest on search. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Fast members, tried in this order; the first to reach the lower bound
 * wins outright, and the deadline is checked between members (the first
 * always runs to the end: a plan late beats no plan). Cheapest and usually
 * best first (first_fit by size was never worse than best_fit by size on
 * any workload family in docs/performance.md), so a tight budget on a huge problem still gets a good plan.
 * Missing plugins are skipped. */
static const struct member {
	const char *algorithm;
	const char *knob; /* one "key=value" or NULL */
} fast_members[] = {
	{"first_fit", "order=size"},
	{"best_fit", "order=size"},
	{"best_fit", "order=lifetime"},
	{"best_fit", "order=area"},
	{"best_fit", "order=conflicts"},
	{"first_fit", "order=lifetime"},
	{"first_fit", "order=area"},
	{"first_fit", "order=conflicts"},
	{"greedy_by_size", NULL},
	{"greedy_by_conflicts", NULL},
};

/* Improving members: given what time remains when no fast member reached
 * the bound. The first that accepts the part is used. exact_window starts
 * from the best plan so far (warm=true: auto puts it in the output array).
 * It goes before exact on parts with a piece of WINDOW_FIRST buffers or
 * more (a piece: buffers between two times no live range crosses), which
 * the whole-problem exact search rarely improves within a time limit (or
 * refuses: > 10,000 buffers); when it stops early above the bound, exact may
 * use the time left. Parts of many small pieces go to exact first (it
 * solves pieces apart), and to exact_window only when exact refuses. */
static const struct member improving_members[] = {
	{"exact", "minimize=false"}, /* only while no plan fits yet */
	{"exact_window", "warm=true"}, /* large pieces: before exact */
	{"exact", NULL},
	{"exact_window", "warm=true"}, /* small pieces: if exact refused */
	{"hill_climb", NULL},
};
#define WINDOW_FIRST 1000u
/* Above this many buffers the pieces are not measured (exact refuses). */
#define PIECES_MAX 100000u

typedef struct span64 {
	int64_t b, e;
} span64;

static int cmp_span(const void *pa, const void *pb)
{
	const span64 *a = pa, *b = pb;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* True when some piece of the part holds WINDOW_FIRST buffers or more
 * (buffers without a live range meet nothing and count for no piece); also
 * true above PIECES_MAX buffers, and when out of memory. */
static bool large_piece(const usmp_view *v)
{
	if (v->buffer_count < WINDOW_FIRST)
		return false;
	if (v->buffer_count > PIECES_MAX)
		return true;
	span64 *sp = malloc(v->buffer_count * sizeof *sp);
	if (!sp)
		return true;
	uint32_t n = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++)
		if (v->buffers[i].flags & USMP_BUFFER_LIVE)
			sp[n++] = (span64){v->buffers[i].begin, v->buffers[i].end};
	qsort(sp, n, sizeof *sp, cmp_span);
	uint32_t piece = 0, largest = 0;
	int64_t end = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (piece && sp[i].b >= end)
			piece = 0;
		if (!piece || sp[i].e > end)
			end = sp[i].e;
		if (++piece > largest)
			largest = piece;
	}
	free(sp);
	return largest >= WINDOW_FIRST;
}

static bool is_warm(const struct member *m)
{
	return m->knob && !strcmp(m->knob, "warm=true");
}

typedef struct run_state {
	usmp_registry *r;
	const usmp_view *v;
	const usmp_host *h;
	usmp_placement *best; /* the caller's output array */
	usmp_placement *trial;
	uint64_t best_size; /* valid when have_best */
	int have_best;
	char *winner;
	int first_error;
	char *error_text;
	int proved_infeasible; /* an exact member said no plan fits */
} run_state;

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

/* Run one member; keep its plan when valid and better. Returns 1 when the
 * member ran and produced a plan, 0 when skipped or failed. */
static int run_member(run_state *s, const struct member *m, uint64_t *hw,
                      const usmp_host *host)
{
	const usmp__algo *a = usmp__registry_algo(s->r, m->algorithm);
	char *msg = NULL;
	int produced = 0;
	if (!a || a->builtin || usmp__check_caps(a, s->v, NULL))
		return 0;
	usmp__knobs k;
	if (usmp__knobs_init(&k, &a->sig))
		return 0;
	if (m->knob && usmp__knobs_set(&k, a->name, m->knob, &msg))
		goto out; /* the plugin lacks the knob: an older version; skip */
	if (is_warm(m) && s->have_best)
		memcpy(s->trial, s->best, s->v->buffer_count * sizeof *s->trial);
	else
		reset_trial(s->v, s->trial);
	int st = usmp__invoke(s->r, a, &k, s->v, host, s->trial);
	if (st) {
		if (st == USMP_ERR_INFEASIBLE && (a->caps & USMP_CAP_EXACT))
			s->proved_infeasible = 1;
		if (!s->first_error && st != USMP_ERR_UNSUPPORTED) {
			s->first_error = st;
			usmp__set_msg(&s->error_text, "%s: %s", a->name,
			              usmp_status_name(st));
		}
		goto out;
	}
	if (usmp__verify(s->v, s->trial, &msg)) {
		/* Never trust a member: an invalid plan is dropped, and said. */
		char line[600];
		snprintf(line, sizeof line, "auto: %s returned an invalid plan "
		         "(dropped): %s", a->name, msg ? msg : "?");
		s->h->log(s->h, USMP_LOG_WARN, line);
		goto out;
	}
	produced = 1;
	uint64_t size = plan_size(s->v, s->trial, hw);
	if (!s->have_best || size < s->best_size) {
		s->have_best = 1;
		s->best_size = size;
		memcpy(s->best, s->trial, s->v->buffer_count * sizeof *s->best);
		free(s->winner);
		size_t len = strlen(a->name) + (m->knob ? strlen(m->knob) + 1 : 0) + 1;
		s->winner = malloc(len);
		if (s->winner)
			snprintf(s->winner, len, "%s%s%s", a->name, m->knob ? ":" : "",
			         m->knob ? m->knob : "");
		s->h->progress(s->h, size);
	}
out:
	usmp__free_msg(&msg);
	usmp__knobs_finish(&k);
	return produced;
}

/* should_stop for the heuristics while no plan exists: only a cancel stops
 * them, so the first plan arrives even when it arrives late (a plan late
 * beats no plan; a million buffers take seconds even for first fit). */
static bool only_cancel(const usmp_host *h)
{
	const usmp__host_ctx *c = h->host_data;
	return c->cancel && *c->cancel;
}

double usmp__auto_stretch_max(uint32_t n)
{
	return 1.0 + 8e-6 * n;
}

/* Under the default limit (the caller set none), a part whose first plan
 * alone took longer than the limit (a million buffers take seconds) would
 * get no search at all, however much it could gain. Such a part with a large
 * piece gives exact_window as long again as the first plan took (at most
 * usmp__auto_stretch_max): the default means "a good plan soon", and one
 * window pass costs less than the first plan did. A limit the caller set is
 * never stretched. The caller restores the deadline afterwards. */
static void stretch_default_limit(const usmp_host *h, const usmp_view *v,
                                    double t_start)
{
	usmp__host_ctx *c = h->host_data;
	double now = usmp__now();
	if (!c->default_limit || c->deadline <= 0 || now < c->deadline)
		return;
	double grace = now - t_start;
	double cap = usmp__auto_stretch_max(v->buffer_count);
	c->deadline = now + (grace < cap ? grace : cap);
}

/* On a part that goes to exact_window, the other fast members run first
 * only when `left` more of them, at the cost of the first, take at most a
 * quarter of the time that remains: on a few thousand buffers they cost
 * milliseconds and sometimes find a smaller start (the training step with
 * uneven sizes: first fit by size 1.0008, another order 1.0004), on a
 * million they would eat the budget. */
static bool orders_are_cheap(const usmp_host *h, double first_cost,
                             size_t left)
{
	const usmp__host_ctx *c = h->host_data;
	if (c->deadline <= 0)
		return true;
	double remaining = c->deadline - usmp__now();
	return first_cost * (double)left <= 0.25 * remaining;
}

static int auto_plan(usmp_registry *r, const usmp_view *v, const usmp_host *h,
                     usmp_placement *out, const usmp__knobs *k, char **who)
{
	bool improve = k && k->sig && k->sig->count ? k->values[0].b : true;
	double t_start = usmp__now();
	run_state s = {.r = r, .v = v, .h = h, .best = out,
	               .best_size = UINT64_MAX};
	uint64_t *hw = calloc(v->pool_count ? v->pool_count : 1, sizeof *hw);
	s.trial = malloc((v->buffer_count ? v->buffer_count : 1) * sizeof *s.trial);
	int st = USMP_OK;
	if (!hw || !s.trial) {
		st = USMP_ERR_NOMEM;
		goto out;
	}
	usmp_host patient = *h;
	patient.should_stop = only_cancel;
	/* A large part goes to exact_window as soon as it has a plan: the
	 * other orders cost as much as the first and gain less. */
	const usmp__algo *wa = usmp__registry_algo(r, "exact_window");
	bool window_first = improve && wa && !wa->builtin &&
	                    !usmp__check_caps(wa, v, NULL) && large_piece(v);
	int ran = 0;
	double first_cost = 0;
	size_t nfast = sizeof fast_members / sizeof *fast_members;
	for (size_t i = 0; i < nfast; i++) {
		if (ran && h->should_stop(h))
			break;
		if (s.have_best && window_first &&
		    !orders_are_cheap(h, first_cost, nfast - i))
			break;
		if (!s.have_best && only_cancel(h))
			break;
		double t_member = usmp__now();
		ran += run_member(&s, &fast_members[i], hw,
		                  s.have_best ? h : &patient);
		if (!first_cost && s.have_best) /* the member that made it */
			first_cost = usmp__now() - t_member;
		if (s.have_best && s.best_size <= v->lower_bound)
			break;
	}
	usmp__host_ctx *hc = h->host_data;
	double deadline = hc->deadline;
	if (improve && window_first && s.have_best &&
	    s.best_size > v->lower_bound && !only_cancel(h))
		stretch_default_limit(h, v, t_start);
	if (improve && !(s.have_best && s.best_size <= v->lower_bound) &&
	    !h->should_stop(h)) {
		bool windowed = false;
		for (size_t i = 0;
		     i < sizeof improving_members / sizeof *improving_members; i++) {
			const struct member *m = &improving_members[i];
			bool feasibility = m->knob && !strcmp(m->knob, "minimize=false");
			if (feasibility && s.have_best)
				continue;
			/* exact_window: before exact (i == 1) on a large piece,
			 * after it on parts of 1,000 buffers or more else. */
			if (is_warm(m) && (!s.have_best ||
			                   (i == 1) != window_first ||
			                   v->buffer_count < WINDOW_FIRST))
				continue;
			if (windowed && strcmp(m->algorithm, "exact"))
				continue;
			int got = run_member(&s, m, hw, h);
			if (h->should_stop(h) || s.best_size <= v->lower_bound)
				break;
			/* exact_window gave up early: the rest goes to exact,
			 * when it takes the part (never hill_climb). */
			if (got && is_warm(m))
				windowed = true;
			else if (got && !feasibility)
				break;
		}
	}
	hc->deadline = deadline;
	if (!s.have_best) {
		if (!ran && !s.first_error) {
			h->log(h, USMP_LOG_ERROR, "auto: no installed algorithm can "
			       "plan this part (are the plugins installed?)");
			st = USMP_ERR_UNSUPPORTED;
		} else if (!s.proved_infeasible && h->should_stop(h)) {
			/* Heuristics that did not fit prove nothing: out of time. */
			h->log(h, USMP_LOG_ERROR, "auto: no member found a plan that "
			       "fits before the time limit");
			st = USMP_ERR_STOPPED;
		} else {
			if (s.error_text)
				h->log(h, USMP_LOG_ERROR, s.error_text);
			st = s.first_error ? s.first_error : USMP_ERR_INFEASIBLE;
		}
		goto out;
	}
	*who = s.winner;
	s.winner = NULL;
out:
	free(s.winner);
	usmp__free_msg(&s.error_text);
	free(s.trial);
	free(hw);
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
		.fn = auto_plan,
	},
};
const uint32_t usmp__builtin_count = sizeof usmp__builtins / sizeof *usmp__builtins;
