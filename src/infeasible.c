/* infeasible.c — why a part has no plan: the message and the public record of
 * a certificate and its spill advice, and of fixed placements that clash. */
#include "infeasible.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* ---- messages ------------------------------------------------------------ */

typedef struct sbuf {
	char *s;
	size_t len, cap;
	int oom;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) USMP__PRINTF(2, 3);
static void sb_add(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	if (b->oom)
		return;
	/* Names quoted in fmt shortened as usmp__set_msg shortens them. */
	va_start(ap, fmt);
	char *piece = usmp__vformat_msg(fmt, ap);
	va_end(ap);
	size_t n = piece ? strlen(piece) : 0;
	if (!piece || usmp__grow((void **)&b->s, &b->cap, b->len + n + 1, 1)) {
		free(piece);
		b->oom = 1;
		return;
	}
	memcpy(b->s + b->len, piece, n + 1);
	b->len += n;
	free(piece);
}

static void sb_limit(sbuf *b, uint64_t limit)
{
	if (limit == USMP_UNBOUNDED)
		sb_add(b, "no size limit: %llu bytes of address space",
		       (unsigned long long)limit);
	else
		sb_add(b, "%llu byte%s", (unsigned long long)limit, usmp__s(limit));
}

static bool wide_gt_(usmp__wide a, usmp__wide b)
{
	return a.hi > b.hi || (a.hi == b.hi && a.lo > b.lo);
}

/* w in decimal, exactly (128 bits: 39 digits at most). */
static void sb_wide(sbuf *b, usmp__wide w)
{
	unsigned __int128 x = (unsigned __int128)w.hi << 64 | w.lo;
	char digits[48];
	int k = (int)sizeof digits - 1;
	digits[k] = '\0';
	do {
		digits[--k] = (char)('0' + (int)(x % 10));
		x /= 10;
	} while (x);
	sb_add(b, "%s", digits + k);
}

/* The limit of pools that all have one, past 2^64 - 1 when added up (a
 * bounded sum the 64-bit limit cannot hold: not "no size limit"), else
 * as sb_limit says it. */
static void sb_limit_sum(sbuf *b, usmp__wide limit, bool unbounded)
{
	if (limit.hi && !unbounded) {
		sb_wide(b, limit);
		sb_add(b, " bytes");
	} else {
		sb_limit(b, usmp__wide_min(limit, UINT64_MAX));
	}
}

/* Whether a pool the certificate is about has no size limit. */
static bool cert_unbounded(const usmp_view *v, const usmp__cert *c)
{
	if (c->pool != UINT32_MAX)
		return limit_of(v, c->pool) == USMP_UNBOUNDED;
	for (uint32_t k = 0; k < c->npool; k++)
		if (limit_of(v, c->pools[k]) == USMP_UNBOUNDED)
			return true;
	return false;
}

/* ---- recording on the plan ------------------------------------------------ */

void usmp__infeasible_free(usmp__infeasible *w)
{
	if (!w)
		return;
	free(w->buffers);
	free(w->pools);
	free(w->move_buffers);
	free(w->move_pools);
	free(w->algorithm);
	free(w);
}

int usmp_plan_infeasibility(const usmp_plan *plan, usmp_infeasibility *out)
{
	if (!plan || !out || out->struct_size < 2 * sizeof(uint32_t))
		return USMP_ERR_INVALID;
	if (!plan->infeasible || plan->status != USMP_ERR_INFEASIBLE)
		return USMP_ERR_NOT_FOUND;
	usmp_infeasibility full = plan->infeasible->info;
	full.struct_size = out->struct_size;
	size_t n = out->struct_size < sizeof full ? out->struct_size : sizeof full;
	memcpy(out, &full, n);
	return USMP_OK;
}

static void sb_pools(sbuf *m, const usmp_problem *p, const usmp__view_store *vs,
                     const uint32_t *pools, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		sb_add(m, "%s\"%s\"", k ? ", " : "", p->pools[vs->pool_map[pools[k]]].name);
}

bool usmp__infeasible_never(const usmp_view *v)
{
	uint64_t top = 0, need = 0;
	for (uint32_t j = 0; j < v->pool_count; j++)
		if (v->pools[j].size_limit != USMP_UNBOUNDED)
			return false;
	/* Every movable buffer stacked above the highest fixed byte: its size
	 * and at most its alignment less one of padding each. */
	for (uint32_t i = 0; i < v->buffer_count; i++) {
		const usmp_buffer_rec *b = &v->buffers[i];
		uint64_t end;
		if (b->flags & USMP_BUFFER_FIXED) {
			if (__builtin_add_overflow(b->fixed_offset, b->size, &end))
				return false;
			top = end > top ? end : top;
			continue;
		}
		uint32_t pool = v->candidates[b->candidate_start];
		uint64_t pad = usmp_buffer_alignment(v, i, pool) - 1;
		if (__builtin_add_overflow(need, b->size, &need) ||
		    __builtin_add_overflow(need, pad, &need))
			return false;
	}
	uint64_t all;
	return !__builtin_add_overflow(top, need, &all);
}

/* The limit the honest message compares the bound with: the part's pools. */
/* The part's pools' limits added up, exactly. */
static usmp__wide part_limit_wide(const usmp_view *v)
{
	usmp__wide all = {0, 0};
	for (uint32_t j = 0; j < v->pool_count; j++)
		usmp__wide_add(&all, limit_of(v, j));
	return all;
}

static uint64_t part_limit(const usmp_view *v)
{
	return usmp__wide_min(part_limit_wide(v), UINT64_MAX);
}

static void sb_part_pools(sbuf *m, const usmp_problem *p,
                          const usmp__view_store *vs)
{
	const usmp_view *v = &vs->view;
	bool unbounded = false;
	for (uint32_t j = 0; j < v->pool_count; j++)
		unbounded = unbounded || limit_of(v, j) == USMP_UNBOUNDED;
	sb_add(m, "the limit (");
	sb_limit_sum(m, part_limit_wide(v), unbounded);
	sb_add(m, ") of pool%s ", v->pool_count > 1 ? "s" : "");
	for (uint32_t j = 0; j < v->pool_count; j++)
		sb_add(m, "%s\"%s\"", j ? ", " : "", p->pools[vs->pool_map[j]].name);
}

/* The certificate's sentence. */
static void sb_cert(sbuf *m, const usmp_problem *p, const usmp__view_store *vs,
                    const usmp__cert *c, uint64_t bound, const char *algo)
{
	const usmp_view *v = &vs->view;
	uint64_t limit = usmp__wide_min(c->limit, UINT64_MAX);
	const char *pool = c->pool != NONE ? p->pools[vs->pool_map[c->pool]].name : "";
	switch (c->kind) {
	case USMP_INFEASIBLE_STEP: {
		const usmp_buffer_rec *big = &v->buffers[c->buffers[0]];
		/* Totals past 2^64 - 1 said exactly, so the sentence proves
		 * itself: the bytes needed, the limit, by how many. */
		bool unbounded = cert_unbounded(v, c);
		sb_add(m, "at step %lld the buffers live", (long long)c->step);
		if (c->pool != NONE)
			sb_add(m, " that may use only pool \"%s\"", pool);
		sb_add(m, " need ");
		sb_wide(m, c->need);
		sb_add(m, " byte%s%s, more than ", usmp__s(c->saturated ? 2 : c->total),
		       c->rules ? " even sharing what overlap rules allow" : "");
		if (c->pool != NONE) {
			sb_add(m, "its limit (");
		} else {
			sb_add(m, "the pools they may use (");
			sb_pools(m, p, vs, c->pools, c->npool);
			sb_add(m, ") hold together (");
		}
		sb_limit_sum(m, c->limit, unbounded);
		sb_add(m, ")");
		if (!unbounded && wide_gt_(c->need, c->limit)) {
			usmp__wide by = c->need;
			usmp__wide_sub(&by, c->limit.lo);
			by.hi -= c->limit.hi;
			sb_add(m, " by ");
			sb_wide(m, by);
			sb_add(m, " byte%s", by.hi || by.lo != 1 ? "s" : "");
		}
		sb_add(m, "; the largest of the %u is \"%s\" (%llu byte%s)", c->nbuf,
		       big->name, (unsigned long long)big->size,
		       usmp__s(big->size));
		/* The others live there, largest first, so that a model that
		 * misses can be cut where it peaks. */
		uint32_t shown = c->nbuf < 8 ? c->nbuf : 8;
		for (uint32_t k = 1; k < shown; k++)
			sb_add(m, "%s\"%s\" (%llu byte%s)", k == 1 ? ", then " : ", ",
			       v->buffers[c->buffers[k]].name,
			       (unsigned long long)v->buffers[c->buffers[k]].size,
			       usmp__s(v->buffers[c->buffers[k]].size));
		if (c->nbuf > shown)
			sb_add(m, " and %u more", c->nbuf - shown);
		break;
	}
	case USMP_INFEASIBLE_BUFFER: {
		const usmp_buffer_rec *b = &v->buffers[c->buffers[0]];
		sb_add(m, "buffer \"%s\" (%llu byte%s) is larger than every pool "
		       "it may use (the largest, \"%s\", holds ", b->name,
		       (unsigned long long)b->size, usmp__s(b->size), pool);
		sb_limit(m, limit);
		sb_add(m, ")");
		break;
	}
	case USMP_INFEASIBLE_BOUND:
		sb_add(m, "the lower bound of the group (%llu byte%s) exceeds what "
		       "its pools (", (unsigned long long)bound, usmp__s(bound));
		sb_pools(m, p, vs, c->pools, c->npool);
		sb_add(m, ") hold together (");
		sb_limit_sum(m, c->limit, cert_unbounded(v, c));
		sb_add(m, ")");
		break;
	case USMP_INFEASIBLE_SEARCH:
		sb_add(m, "%s's search proved that no placement of the buffers fits "
		       "%s, although the lower bound (%llu) does", algo,
		       v->pool_count > 1 ? "the pools" : "the pool",
		       (unsigned long long)bound);
		break;
	default:
		break;
	}
	if (c->kind != USMP_INFEASIBLE_SEARCH && c->kind != USMP_INFEASIBLE_BOUND)
		sb_add(m, "; the lower bound of the group is %s%llu byte%s",
		       bound == UINT64_MAX ? "at least " : "",
		       (unsigned long long)bound, usmp__s(bound));
}

static void sb_advice(sbuf *m, const usmp_problem *p, const usmp__advice *a,
                      const char *pool)
{
	if (!a->count)
		return;
	sb_add(m, ". Spill advice: let ");
	for (uint32_t k = 0; k < a->count; k++) {
		const usmp__buffer *b = &p->buffers[a->buf[k]];
		sb_add(m, "%s\"%s\" (%llu byte%s) use pool \"%s\"",
		       k == 0 ? "" : k + 1 == a->count ? " and " : ", ", b->name,
		       (unsigned long long)b->size, usmp__s(b->size),
		       p->pools[a->pool[k]].name);
	}
	sb_add(m, ": then no step needs more of pool \"%s\" than its limit "
	       "(each pool named has room for them)", pool);
}

/* Build the public record; takes the arrays of c (mapped to problem ids). */
static int record(usmp_plan *plan, const usmp__view_store *vs, usmp__cert *c,
                  usmp__advice *a, uint32_t group, uint64_t bound, const char *algo)
{
	usmp__infeasible *w = calloc(1, sizeof *w);
	if (!w)
		return USMP_ERR_NOMEM;
	for (uint32_t k = 0; k < c->nbuf; k++)
		c->buffers[k] = vs->buffer_map[c->buffers[k]];
	for (uint32_t k = 0; k < c->npool; k++)
		c->pools[k] = vs->pool_map[c->pools[k]];
	w->buffers = c->buffers;
	w->pools = c->pools;
	c->buffers = c->pools = NULL;
	w->move_buffers = a->buf;
	w->move_pools = a->pool;
	a->buf = a->pool = NULL;
	w->algorithm = usmp__strdup(algo);
	usmp_infeasibility *i = &w->info;
	i->struct_size = sizeof *i;
	i->kind = (uint32_t)c->kind;
	i->pool = c->pool != NONE ? vs->pool_map[c->pool] : USMP_NO_POOL;
	i->group = group;
	i->limit = usmp__wide_min(c->limit, UINT64_MAX);
	i->bound = bound;
	i->step = c->kind == USMP_INFEASIBLE_STEP ? c->step : 0;
	i->total = c->total;
	i->buffer_count = c->nbuf;
	i->pool_count = c->npool;
	i->buffers = w->buffers;
	i->pools = w->pools;
	i->move_count = a->count;
	i->move_buffers = w->move_buffers;
	i->move_pools = w->move_pools;
	i->algorithm = w->algorithm ? w->algorithm : "";
	usmp__infeasible_free(plan->infeasible);
	plan->infeasible = w;
	return USMP_OK;
}

/* The part's pools as the certificate's pools (UNPROVEN, SEARCH). */
static int whole_part(const usmp_view *v, usmp__cert *c)
{
	c->limit = (usmp__wide){0, part_limit(v)};
	return usmp__infeasible_all_pools(v, c);
}

int usmp__infeasible_explain(usmp_problem *p, const usmp__view_store *vs,
                             uint32_t group, const char *algo, int st,
                             unsigned flags, const char *why, usmp_plan *plan)
{
	const usmp_view *v = &vs->view;
	uint64_t bound = v->lower_bound;
	usmp__cert c;
	usmp__advice a;
	sbuf m = {0};
	memset(&a, 0, sizeof a);
	int rc = usmp__infeasible_certify(v, &c);
	if (rc)
		goto nomem;
	if (!c.kind && st != USMP_ERR_INFEASIBLE) {
		usmp__cert_free(&c);
		return USMP_OK; /* stopped, and no proof either way */
	}
	if (!c.kind && (flags & USMP__WHY_RULES_AS_CONFLICTS)) {
		/* exact planned the rules as conflicts: its proof is about
		 * another, stricter problem. Not infeasible: a capability gap. */
		sb_add(&m, "%s found no plan while treating the %llu overlap rule%s "
		       "as plain conflicts, which proves nothing about the rules; "
		       "the lower bound (%llu) fits ", algo,
		       (unsigned long long)v->overlap_count,
		       usmp__s(v->overlap_count), (unsigned long long)bound);
		sb_part_pools(&m, p, vs);
		sb_add(&m, ", so a plan that shares bytes as the rules allow may "
		       "exist: use an algorithm with the overlap-rules capability "
		       "(first_fit, best_fit, auto)");
		usmp__cert_free(&c);
		if (m.oom)
			goto nomem;
		usmp__plan_set_error(plan, USMP_ERR_UNSUPPORTED, m.s);
		free(m.s);
		return USMP_ERR_UNSUPPORTED;
	}
	if (!c.kind) {
		c.kind = (flags & USMP__WHY_PROVEN) ? USMP_INFEASIBLE_SEARCH
		                                    : USMP_INFEASIBLE_UNPROVEN;
		if (whole_part(v, &c))
			goto nomem;
	}
	if ((c.kind == USMP_INFEASIBLE_STEP || c.kind == USMP_INFEASIBLE_BUFFER) &&
	    c.pool != NONE && usmp__spill_advice(p, vs, &c, &a))
		goto nomem;
	if (c.kind == USMP_INFEASIBLE_UNPROVEN) {
		sb_add(&m, "no plan found by %s", algo);
		if (why && *why)
			sb_add(&m, " (%s)", why);
		/* A pair it failed to fit may fit as its rule allows. */
		if (flags & USMP__WHY_RULES_PLAIN)
			sb_add(&m, "; it planned the %llu overlap rule%s as %s "
			       "(it lacks the overlap-rules capability; first_fit, "
			       "best_fit, exact and auto honour rules)",
			       (unsigned long long)v->overlap_count,
			       v->overlap_count == 1 ? "" : "s",
			       v->overlap_count == 1 ? "a plain conflict"
			                             : "plain conflicts");
		sb_add(&m, "; the lower bound (%llu) fits ", (unsigned long long)bound);
		sb_part_pools(&m, p, vs);
		if (flags & USMP__WHY_KNOB_LIMIT)
			sb_add(&m, ", so a plan may exist: its capacity knob asks for "
			       "less (raise it, or 0 for the pool's limit)");
		else if (v->pool_count == 1)
			sb_add(&m, ", so a plan may exist: try -a exact or a longer "
			       "--time-limit");
		else /* exact searches several pools too, and proves */
			sb_add(&m, ", so a plan may exist: try -a exact (it "
			       "searches every pool and proves when none fits) or "
			       "a longer --time-limit");
	} else {
		sb_add(&m, "%s: no plan fits the pools: ", algo);
		if (why && *why)
			sb_add(&m, "%s; ", why);
		sb_cert(&m, p, vs, &c, bound, algo);
		if (c.pool != NONE)
			sb_advice(&m, p, &a, p->pools[vs->pool_map[c.pool]].name);
	}
	if (m.oom)
		goto nomem;
	rc = record(plan, vs, &c, &a, group, bound, algo);
	if (rc)
		goto nomem;
	usmp__plan_set_error(plan, USMP_ERR_INFEASIBLE, m.s);
	free(m.s);
	usmp__cert_free(&c);
	return USMP_ERR_INFEASIBLE;
nomem:
	free(m.s);
	usmp__cert_free(&c);
	free(a.buf);
	free(a.pool);
	usmp__set_msg(&plan->error, "%s: no plan found (out of memory while "
	              "explaining why)", algo);
	plan->status = st;
	return st;
}

/* ---- fixed placements ----------------------------------------------------- */

int usmp__infeasible_fixed(usmp_problem *p, const usmp__view_store *vs,
                           uint32_t group, const char *algo, usmp_plan *plan)
{
	const usmp_view *v = &vs->view;
	uint32_t *ids = NULL, k = 0;
	usmp_placement *pl = NULL;
	usmp__view_store sub;
	char *msg = NULL;
	int st = USMP_OK;
	memset(&sub, 0, sizeof sub);
	for (uint32_t i = 0; i < v->buffer_count; i++)
		k += (v->buffers[i].flags & USMP_BUFFER_FIXED) != 0;
	if (k < 2)
		return USMP_OK;
	ids = malloc(k * sizeof *ids);
	if (!ids)
		goto nomem;
	k = 0;
	for (uint32_t i = 0; i < v->buffer_count; i++)
		if (v->buffers[i].flags & USMP_BUFFER_FIXED)
			ids[k++] = vs->buffer_map[i]; /* ascending, as the view's */
	st = usmp__view_build(p, ids, k, &sub, &msg);
	if (st) {
		usmp__plan_set_error(plan, st, msg ? msg : "cannot build view");
		goto out;
	}
	pl = malloc(k * sizeof *pl);
	if (!pl)
		goto nomem;
	for (uint32_t i = 0; i < k; i++)
		pl[i] = (usmp_placement){sub.view.buffers[i].fixed_pool, 0,
		                         sub.view.buffers[i].fixed_offset};
	/* The verifier's sweep finds the pair in O(k log k); a search of
	 * every two fixed buffers took hours at a million. */
	uint32_t pair[2] = {NONE, NONE};
	if (!usmp__verify_pair(&sub.view, pl, &msg, pair))
		goto out;
	/* The pair, in the part's view: the sub-view keeps the fixed
	 * buffers in the part view's order. */
	for (uint32_t i = 0, j = 0; i < v->buffer_count; i++)
		if (v->buffers[i].flags & USMP_BUFFER_FIXED)
			ids[j++] = i;
	uint32_t a = pair[0] < k ? ids[pair[0]] : NONE;
	uint32_t b = pair[1] < k ? ids[pair[1]] : NONE;
	usmp__cert c;
	usmp__advice none;
	memset(&c, 0, sizeof c);
	memset(&none, 0, sizeof none);
	c.kind = USMP_INFEASIBLE_FIXED;
	c.pool = NONE;
	if (a != NONE && b != NONE) {
		c.pool = v->buffers[a].fixed_pool;
		c.limit = (usmp__wide){0, limit_of(v, c.pool)};
		c.buffers = malloc(2 * sizeof *c.buffers);
		c.pools = malloc(sizeof *c.pools);
		if (!c.buffers || !c.pools) {
			usmp__cert_free(&c);
			goto nomem;
		}
		c.buffers[c.nbuf++] = a;
		c.buffers[c.nbuf++] = b;
		c.pools[c.npool++] = c.pool;
	}
	sbuf m = {0};
	sb_add(&m, "the fixed placements clash: %s", msg ? msg : "?");
	if (c.pool != NONE) {
		uint64_t limit = limit_of(v, c.pool);
		sb_add(&m, " (pool \"%s\", ", p->pools[vs->pool_map[c.pool]].name);
		if (limit == USMP_UNBOUNDED) /* no limit is involved */
			sb_add(&m, "no size limit");
		else
			sb_add(&m, "limit %llu byte%s", (unsigned long long)limit,
			       usmp__s(limit));
		sb_add(&m, "; the lower bound of the group is %llu byte%s)",
		       (unsigned long long)v->lower_bound,
		       usmp__s(v->lower_bound));
	}
	sb_add(&m, ": fix one of them at other bytes or in another pool (a "
	       "file's \"fixed\", usmp_problem_set_fixed), or make them live "
	       "at different steps");
	if (m.oom || record(plan, vs, &c, &none, group, v->lower_bound, algo)) {
		free(m.s);
		usmp__cert_free(&c);
		goto nomem;
	}
	usmp__cert_free(&c);
	usmp__plan_set_error(plan, USMP_ERR_INFEASIBLE, m.s);
	free(m.s);
	st = USMP_ERR_INFEASIBLE;
	goto out;
nomem:
	st = usmp__plan_set_error(plan, USMP_ERR_NOMEM, "out of memory");
out:
	usmp__free_msg(&msg);
	free(pl);
	free(ids);
	usmp__view_finish(&sub);
	return st;
}
