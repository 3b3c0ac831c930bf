/* fit_scan.c — the gap scan of one placement: the forbidden start ranges put
 * in order of start (bucket sort, quicksort, heapsort) and walked for a gap. */
#include "fit_ctx.h"

/* Sort ranges by start (the scan needs only that): insertion sort for
 * short runs, quicksort above, heapsort when quicksort degenerates. */
static void fit_sift(fit_range *r, size_t i, size_t n)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1;
		if (l < n && r[l].a > r[m].a)
			m = l;
		if (l + 1 < n && r[l + 1].a > r[m].a)
			m = l + 1;
		if (m == i)
			return;
		fit_range t = r[i];
		r[i] = r[m];
		r[m] = t;
		i = m;
	}
}

static void fit_sort_ranges(fit_range *r, size_t n, int depth)
{
	while (n > 16) {
		if (depth-- == 0) {
			for (size_t i = n / 2; i-- > 0;)
				fit_sift(r, i, n);
			for (size_t i = n; i-- > 1;) {
				fit_range t = r[0];
				r[0] = r[i];
				r[i] = t;
				fit_sift(r, 0, i);
			}
			return;
		}
		uint64_t x = r[0].a, y = r[n / 2].a, z = r[n - 1].a;
		uint64_t piv = x < y ? (y < z ? y : (x < z ? z : x))
		                     : (x < z ? x : (y < z ? z : y));
		size_t i = 0, j = n - 1;
		for (;;) {
			while (r[i].a < piv)
				i++;
			while (r[j].a > piv)
				j--;
			if (i >= j)
				break;
			fit_range t = r[i];
			r[i] = r[j];
			r[j] = t;
			i++;
			j--;
		}
		/* [0, j] <= piv <= [j+1, n) */
		size_t left = j + 1;
		if (left < n - left) {
			fit_sort_ranges(r, left, depth);
			r += left;
			n -= left;
		} else {
			fit_sort_ranges(r + left, n - left, depth);
			n = left;
		}
	}
	for (size_t i = 1; i < n; i++) {
		fit_range t = r[i];
		size_t j = i;
		while (j > 0 && r[j - 1].a > t.a) {
			r[j] = r[j - 1];
			j--;
		}
		r[j] = t;
	}
}

/* Scan the next ranges r[0..n) (sorted, none starting before earlier
 * ones); sets st->stop when the answer is known (first fit found, or the
 * gaps left are past the limit). */
static void fit_scan_run(fit_scan *st, const fit_range *r, size_t n)
{
	uint64_t s = st->s;
	for (size_t i = 0; i < n; i++) {
		if (r[i].a > s) {
			bool ok = true;
			uint64_t cx = usmp_align_up(s, st->align, &ok);
			if (!ok) {
				st->stop = true;
				break;
			}
			if (cx < r[i].a) {
				uint64_t endx = cx + st->size;
				if (endx < cx || endx > st->limit) {
					st->stop = true; /* higher gaps fit no better */
					break;
				}
				uint64_t len = r[i].a - s;
				if (!st->best_fit) {
					st->best_x = cx;
					st->found = true;
					st->stop = true;
					break;
				}
				if (len < st->best_len) {
					st->best_len = len;
					st->best_x = cx;
					st->found = true;
				}
			}
		}
		if (r[i].b > s)
			s = r[i].b;
	}
	st->s = s;
}

/* Sort a large bucket: they are large mostly because many ranges share
 * the lowest start (0, or one offset reused over time), so those go to
 * the front in one pass and only the rest is sorted. */
static void fit_sort_skewed(fit_range *r, size_t n)
{
	if (n < 2)
		return;
	uint64_t lo = r[0].a;
	for (size_t i = 1; i < n; i++)
		if (r[i].a < lo)
			lo = r[i].a;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].a == lo) {
			fit_range t = r[i];
			r[i] = r[k];
			r[k++] = t;
		}
	}
	if (n - k > 1)
		fit_sort_ranges(r + k, n - k, 64);
}

/* Scan r[0..n) in order of start without a comparison sort of all of
 * it: one counting pass puts the ranges into about n buckets by the high
 * bits of (start - lowest start), then each bucket is sorted (they are
 * small) and scanned in turn, and first fit stops at its gap. */
int usmp__fit_scan_sorted(fit_ctx *c, fit_scan *st, fit_range *r, size_t n)
{
	if (n <= 32) {
		fit_sort_ranges(r, n, 64);
		fit_scan_run(st, r, n);
		return USMP_OK;
	}
	uint64_t lo = c->amin, hi = c->amax;
	unsigned shift = 0;
	while (((hi - lo) >> shift) >= n)
		shift++;
	size_t nb = (size_t)((hi - lo) >> shift) + 1;
	int rc;
	if ((rc = fit_grow(c, (void **)&c->bucket, &c->bucket_cap, nb + 1,
	                   sizeof *c->bucket)) ||
	    (rc = fit_grow(c, (void **)&c->sorted, &c->sorted_cap, n,
	                   sizeof *c->sorted)))
		return rc;
	uint32_t *cnt = c->bucket;
	memset(cnt, 0, (nb + 1) * sizeof *cnt);
	for (size_t i = 0; i < n; i++)
		cnt[((r[i].a - lo) >> shift) + 1]++;
	for (size_t i = 1; i <= nb; i++)
		cnt[i] += cnt[i - 1];
	fit_range *out = c->sorted;
	for (size_t i = 0; i < n; i++)
		out[cnt[(r[i].a - lo) >> shift]++] = r[i];
	/* now cnt[i] is the end of bucket i; sort the buckets and scan them
	 * in batches */
	size_t from = 0, scanned = 0;
	for (size_t i = 0; i < nb; i++) {
		size_t to = cnt[i];
		if (to - from > 16) {
			fit_sort_skewed(out + from, to - from);
		} else {
			for (size_t j = from + 1; j < to; j++) {
				fit_range t = out[j];
				size_t q = j;
				while (q > from && out[q - 1].a > t.a) {
					out[q] = out[q - 1];
					q--;
				}
				out[q] = t;
			}
		}
		from = to;
		if (to - scanned >= 256 || i + 1 == nb) {
			fit_scan_run(st, out + scanned, to - scanned);
			scanned = to;
			if (st->stop)
				break;
		}
	}
	return USMP_OK;
}

