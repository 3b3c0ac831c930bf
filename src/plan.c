/* plan.c — usmp_plan_compute and the plan handle: split a problem into
 * independent parts, run each part's selected algorithm, verify, merge. */
#include "host.h"
#include "plan.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"

usmp_plan *usmp__plan_alloc(usmp_problem *p)
{
	usmp_plan *plan = calloc(1, sizeof *plan);
	if (!plan)
		return NULL;
	plan->buffer_count = (uint32_t)p->buffer_count;
	plan->pool_count = (uint32_t)p->pool_count;
	plan->made_for = p;
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

/* Forget what an earlier failed write kept aside: a new failure or
 * judgement of the plan replaces it (a write keeps nothing aside while
 * it runs). */
static void forget_write(usmp_plan *plan)
{
	usmp__free_msg(&plan->own_error);
	plan->write_failed = 0;
}

int usmp__plan_fail(usmp_plan *plan, int status, const char *fmt, ...)
{
	va_list ap;
	forget_write(plan);
	va_start(ap, fmt);
	usmp__vset_msg(&plan->error, fmt, ap);
	va_end(ap);
	plan->status = status;
	return status;
}

void usmp__plan_ok(usmp_plan *plan)
{
	forget_write(plan);
	usmp__free_msg(&plan->error);
	plan->status = USMP_OK;
}

char *usmp__plan_write_begin(usmp_plan *plan)
{
	if (plan->write_failed) {
		usmp__free_msg(&plan->error);
		plan->error = plan->own_error;
		plan->own_error = NULL;
		plan->status = plan->own_status;
		plan->write_failed = 0;
	}
	char *own = plan->error;
	plan->error = NULL;
	return own;
}

int usmp__plan_write_end(usmp_plan *plan, int rc, int own_status,
                         char *own_error)
{
	if (rc != USMP_OK) {
		plan->write_failed = 1;
		plan->own_status = own_status;
		plan->own_error = own_error;
		return rc;
	}
	usmp__free_msg(&plan->error);
	plan->error = own_error;
	plan->status = own_status;
	return rc;
}

/* Add a buffer of `size` bytes to a part's spill (saturating); `forced`
 * when no plan keeps it in its first pool. */
static void spill_add(usmp__part *part, uint64_t size, uint32_t b, bool forced,
                      uint64_t *largest)
{
	part->spill = size > UINT64_MAX - part->spill ? UINT64_MAX
	                                              : part->spill + size;
	if (forced)
		part->spill_forced = size > UINT64_MAX - part->spill_forced
		                             ? UINT64_MAX
		                             : part->spill_forced + size;
	part->spill_count++;
	if (size > *largest) {
		*largest = size;
		part->spill_largest = b;
	}
}

/* The spill floor (spill_floor.c) of the part that has its group's spill
 * (part_of), on the view of the group's buffers; the forced spill where
 * that view cannot be built, and for the group's other parts. */
static void group_floors(usmp_plan *plan, usmp_problem *p, size_t ng,
                         const uint32_t *part_of)
{
	uint32_t *start = calloc(ng + 1, sizeof *start);
	uint32_t *ids = malloc((p->buffer_count ? p->buffer_count : 1) *
	                       sizeof *ids);
	for (uint32_t k = 0; k < plan->part_count; k++)
		plan->parts[k].spill_floor = plan->parts[k].spill_forced;
	if (!start || !ids)
		goto fail;
	/* The buffers by group, ascending within each (a counting sort). */
	for (size_t i = 0; i < p->buffer_count; i++)
		if (p->buffer_group[i] < ng)
			start[p->buffer_group[i] + 1]++;
	for (size_t g = 0; g < ng; g++)
		start[g + 1] += start[g];
	for (size_t i = 0; i < p->buffer_count; i++)
		if (p->buffer_group[i] < ng)
			ids[start[p->buffer_group[i]]++] = (uint32_t)i;
	for (size_t g = ng; g > 0; g--)
		start[g] = start[g - 1];
	start[0] = 0;
	for (uint32_t k = 0; k < plan->part_count; k++) {
		usmp__part *part = &plan->parts[k];
		uint32_t g = part->group;
		usmp__view_store vs;
		char *msg = NULL;
		if (g >= ng || part_of[g] != k || start[g + 1] == start[g])
			continue;
		if (usmp__view_build(p, ids + start[g], start[g + 1] - start[g],
		                     &vs, &msg) == USMP_OK) {
			uint64_t f = usmp__spill_floor(&vs.view);
			if (f > part->spill_floor)
				part->spill_floor = f;
			usmp__view_finish(&vs);
		}
		usmp__free_msg(&msg);
	}
fail:
	free(start);
	free(ids);
}

void usmp__plan_spill(usmp_plan *plan, usmp_problem *p)
{
	size_t ng = p->group_count;
	uint32_t *part_of = NULL, *first_pool = NULL;
	uint64_t *largest = NULL;
	if (!p->prepared || !p->buffer_group || !p->pool_group || !ng ||
	    !plan->part_count)
		return;
	/* By group: its part (the first naming it) and its first pool, so that
	 * a plan of many parts costs one pass over the buffers. */
	part_of = malloc(ng * sizeof *part_of);
	first_pool = malloc(ng * sizeof *first_pool);
	largest = calloc(plan->part_count, sizeof *largest);
	if (!part_of || !first_pool || !largest)
		goto fail;
	for (size_t g = 0; g < ng; g++)
		part_of[g] = first_pool[g] = UINT32_MAX;
	for (uint32_t k = plan->part_count; k-- > 0;) {
		usmp__part *part = &plan->parts[k];
		part->spill = part->spill_forced = 0;
		part->spill_count = 0;
		part->spill_largest = UINT32_MAX;
		if (part->group < ng)
			part_of[part->group] = k;
	}
	for (size_t q = p->pool_count; q-- > 0;)
		if (p->pool_group[q] < ng)
			first_pool[p->pool_group[q]] = (uint32_t)q;
	for (size_t i = 0; i < p->buffer_count && i < plan->buffer_count; i++) {
		const usmp__buffer *b = &p->buffers[i];
		uint32_t pool = plan->placements[i].pool, g = p->buffer_group[i];
		if (g >= ng || part_of[g] == UINT32_MAX || pool >= p->pool_count)
			continue;
		bool fixed = b->flags & USMP_BUFFER_FIXED;
		uint32_t first = b->candidate_count ? b->candidates[0]
		                 : fixed            ? b->fixed_pool
		                                    : first_pool[g];
		if (first >= p->pool_count || pool == first)
			continue;
		spill_add(&plan->parts[part_of[g]], b->size, (uint32_t)i,
		          usmp__spill_is_forced(b->size, fixed, b->fixed_pool, first,
		                                p->pools[first].size_limit),
		          &largest[part_of[g]]);
	}
	group_floors(plan, p, ng, part_of);
fail:
	free(part_of);
	free(first_pool);
	free(largest);
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

int usmp__plan_distinct_algorithms(const usmp_plan *plan, uint32_t **first,
                                   uint32_t *count)
{
	usmp__strmap seen;
	uint32_t n = 0;
	*count = 0;
	*first = malloc((plan->part_count ? plan->part_count : 1) *
	                sizeof **first);
	if (!*first)
		return USMP_ERR_NOMEM;
	usmp__strmap_init(&seen);
	for (uint32_t i = 0; i < plan->part_count; i++) {
		const char *a = plan->parts[i].algorithm ? plan->parts[i].algorithm
		                                         : "";
		int st = usmp__strmap_put(&seen, a, i);
		if (st == USMP_ERR_INVALID)
			continue; /* named by an earlier part */
		if (st) {
			usmp__strmap_finish(&seen);
			free(*first);
			*first = NULL;
			return USMP_ERR_NOMEM;
		}
		(*first)[n++] = i;
	}
	usmp__strmap_finish(&seen);
	*count = n;
	return USMP_OK;
}

void usmp_plan_destroy(usmp_plan *plan)
{
	if (!plan)
		return;
	for (uint32_t i = 0; i < plan->part_count; i++) {
		free(plan->parts[i].target);
		free(plan->parts[i].algorithm);
		free(plan->parts[i].params);
		free(plan->parts[i].param_list);
		free(plan->parts[i].pools);
		free(plan->parts[i].rule);
		free(plan->parts[i].overrun_by);
	}
	free(plan->parts);
	free(plan->placements);
	free(plan->pool_size);
	usmp__infeasible_free(plan->infeasible);
	usmp__free_msg(&plan->error);
	usmp__free_msg(&plan->own_error);
	usmp__free_msg(&plan->claim_error);
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
		.spill = pt->spill,
		.spill_count = pt->spill_count,
		.spill_largest = pt->spill_count ? pt->spill_largest : UINT32_MAX,
		.spill_forced = pt->spill_forced,
		.spill_floor = pt->spill_floor,
		.rules_as_conflicts = pt->rules_as_conflicts,
		.overrun_by = pt->overrun_by ? pt->overrun_by : "",
		.overrun_cause = (uint32_t)pt->overrun_cause,
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
		return usmp__plan_wrong_problem(plan, p, USMP_ERR_INVALID_PLAN);
	return USMP_OK;
}

int usmp__plan_wrong_problem(usmp_plan *plan, const usmp_problem *p,
                             int status)
{
	/* A problem only grows, so the one it was made for has at least the
	 * plan's buffers and pools (another problem at its address since
	 * then reads as grown: "plan it again" holds for it too). */
	if (plan->made_for == p && p->buffer_count >= plan->buffer_count &&
	    p->pool_count >= plan->pool_count)
		return usmp__plan_fail(
			plan, status,
			"the problem changed after this plan was made: it has %zu "
			"buffer%s and %zu pool%s, the plan %u and %u: plan it again "
			"(a plan holds the buffers and pools of its problem when it "
			"was made)",
			p->buffer_count, usmp__s(p->buffer_count), p->pool_count,
			usmp__s(p->pool_count), plan->buffer_count, plan->pool_count);
	return usmp__plan_fail(plan, status,
	                       "the plan (%u buffer%s, %u pool%s) is not for "
	                       "this problem (%zu buffer%s, %zu pool%s)",
	                       plan->buffer_count, usmp__s(plan->buffer_count),
	                       plan->pool_count, usmp__s(plan->pool_count),
	                       p->buffer_count, usmp__s(p->buffer_count),
	                       p->pool_count, usmp__s(p->pool_count));
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
		usmp__plan_fail(plan, st, "%s", msg ? msg
		                : st == USMP_ERR_NOMEM ? "verify: out of memory"
		                                       : "cannot build view");
		usmp__free_msg(&msg);
		return st;
	}
	/* The whole-problem view keeps problem indices for pools and buffers. */
	st = usmp__verify(&vs.view, plan->placements, &msg);
	if (st)
		usmp__plan_fail(plan, st, "%s", msg ? msg
		                : st == USMP_ERR_NOMEM ? "verify: out of memory"
		                                       : "invalid plan");
	else if (plan->claim_error) /* valid placements, a false claim */
		st = usmp__plan_fail(plan, USMP_ERR_INVALID_PLAN, "%s",
		                     plan->claim_error);
	else
		usmp__plan_ok(plan);
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
	/* Appended at a cursor: strcat from the start is quadratic in n
	 * (a part may have a million pools). */
	char *at = out;
	size_t seplen = strlen(sep);
	for (uint32_t i = 0; i < n; i++) {
		if (i) {
			memcpy(at, sep, seplen);
			at += seplen;
		}
		size_t k = strlen(s[i]);
		memcpy(at, s[i], k);
		at += k;
	}
	*at = '\0';
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
	/* Each target once, looked up in a hash map: a part may have a million
	 * pools each naming its own target. */
	usmp__strmap seen;
	usmp__strmap_init(&seen);
	for (uint32_t j = 0; j < np; j++) {
		const usmp__pool *pool = &p->pools[vs->pool_map[j]];
		pn->pools[pn->pool_count++] = pool->name;
		for (uint32_t t = 0; t < pool->target_count; t++) {
			uint32_t k;
			if (usmp__strmap_get(&seen, pool->targets[t], &k) == USMP_OK)
				continue;
			if (usmp__strmap_put(&seen, pool->targets[t],
			                     pn->target_count) != USMP_OK) {
				usmp__strmap_finish(&seen);
				return USMP_ERR_NOMEM;
			}
			pn->targets[pn->target_count++] = pool->targets[t];
		}
	}
	usmp__strmap_finish(&seen);
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

/* The sum of the pools' high-water marks of a view's plan; *saturated when
 * it passes 2^64 - 1 (then UINT64_MAX). */
static uint64_t view_plan_size(const usmp_view *v, const usmp_placement *pl,
                               bool *saturated)
{
	uint64_t total = 0;
	uint64_t *hw = calloc(v->pool_count ? v->pool_count : 1, sizeof *hw);
	*saturated = !hw;
	if (!hw)
		return UINT64_MAX;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		if (pl[i].pool >= v->pool_count)
			continue;
		uint64_t top = pl[i].offset + v->buffers[i].size;
		if (top > hw[pl[i].pool])
			hw[pl[i].pool] = top;
	}
	for (uint32_t j = 0; j < v->pool_count; j++) {
		*saturated = *saturated || total + hw[j] < total;
		total = *saturated ? UINT64_MAX : total + hw[j];
	}
	free(hw);
	return total;
}

/* The value of knob `name` of `type` in k, or NULL when the algorithm
 * declares no such knob: the few knob names the library reads, whichever
 * algorithm declares them (docs/plugins.md, "Knobs the library knows"). */
static const usmp__value *library_knob(const usmp__knobs *k, const char *name,
                                       int type)
{
	for (uint32_t i = 0; k->sig && i < k->sig->count; i++)
		if (!strcmp(k->sig->params[i].name, name) &&
		    k->sig->params[i].type == type)
			return &k->values[i];
	return NULL;
}

/* The budget of a part whose caller set no time limit, in seconds from the
 * start of the call (budget.h: a portfolio's, or any other algorithm's): at
 * least the algorithm's own time_limit knob when it sets one, counted from
 * `t_algo`, the knob's start. */
static double default_budget(const usmp__algo *a, const usmp__knobs *k,
                             double t_call, double t_algo)
{
	double len = a->portfolio ? USMP__BUDGET_PORTFOLIO
	                          : USMP__BUDGET_ALGORITHM;
	const usmp__value *own = library_knob(k, "time_limit", USMP_PARAM_F64);
	if (own && own->f64 > 0 && (t_algo - t_call) + own->f64 > len)
		len = (t_algo - t_call) + own->f64;
	return len;
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

/* Everything planning one part holds, released by part_job_finish. */
typedef struct part_job {
	usmp_registry *r;
	usmp_problem *p;
	const usmp_plan_options *o;
	usmp_plan *plan;
	usmp__part *part;
	uint32_t n, group;
	usmp__view_store vs;
	part_names pn;
	const usmp__algo *algo;
	usmp__knobs knobs;
	int knobs_ready, host_ready;
	usmp__host_ctx hc;
	usmp__call call;
	usmp_placement *out;
	char *msg;
	double t0;   /* when the part started */
	double t_call, cpu_call; /* when the call started: wall, thread CPU */
} part_job;

/* Build the part's view of buffers ids[0..n) and choose its algorithm:
 * by the selection rules, refused when it lacks a capability the part
 * needs; clashing fixed buffers are reported before any algorithm runs. */
static int part_select(part_job *j, const uint32_t *ids)
{
	usmp_plan *plan = j->plan;
	usmp__part *part = j->part;
	char *rule = NULL;
	int source = 0;
	int st = usmp__view_build(j->p, ids, j->n, &j->vs, &j->msg);
	if (st)
		return usmp__plan_fail(plan, st, "%s",
		                       j->msg ? j->msg : "cannot build view");
	part->group = j->group;
	part->buffer_count = j->n;
	part->lower_bound = j->vs.view.lower_bound;
	st = part_names_init(&j->pn, j->p, &j->vs, j->o->target, part);
	if (st)
		return usmp__plan_fail(plan, st, "out of memory");
	/* The algorithm sees the first target; selection sees them all. */
	j->vs.view.target = j->pn.target_count ? j->pn.targets[0] : "";

	st = usmp__registry_resolve_part(j->r, j->pn.targets, j->pn.target_count,
	                                 j->pn.pools, j->pn.pool_count, j->o,
	                                 &j->algo, &j->knobs, &rule, &source,
	                                 &j->msg);
	if (st)
		return usmp__plan_fail(plan, st, "%s",
		                       j->msg ? j->msg : "no algorithm");
	j->knobs_ready = 1;
	part->rule = rule;
	part->source = source;
	part->params = usmp__knobs_describe(&j->knobs);
	part->param_list = usmp__knobs_list(&j->knobs, &part->param_list_len);
	st = usmp__check_caps(j->algo, &j->vs.view, &j->msg);
	if (st) {
		uint32_t need = usmp__caps_needed(&j->vs.view);
		uint32_t missing = need & ~j->algo->caps;
		char *have = algos_with(j->r, need);
		usmp__plan_fail(plan, st, "%s; installed algorithms that have %s: %s",
		                j->msg, missing & (missing - 1) ? "them" : "it",
		                have ? have : "?");
		free(have);
		return st;
	}
	/* Fixed buffers that clash make every plan invalid: say so up front,
	 * as infeasible and naming them, rather than blame the algorithm. */
	return usmp__infeasible_fixed(j->p, &j->vs, j->group, j->algo->name,
	                              plan);
}

/* Seconds the part costs after its algorithm returns (budget.h): verifying
 * its plan, unless the algorithm is a built-in portfolio run in this
 * process (auto verifies the plan it returns within its own deadline:
 * usmp__call.verified), its share of verifying the merged plan when it is
 * not the whole problem, and finishing it (measuring, merging, freeing). */
static double part_post(const part_job *j)
{
	double per = USMP__BUDGET_FINISH_PER_BUFFER;
	/* CPU seconds, scaled by how slowly the call ran so far */
	double load = usmp__budget_load(usmp__now() - j->t_call,
	                                usmp__cpu_now() - j->cpu_call);
	uint32_t flags = j->o->flags & (USMP_PLAN_ISOLATE | USMP_PLAN_NO_ISOLATE);
	if (!j->algo->portfolio || !j->algo->builtin ||
	    usmp__dispatch_isolates(j->r, j->algo, flags))
		per += USMP__BUDGET_VERIFY_PER_BUFFER;
	if (j->n != j->p->buffer_count)
		per += USMP__BUDGET_VERIFY_PER_BUFFER;
	return per * j->n * load;
}

/* The deadline the part's algorithm works to: the part's share of what
 * remains of the caller's deadline (0: the default budget, < 0: none) from
 * the call's start t_call, `left` buffers remaining to plan, these
 * included. 0 when there is none. Records the budget on the part. */
static double part_budget(part_job *j, double deadline, double t_call,
                          uint32_t left)
{
	/* The limit recorded is the length asked for, not dl - t_call: that
	 * difference of two clock readings need not round back to it. */
	double dl = deadline, len = j->o->time_limit;
	if (dl == 0) {
		len = default_budget(j->algo, &j->knobs, t_call, usmp__now());
		dl = t_call + len;
	}
	j->part->limit = dl > 0 ? len : 0;
	return part_deadline(dl > 0 ? dl : 0, j->n, left, part_post(j));
}

/* The algorithm, called in this process, wrote into its read-only view:
 * whatever it returned is not taken (the verifier would judge the plan by
 * the changed view). Named by algorithm and plugin file. */
static int view_written(part_job *j)
{
	usmp_plugin_info info = {.struct_size = sizeof info};
	const usmp__algo *a = j->hc.view_writer ? j->hc.view_writer : j->algo;
	usmp__free_msg(&j->call.error);
	if (a->builtin || usmp_registry_plugin(j->r, a->plugin, &info))
		usmp__set_msg(&j->call.error, "algorithm \"%s\" (or a plugin "
		              "algorithm it ran) wrote into the read-only problem "
		              "view; its plan is not taken", a->name);
	else
		usmp__set_msg(&j->call.error, "algorithm \"%s\" (plugin \"%s\", "
		              "%s)%s%s wrote into the read-only problem view; %s "
		              "plan is not taken", a->name, info.name, info.path,
		              a == j->algo ? "" : ", run by ",
		              a == j->algo ? "" : j->algo->name,
		              a == j->algo ? "its" : "the");
	return usmp__plan_fail(j->plan, USMP_ERR_PLUGIN, "%s",
	                       j->call.error ? j->call.error : "out of memory");
}

/* Run the part's algorithm to deadline dl (0 = none) into j->out, through
 * the one dispatch path; records its time and name ("auto/first_fit:...")
 * on the part. Returns the algorithm's status; an isolated call that never
 * returned has its failure recorded on the plan already. */
static int part_call(part_job *j, double dl, bool default_budget)
{
	uint32_t n = j->n;
	usmp__part *part = j->part;
	double t_algo = usmp__now();
	j->vs.view.time_limit =
		dl > 0 ? (dl - t_algo > 0 ? dl - t_algo : 1e-9) : 0;
	j->out = malloc((n ? n : 1) * sizeof *j->out);
	if (!j->out)
		return usmp__plan_fail(j->plan, USMP_ERR_NOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		const usmp_buffer_rec *b = &j->vs.view.buffers[i];
		j->out[i] = (usmp_placement){USMP_NO_POOL, 0, 0};
		if (b->flags & USMP_BUFFER_FIXED)
			j->out[i] = (usmp_placement){b->fixed_pool, 0, b->fixed_offset};
	}
	int st = usmp__host_init(&j->hc, j->r, &j->vs.view, dl, j->o->cancel,
	                         j->algo->name);
	if (st)
		return usmp__plan_fail(j->plan, st, "out of memory");
	if (j->hc.log_fn && j->o->log_ctx) /* the call's own (zero if unset) */
		j->hc.log_ctx = j->o->log_ctx;
	j->host_ready = 1;
	j->call = (usmp__call){
		.r = j->r, .algo = j->algo, .knobs = &j->knobs,
		.view = &j->vs.view, .hc = &j->hc, .out = j->out,
		.flags = j->o->flags & (USMP_PLAN_ISOLATE | USMP_PLAN_NO_ISOLATE),
		.default_budget = default_budget,
	};
	/* A plugin called in this process could write into the view the
	 * verifier then judges its plan by: seal it (an isolated call writes
	 * into a copy). */
	usmp__view_seal seal = {.on = (!j->algo->builtin || j->algo->portfolio) &&
	                              !usmp__dispatch_isolates(j->r, j->algo,
	                                                       j->call.flags)};
	if (seal.on)
		usmp__view_seal_make(&seal, &j->vs.view);
	st = usmp__dispatch(&j->call);
	part->time_ms = (usmp__now() - j->t0) * 1e3;
	if (seal.on && usmp__view_seal_broken(&seal, &j->vs.view))
		return view_written(j);
	if (st && j->call.error)
		return usmp__plan_fail(j->plan, st, "%s", j->call.error);
	part->stopped = j->hc.stopped;
	free(part->overrun_by);
	part->overrun_by = j->hc.overrun_by[0] ? usmp__strdup(j->hc.overrun_by)
	                                       : NULL;
	part->overrun_cause = j->hc.overrun_cause;
	const char *name = j->algo->name, *who = j->call.who;
	size_t len = strlen(name) + (who ? strlen(who) + 1 : 0) + 1;
	part->algorithm = malloc(len);
	if (part->algorithm)
		snprintf(part->algorithm, len, "%s%s%s", name, who ? "/" : "",
		         who ? who : "");
	return st;
}

/* Whether the part's algorithm, a plugin's declaring USMP_CAP_EXACT,
 * could not have proven the part infeasible: every pool is unbounded (and
 * no capacity knob asks for less), so a plan exists by construction. */
static bool exact_claim_false(const part_job *j)
{
	const usmp__algo *a = j->algo;
	if (a->builtin || a->portfolio || !(a->caps & USMP_CAP_EXACT))
		return false;
	const usmp__value *cap = library_knob(&j->knobs, "capacity",
	                                      USMP_PARAM_U64);
	return !(cap && cap->u64 != 0) && usmp__infeasible_never(&j->vs.view);
}

/* Its USMP_ERR_INFEASIBLE is then a plugin failure naming it, as any other
 * broken promise is (an invalid plan, a status outside the enum). */
static int exact_lied(part_job *j)
{
	const usmp__algo *a = j->algo;
	usmp_plugin_info info = {.struct_size = sizeof info};
	if (usmp_registry_plugin(j->r, a->plugin, &info))
		info.name = info.path = "?";
	return usmp__plan_fail(j->plan, USMP_ERR_PLUGIN, "algorithm \"%s\" "
	                       "(plugin \"%s\", %s) declares the exact capability "
	                       "and returned USMP_ERR_INFEASIBLE, but every pool "
	                       "of the part is unbounded, so a plan exists; its "
	                       "verdict is not taken", a->name, info.name,
	                       info.path);
}

/* The algorithm returned USMP_ERR_STOPPED with its deadline still ahead
 * and no cancel: should_stop() never said so, and "give it more time"
 * would not help. The status stays; the message says what happened. */
static int stopped_early(part_job *j)
{
	char limit[80] = "with no time limit and no cancel";
	if (j->hc.deadline > 0)
		snprintf(limit, sizeof limit, "before its time limit (%g s%s) and "
		         "without a cancel", j->part->limit,
		         j->call.default_budget ? ", the default" : "");
	return usmp__plan_fail(j->plan, USMP_ERR_STOPPED, "%s returned "
	                       "USMP_ERR_STOPPED after %.3f s without a plan, "
	                       "%s: nothing asked "
	                       "it to stop (an algorithm returns it only once "
	                       "host->should_stop() is true)%s%s", j->algo->name,
	                       usmp__now() - j->t_call, limit,
	                       j->hc.last_message[0] ? "; its last message: "
	                                             : "",
	                       j->hc.last_message);
}

/* The algorithm failed with st: record why on the plan and return the
 * status recorded. An infeasible or stopped part gets the library's
 * certificate (infeasible.c) when there is one, the same whoever failed. */
static int part_failed(part_job *j, int st)
{
	const usmp__algo *a = j->algo;
	usmp_plan *plan = j->plan;
	/* A portfolio passes on its members' failures: neither a proof nor
	 * a message of its own. */
	const char *own = a->portfolio ? NULL : j->hc.last_message;
	if (st == USMP_ERR_INFEASIBLE && exact_claim_false(j))
		return exact_lied(j);
	if (st == USMP_ERR_INFEASIBLE || st == USMP_ERR_STOPPED) {
		/* An exact algorithm's failure is a proof, unless it planned
		 * overlap rules as plain conflicts (a stricter problem); a stop
		 * with a certificate is infeasible all the same. */
		bool rules_as_conflicts = j->vs.view.overlap_count &&
		                          !(a->caps & USMP_CAP_OVERLAP_RULES);
		unsigned flags = 0;
		if ((a->caps & USMP_CAP_EXACT) && !a->portfolio)
			flags = rules_as_conflicts ? USMP__WHY_RULES_AS_CONFLICTS
			                           : USMP__WHY_PROVEN;
		/* A portfolio whose exact member proved it: a proof too. */
		else if (a->portfolio && j->hc.proved_by[0])
			flags = USMP__WHY_PROVEN;
		/* A capacity knob asking for less than the pool: the proof is
		 * about that capacity, not the pool. */
		const usmp__value *cap =
			library_knob(&j->knobs, "capacity", USMP_PARAM_U64);
		if (cap && cap->u64 != 0 && flags == USMP__WHY_PROVEN)
			flags = USMP__WHY_KNOB_LIMIT;
		if (!flags && rules_as_conflicts)
			flags = USMP__WHY_RULES_PLAIN;
		int got = usmp__infeasible_explain(j->p, &j->vs, j->group, a->name,
		                                   st, flags, own, plan);
		if (got)
			return got;
	}
	const char *why = j->hc.last_message[0] ? j->hc.last_message
	                  : a->builtin ? usmp_status_name(st)
	                               : "it logged no reason (an algorithm "
	                                 "logs why with host->log before it "
	                                 "returns a failure)";
	if (st == USMP_ERR_INFEASIBLE)
		return usmp__plan_fail(plan, st, "%s: no plan fits the pools: %s",
		                       a->name, why);
	if (st == USMP_ERR_STOPPED && usmp__cancelled(j->o->cancel))
		return usmp__plan_fail(plan, st, "%s: stopped by a cancel "
		                       "before finding a plan", a->name);
	if (st == USMP_ERR_STOPPED && !a->portfolio && !j->hc.stopped &&
	    (j->hc.deadline <= 0 || usmp__now() < j->hc.deadline))
		return stopped_early(j);
	if (st == USMP_ERR_STOPPED) {
		/* The default budget is the library's: say how long it was. */
		char dflt[64] = "";
		if (j->call.default_budget)
			snprintf(dflt, sizeof dflt, " (the default, %g s)",
			         j->part->limit);
		return usmp__plan_fail(plan, st, "%s: stopped at the time limit"
		                       "%s before finding a plan: give it a "
		                       "longer time limit or none%s", a->name,
		                       dflt, a->portfolio ? "" : ", or plan with "
		                       "auto (it always finishes a first plan)");
	}
	if (st == USMP_ERR_PLUGIN || st == USMP_ERR_INVALID_PLAN)
		return usmp__plan_fail(plan, USMP_ERR_PLUGIN, "%s: %s", a->name,
		                       why);
	return usmp__plan_fail(plan, st, "%s failed (%s): %s", a->name,
	                       usmp_status_name(st), why);
}

/* A capacity knob below the limit of one of the part's several pools: the
 * algorithm proved its bound for plans whose every pool fits in it, and a
 * smaller plan may hold more than that in one pool. (With one pool the
 * least size fits the capacity whenever a plan does, so a proof stands.) */
static bool capacity_narrows(const part_job *j)
{
	const usmp_view *v = &j->vs.view;
	const usmp__value *cap =
		library_knob(&j->knobs, "capacity", USMP_PARAM_U64);
	if (!cap || cap->u64 == 0 || v->pool_count < 2)
		return false;
	for (uint32_t q = 0; q < v->pool_count; q++)
		if (cap->u64 < v->pools[q].size_limit)
			return true;
	return false;
}

/* The part's spill (docs/design.md, "Several pools: the objective"): the
 * bytes of buffers placed outside their first candidate pool (saturating),
 * how many, the largest of them (a problem index), the bytes no plan
 * avoids (a buffer larger than its first pool's limit, or fixed elsewhere)
 * and the spill floor (spill_floor.c). */
static void part_spill(usmp__part *part, const usmp_view *v,
                       const usmp_placement *pl, const uint32_t *buffer_map)
{
	uint64_t largest = 0;
	part->spill = 0;
	part->spill_count = 0;
	part->spill_largest = UINT32_MAX;
	part->spill_forced = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		if (!b->candidate_count ||
		    pl[i].pool == v->candidates[b->candidate_start])
			continue;
		uint32_t first = v->candidates[b->candidate_start];
		spill_add(part, b->size, buffer_map[i],
		          usmp__spill_is_forced(b->size,
		                                b->flags & USMP_BUFFER_FIXED,
		                                b->fixed_pool, first,
		                                v->pools[first].size_limit),
		          &largest);
	}
	part->spill_floor = usmp__spill_floor(v);
}

/* The verifier refused the plan of the part's algorithm: name the
 * violation and, for a plugin's, its file and the command that tests it. */
static int invalid_plan(part_job *j)
{
	char *note = usmp__registry_contract_note(j->r, j->algo);
	int st = usmp__plan_fail(j->plan, USMP_ERR_PLUGIN,
	                         "algorithm \"%s\" returned an invalid plan: "
	                         "%s%s%s", j->algo->name, j->msg ? j->msg : "?",
	                         note ? "; " : "", note ? note : "");
	usmp__free_msg(&note);
	return st;
}

/* Verify the part's plan on its own, measure it, and copy it into the
 * plan's placements (problem indices). */
static int part_accept(part_job *j)
{
	usmp__part *part = j->part;
	const usmp_view *v = &j->vs.view;
	/* A built-in that verified this very plan in this process (auto) is
	 * not swept again: the same verifier, the same placements. */
	int st = j->call.verified ? USMP_OK : usmp__verify(v, j->out, &j->msg);
	if (st)
		return invalid_plan(j);
	bool saturated;
	part->size = view_plan_size(v, j->out, &saturated);
	part->proven_bound = v->lower_bound;
	/* Only an algorithm declaring USMP_CAP_EXACT may prove a bound: what
	 * another reports (plugin.h, report_bound) is not taken. */
	if (j->hc.reported && (j->algo->caps & USMP_CAP_EXACT) &&
	    j->hc.proven_bound > part->proven_bound &&
	    j->hc.proven_bound <= part->size && !capacity_narrows(j))
		part->proven_bound = j->hc.proven_bound;
	/* A size past 2^64 - 1 is no size: it and the bound may both have
	 * saturated, however far apart they are. */
	part->optimal = !saturated && part->size <= part->proven_bound;
	part_spill(part, v, j->out, j->vs.buffer_map);
	/* An exact algorithm (auto's member too) that proved its plan proved
	 * its spill the least of any valid plan (docs/design.md, "What
	 * optimal claims"); the plan kept spills no more: that is the floor. */
	if (part->optimal && j->hc.reported && j->hc.optimal &&
	    (j->algo->caps & USMP_CAP_EXACT) && !capacity_narrows(j) &&
	    part->spill > part->spill_floor)
		part->spill_floor = part->spill;
	part->rules_as_conflicts =
		j->algo->portfolio || (j->algo->caps & USMP_CAP_OVERLAP_RULES)
			? 0 : v->overlap_count;
	part->whole = j->n == j->p->buffer_count &&
	              v->pool_count == j->p->pool_count;
	for (uint32_t q = 0; q < v->pool_count && part->whole; q++)
		part->whole = j->vs.pool_map[q] == q;
	for (uint32_t i = 0; i < j->n; i++) {
		usmp_placement *pl = &j->plan->placements[j->vs.buffer_map[i]];
		part->whole = part->whole && j->vs.buffer_map[i] == i;
		pl->pool = j->vs.pool_map[j->out[i].pool];
		pl->offset = j->out[i].offset;
	}
	return USMP_OK;
}

/* auto's one error line for a part no member could plan, as when all of
 * them failed (docs/hosts.md, "Log messages"). */
static void auto_not_run(const part_job *j)
{
	usmp_log_fn fn;
	void *ctx;
	int level;
	usmp__log_config(j->r, &fn, &ctx, &level);
	if (fn && j->o->log_ctx)
		ctx = j->o->log_ctx;
	if (level < USMP_LOG_ERROR)
		return;
	static const char line[] = "no member run: the part's lower bound, or "
	                           "one of its buffers, exceeds what its pools "
	                           "hold, so no plan fits";
	if (fn)
		fn(ctx, USMP_LOG_ERROR, j->algo->name, line);
	else
		fprintf(stderr, "usmp: %s: %s\n", j->algo->name, line);
}

/* Plan the buffers ids[0..n) (one bound group) into plan->placements, by
 * the call's deadline (0 = the default, < 0 = none) from the call's start
 * t_call; `left` buffers remain to plan, these included. */
static int plan_part(usmp_registry *r, usmp_problem *p,
                     const usmp_plan_options *o, const uint32_t *ids,
                     uint32_t n, uint32_t group, double deadline,
                     double t_call, double cpu_call, uint32_t left,
                     usmp_plan *plan, usmp__part *part)
{
	part_job j = {.r = r, .p = p, .o = o, .plan = plan, .part = part,
	              .n = n, .group = group, .t0 = usmp__now(),
	              .t_call = t_call, .cpu_call = cpu_call};
	int st = part_select(&j, ids);
	if (st)
		goto done;
	double dl = part_budget(&j, deadline, t_call, left);
	if (j.algo->portfolio && j.algo->builtin &&
	    usmp__infeasible_plain(&j.vs.view)) {
		/* No member could plan it: say so now, not after all of them
		 * failed (seconds on a large part). */
		auto_not_run(&j);
		st = part_failed(&j, USMP_ERR_INFEASIBLE);
		goto done;
	}
	st = part_call(&j, dl, deadline == 0);
	if (st && j.call.error)
		goto done; /* recorded: the call never returned */
	if (st)
		st = part_failed(&j, st);
	if (!st)
		st = part_accept(&j);
done:
	usmp__call_finish(&j.call);
	if (j.host_ready)
		usmp__host_finish(&j.hc);
	free(j.out);
	if (j.knobs_ready)
		usmp__knobs_finish(&j.knobs);
	usmp__view_finish(&j.vs);
	part_names_finish(&j.pn);
	usmp__free_msg(&j.msg);
	return st;
}

/* Most pools or targets a failed part's error names (a part may have a
 * million pools: the message names a few and counts the rest). */
#define PART_NAMES_SHOWN 8

/* The length of the first PART_NAMES_SHOWN items of `list` (items joined
 * by `sep`), and in *more how many items follow them. */
static int list_prefix(const char *list, const char *sep, uint32_t *more)
{
	size_t seplen = strlen(sep), all = strlen(list), len = all;
	uint32_t items = 1;

	*more = 0;
	/* One pass (strstr from each separator on would be a scan of the rest
	 * each time under the sanitizers' interceptor). */
	for (size_t i = 0; i + seplen <= all; i++) {
		if (memcmp(list + i, sep, seplen))
			continue;
		if (items++ == PART_NAMES_SHOWN)
			len = i;
		i += seplen - 1;
	}
	if (items > PART_NAMES_SHOWN)
		*more = items - PART_NAMES_SHOWN;
	return len > INT_MAX ? INT_MAX : (int)len;
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
	const char *target;
	uint32_t more_targets, more_pools;
	int tlen, plen;
	if (!part->pools)
		return; /* failed before the part was known */
	target = part->target && *part->target ? part->target : "none";
	tlen = list_prefix(target, ",", &more_targets);
	plen = list_prefix(part->pools, ", ", &more_pools);
	plan->error = NULL;
	usmp__set_msg(&plan->error, "%s (part %u: target %.*s%s%.0u%s; pool%s "
	              "%.*s%s%.0u%s%s%s%s%s)",
	              why ? why : "", number, tlen, target,
	              more_targets ? " and " : "", more_targets,
	              more_targets ? " more" : "",
	              part->pool_count == 1 ? "" : "s", plen, part->pools,
	              more_pools ? " and " : "", more_pools,
	              more_pools ? " more" : "",
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

/* The caller's options into o (the defaults), by the size it says they
 * have. A size that ends inside a field would leave part of the caller's
 * value in it (half a pointer): such a field is taken as not given. Every
 * field is aligned to its size; the 8-byte ones (pointers, the time limit,
 * and those a later minor appends) fill 8-byte slots, the 4-byte ones come
 * in pairs (struct_size and flags, param_count and reserved). */
static void take_options(usmp_plan_options *o, const usmp_plan_options *opts)
{
	size_t n = opts->struct_size < sizeof *o ? opts->struct_size : sizeof *o;
	memcpy(o, opts, n);
	size_t slot = n & ~(size_t)7;
	int pair = slot == offsetof(usmp_plan_options, struct_size) ||
	           slot == offsetof(usmp_plan_options, param_count);
	size_t from = pair ? n & ~(size_t)3 : slot;
	memset((char *)o + from, 0, n - from);
}

/* A failed plan places no buffer: the parts planned before the one that
 * failed keep their figures (usmp_plan_part), not their placements, so
 * usmp_plan_placement answers USMP_ERR_NOT_FOUND for every buffer and
 * usmp_plan_pool_size 0 for every pool, as usmp.h says. */
static void unplace(usmp_plan *plan)
{
	for (uint32_t b = 0; b < plan->buffer_count; b++) {
		plan->placements[b].pool = USMP_NO_POOL;
		plan->placements[b].offset = 0;
	}
	for (uint32_t k = 0; k < plan->pool_count; k++)
		plan->pool_size[k] = 0;
}

/* Options a later library may give a meaning, or that contradict each
 * other, are refused rather than ignored: a usmp_registry_flag passed here
 * (both enums start at bit 0), a flag of a later minor on this library,
 * both isolation flags, knob values counted but not given. */
#define KNOWN_PLAN_FLAGS ((uint32_t)(USMP_PLAN_ISOLATE | USMP_PLAN_NO_ISOLATE))

static int check_options(usmp_plan *plan, const usmp_plan_options *o)
{
	if (o->flags & ~KNOWN_PLAN_FLAGS)
		return usmp__plan_fail(
			plan, USMP_ERR_INVALID,
			"usmp_plan_options.flags is 0x%x: bits 0x%x are no "
			"usmp_plan_flag of this library (known: USMP_PLAN_ISOLATE "
			"0x1, USMP_PLAN_NO_ISOLATE 0x2; a usmp_registry_flag belongs "
			"in usmp_registry_options.flags)",
			(unsigned)o->flags, (unsigned)(o->flags & ~KNOWN_PLAN_FLAGS));
	if ((o->flags & KNOWN_PLAN_FLAGS) == KNOWN_PLAN_FLAGS)
		return usmp__plan_fail(
			plan, USMP_ERR_INVALID,
			"usmp_plan_options.flags sets both USMP_PLAN_ISOLATE and "
			"USMP_PLAN_NO_ISOLATE: set one, or neither for the default "
			"(plugins from outside the shipped directory isolated)");
	if (o->param_count && !o->params)
		return usmp__plan_fail(
			plan, USMP_ERR_INVALID,
			"usmp_plan_options.param_count is %u but params is NULL: "
			"point params at that many \"key=value\" strings, or set "
			"param_count to 0", (unsigned)o->param_count);
	return USMP_OK;
}

int usmp_plan_compute(usmp_registry *r, usmp_problem *p,
                      const usmp_plan_options *opts, usmp_plan **out)
{
	usmp_plan_options o = {.struct_size = sizeof o};
	uint32_t *order = NULL, *start = NULL;
	double t0 = usmp__now(), cpu0 = usmp__cpu_now();
	if (!out)
		return USMP_ERR_INVALID;
	*out = NULL;
	if (!r || !p)
		return USMP_ERR_INVALID;
	if (opts)
		take_options(&o, opts);
	int st = usmp__problem_prepare(p);
	usmp_plan *plan = usmp__plan_alloc(p);
	if (!plan)
		return USMP_ERR_NOMEM;
	*out = plan;
	if (st)
		return usmp__plan_fail(plan, st, "%s", usmp_problem_error(p));
	/* Options whose struct_size was never set would be ignored whole (the
	 * algorithm asked for silently replaced by auto). */
	if (opts && opts->struct_size < sizeof opts->struct_size)
		return usmp__plan_fail(plan, USMP_ERR_INVALID,
		                       "usmp_plan_options.struct_size is %u: set it to "
		                       "sizeof(usmp_plan_options), or pass NULL for "
		                       "the defaults", (unsigned)opts->struct_size);
	if (o.time_limit < 0 || o.time_limit != o.time_limit)
		return usmp__plan_fail(plan, USMP_ERR_INVALID,
		                       "time limit %g s (usmp_plan_options."
		                       "time_limit): give seconds (more than 0), 0 "
		                       "for the default budget or INFINITY for none",
		                       o.time_limit);
	if (check_options(plan, &o))
		return usmp_plan_status(plan);
	/* A rule naming a pool or target the problem lacks (a typo) would
	 * silently leave its parts to a later rule or the default. */
	usmp__rules_check_names(r, p, o.target, o.log_ctx);
	/* A buffer without a live range among live ones conflicts with
	 * nothing: a hand-written file meaning "alive throughout" would have
	 * its bytes shared silently. */
	usmp__warn_unlived(r, p, o.log_ctx);
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
		               cpu0, (uint32_t)p->buffer_count - start[g], plan,
		               part);
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
	if (plan->status != USMP_OK)
		unplace(plan);
	return plan->status;
}
