/* host.c — the usmp_host services table libusmp hands to every algorithm call:
 * logging, deadline and cancellation, tracked allocations, neighbour walks. */
#include "host.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The smallest table of the set, in slots. */
#define MIN_SLOTS 64

/* The blocks host->alloc() handed out in this call and not yet freed: an
 * open-addressing set of their addresses (linear probing, deletion by
 * backward shift), so that free and realloc of any other pointer (memory
 * from malloc, a static, the inside of a block, a block freed already) are
 * refused with a logged error without reading the memory it points to, and
 * what the plugin forgets is freed when the call returns. Blocks are plain
 * malloc blocks (its alignment). Guarded by the call's lock. */
typedef struct live_block {
	void *ptr; /* NULL: an empty slot */
	size_t size;
} live_block;

typedef struct host_private {
	pthread_mutex_t lock;
	live_block *slots;
	size_t cap;   /* a power of two, or 0 before the first block */
	size_t count; /* at most half of cap */
} host_private;

/* Where ptr's probe starts: its address mixed (malloc's addresses share
 * their low bits). */
static size_t home_of(const host_private *hp, const void *ptr)
{
	uint64_t x = (uint64_t)(uintptr_t)ptr;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x & (hp->cap - 1);
}

/* The slot holding ptr, or SIZE_MAX when it is no live block. */
static size_t find_block(const host_private *hp, const void *ptr)
{
	if (!hp->cap)
		return SIZE_MAX;
	for (size_t i = home_of(hp, ptr);; i = (i + 1) & (hp->cap - 1)) {
		if (hp->slots[i].ptr == ptr)
			return i;
		if (!hp->slots[i].ptr)
			return SIZE_MAX;
	}
}

/* Add a block; the set has room (reserve_block). */
static void put_block(host_private *hp, void *ptr, size_t size)
{
	size_t i = home_of(hp, ptr);
	while (hp->slots[i].ptr)
		i = (i + 1) & (hp->cap - 1);
	hp->slots[i] = (live_block){ptr, size};
	hp->count++;
}

/* Move the set into cap slots (a power of two above twice the count);
 * false when out of memory (the set is unchanged). */
static bool resize_set(host_private *hp, size_t cap)
{
	size_t old_cap = hp->cap;
	live_block *old = hp->slots, *slots = calloc(cap, sizeof *slots);
	if (!slots)
		return false;
	hp->slots = slots;
	hp->cap = cap;
	hp->count = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].ptr)
			put_block(hp, old[i].ptr, old[i].size);
	free(old);
	return true;
}

/* Room for one block more at a load of at most a half; false when out of
 * memory (the set is unchanged). */
static bool reserve_block(host_private *hp)
{
	if ((hp->count + 1) * 2 <= hp->cap)
		return true;
	if (hp->cap > SIZE_MAX / 2 / sizeof *hp->slots)
		return false;
	return resize_set(hp, hp->cap ? hp->cap * 2 : MIN_SLOTS);
}

/* Remove slot i: each later entry of its run whose probe starts outside
 * (i, j] moves back into the hole, so lookups never need tombstones. */
static void drop_block(host_private *hp, size_t i)
{
	size_t mask = hp->cap - 1;
	for (size_t j = (i + 1) & mask; hp->slots[j].ptr; j = (j + 1) & mask) {
		size_t k = home_of(hp, hp->slots[j].ptr);
		bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (!stays) {
			hp->slots[i] = hp->slots[j];
			i = j;
		}
	}
	hp->slots[i].ptr = NULL;
	hp->count--;
	/* Shrink at an eighth full (grown at a half: amortised O(1)), so a
	 * call that freed most of its blocks probes a table that fits the
	 * cache again; out of memory, the larger table stays. */
	if (hp->cap > MIN_SLOTS && hp->count * 8 < hp->cap)
		resize_set(hp, hp->cap / 2);
}

/* The context behind a table this file built: the one way back from what
 * a plugin holds (host_data is the context, set by usmp__host_init). Code
 * inside libusmp holds the context itself and never comes through here. */
static usmp__host_ctx *ctx_of(const usmp_host *h)
{
	usmp__host_ctx *c = h->host_data;
	return c;
}

void usmp__host_who(const usmp__host_ctx *c, char *buf, size_t size)
{
	const char *algo = c->algorithm ? c->algorithm : "?";
	if (c->member)
		snprintf(buf, size, "%s/%s", algo, c->member);
	else
		snprintf(buf, size, "%s", algo);
}

/* Show one message of the call at `level`, when the level allows it: to
 * the host's log function, else on stderr, named by usmp__host_who.
 * Callers hold the call's lock (but for usmp__host_finish, alone by then),
 * so one call's messages reach the function one at a time. */
static void emit(usmp__host_ctx *c, int level, const char *message)
{
	char who[160];
	if (level > c->log_level)
		return;
	usmp__host_who(c, who, sizeof who);
	if (c->log_fn)
		c->log_fn(c->log_ctx, level, who, message);
	else
		fprintf(stderr, "usmp: %s: %s\n", who, message);
}

/* The message without the name of the algorithm that logs it: algorithms
 * often begin their lines with "NAME: ", which the host adds already. */
static const char *without_own_name(const usmp__host_ctx *c,
                                    const char *message)
{
	const char *own = c->member ? c->member : c->algorithm;
	size_t n = own ? strlen(own) : 0;
	if (n && !strncmp(message, own, n) && message[n] == ':' &&
	    message[n + 1] == ' ' && message[n + 2])
		return message + n + 2;
	return message;
}

static void host_log(const usmp_host *h, int level, const char *message)
{
	usmp__host_ctx *c = ctx_of(h);
	if (!message)
		return;
	/* A level outside enum usmp_log_level is the nearest one: a host's
	 * log function gets only levels it knows, isolated or not. */
	if (level < USMP_LOG_ERROR)
		level = USMP_LOG_ERROR;
	if (level > USMP_LOG_DEBUG)
		level = USMP_LOG_DEBUG;
	host_private *hp = c->priv;
	pthread_mutex_lock(&hp->lock);
	message = without_own_name(c, message);
	if (level <= USMP_LOG_WARN) {
		/* Keep the latest error/warning: it explains a failed call. */
		snprintf(c->last_message, sizeof c->last_message, "%s", message);
	}
	/* A member failing is no error of the portfolio's call, which says
	 * its own result: its errors and warnings are notes (info). */
	if (c->member && level < USMP_LOG_INFO)
		level = USMP_LOG_INFO;
	emit(c, level, message);
	pthread_mutex_unlock(&hp->lock);
}

static bool host_should_stop(const usmp_host *h)
{
	usmp__host_ctx *c = ctx_of(h);
	if (usmp__cancelled(c->cancel)) {
		c->stopped = 1;
		return true;
	}
	if (__atomic_load_n(&c->patient, __ATOMIC_SEQ_CST) > 0)
		return false; /* the first plan: late beats none */
	if (c->deadline > 0 && usmp__now() >= c->deadline) {
		c->stopped = 1;
		return true;
	}
	return false;
}

static void host_progress(const usmp_host *h, uint64_t best_size)
{
	usmp__host_ctx *c = ctx_of(h);
	host_private *hp = c->priv;
	pthread_mutex_lock(&hp->lock);
	if (best_size < c->best_size) {
		c->best_size = best_size;
		char line[64];
		snprintf(line, sizeof line, "best so far: %llu byte%s",
		         (unsigned long long)best_size, usmp__s(best_size));
		emit(c, USMP_LOG_DEBUG, line);
	}
	pthread_mutex_unlock(&hp->lock);
}

static void *host_alloc(const usmp_host *h, size_t size)
{
	host_private *hp = ctx_of(h)->priv;
	void *p = malloc(size ? size : 1);
	if (!p)
		return NULL;
	pthread_mutex_lock(&hp->lock);
	bool room = reserve_block(hp);
	if (room)
		put_block(hp, p, size);
	pthread_mutex_unlock(&hp->lock);
	if (!room) {
		free(p);
		return NULL;
	}
	return p;
}

/* A pointer that is no live block of this call: said at USMP_LOG_ERROR,
 * naming `what` (free, realloc); the call goes on. */
static void refuse_foreign(const usmp_host *h, const char *what)
{
	char line[160];
	snprintf(line, sizeof line, "host->%s() of a pointer host->alloc() did "
	         "not return, or freed already; ignored", what);
	h->log(h, USMP_LOG_ERROR, line);
}

static void host_free(const usmp_host *h, void *ptr)
{
	host_private *hp = ctx_of(h)->priv;
	if (!ptr)
		return;
	pthread_mutex_lock(&hp->lock);
	size_t i = find_block(hp, ptr);
	if (i != SIZE_MAX)
		drop_block(hp, i);
	pthread_mutex_unlock(&hp->lock);
	if (i != SIZE_MAX)
		free(ptr);
	else
		refuse_foreign(h, "free");
}

static void *host_realloc(const usmp_host *h, void *ptr, size_t size)
{
	host_private *hp = ctx_of(h)->priv;
	if (!ptr)
		return host_alloc(h, size);
	pthread_mutex_lock(&hp->lock);
	size_t i = find_block(hp, ptr);
	if (i == SIZE_MAX) {
		pthread_mutex_unlock(&hp->lock);
		refuse_foreign(h, "realloc");
		return NULL;
	}
	void *q = realloc(ptr, size ? size : 1);
	if (q) { /* else the old block stays valid, and in the set */
		drop_block(hp, i);
		put_block(hp, q, size);
	}
	pthread_mutex_unlock(&hp->lock);
	return q;
}

static int host_for_each_neighbor(const usmp_host *h, uint32_t buffer,
                                  usmp_neighbor_fn visit, void *arg)
{
	usmp__host_ctx *c = ctx_of(h);
	if (!visit || buffer >= c->view->buffer_count)
		return 0;
	/* The index is built on the first walk (an algorithm that never walks
	 * neighbours never pays its time or its ~76 bytes per buffer); out of
	 * memory, walks are linear and still correct. */
	int state = __atomic_load_n(&c->index_state, __ATOMIC_ACQUIRE);
	if (!state) {
		host_private *hp = c->priv;
		pthread_mutex_lock(&hp->lock);
		state = c->index_state;
		if (!state) {
			state = usmp__interval_index_build(&c->index, c->view) == USMP_OK
			                ? 1
			                : 2;
			__atomic_store_n(&c->index_state, state, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&hp->lock);
	}
	return usmp__for_each_neighbor(c->view, state == 1 ? &c->index : NULL,
	                               buffer, visit, arg);
}

static void host_report_bound(const usmp_host *h, uint64_t proven_bound,
                              bool optimal)
{
	usmp__host_ctx *c = ctx_of(h);
	host_private *hp = c->priv;
	pthread_mutex_lock(&hp->lock);
	if (!c->reported || proven_bound > c->proven_bound)
		c->proven_bound = proven_bound;
	c->optimal = c->optimal || optimal;
	c->reported = 1;
	pthread_mutex_unlock(&hp->lock);
}

int usmp__host_init(usmp__host_ctx *c, const usmp_registry *r,
                    const usmp_view *v, double deadline,
                    const volatile int *cancel, const char *algorithm)
{
	memset(c, 0, sizeof *c);
	host_private *hp = calloc(1, sizeof *hp);
	if (!hp)
		return USMP_ERR_NOMEM;
	pthread_mutex_init(&hp->lock, NULL);
	c->priv = hp;
	c->view = v;
	c->deadline = deadline;
	c->cancel = cancel;
	c->best_size = UINT64_MAX;
	c->algorithm = algorithm;
	usmp__log_config(r, &c->log_fn, &c->log_ctx, &c->log_level);
	c->index.root = UINT32_MAX; /* empty until the first neighbour walk */
	c->host = (usmp_host){
		.struct_size = sizeof(usmp_host),
		.host_data = c,
		.log = host_log,
		.should_stop = host_should_stop,
		.progress = host_progress,
		.alloc = host_alloc,
		.realloc = host_realloc,
		.free = host_free,
		.for_each_neighbor = host_for_each_neighbor,
		.report_bound = host_report_bound,
	};
	return USMP_OK;
}

void usmp__host_finish(usmp__host_ctx *c)
{
	host_private *hp = c->priv;
	if (!hp)
		return;
	size_t leaked = 0, blocks = 0;
	for (size_t i = 0; i < hp->cap; i++) {
		if (!hp->slots[i].ptr)
			continue;
		leaked += hp->slots[i].size;
		blocks++;
		free(hp->slots[i].ptr);
	}
	free(hp->slots);
	if (blocks) {
		char line[96];
		snprintf(line, sizeof line, "leaked %zu bytes in %zu blocks (freed)",
		         leaked, blocks);
		emit(c, USMP_LOG_WARN, line);
	}
	pthread_mutex_destroy(&hp->lock);
	free(hp);
	c->priv = NULL;
	usmp__interval_index_finish(&c->index);
}

void usmp__host_set_deadline(usmp__host_ctx *c, double deadline)
{
	c->deadline = deadline;
	if (c->watch)
		c->watch->deadline = deadline;
}

void usmp__host_patient(usmp__host_ctx *c, bool on)
{
	if (on)
		__atomic_add_fetch(&c->patient, 1, __ATOMIC_SEQ_CST);
	else
		__atomic_sub_fetch(&c->patient, 1, __ATOMIC_SEQ_CST);
	if (!c->watch)
		return;
	double now = usmp__now();
	if (on) {
		c->watch->patient_start = now;
		__atomic_add_fetch(&c->watch->patient, 1, __ATOMIC_SEQ_CST);
	} else {
		c->watch->patient_time += now - c->watch->patient_start;
		c->watch->patient_end = now;
		__atomic_sub_fetch(&c->watch->patient, 1, __ATOMIC_SEQ_CST);
	}
}
