/* plan.c — usmp_plan_compute and the plan handle: split a problem into
 * independent parts, run each part's selected algorithm, verify, merge. */
#include "internal.h"

#include "paths.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What verifying and merging a part's plan cost, as a multiple of the time
 * building its view took. A view of the whole problem takes the group's
 * bound (no sweep of its own) and its plan is verified once: measured at
 * 1M buffers (perf), verifying costs 4.5 view builds. */
#define POST_FACTOR 4.5

usmp_plan *usmp__plan_alloc(usmp_problem *p)
{
	usmp_plan *plan = calloc(1, sizeof *plan);
	if (!plan)
		return NULL;
	plan->buffer_count = (uint32_t)p->buffer_count;
	plan->pool_count = (uint32_t)p->pool_count;
	plan->placements = calloc(p->buffer_count ? p->buffer_count : 1,
	                          sizeof *plan->placements);
	plan->pool_size = calloc(p->pool_count ? p->pool_count : 1,
	                         sizeof *plan->pool_size);
	if (!plan->placements || !plan->pool_size) {
		usmp_plan_destroy(plan);
		return NULL;
	}
	for (size_t i = 0; i < p->buffer_count; i++)
		plan->placements[i].pool = USMP_NO_POOL;
	return plan;
}

int usmp__plan_fail(usmp_plan *plan, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	usmp__vset_msg(&plan->error, fmt, ap);
	va_end(ap);
	plan->status = status;
	return status;
}

void usmp__plan_measure(usmp_plan *plan, const usmp_problem *p)
{
	memset(plan->pool_size, 0, plan->pool_count * sizeof *plan->pool_size);
	for (uint32_t i = 0; i < plan->buffer_count && i < p->buffer_count; i++) {
		const usmp_placement *pl = &plan->placements[i];
		if (pl->pool >= plan->pool_count)
			continue;
		uint64_t top = pl->offset + p->buffers[i].size;
		if (top < pl->offset)
			top = UINT64_MAX;
		if (top > plan->pool_size[pl->pool])
			plan->pool_size[pl->pool] = top;
	}
}

void usmp_plan_destroy(usmp_plan *plan)
{
	if (!plan)
		return;
	for (uint32_t i = 0; i < plan->part_count; i++) {
		free(plan->parts[i].target);
		free(plan->parts[i].algorithm);
		free(plan->parts[i].params);
		free(plan->parts[i].pools);
		free(plan->parts[i].rule);
	}
	free(plan->parts);
	free(plan->placements);
	free(plan->pool_size);
	usmp__infeasible_free(plan->infeasible);
	usmp__free_msg(&plan->error);
	free(plan);
}

int usmp_plan_status(const usmp_plan *plan)
{
	return plan ? plan->status : USMP_ERR_INVALID;
}

const char *usmp_plan_error(const usmp_plan *plan)
{
	return plan && plan->error ? plan->error : "";
}

int usmp_plan_placement(const usmp_plan *plan, uint32_t b, uint32_t *pool,
                        uint64_t *offset)
{
	if (!plan || b >= plan->buffer_count)
		return USMP_ERR_INVALID;
	if (pool)
		*pool = plan->placements[b].pool;
	if (offset)
		*offset = plan->placements[b].offset;
	return plan->placements[b].pool == USMP_NO_POOL ? USMP_ERR_NOT_FOUND
	                                                : USMP_OK;
}

uint64_t usmp_plan_pool_size(const usmp_plan *plan, uint32_t pool)
{
	return plan && pool < plan->pool_count ? plan->pool_size[pool] : 0;
}

uint32_t usmp_plan_part_count(const usmp_plan *plan)
{
	return plan ? plan->part_count : 0;
}

int usmp_plan_part(const usmp_plan *plan, uint32_t i, usmp_part_info *info)
{
	if (!plan || !info || i >= plan->part_count ||
	    info->struct_size < sizeof(uint32_t))
		return USMP_ERR_INVALID;
	const usmp__part *pt = &plan->parts[i];
	usmp_part_info full = {
		.struct_size = info->struct_size,
		.buffer_count = pt->buffer_count,
		.optimal = (uint32_t)pt->optimal,
		.group = pt->group,
		.target = pt->target ? pt->target : "",
		.algorithm = pt->algorithm ? pt->algorithm : "",
		.params = pt->params ? pt->params : "",
		.size = pt->size,
		.lower_bound = pt->lower_bound,
		.proven_bound = pt->proven_bound,
		.time_ms = pt->time_ms,
		.rule = pt->rule ? pt->rule : "",
		.source = (uint32_t)pt->source,
	};
	size_t n = info->struct_size < sizeof full ? info->struct_size : sizeof full;
	memcpy(info, &full, n);
	return USMP_OK;
}

int usmp_plan_part_limit(const usmp_plan *plan, uint32_t i, double *limit,
                         int *stopped)
{
	if (!plan || i >= plan->part_count)
		return USMP_ERR_INVALID;
	if (limit)
		*limit = plan->parts[i].limit;
	if (stopped)
		*stopped = plan->parts[i].stopped;
	return USMP_OK;
}

int usmp__plan_fits_problem(usmp_plan *plan, usmp_problem *p)
{
	int st = usmp__problem_prepare(p);
	if (st)
		return usmp__plan_fail(plan, st, "%s", usmp_problem_error(p));
	if (plan->buffer_count != p->buffer_count ||
	    plan->pool_count != p->pool_count)
		return usmp__plan_fail(plan, USMP_ERR_INVALID_PLAN,
		                       "the plan has %u buffers and %u pools, the "
		                       "problem %zu and %zu",
		                       plan->buffer_count, plan->pool_count,
		                       p->buffer_count, p->pool_count);
	return USMP_OK;
}

int usmp_plan_verify(usmp_plan *plan, usmp_problem *p)
{
	if (!plan || !p)
		return USMP_ERR_INVALID;
	int st = usmp__plan_fits_problem(plan, p);
	if (st)
		return st;
	usmp__view_store vs;
	char *msg = NULL;
	st = usmp__view_build_to_check(p, &vs, &msg);
	if (st) {
		usmp__plan_fail(plan, st, "%s", msg ? msg : "cannot build view");
		usmp__free_msg(&msg);
		return st;
	}
	/* The whole-problem view keeps problem indices for pools and buffers. */
	st = usmp__verify(&vs.view, plan->placements, &msg);
	if (st)
		usmp__plan_fail(plan, st, "%s", msg ? msg : "invalid plan");
	else
		plan->status = USMP_OK;
	usmp__free_msg(&msg);
	usmp__view_finish(&vs);
	return st;
}

/* ---- planning one part ---------------------------------------------------- */

/* What selection sees of a part: the targets its pools name (each once, in
 * pool order; none: the caller's default, if any) and its pools' names.
 * part->target gets the targets joined by ',' and part->pools the pool
 * names joined by ", ". */
typedef struct part_names {
	const char **targets, **pools;
	uint32_t target_count, pool_count;
} part_names;

static char *join(const char *const *s, uint32_t n, const char *sep)
{
	size_t len = 1;
	for (uint32_t i = 0; i < n; i++)
		len += strlen(s[i]) + strlen(sep);
	char *out = malloc(len);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			strcat(out, sep);
		strcat(out, s[i]);
	}
	return out;
}

static int part_names_init(part_names *pn, const usmp_problem *p,
                           const usmp__view_store *vs, const char *fallback,
                           usmp__part *part)
{
	uint32_t np = vs->view.pool_count, nt = 0;
	for (uint32_t j = 0; j < np; j++)
		nt += p->pools[vs->pool_map[j]].target_count;
	memset(pn, 0, sizeof *pn);
	pn->pools = malloc((np ? np : 1) * sizeof *pn->pools);
	pn->targets = malloc((nt ? nt : 1) * sizeof *pn->targets);
	if (!pn->pools || !pn->targets)
		return USMP_ERR_NOMEM;
	for (uint32_t j = 0; j < np; j++) {
		const usmp__pool *pool = &p->pools[vs->pool_map[j]];
		pn->pools[pn->pool_count++] = pool->name;
		for (uint32_t t = 0; t < pool->target_count; t++) {
			uint32_t k = 0;
			while (k < pn->target_count &&
			       strcmp(pn->targets[k], pool->targets[t]))
				k++;
			if (k == pn->target_count)
				pn->targets[pn->target_count++] = pool->targets[t];
		}
	}
	if (!pn->target_count && fallback && *fallback)
		pn->targets[pn->target_count++] = fallback;
	part->target = join(pn->targets, pn->target_count, ",");
	part->pools = join(pn->pools, pn->pool_count, ", ");
	part->pool_count = pn->pool_count;
	return part->target && part->pools ? USMP_OK : USMP_ERR_NOMEM;
}

static void part_names_finish(part_names *pn)
{
	free(pn->targets);
	free(pn->pools);
}

/* The capabilities a part's view needs (USMP_CAP_*). */
static uint32_t caps_needed(const usmp_view *v)
{
	uint32_t need = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		if (v->buffers[i].candidate_count > 1)
			need |= USMP_CAP_MULTI_POOL;
		if (v->buffers[i].flags & USMP_BUFFER_FIXED)
			need |= USMP_CAP_FIXED_OFFSETS;
	}
	if (v->conflict_start[v->buffer_count])
		need |= USMP_CAP_EXPLICIT_CONFLICTS;
	return need;
}

/* "auto, first_fit": the registry's algorithms having every bit of `caps`
 * (heap; "none" when there is none). */
static char *algos_with(const usmp_registry *r, uint32_t caps)
{
	uint32_t n = usmp__registry_algo_count(r), k = 0;
	const char **names = malloc((n ? n : 1) * sizeof *names);
	if (!names)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		const usmp__algo *a = usmp__registry_algo_at(r, i);
		if ((a->caps & caps) == caps)
			names[k++] = a->name;
	}
	char *out = k ? join(names, k, ", ") : usmp__strdup("none");
	free(names);
	return out;
}

int usmp__check_caps(const usmp__algo *a, const usmp_view *v, char **msg)
{
	static const struct {
		uint32_t bit;
		const char *what, *cap;
	} caps[] = {
		{USMP_CAP_MULTI_POOL, "buffers with several candidate pools",
		 "multi-pool"},
		{USMP_CAP_FIXED_OFFSETS, "buffers with fixed offsets",
		 "fixed-offsets"},
		{USMP_CAP_EXPLICIT_CONFLICTS, "explicit conflict edges",
		 "conflict-edges"},
	};
	uint32_t missing = caps_needed(v) & ~a->caps;
	char what[160] = "", cap[80] = "";
	if (!missing)
		return USMP_OK;
	for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
		if (!(missing & caps[i].bit))
			continue;
		if (*what) {
			strcat(what, " and ");
			strcat(cap, ", ");
		}
		strcat(what, caps[i].what);
		strcat(cap, caps[i].cap);
	}
	if (msg)
		usmp__set_msg(msg, "algorithm \"%s\" cannot plan %s: it lacks the "
		              "%s %s", a->name, what,
		              missing & (missing - 1) ? "capabilities" : "capability",
		              cap);
	return USMP_ERR_UNSUPPORTED;
}

static uint64_t view_plan_size(const usmp_view *v, const usmp_placement *pl)
{
	uint64_t total = 0;
	uint64_t *hw = calloc(v->pool_count ? v->pool_count : 1, sizeof *hw);
	if (!hw)
		return UINT64_MAX;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		if (pl[i].pool >= v->pool_count)
			continue;
		uint64_t top = pl[i].offset + v->buffers[i].size;
		if (top > hw[pl[i].pool])
			hw[pl[i].pool] = top;
	}
	for (uint32_t j = 0; j < v->pool_count; j++)
		total = total + hw[j] < total ? UINT64_MAX : total + hw[j];
	free(hw);
	return total;
}

/* A plugin found outside the shipped plugin directory (paths.c) runs in a
 * child process unless the caller says otherwise; so does "auto" when any of
 * its possible members comes from such a plugin. */
static bool untrusted_plugin(const usmp_registry *r, uint32_t plugin)
{
	usmp_plugin_info info = {.struct_size = sizeof info};
	if (usmp_registry_plugin(r, plugin, &info))
		return true;
	return !usmp__in_plugindir(info.path);
}

static bool want_isolation(const usmp_registry *r, const usmp__algo *a,
                           uint32_t flags)
{
	if (flags & USMP_PLAN_ISOLATE)
		return true;
	if (flags & USMP_PLAN_NO_ISOLATE)
		return false;
	if (!a->builtin)
		return untrusted_plugin(r, a->plugin);
	for (uint32_t i = 0; i < usmp_registry_plugin_count(r); i++)
		if (untrusted_plugin(r, i))
			return true;
	return false;
}

/* The budget of a part whose caller set no time limit, in seconds from the
 * start of the call (USMP_DEFAULT_TIME_LIMIT_AUTO for auto, else
 * USMP_DEFAULT_TIME_LIMIT; docs/decisions.md): at least the algorithm's own
 * time_limit knob when it sets one, counted from `t_algo`, the knob's start. */
static double default_deadline(const usmp__algo *a, const usmp__knobs *k,
                               double t_call, double t_algo)
{
	double dl = t_call + (a->builtin ? USMP_DEFAULT_TIME_LIMIT_AUTO
	                                 : USMP_DEFAULT_TIME_LIMIT);
	for (uint32_t i = 0; k->sig && i < k->sig->count; i++)
		if (!strcmp(k->sig->params[i].name, "time_limit") &&
		    k->sig->params[i].type == USMP_PARAM_F64 &&
		    k->values[i].f64 > 0 && t_algo + k->values[i].f64 > dl)
			dl = t_algo + k->values[i].f64;
	return dl;
}

/* The deadline a part of n buffers works to, given the call's deadline dl
 * (0 = none) and `left` buffers still to plan including these: its share of
 * the time that remains by buffer count, less what verifying and merging
 * are expected to cost afterwards (`post` seconds for this part, in
 * proportion for the rest). Never earlier than now (a first plan is still
 * made). */
static double part_deadline(double dl, uint32_t n, uint32_t left, double post)
{
	if (dl <= 0)
		return 0;
	double now = usmp__now();
	double rest = dl - now - post * ((double)left / (n ? n : 1));
	if (rest <= 0)
		return now + 1e-6;
	return now + rest * ((double)n / (left ? left : 1));
}

/* Plan the buffers ids[0..n) (one bound group) into plan->placements, by
 * the call's deadline (0 = the default, < 0 = none) from the call's start
 * t_call; `left` buffers remain to plan, these included. */
static int plan_part(usmp_registry *r, usmp_problem *p,
                     const usmp_plan_options *o, const uint32_t *ids,
                     uint32_t n, uint32_t group, double deadline,
                     double t_call, uint32_t left, usmp_plan *plan,
                     usmp__part *part)
{
	usmp__view_store vs;
	usmp__knobs knobs = {0};
	usmp__host_ctx hc;
	part_names pn;
	usmp_placement *out = NULL;
	char *msg = NULL, *rule = NULL, *who = NULL;
	const usmp__algo *algo = NULL;
	int source = 0, host_ready = 0, knobs_ready = 0;
	double t0 = usmp__now();

	memset(&vs, 0, sizeof vs);
	memset(&pn, 0, sizeof pn);
	int st = usmp__view_build(p, ids, n, &vs, &msg);
	if (st) {
		usmp__plan_fail(plan, st, "%s", msg ? msg : "cannot build view");
		goto fail_msg;
	}
	/* Verifying the plan afterwards (POST_FACTOR). */
	double post = POST_FACTOR * (usmp__now() - t0);
	part->group = group;
	part->buffer_count = n;
	part->lower_bound = vs.view.lower_bound;
	st = part_names_init(&pn, p, &vs, o->target, part);
	if (st) {
		usmp__plan_fail(plan, st, "out of memory");
		goto fail_view;
	}
	/* The algorithm sees the first target; selection sees them all. */
	vs.view.target = pn.target_count ? pn.targets[0] : "";

	st = usmp__registry_resolve_part(r, pn.targets, pn.target_count,
	                                 pn.pools, pn.pool_count, o, &algo,
	                                 &knobs, &rule, &source, &msg);
	if (st) {
		usmp__plan_fail(plan, st, "%s", msg ? msg : "no algorithm");
		goto fail_view;
	}
	knobs_ready = 1;
	part->rule = usmp__strdup(rule);
	part->source = source;
	part->params = usmp__knobs_describe(&knobs);
	st = usmp__check_caps(algo, &vs.view, &msg);
	if (st) {
		uint32_t missing = caps_needed(&vs.view) & ~algo->caps;
		char *have = algos_with(r, caps_needed(&vs.view));
		usmp__plan_fail(plan, st, "%s; installed algorithms that have %s: %s",
		                msg, missing & (missing - 1) ? "them" : "it",
		                have ? have : "?");
		free(have);
		goto fail_knobs;
	}

	/* Fixed buffers that clash make every plan invalid: say so up front,
	 * as infeasible and naming them, rather than blame the algorithm. */
	st = usmp__infeasible_fixed(p, &vs, group, algo->name, plan);
	if (st)
		goto fail_knobs;

	/* Time budget: this part's share of what remains of the caller's, or
	 * of the default; none when the caller asked for none (deadline < 0). */
	double dl = deadline;
	if (dl == 0)
		dl = default_deadline(algo, &knobs, t_call, usmp__now());
	part->limit = dl > 0 ? dl - t_call : 0;
	dl = part_deadline(dl > 0 ? dl : 0, n, left, post);
	double t_algo = usmp__now();
	vs.view.time_limit = dl > 0 ? (dl - t_algo > 0 ? dl - t_algo : 1e-9) : 0;

	out = malloc((n ? n : 1) * sizeof *out);
	if (!out) {
		st = usmp__plan_fail(plan, USMP_ERR_NOMEM, "out of memory");
		goto fail_knobs;
	}
	for (uint32_t i = 0; i < n; i++) {
		const usmp_buffer_rec *b = &vs.view.buffers[i];
		out[i] = (usmp_placement){USMP_NO_POOL, 0, 0};
		if (b->flags & USMP_BUFFER_FIXED)
			out[i] = (usmp_placement){b->fixed_pool, 0, b->fixed_offset};
	}
	st = usmp__host_init(&hc, r, &vs.view, dl, o->cancel, algo->name);
	if (st) {
		usmp__plan_fail(plan, st, "out of memory");
		goto fail_out;
	}
	host_ready = 1;
	hc.default_limit = deadline == 0 && algo->builtin;
	hc.isolation = o->flags & (USMP_PLAN_ISOLATE | USMP_PLAN_NO_ISOLATE);

	if (want_isolation(r, algo, o->flags)) {
		/* Killed by the rule of docs/abi.md ("Isolation"): a grace
		 * of 1 s, 10% of the budget and 20 us per buffer past the
		 * deadline (a heuristic that finishes its pass over a million
		 * buffers late is slow, not hung). */
		double grace = 1.0 + 0.1 * (dl > t_algo ? dl - t_algo : 0) +
		               20e-6 * n;
		st = usmp__isolated_call(r, algo, &knobs, &vs.view, &hc, out,
		                         grace, &who, &msg);
		if (st && msg) {
			usmp__plan_fail(plan, st, "%s", msg);
			part->time_ms = (usmp__now() - t0) * 1e3;
			goto fail_host;
		}
	} else if (algo->builtin) {
		st = algo->builtin(r, &vs.view, &hc, out, &knobs, &who);
	} else {
		st = usmp__invoke(r, algo, &knobs, &vs.view, &hc, out);
	}
	part->time_ms = (usmp__now() - t0) * 1e3;
	part->stopped = hc.stopped;
	{
		size_t len = strlen(algo->name) + (who ? strlen(who) + 1 : 0) + 1;
		part->algorithm = malloc(len);
		if (part->algorithm)
			snprintf(part->algorithm, len, "%s%s%s", algo->name,
			         who ? "/" : "", who ? who : "");
	}
	if (st == USMP_ERR_INFEASIBLE || st == USMP_ERR_STOPPED) {
		/* The certificate (infeasible.c) is the library's, the same
		 * whoever failed. An exact algorithm's failure is a proof, unless
		 * it planned overlap rules as plain conflicts (a stricter
		 * problem); a stop with a certificate is infeasible all the same. */
		bool rules_as_conflicts = vs.view.overlap_count &&
		                          !(algo->caps & USMP_CAP_OVERLAP_RULES);
		unsigned flags = 0;
		if ((algo->caps & USMP_CAP_EXACT) && !algo->builtin)
			flags = rules_as_conflicts ? USMP__WHY_RULES_AS_CONFLICTS
			                           : USMP__WHY_PROVEN;
		/* exact's capacity knob asks for less than the pool: its proof
		 * is about that capacity, not the pool. */
		for (uint32_t k = 0; knobs.sig && k < knobs.sig->count; k++)
			if (!strcmp(knobs.sig->params[k].name, "capacity") &&
			    knobs.sig->params[k].type == USMP_PARAM_U64 &&
			    knobs.values[k].u64 != 0 && flags == USMP__WHY_PROVEN)
				flags = USMP__WHY_KNOB_LIMIT;
		int got = usmp__infeasible_explain(
			p, &vs, group, algo->name, st, flags,
			algo->builtin ? NULL : hc.last_message, plan);
		if (got) {
			st = got;
			goto fail_host;
		}
	}
	if (st) {
		const char *why = hc.last_message[0] ? hc.last_message
		                                     : usmp_status_name(st);
		if (st == USMP_ERR_INFEASIBLE)
			usmp__plan_fail(plan, st, "%s: no plan fits the pools: %s",
			                algo->name, why);
		else if (st == USMP_ERR_STOPPED)
			usmp__plan_fail(plan, st, "%s: stopped at the time limit "
			                "before finding a plan", algo->name);
		else if (st == USMP_ERR_PLUGIN || st == USMP_ERR_INVALID_PLAN)
			usmp__plan_fail(plan, USMP_ERR_PLUGIN, "%s: %s", algo->name,
			                why);
		else
			usmp__plan_fail(plan, st, "%s failed (%s): %s", algo->name,
			                usmp_status_name(st), why);
		goto fail_host;
	}
	st = usmp__verify(&vs.view, out, &msg);
	if (st) {
		st = usmp__plan_fail(plan, USMP_ERR_PLUGIN,
		                     "algorithm \"%s\" returned an invalid plan: %s",
		                     algo->name, msg ? msg : "?");
		goto fail_host;
	}
	part->size = view_plan_size(&vs.view, out);
	part->proven_bound = vs.view.lower_bound;
	if (hc.reported && hc.proven_bound > part->proven_bound &&
	    hc.proven_bound <= part->size)
		part->proven_bound = hc.proven_bound;
	part->optimal = part->size <= part->proven_bound;
	part->whole = n == p->buffer_count && vs.view.pool_count == p->pool_count;
	for (uint32_t j = 0; j < vs.view.pool_count && part->whole; j++)
		part->whole = vs.pool_map[j] == j;
	for (uint32_t i = 0; i < n; i++) {
		part->whole = part->whole && vs.buffer_map[i] == i;
		plan->placements[vs.buffer_map[i]].pool = vs.pool_map[out[i].pool];
		plan->placements[vs.buffer_map[i]].offset = out[i].offset;
	}
	st = USMP_OK;
fail_host:
	if (host_ready)
		usmp__host_finish(&hc);
fail_out:
	free(out);
fail_knobs:
	if (knobs_ready)
		usmp__knobs_finish(&knobs);
fail_view:
	usmp__view_finish(&vs);
	part_names_finish(&pn);
fail_msg:
	usmp__free_msg(&msg);
	free(rule);
	free(who);
	return st;
}

/* Append to a part's error what the part is: its number, target(s), pools
 * and the rule that chose its algorithm. */
static void describe_failed_part(usmp_plan *plan, const usmp__part *part,
                                 uint32_t number)
{
	static const char *sources[] = {"?", "bound through the API",
	                                "of the plan options (-a)",
	                                "of USMP_ALGORITHM", "the default"};
	char *why = plan->error;
	if (!part->pools)
		return; /* failed before the part was known */
	plan->error = NULL;
	usmp__set_msg(&plan->error, "%s (part %u: target %s; pool%s %s%s%s%s%s)",
	              why ? why : "", number,
	              part->target && *part->target ? part->target : "none",
	              part->pool_count == 1 ? "" : "s", part->pools,
	              part->rule ? "; algorithm chosen by rule \"" : "",
	              part->rule ? part->rule : "", part->rule ? "\" " : "",
	              part->rule ? sources[part->source >= 1 && part->source <= 4
	                                           ? part->source
	                                           : 0]
	                         : "");
	usmp__free_msg(&why);
}

/* Buffer ids grouped by bound group: order[start[g] .. start[g+1]). */
static int group_buffers(const usmp_problem *p, uint32_t **order,
                         uint32_t **start)
{
	uint32_t g = p->group_count, n = (uint32_t)p->buffer_count;
	*order = malloc((n ? n : 1) * sizeof **order);
	*start = calloc((size_t)g + 2, sizeof **start);
	if (!*order || !*start)
		return USMP_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		(*start)[p->buffer_group[i] + 1]++;
	for (uint32_t k = 0; k < g; k++)
		(*start)[k + 1] += (*start)[k];
	uint32_t *fill = calloc((size_t)g + 1, sizeof *fill);
	if (!fill)
		return USMP_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = p->buffer_group[i];
		(*order)[(*start)[k] + fill[k]++] = i;
	}
	free(fill);
	return USMP_OK;
}

int usmp_plan_compute(usmp_registry *r, usmp_problem *p,
                      const usmp_plan_options *opts, usmp_plan **out)
{
	usmp_plan_options o = {.struct_size = sizeof o};
	uint32_t *order = NULL, *start = NULL;
	double t0 = usmp__now();
	if (!out)
		return USMP_ERR_INVALID;
	*out = NULL;
	if (!r || !p)
		return USMP_ERR_INVALID;
	/* Copy the caller's options by the size it says they have. */
	if (opts) {
		size_t n = opts->struct_size < sizeof o ? opts->struct_size : sizeof o;
		memcpy(&o, opts, n);
	}
	int st = usmp__problem_prepare(p);
	usmp_plan *plan = usmp__plan_alloc(p);
	if (!plan)
		return USMP_ERR_NOMEM;
	*out = plan;
	if (st)
		return usmp__plan_fail(plan, st, "%s", usmp_problem_error(p));
	if (o.time_limit < 0 || o.time_limit != o.time_limit)
		return usmp__plan_fail(plan, USMP_ERR_INVALID,
		                       "time limit must be >= 0 seconds (INFINITY: "
		                       "none)");
	/* 0: the default; INFINITY: none (-1 below); else the caller's. */
	double deadline = o.time_limit == 0 ? 0
	                  : isinf(o.time_limit) ? -1
	                                        : t0 + o.time_limit;

	st = group_buffers(p, &order, &start);
	if (st) {
		usmp__plan_fail(plan, st, "out of memory");
		goto done;
	}
	plan->parts = calloc(p->group_count ? p->group_count : 1,
	                     sizeof *plan->parts);
	if (!plan->parts) {
		st = usmp__plan_fail(plan, USMP_ERR_NOMEM, "out of memory");
		goto done;
	}
	for (uint32_t g = 0; g < p->group_count; g++) {
		uint32_t n = start[g + 1] - start[g];
		if (!n)
			continue;
		usmp__part *part = &plan->parts[plan->part_count++];
		st = plan_part(r, p, &o, order + start[g], n, g, deadline, t0,
		               (uint32_t)p->buffer_count - start[g], plan, part);
		if (st) {
			describe_failed_part(plan, part, plan->part_count);
			goto done;
		}
	}
	usmp__plan_measure(plan, p);
	/* Parts were verified one by one; verify the merged plan as well, so a
	 * mapping bug can never hand out an invalid plan. One part that is the
	 * whole problem with the problem's own indices was verified as the
	 * merged plan is, placement for placement: no second sweep. */
	if (!(plan->part_count == 1 && plan->parts[0].whole))
		st = usmp_plan_verify(plan, p);
	if (st) {
		char *why = usmp__strdup(plan->error);
		usmp__plan_fail(plan, USMP_ERR_INTERNAL,
		                "merged plan failed verification: %s",
		                why ? why : "?");
		free(why);
	}
done:
	plan->time_ms = (usmp__now() - t0) * 1e3;
	free(order);
	free(start);
	if (st && plan->status == USMP_OK)
		plan->status = st;
	return plan->status;
}
