/* fuzz_verify.c — decodes the fuzz bytes into a small view and placements and
 * checks that usmp__verify never crashes and agrees with an all-pairs check. */
#include "fuzz.h"
#include "internal.h"

#include <string.h>

#define MAX_POOLS 3
#define MAX_BUFFERS 10
#define MAX_EDGES 12
#define MAX_RULES 6

typedef struct reader {
	const uint8_t *p;
	size_t left;
} reader;

/* The next byte, 0 once the input is used up. */
static uint8_t next(reader *r)
{
	if (!r->left)
		return 0;
	r->left--;
	return *r->p++;
}

/* A small offset or, rarely, one near the top of the 64-bit range. */
static uint64_t offset_from(reader *r)
{
	uint8_t b = next(r);
	if (b == 255)
		return UINT64_MAX - next(r);
	if (b == 254)
		return (uint64_t)1 << 63;
	return (uint64_t)b * (1u << (next(r) % 4));
}

typedef struct fuzz_view {
	usmp_view v;
	usmp_pool_rec pools[MAX_POOLS];
	usmp_buffer_rec buffers[MAX_BUFFERS];
	uint32_t candidates[MAX_BUFFERS * MAX_POOLS];
	uint64_t start[MAX_BUFFERS + 1];
	uint32_t adj[2 * MAX_EDGES];
	uint64_t degree[MAX_BUFFERS];
	usmp_overlap_rec rules[MAX_RULES];
	int edge[MAX_BUFFERS][MAX_BUFFERS];
	int has_rule[MAX_BUFFERS][MAX_BUFFERS];
	int64_t lead[MAX_BUFFERS][MAX_BUFFERS];
	usmp_placement pl[MAX_BUFFERS];
} fuzz_view;

static const char *const pool_names[MAX_POOLS] = {"p0", "p1", "p2"};
static const char *const buffer_names[MAX_BUFFERS] = {
	"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9"};

static void decode(fuzz_view *f, reader *r)
{
	memset(f, 0, sizeof *f);
	uint32_t P = 1 + next(r) % MAX_POOLS;
	uint32_t n = next(r) % (MAX_BUFFERS + 1);
	for (uint32_t q = 0; q < P; q++) {
		uint8_t lim = next(r);
		f->pools[q].name = pool_names[q];
		f->pools[q].size_limit = lim == 0 ? USMP_UNBOUNDED
		                         : lim == 1 ? UINT64_MAX - 1
		                                    : (uint64_t)lim * 2;
		f->pools[q].alignment = (uint64_t)1 << (next(r) % 4);
	}
	uint32_t cand_used = 0;
	for (uint32_t b = 0; b < n; b++) {
		usmp_buffer_rec *br = &f->buffers[b];
		uint8_t sz = next(r), flags = next(r);
		br->name = buffer_names[b];
		br->size = sz == 255 ? UINT64_MAX - next(r)
		           : sz == 254 ? (uint64_t)1 << 63
		                       : 1 + (uint64_t)(sz % 64);
		br->alignment = (uint64_t)1 << (next(r) % 5);
		if (flags & 1) {
			br->flags |= USMP_BUFFER_LIVE;
			br->begin = (int64_t)(next(r) % 8) - 2;
			br->end = br->begin + 1 + next(r) % 8;
			if (flags & 8) { /* the extremes of the time axis */
				br->begin = INT64_MIN;
				br->end = (flags & 16) ? INT64_MAX : br->end;
			}
		}
		/* Candidates: a non-empty pool set in a rotated order. */
		uint32_t mask = (flags >> 5) % (1u << P);
		if (!mask)
			mask = (1u << P) - 1;
		br->candidate_start = cand_used;
		uint32_t rot = next(r) % P;
		for (uint32_t i = 0; i < P; i++) {
			uint32_t q = (i + rot) % P;
			if (mask & (1u << q))
				f->candidates[cand_used++] = q;
		}
		br->candidate_count = cand_used - (uint32_t)br->candidate_start;
		if (flags & 2) {
			br->flags |= USMP_BUFFER_FIXED;
			br->fixed_pool = f->candidates[br->candidate_start];
			br->fixed_offset = offset_from(r);
		}
	}
	uint32_t e = n >= 2 ? next(r) % (MAX_EDGES + 1) : 0;
	for (uint32_t i = 0; i < e; i++) {
		uint32_t a = next(r) % n, b = next(r) % n;
		if (a != b)
			f->edge[a][b] = f->edge[b][a] = 1;
	}
	uint32_t k = 0;
	for (uint32_t a = 0; a < n; a++) {
		f->start[a] = k;
		for (uint32_t b = 0; b < n; b++)
			if (f->edge[a][b])
				f->adj[k++] = b;
	}
	f->start[n] = k;
	uint32_t m = n >= 2 ? next(r) % (MAX_RULES + 1) : 0;
	for (uint32_t i = 0; i < m; i++) {
		uint32_t s = next(r) % n, d = next(r) % n;
		int64_t lead = (int64_t)(int8_t)next(r);
		if (s != d && !f->has_rule[s][d]) {
			f->has_rule[s][d] = 1;
			f->lead[s][d] = lead;
		}
	}
	m = 0;
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t d = 0; d < n; d++)
			if (f->has_rule[s][d])
				f->rules[m++] = (usmp_overlap_rec){s, d, f->lead[s][d]};
	/* Placements: mostly a candidate pool, sometimes none or out of range. */
	for (uint32_t b = 0; b < n; b++) {
		uint8_t how = next(r);
		const usmp_buffer_rec *br = &f->buffers[b];
		if (how == 255)
			f->pl[b].pool = USMP_NO_POOL;
		else if (how == 254)
			f->pl[b].pool = P + (next(r) % 2);
		else
			f->pl[b].pool = (how & 128) ? how % P
			                : f->candidates[br->candidate_start +
			                                how % br->candidate_count];
		if ((br->flags & USMP_BUFFER_FIXED) && (how & 64)) {
			f->pl[b].pool = br->fixed_pool;
			f->pl[b].offset = br->fixed_offset;
		} else {
			f->pl[b].offset = offset_from(r);
		}
	}
	f->v.struct_size = sizeof f->v;
	f->v.pool_count = P;
	f->v.buffer_count = n;
	f->v.pools = f->pools;
	f->v.buffers = f->buffers;
	f->v.candidates = f->candidates;
	f->v.conflict_start = f->start;
	f->v.conflict_adj = f->adj;
	f->v.degree = f->degree;
	f->v.overlaps = f->rules;
	f->v.overlap_count = m;
	f->v.target = "";
}

static int live_meet(const usmp_buffer_rec *a, const usmp_buffer_rec *b)
{
	return (a->flags & USMP_BUFFER_LIVE) && (b->flags & USMP_BUFFER_LIVE) &&
	       a->begin < b->end && b->begin < a->end;
}

/* offset(dst) <= offset(src) + lead, in 128-bit arithmetic. */
static int rule_ok(const fuzz_view *f, uint32_t s, uint32_t d)
{
	return f->has_rule[s][d] &&
	       (__int128)f->pl[d].offset <=
	               (__int128)f->pl[s].offset + (__int128)f->lead[s][d];
}

/* The plan's validity by definition, every pair looked at. */
static int brute_valid(const fuzz_view *f)
{
	const usmp_view *v = &f->v;
	for (uint32_t b = 0; b < v->buffer_count; b++) {
		const usmp_buffer_rec *br = &v->buffers[b];
		uint32_t q = f->pl[b].pool;
		uint64_t off = f->pl[b].offset;
		if (q >= v->pool_count)
			return 0;
		if ((br->flags & USMP_BUFFER_FIXED) &&
		    (q != br->fixed_pool || off != br->fixed_offset))
			return 0;
		int cand = 0;
		for (uint32_t c = 0; c < br->candidate_count; c++)
			cand |= v->candidates[br->candidate_start + c] == q;
		if (!cand)
			return 0;
		if (off % br->alignment || off % v->pools[q].alignment)
			return 0;
		if ((unsigned __int128)off + br->size > v->pools[q].size_limit)
			return 0;
	}
	for (uint32_t a = 0; a < v->buffer_count; a++)
		for (uint32_t b = a + 1; b < v->buffer_count; b++) {
			if (f->pl[a].pool != f->pl[b].pool)
				continue;
			if (!f->edge[a][b] && !live_meet(&v->buffers[a], &v->buffers[b]))
				continue;
			unsigned __int128 oa = f->pl[a].offset, ob = f->pl[b].offset;
			if (oa >= ob + v->buffers[b].size || ob >= oa + v->buffers[a].size)
				continue;
			if (rule_ok(f, a, b) || rule_ok(f, b, a))
				continue;
			return 0;
		}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_view f;
	reader r = {data, size};
	char *msg = NULL;

	decode(&f, &r);
	int rc = usmp__verify(&f.v, f.pl, &msg);
	int want = brute_valid(&f);
	if ((rc == USMP_OK) != want) {
		fprintf(stderr, "verifier says %d (%s), all pairs say %s\n", rc,
		        msg ? msg : "", want ? "valid" : "invalid");
		for (uint32_t b = 0; b < f.v.buffer_count; b++)
			fprintf(stderr, "  %s size %llu align %llu live %d [%lld,%lld) "
			        "pool %u offset %llu\n", f.buffers[b].name,
			        (unsigned long long)f.buffers[b].size,
			        (unsigned long long)f.buffers[b].alignment,
			        (int)(f.buffers[b].flags & 1),
			        (long long)f.buffers[b].begin,
			        (long long)f.buffers[b].end, f.pl[b].pool,
			        (unsigned long long)f.pl[b].offset);
	}
	FUZZ_CHECK((rc == USMP_OK) == want);
	if (rc != USMP_OK)
		FUZZ_CHECK(rc == USMP_ERR_INVALID_PLAN && msg && *msg);
	usmp__free_msg(&msg);
	return 0;
}
