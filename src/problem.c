/* problem.c — the problem a host builds: pools, buffers, live ranges,
 * candidates, fixed placements, conflicts and overlap rules, all validated. */
#include "problem.h"

#include <stdlib.h>
#include <string.h>

/* ---- life cycle ---------------------------------------------------------- */

usmp_problem *usmp_problem_create(void)
{
	usmp_problem *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	usmp__strmap_init(&p->pool_names);
	usmp__strmap_init(&p->buffer_names);
	return p;
}

void usmp__problem_changed(usmp_problem *p)
{
	free(p->buffer_group);
	free(p->pool_group);
	free(p->group_bound);
	p->buffer_group = NULL;
	p->pool_group = NULL;
	p->group_bound = NULL;
	p->group_count = 0;
	p->prepared = 0;
	usmp__problem_drop_part_index(p);
}

void usmp__problem_clear(usmp_problem *p)
{
	size_t i;

	if (!p)
		return;
	usmp__problem_changed(p);
	for (i = 0; i < p->pool_count; i++) {
		free(p->pools[i].targets);
		if (p->pools[i].target_set)
			usmp__strmap_finish(p->pools[i].target_set);
		free(p->pools[i].target_set);
	}
	for (i = 0; i < p->buffer_count; i++)
		free(p->buffers[i].candidates);
	free(p->pools);
	free(p->buffers);
	free(p->edges);
	free(p->overlaps);
	free(p->overlap_set);
	free(p->cand_set);
	usmp__strmap_finish(&p->pool_names);
	usmp__strmap_finish(&p->buffer_names);
	usmp__names_free(p);
	p->pools = NULL;
	p->pool_count = p->pool_cap = 0;
	p->buffers = NULL;
	p->buffer_count = p->buffer_cap = 0;
	p->edges = NULL;
	p->edge_count = p->edge_cap = 0;
	p->overlaps = NULL;
	p->overlap_count = p->overlap_cap = 0;
	p->overlap_set = NULL;
	p->overlap_set_cap = 0;
	p->cand_set = NULL;
	p->cand_set_cap = p->cand_set_count = 0;
	p->csv_columns = 0;
	/* p->error stays: a reader sets its message, then empties p. */
}

void usmp_problem_destroy(usmp_problem *p)
{
	if (!p)
		return;
	usmp__problem_clear(p);
	usmp__free_msg(&p->error);
	free(p);
}

const char *usmp_problem_error(const usmp_problem *p)
{
	if (!p || !p->error)
		return "";
	return p->error;
}

int usmp__problem_fail(usmp_problem *p, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	usmp__vset_msg(&p->error, fmt, ap);
	va_end(ap);
	return status;
}

int usmp__read_fail(usmp_problem *p, int status, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	usmp__vset_msg(&msg, fmt, ap);
	va_end(ap);
	usmp__problem_clear(p);
	usmp__problem_fail(p, status, "%s", msg);
	usmp__free_msg(&msg);
	return status;
}

/* ---- validation helpers -------------------------------------------------- */

static bool is_pow2(uint64_t x)
{
	return x != 0 && (x & (x - 1)) == 0;
}

/* A new name of a pool or buffer (kind) must exist, be non-empty and unused. */
static int check_new_name(usmp_problem *p, const char *kind,
                          const usmp__strmap *names, const char *name)
{
	uint32_t other;

	if (!name)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "%s name is missing (NULL)", kind);
	if (!*name)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "%s name is empty", kind);
	if (usmp__strmap_get(names, name, &other) == USMP_OK)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "%s \"%s\": name already used by %s %u",
		                          kind, name, kind, other);
	return USMP_OK;
}

/* An index of a record of `kind` ("buffer", "pool") of which there are
 * `count`, given for `what`, must be below count. */
static int check_index(usmp_problem *p, const char *what, const char *kind,
                       uint32_t index, size_t count)
{
	if (index >= count)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "%s: %s index %u out of range (%zu %s%s)",
		                          what, kind, index, count, kind,
		                          count == 1 ? "" : "s");
	return USMP_OK;
}

static int check_buffer(usmp_problem *p, uint32_t b, const char *what)
{
	return check_index(p, what, "buffer", b, p->buffer_count);
}

static int check_pool(usmp_problem *p, uint32_t pool, const char *what)
{
	return check_index(p, what, "pool", pool, p->pool_count);
}

/* A pool a buffer names (as its `what`: "fixed", "candidate") must exist. */
static int check_pool_of(usmp_problem *p, const usmp__buffer *buf,
                         const char *what, uint32_t pool)
{
	if (pool >= p->pool_count)
		return usmp__problem_fail(
			p, USMP_ERR_INVALID,
			"buffer \"%s\": %s pool %u does not exist (%zu pool%s)",
			buf->name, what, pool, p->pool_count,
			p->pool_count == 1 ? "" : "s");
	return USMP_OK;
}

/* The two buffers a conflict or an overlap rule (kind) joins: each in
 * range, and not one buffer twice (then "KIND: buffer "NAME" SAME"). */
static int check_pair(usmp_problem *p, const char *kind, uint32_t a,
                      const char *what_a, uint32_t b, const char *what_b,
                      const char *same)
{
	int rc = check_buffer(p, a, what_a);
	if (!rc)
		rc = check_buffer(p, b, what_b);
	if (rc)
		return rc;
	if (a == b)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "%s: buffer \"%s\" %s", kind,
		                          p->buffers[a].name, same);
	return USMP_OK;
}

/* What adding a pool or a buffer shares: normalise and check the alignment
 * (0 means 1), room for one more record of `elem` bytes in *arr, the name
 * copied and indexed under the new record's index `count`. The caller fills
 * the record at index `count` and increments its count. */
static int new_record(usmp_problem *p, const char *kind, usmp__strmap *names,
                      const char *name, uint64_t *alignment, void **arr,
                      size_t *cap, size_t count, size_t elem, char **copy)
{
	if (*alignment == 0)
		*alignment = 1;
	if (!is_pow2(*alignment))
		return usmp__problem_fail(
			p, USMP_ERR_INVALID,
			"%s \"%s\": alignment %llu is not a power of two", kind, name,
			(unsigned long long)*alignment);
	if (count >= UINT32_MAX)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "%s \"%s\": too many %ss", kind, name, kind);
	if (usmp__grow(arr, cap, count + 1, elem) ||
	    !(*copy = usmp__name_copy(p, name)) ||
	    usmp__strmap_put(names, *copy, (uint32_t)count))
		return usmp__problem_fail(p, USMP_ERR_NOMEM,
		                          "%s \"%s\": out of memory", kind, name);
	return USMP_OK;
}

/* ---- pools --------------------------------------------------------------- */

int usmp_problem_add_pool(usmp_problem *p, const char *name,
                          uint64_t size_limit, uint64_t alignment, uint32_t *id)
{
	usmp__pool *pool;
	char *copy = NULL;
	int rc;

	if (!p)
		return USMP_ERR_INVALID;
	rc = check_new_name(p, "pool", &p->pool_names, name);
	if (rc)
		return rc;
	if (size_limit == 0)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "pool \"%s\": size_limit must be positive "
		                          "(USMP_UNBOUNDED for a pool without a "
		                          "limit)", name);
	rc = new_record(p, "pool", &p->pool_names, name, &alignment,
	                (void **)&p->pools, &p->pool_cap, p->pool_count,
	                sizeof(*p->pools), &copy);
	if (rc)
		return rc;
	pool = &p->pools[p->pool_count];
	pool->name = copy;
	pool->size_limit = size_limit;
	pool->alignment = alignment;
	pool->targets = NULL;
	pool->target_count = pool->target_cap = 0;
	pool->target_set = NULL;
	if (id)
		*id = (uint32_t)p->pool_count;
	p->pool_count++;
	usmp__problem_changed(p);
	return USMP_OK;
}

/* Whether pool `pl` names `target` already. A few targets are scanned; from
 * TARGET_SET_MIN on they are kept in a hash set, so a pool naming a
 * million targets is read in linear time. USMP_ERR_NOMEM when the set
 * cannot be built. */
#define TARGET_SET_MIN 16

static int has_target(usmp__pool *pl, const char *target, bool *found)
{
	uint32_t k;

	*found = false;
	if (pl->target_count < TARGET_SET_MIN) {
		for (uint32_t i = 0; i < pl->target_count; i++)
			if (strcmp(pl->targets[i], target) == 0)
				*found = true;
		return USMP_OK;
	}
	if (!pl->target_set) {
		pl->target_set = malloc(sizeof *pl->target_set);
		if (!pl->target_set)
			return USMP_ERR_NOMEM;
		usmp__strmap_init(pl->target_set);
		for (uint32_t i = 0; i < pl->target_count; i++)
			if (usmp__strmap_put(pl->target_set, pl->targets[i], i) ==
			    USMP_ERR_NOMEM)
				goto nomem;
	}
	*found = usmp__strmap_get(pl->target_set, target, &k) == USMP_OK;
	return USMP_OK;
nomem:
	usmp__strmap_finish(pl->target_set);
	free(pl->target_set);
	pl->target_set = NULL;
	return USMP_ERR_NOMEM;
}

int usmp_problem_add_pool_target(usmp_problem *p, uint32_t pool,
                                 const char *target)
{
	usmp__pool *pl;
	char *copy;
	bool found;
	int rc;

	if (!p)
		return USMP_ERR_INVALID;
	rc = check_pool(p, pool, "pool target");
	if (rc)
		return rc;
	pl = &p->pools[pool];
	if (!target || !*target)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "pool \"%s\": target name is %s", pl->name,
		                          target ? "empty" : "missing (NULL)");
	/* Targets form a set: naming one twice changes nothing. */
	if (has_target(pl, target, &found) != USMP_OK)
		goto nomem;
	if (found)
		return USMP_OK;
	if (pl->target_count >= UINT32_MAX)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "pool \"%s\": too many targets", pl->name);
	if (pl->target_count == pl->target_cap) {
		size_t cap = pl->target_cap;
		if (usmp__grow((void **)&pl->targets, &cap,
		               (size_t)pl->target_count + 1,
		               sizeof *pl->targets) != USMP_OK)
			goto nomem;
		pl->target_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
	}
	copy = usmp__name_copy(p, target);
	if (!copy)
		goto nomem;
	if (pl->target_set &&
	    usmp__strmap_put(pl->target_set, copy, pl->target_count) != USMP_OK)
		goto nomem;
	pl->targets[pl->target_count++] = copy;
	usmp__problem_changed(p);
	return USMP_OK;
nomem:
	return usmp__problem_fail(p, USMP_ERR_NOMEM, "pool \"%s\": out of memory",
	                          pl->name);
}

/* ---- buffers ------------------------------------------------------------- */

int usmp__problem_reserve_buffers(usmp_problem *p, size_t count)
{
	if (count > UINT32_MAX)
		count = UINT32_MAX;
	if (usmp__grow((void **)&p->buffers, &p->buffer_cap, count,
	               sizeof(*p->buffers)))
		return USMP_ERR_NOMEM;
	return usmp__strmap_reserve(&p->buffer_names, count);
}

int usmp_problem_add_buffer(usmp_problem *p, const char *name, uint64_t size,
                            uint64_t alignment, uint32_t *id)
{
	usmp__buffer *b;
	char *copy = NULL;
	int rc;

	if (!p)
		return USMP_ERR_INVALID;
	rc = check_new_name(p, "buffer", &p->buffer_names, name);
	if (rc)
		return rc;
	if (size == 0)
		return usmp__problem_fail(p, USMP_ERR_INVALID,
		                          "buffer \"%s\": size must be positive", name);
	rc = new_record(p, "buffer", &p->buffer_names, name, &alignment,
	                (void **)&p->buffers, &p->buffer_cap, p->buffer_count,
	                sizeof(*p->buffers), &copy);
	if (rc)
		return rc;
	b = &p->buffers[p->buffer_count];
	memset(b, 0, sizeof(*b));
	b->name = copy;
	b->size = size;
	b->alignment = alignment;
	b->fixed_pool = USMP_NO_POOL;
	if (id)
		*id = (uint32_t)p->buffer_count;
	p->buffer_count++;
	usmp__problem_changed(p);
	return USMP_OK;
}

int usmp_problem_set_live(usmp_problem *p, uint32_t b, int64_t begin,
                          int64_t end)
{
	usmp__buffer *buf;
	int rc;

	if (!p)
		return USMP_ERR_INVALID;
	rc = check_buffer(p, b, "live range");
	if (rc)
		return rc;
	buf = &p->buffers[b];
	if (end <= begin)
		return usmp__problem_fail(
			p, USMP_ERR_INVALID,
			"buffer \"%s\": live range [%lld, %lld): end must be after "
			"begin%s", buf->name, (long long)begin, (long long)end,
			end == begin && begin < INT64_MAX ? ": the range excludes its end, so a buffer "
			"alive only at step t is [t, t + 1) (an inclusive last "
			"step + 1)" : "");
	buf->begin = begin;
	buf->end = end;
	buf->flags |= USMP_BUFFER_LIVE;
	usmp__problem_changed(p);
	return USMP_OK;
}

/* Whether `pool` is a candidate of buffer b already: a scan of a short list,
 * the (buffer, pool) set for a long one, so a buffer naming a million
 * candidate pools is read in linear time. */
#define CAND_SET_MIN 16

static bool is_candidate(const usmp_problem *p, uint32_t b, uint32_t pool)
{
	const usmp__buffer *buf = &p->buffers[b];

	if (buf->candidate_count < CAND_SET_MIN) {
		for (uint32_t i = 0; i < buf->candidate_count; i++)
			if (buf->candidates[i] == pool)
				return true;
		return false;
	}
	return usmp__pair_set_has(p->cand_set, p->cand_set_cap, (uint64_t)b << 32 | pool);
}

int usmp_problem_add_candidate(usmp_problem *p, uint32_t b, uint32_t pool)
{
	usmp__buffer *buf;
	size_t cap;
	int rc;

	if (!p)
		return USMP_ERR_INVALID;
	rc = check_buffer(p, b, "candidate pool");
	if (rc)
		return rc;
	buf = &p->buffers[b];
	rc = check_pool_of(p, buf, "candidate", pool);
	if (rc)
		return rc;
	if (is_candidate(p, b, pool))
		return usmp__problem_fail(
			p, USMP_ERR_INVALID,
			"buffer \"%s\": pool \"%s\" is already a candidate",
			buf->name, p->pools[pool].name);
	/* candidate_count <= pool_count < UINT32_MAX: no overflow below. */
	cap = buf->candidate_cap;
	if (buf->candidate_count + 1 > cap) {
		size_t ncap = cap ? cap * 2 : 2;
		uint32_t *n;

		if (ncap > p->pool_count)
			ncap = p->pool_count;
		n = realloc(buf->candidates, ncap * sizeof(*n));
		if (!n)
			goto nomem;
		buf->candidates = n;
		buf->candidate_cap = (uint32_t)ncap;
	}
	/* From CAND_SET_MIN candidates on, the buffer's pairs are in the set
	 * (all of them, put there when it reaches CAND_SET_MIN). */
	if (buf->candidate_count + 1 >= CAND_SET_MIN) {
		uint32_t from = buf->candidate_count + 1 == CAND_SET_MIN
		                        ? 0 : buf->candidate_count;
		if (usmp__pair_set_reserve(&p->cand_set, &p->cand_set_cap,
		                p->cand_set_count + (buf->candidate_count - from) +
		                        1))
			goto nomem;
		buf->candidates[buf->candidate_count] = pool;
		for (uint32_t k = from; k <= buf->candidate_count; k++) {
			uint64_t key = (uint64_t)b << 32 | buf->candidates[k];
			usmp__pair_set_put(p->cand_set, p->cand_set_cap, key);
			p->cand_set_count++;
		}
	}
	buf->candidates[buf->candidate_count++] = pool;
	usmp__problem_changed(p);
	return USMP_OK;
nomem:
	return usmp__problem_fail(p, USMP_ERR_NOMEM,
	                          "buffer \"%s\": out of memory", buf->name);
}

int usmp_problem_set_fixed(usmp_problem *p, uint32_t b, uint32_t pool,
                           uint64_t offset)
{
	usmp__buffer *buf;
	usmp__pool *pl;
	uint64_t align, end;
	int rc;

	if (!p)
		return USMP_ERR_INVALID;
	rc = check_buffer(p, b, "fixed placement");
	if (rc)
		return rc;
	buf = &p->buffers[b];
	rc = check_pool_of(p, buf, "fixed", pool);
	if (rc)
		return rc;
	pl = &p->pools[pool];
	align = buf->alignment > pl->alignment ? buf->alignment : pl->alignment;
	if (offset % align != 0) {
		/* Whose alignment it is (a buffer of alignment 1 in a pool of
		 * 16 has none of its own to blame), and the offsets that fit. */
		uint64_t below = offset - offset % align;
		char above[32] = "";
		if (below <= UINT64_MAX - align)
			snprintf(above, sizeof above, " or %llu",
			         (unsigned long long)(below + align));
		return usmp__problem_fail(
			p, USMP_ERR_INVALID,
			"buffer \"%s\": fixed offset %llu in pool \"%s\" is not a "
			"multiple of %s alignment %llu: fix it at %llu%s",
			buf->name, (unsigned long long)offset, pl->name,
			buf->alignment >= pl->alignment ? "its" : "the pool's",
			(unsigned long long)align, (unsigned long long)below,
			above);
	}
	if (__builtin_add_overflow(offset, buf->size, &end))
		return usmp__problem_fail(
			p, USMP_ERR_INVALID,
			"buffer \"%s\": fixed offset %llu plus size %llu overflows",
			buf->name, (unsigned long long)offset,
			(unsigned long long)buf->size);
	if (end > pl->size_limit)
		return usmp__problem_fail(
			p, USMP_ERR_INVALID,
			"buffer \"%s\": fixed placement [%llu, %llu) exceeds the size "
			"limit %llu of pool \"%s\"",
			buf->name, (unsigned long long)offset, (unsigned long long)end,
			(unsigned long long)pl->size_limit, pl->name);
	buf->fixed_pool = pool;
	buf->fixed_offset = offset;
	buf->flags |= USMP_BUFFER_FIXED;
	usmp__problem_changed(p);
	return USMP_OK;
}

/* ---- conflicts and overlap rules ----------------------------------------- */

int usmp_problem_add_conflict(usmp_problem *p, uint32_t a, uint32_t b)
{
	usmp__edge *e;
	int rc;

	if (!p)
		return USMP_ERR_INVALID;
	rc = check_pair(p, "conflict", a, "conflict", b, "conflict",
	                "cannot conflict with itself");
	if (rc)
		return rc;
	if (usmp__grow((void **)&p->edges, &p->edge_cap, p->edge_count + 1,
	               sizeof(*p->edges)))
		return usmp__problem_fail(
			p, USMP_ERR_NOMEM,
			"conflict between buffers \"%s\" and \"%s\": out of memory",
			p->buffers[a].name, p->buffers[b].name);
	e = &p->edges[p->edge_count++];
	e->a = a < b ? a : b;
	e->b = a < b ? b : a;
	usmp__problem_changed(p);
	return USMP_OK;
}

int usmp_problem_add_overlap(usmp_problem *p, uint32_t src, uint32_t dst,
                             int64_t max_lead)
{
	usmp_overlap_rec *o;
	uint64_t key;
	int rc;

	if (!p)
		return USMP_ERR_INVALID;
	rc = check_pair(p, "overlap rule", src, "overlap rule src", dst,
	                "overlap rule dst", "is both src and dst");
	if (rc)
		return rc;
	key = (uint64_t)src << 32 | dst;
	if (usmp__pair_set_has(p->overlap_set, p->overlap_set_cap, key))
		return usmp__problem_fail(
			p, USMP_ERR_INVALID,
			"overlap rule from buffer \"%s\" to buffer \"%s\" given twice",
			p->buffers[src].name, p->buffers[dst].name);
	if (usmp__grow((void **)&p->overlaps, &p->overlap_cap,
	               p->overlap_count + 1, sizeof(*p->overlaps)) ||
	    usmp__pair_set_reserve(&p->overlap_set, &p->overlap_set_cap,
	                p->overlap_count + 1))
		return usmp__problem_fail(
			p, USMP_ERR_NOMEM,
			"overlap rule from buffer \"%s\" to buffer \"%s\": out of memory",
			p->buffers[src].name, p->buffers[dst].name);
	usmp__pair_set_put(p->overlap_set, p->overlap_set_cap, key);
	o = &p->overlaps[p->overlap_count++];
	o->src = src;
	o->dst = dst;
	o->max_lead = max_lead;
	usmp__problem_changed(p);
	return USMP_OK;
}

/* ---- counts, names, look-ups --------------------------------------------- */

uint32_t usmp_problem_pool_count(const usmp_problem *p)
{
	return p ? (uint32_t)p->pool_count : 0;
}

uint32_t usmp_problem_buffer_count(const usmp_problem *p)
{
	return p ? (uint32_t)p->buffer_count : 0;
}

const char *usmp_problem_pool_name(const usmp_problem *p, uint32_t pool)
{
	if (!p || pool >= p->pool_count)
		return NULL;
	return p->pools[pool].name;
}

const char *usmp_problem_buffer_name(const usmp_problem *p, uint32_t b)
{
	if (!p || b >= p->buffer_count)
		return NULL;
	return p->buffers[b].name;
}

/* The index `name` has in `names`, into *id when id is not NULL. */
static int find_name(const usmp__strmap *names, const char *name, uint32_t *id)
{
	uint32_t v;

	if (usmp__strmap_get(names, name, &v))
		return USMP_ERR_NOT_FOUND;
	if (id)
		*id = v;
	return USMP_OK;
}

int usmp_problem_find_pool(const usmp_problem *p, const char *name,
                           uint32_t *id)
{
	if (!p || !name)
		return USMP_ERR_INVALID;
	return find_name(&p->pool_names, name, id);
}

int usmp_problem_find_buffer(const usmp_problem *p, const char *name,
                             uint32_t *id)
{
	if (!p || !name)
		return USMP_ERR_INVALID;
	return find_name(&p->buffer_names, name, id);
}
