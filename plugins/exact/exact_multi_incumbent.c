/* exact_multi_incumbent.c — first plans for the search of several pools:
 * the greedy in four orders (onto rule partners or not), the time sweep. */
#include "exact_multi.h"

#include <stdio.h>
#include <string.h>

/* The greedy's orders: larger first (kind 0); or buffers with fewer
 * candidate pools first (they have nowhere else to go), then larger first
 * (kind 1), earlier first (kind 2, as a schedule allocates) or
 * longer-lived first (kind 3). */
static bool greedy_before(const usmp_view *v, int kind, uint32_t a,
                          uint32_t b)
{
	const usmp_buffer_rec *x = &v->buffers[a], *y = &v->buffers[b];
	if (kind > 0 && x->candidate_count != y->candidate_count)
		return x->candidate_count < y->candidate_count;
	bool lx = x->flags & USMP_BUFFER_LIVE, ly = y->flags & USMP_BUFFER_LIVE;
	if (kind == 2 && lx && ly && x->begin != y->begin)
		return x->begin < y->begin;
	/* Lengths in uint64: end - begin overflows int64 for ranges wider
	 * than 2^63 - 1 (end > begin, so the unsigned difference is exact). */
	uint64_t dx = (uint64_t)x->end - (uint64_t)x->begin;
	uint64_t dy = (uint64_t)y->end - (uint64_t)y->begin;
	if (kind == 3 && lx && ly && dx != dy)
		return dx > dy;
	return x->size > y->size;
}

/* Where the greedy puts b in pool p when rule pairs may share: the lowest
 * offset, or the one sharing most with a placed rule partner (dst at src +
 * min(lead, 0), src at dst - min(lead, 0)) when that fits and raises the
 * pool's top no more. */
static uint64_t onto_partner(const xact_mp *s, uint32_t b, uint32_t p)
{
	uint64_t best = xact_mp_lowest(s, b, p, 0), sz = s->v->buffers[b].size,
	         top = 0;
	uint64_t a = usmp_buffer_alignment(s->v, b, p);
	const uint32_t *l = s->plist + (size_t)p * s->n;
	for (uint32_t i = 0; i < s->pcount[p]; i++) {
		uint64_t e = s->off[l[i]] + s->v->buffers[l[i]].size;
		top = e > top ? e : top;
	}
	uint64_t cost = best + sz > top ? best + sz : top;
	for (uint32_t i = 0; i < s->pcount[p]; i++) {
		uint32_t c = l[i];
		int64_t bc = s->leadm[(size_t)b * s->n + c];
		int64_t cb = s->leadm[(size_t)c * s->n + b];
		int64_t oc = (int64_t)s->off[c], x;
		if (cb != INT64_MIN) /* b is dst: at or below oc + lead */
			x = (oc + (cb < 0 ? cb : 0)) / (int64_t)a * (int64_t)a;
		else if (bc != INT64_MIN) /* b is src: from oc - lead on */
			x = (oc - (bc < 0 ? bc : 0) + (int64_t)a - 1) /
			    (int64_t)a * (int64_t)a;
		else
			continue;
		uint64_t e = (uint64_t)x + sz > top ? (uint64_t)x + sz : top;
		if (x < 0 || e > cost ||
		    xact_mp_lowest(s, b, p, (uint64_t)x) != (uint64_t)x)
			continue;
		best = (uint64_t)x;
		cost = e;
	}
	return best;
}

/* A first plan: each buffer, in one of the orders above, at the lowest
 * offset of its first candidate pool where it fits (or, with onto, where
 * onto_partner puts it). Not canonical; only an incumbent. */
void xact_mp_greedy(xact_mp *s, int kind, bool onto)
{
	const usmp_view *v = s->v;
	uint32_t *order = s->h->alloc(s->h, (size_t)s->n * sizeof *order);
	if (!order)
		return;
	uint32_t k = 0;
	for (uint32_t b = 0; b < s->n; b++)
		if (s->pool[b] == USMP_NO_POOL)
			order[k++] = b;
	for (uint32_t i = 1; i < k; i++) {
		uint32_t t = order[i], j = i;
		while (j > 0 && greedy_before(v, kind, t, order[j - 1])) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = t;
	}
	uint32_t done = 0;
	for (; done < k; done++) {
		uint32_t b = order[done], cc;
		const uint32_t *c = cands(s, b, &cc);
		bool ok = false;
		for (uint32_t j = 0; j < cc && !ok; j++) {
			uint32_t p = c[j];
			uint64_t x = onto ? onto_partner(s, b, p)
			                  : xact_mp_lowest(s, b, p, 0);
			if (x + v->buffers[b].size <= s->limit[p]) {
				xact_mp_place(s, b, p, x);
				ok = true;
			}
		}
		if (!ok)
			break;
	}
	if (done == k) {
		uint64_t save[64];
		memcpy(save, s->hw, (size_t)s->P * sizeof *s->hw);
		for (uint32_t b = 0; b < s->n; b++)
			if (s->pool[b] != USMP_NO_POOL &&
			    s->off[b] + v->buffers[b].size > s->hw[s->pool[b]])
				s->hw[s->pool[b]] = s->off[b] + v->buffers[b].size;
		xact_mp_record(s);
		memcpy(s->hw, save, (size_t)s->P * sizeof *s->hw);
	}
	while (done > 0)
		xact_mp_unplace(s, order[--done]);
	s->h->free(s->h, order);
}

/* An incumbent from the time-order sweep (exact_sweep.c): every buffer in
 * its first pool (so no spill beyond the fixed buffers'), each pool capped
 * at the most its buffers' charges stack to in one time section (the
 * least any such plan can reach), then, bisecting, at caps between the
 * largest that gave nothing and the best plan (at most 16 sweeps). A
 * plan there is valid with the rules; the search's root bound then proves
 * it or not. */
void xact_mp_sweep_incumbent(xact_mp *s)
{
	const usmp_view *v = s->v;
	const usmp_host *h = s->h;
	uint32_t *pin = h->alloc(h, (s->n ? s->n : 1) * sizeof *pin);
	uint64_t cap[64], base[64];
	bool open[64] = {false};
	if (!pin)
		return;
	for (uint32_t b = 0; b < s->n; b++) {
		pin[b] = s->pool[b] != USMP_NO_POOL ? s->pool[b] : first_cand(s, b);
		if (s->pool[b] == USMP_NO_POOL)
			open[pin[b]] = true;
	}
	for (uint32_t p = 0; p < s->P; p++)
		base[p] = s->hw[p];
	for (uint32_t b = 0; b < s->n; b++)
		if (v->buffers[b].size > base[pin[b]])
			base[pin[b]] = v->buffers[b].size;
	for (uint32_t t = 0; t < s->nsect; t++) {
		uint64_t sum[64] = {0};
		for (uint32_t i = s->sect_start[t]; i < s->sect_start[t + 1]; i++)
			sum[pin[s->sect_mem[i]]] += s->charge[i];
		for (uint32_t p = 0; p < s->P; p++)
			if (sum[p] > base[p])
				base[p] = sum[p];
	}
	uint64_t least = 0;
	uint32_t nopen = 0;
	for (uint32_t p = 0; p < s->P; p++) {
		if (base[p] > s->limit[p])
			goto done;
		least += base[p];
		nopen += open[p];
	}
	if (!nopen)
		goto done;
	if (s->have && (s->best_spill < s->spill ||
	                (s->best_spill == s->spill && s->best_total <= least)))
		goto done;
	/* d: what each open pool's cap adds; the least first, then a
	 * bisection between the most that found nothing and the best plan */
	uint64_t lo = 0, hi = s->have ? (s->best_total - least) / nopen : 0;
	for (int k = 0; k < 16; k++) {
		uint64_t d = k == 0 ? 0 : (lo + (hi - lo) / 2) / 16 * 16;
		if (k > 0 && (!s->have || d <= lo || d >= hi))
			break;
		uint64_t tot = 0;
		for (uint32_t p = 0; p < s->P; p++) {
			cap[p] = base[p] + (open[p] ? d : 0);
			if (cap[p] > s->limit[p])
				cap[p] = s->limit[p];
			tot += cap[p];
		}
		if (s->have && s->best_spill == s->spill && tot >= s->best_total)
			break;
		int r = xact_sweep(v, h, pin, cap, 200000 + 4000 * (uint64_t)s->n,
		                   s->clk, s->ybuf);
		char msg[160];
		snprintf(msg, sizeof msg, "exact: sweep at size %llu: %s",
		         (unsigned long long)tot,
		         r == XACT_FOUND ? "plan found" : "none within its budget");
		h->log(h, USMP_LOG_DEBUG, msg);
		if (r == XACT_STOPPED || r == XACT_NOMEM)
			break;
		if (r != XACT_FOUND) {
			lo = d;
			continue;
		}
		hi = d;
		uint64_t hw[64] = {0}, total = 0;
		for (uint32_t b = 0; b < s->n; b++) {
			uint64_t e = s->ybuf[b] + v->buffers[b].size;
			if (e > hw[pin[b]])
				hw[pin[b]] = e;
		}
		for (uint32_t p = 0; p < s->P; p++)
			total += hw[p];
		if (xact_mp_better(s, s->spill, total)) {
			memcpy(s->bpool, pin, (size_t)s->n * sizeof *pin);
			memcpy(s->boff, s->ybuf, (size_t)s->n * sizeof *s->boff);
			s->have = true;
			s->best_spill = s->spill;
			s->best_total = total;
			if (h->progress)
				h->progress(h, total);
		}
		if (k == 0)
			break; /* at the least: nothing is smaller */
	}
done:
	h->free(h, pin);
}
