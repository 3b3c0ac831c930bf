/* exact_multi_rules.c — overlap rules in the search of several pools:
 * conflict bits per mode, what rule pairs may share, the sharing tie order. */
#include "exact_multi.h"

#include <string.h>

/* Conflict bits: live ranges and edges; in the relaxed mode, a rule pair
 * that could share bytes does not conflict at all. */
void xact_mp_build_conflicts(xact_mp *s, bool relaxed)
{
	const usmp_view *v = s->v;
	memset(s->conf, 0, (size_t)s->n * s->W * sizeof *s->conf);
	for (uint32_t a = 0; a < s->n; a++) {
		for (uint32_t b = a + 1; b < s->n; b++)
			if (usmp_live_overlap(v, a, b))
				set_conflict(s, a, b, true);
		if (v->conflict_start)
			for (uint64_t e = v->conflict_start[a];
			     e < v->conflict_start[a + 1]; e++)
				set_conflict(s, a, v->conflict_adj[e], true);
	}
	if (!relaxed)
		return;
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		int64_t sd = (int64_t)v->buffers[o->dst].size;
		if (o->max_lead > -sd)
			set_conflict(s, o->src, o->dst, false);
	}
}

/* True when a rule (src, dst) could let the pair share a byte. */
bool xact_mp_share_rule(const xact_mp *s, uint32_t src, uint32_t dst)
{
	int64_t l = s->leadm[(size_t)src * s->n + dst];
	return l != INT64_MIN && l > -(int64_t)s->v->buffers[dst].size;
}

/* The most bytes a rule pair may share, placed as the rule allows: dst at
 * or below src + lead overlaps src by at most min(size(src), size(dst) +
 * min(lead, 0)); 0 without a rule. */
uint64_t xact_mp_rule_share(const xact_mp *s, uint32_t src, uint32_t dst)
{
	int64_t l = s->leadm[(size_t)src * s->n + dst];
	if (l == INT64_MIN)
		return 0;
	int64_t ss = (int64_t)s->v->buffers[src].size;
	int64_t sd = (int64_t)s->v->buffers[dst].size + (l < 0 ? l : 0);
	int64_t m = ss < sd ? ss : sd;
	return m > 0 ? (uint64_t)m : 0;
}

/* True when some rule lets a conflicting pair share bytes. */
bool xact_mp_sharing_rules(xact_mp *s)
{
	const usmp_view *v = s->v;
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		int64_t sd = (int64_t)v->buffers[o->dst].size;
		if (o->max_lead > -sd && conflicts(s, o->src, o->dst))
			return true;
	}
	return false;
}

/* The best plan obeys every rule (pairs placed apart or as allowed). */
bool xact_mp_rules_hold(const xact_mp *s)
{
	const usmp_view *v = s->v;
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		uint32_t a = o->src, b = o->dst;
		bool conflict = usmp_live_overlap(v, a, b);
		for (uint64_t e = v->conflict_start ? v->conflict_start[a] : 0;
		     v->conflict_start && e < v->conflict_start[a + 1]; e++)
			conflict |= v->conflict_adj[e] == b;
		if (!conflict || s->bpool[a] != s->bpool[b])
			continue;
		uint64_t oa = s->boff[a], ob = s->boff[b];
		if (oa >= ob + v->buffers[b].size || ob >= oa + v->buffers[a].size)
			continue;
		if ((int64_t)ob > (int64_t)oa + o->max_lead)
			return false;
	}
	return true;
}

/* Whether overlapping a at xa and b at xb obeys a rule between them. */
bool xact_mp_rule_holds(const xact_mp *s, uint32_t a, uint32_t b, uint64_t xa,
                        uint64_t xb)
{
	int64_t ab = s->leadm[(size_t)a * s->n + b];
	int64_t ba = s->leadm[(size_t)b * s->n + a];
	return (ab != INT64_MIN && (int64_t)xb <= (int64_t)xa + ab) ||
	       (ba != INT64_MIN && (int64_t)xa <= (int64_t)xb + ba);
}

/* When no sharing rule has max_lead > 0, the search where rule pairs
 * share as their rules allow is complete if equal offsets are tied with
 * each in-place dst (max_lead 0) before its src. Proof: move buffers of
 * an optimal plan down one at a time while one can move (never worse);
 * list the end result by (offset, tie order). A buffer b lower than its
 * offset z would fit among the buffers listed before it unless a later c
 * (offset >= z) stops it there; at z, b overlaps such a c, so they share
 * by a rule: b as dst would be above c + lead <= c (already wrong at z);
 * b as src needs c <= z + lead <= z, so c == z, lead == 0, and c (the
 * dst) is listed before b. So every buffer is at the lowest offset the
 * earlier ones leave: the search's canonical plans include it. Sets
 * s->nrank to that order (larger first, then by index, dst before src as
 * a topological order of the rules); leaves it NULL when some sharing rule
 * has max_lead > 0 or the rules close a cycle. Returns a usmp_status. */
int xact_mp_native_order(xact_mp *s)
{
	const usmp_view *v = s->v;
	const usmp_host *h = s->h;
	size_t n = s->n ? s->n : 1;
	uint32_t *need = NULL, *nr = NULL;
	bool *out = NULL;
	int rc = USMP_OK;
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		if (xact_mp_share_rule(s, o->src, o->dst) && conflicts(s, o->src, o->dst) &&
		    o->max_lead > 0)
			goto done;
	}
	rc = USMP_ERR_NOMEM;
	if (!(need = h->alloc(h, n * sizeof *need)) ||
	    !(nr = h->alloc(h, n * sizeof *nr)) ||
	    !(out = h->alloc(h, n * sizeof *out)))
		goto done;
	memset(need, 0, n * sizeof *need);
	memset(out, 0, n * sizeof *out);
	/* need[src]: its in-place dsts not yet in the order */
	for (uint64_t r = 0; r < v->overlap_count; r++) {
		const usmp_overlap_rec *o = &v->overlaps[r];
		if (o->max_lead == 0 && xact_mp_share_rule(s, o->src, o->dst) &&
		    conflicts(s, o->src, o->dst))
			need[o->src]++;
	}
	for (uint32_t k = 0; k < s->n; k++) {
		uint32_t pick = UINT32_MAX;
		for (uint32_t b = 0; b < s->n; b++)
			if (!out[b] && !need[b] &&
			    (pick == UINT32_MAX || s->prank[b] < s->prank[pick]))
				pick = b;
		if (pick == UINT32_MAX) { /* a cycle: no such order */
			rc = USMP_OK;
			goto done;
		}
		out[pick] = true;
		nr[pick] = k;
		for (uint64_t r = 0; r < v->overlap_count; r++) {
			const usmp_overlap_rec *o = &v->overlaps[r];
			if (o->dst == pick && o->max_lead == 0 &&
			    xact_mp_share_rule(s, o->src, o->dst) &&
			    conflicts(s, o->src, o->dst))
				need[o->src]--;
		}
	}
	s->nrank = nr;
	nr = NULL;
	rc = USMP_OK;
done:
	if (need)
		h->free(h, need);
	if (nr)
		h->free(h, nr);
	if (out)
		h->free(h, out);
	return rc;
}
