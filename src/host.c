/* host.c — the usmp_host services table libusmp hands to every algorithm call:
 * logging, deadline and cancellation, tracked allocations, neighbour walks. */
#include "host.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Every allocation handed to a plugin carries this header, so what the
 * plugin forgets to free can be released when the call returns. The header
 * is 32 bytes so the user pointer keeps malloc's 16-byte alignment. */
typedef struct alloc_hdr {
	struct alloc_hdr *prev, *next;
	size_t size;
	size_t mark; /* MARK ^ the header's address while the block is live */
} alloc_hdr;

/* What a live block's mark is made of: free and realloc of a pointer
 * whose header lacks it (memory from malloc, a static, a block freed
 * already) are refused with a logged error instead of corrupting the
 * list. Best effort: the header is read before it is known to be one. */
#define MARK ((size_t)0x75736d70a110c8edull)

static size_t mark_of(const alloc_hdr *a)
{
	return MARK ^ (size_t)(uintptr_t)a;
}

typedef struct host_private {
	pthread_mutex_t lock;
	alloc_hdr head; /* circular list sentinel */
} host_private;

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
	if (c->cancel && *c->cancel) {
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
		snprintf(line, sizeof line, "best so far: %llu bytes",
		         (unsigned long long)best_size);
		emit(c, USMP_LOG_DEBUG, line);
	}
	pthread_mutex_unlock(&hp->lock);
}

static void link_alloc(host_private *hp, alloc_hdr *a)
{
	a->next = hp->head.next;
	a->prev = &hp->head;
	hp->head.next->prev = a;
	hp->head.next = a;
}

static void unlink_alloc(alloc_hdr *a)
{
	a->prev->next = a->next;
	a->next->prev = a->prev;
}

static void *host_alloc(const usmp_host *h, size_t size)
{
	host_private *hp = ctx_of(h)->priv;
	if (size > SIZE_MAX - sizeof(alloc_hdr))
		return NULL;
	alloc_hdr *a = malloc(sizeof *a + size);
	if (!a)
		return NULL;
	a->size = size;
	a->mark = mark_of(a);
	pthread_mutex_lock(&hp->lock);
	link_alloc(hp, a);
	pthread_mutex_unlock(&hp->lock);
	return a + 1;
}

/* Whether ptr came from host_alloc/host_realloc of this call and is live;
 * when not, say so at USMP_LOG_ERROR, naming `what` (free, realloc). */
static bool host_owns(const usmp_host *h, const alloc_hdr *a, const char *what)
{
	if (a->mark == mark_of(a))
		return true;
	char line[160];
	snprintf(line, sizeof line, "host->%s() of a pointer host->alloc() did "
	         "not return, or freed already; ignored", what);
	h->log(h, USMP_LOG_ERROR, line);
	return false;
}

static void host_free(const usmp_host *h, void *ptr)
{
	host_private *hp = ctx_of(h)->priv;
	if (!ptr)
		return;
	alloc_hdr *a = (alloc_hdr *)ptr - 1;
	pthread_mutex_lock(&hp->lock);
	bool owned = a->mark == mark_of(a);
	if (owned) {
		unlink_alloc(a);
		a->mark = 0;
	}
	pthread_mutex_unlock(&hp->lock);
	if (owned)
		free(a);
	else
		host_owns(h, a, "free");
}

static void *host_realloc(const usmp_host *h, void *ptr, size_t size)
{
	host_private *hp = ctx_of(h)->priv;
	if (!ptr)
		return host_alloc(h, size);
	if (size > SIZE_MAX - sizeof(alloc_hdr))
		return NULL;
	alloc_hdr *a = (alloc_hdr *)ptr - 1;
	pthread_mutex_lock(&hp->lock);
	if (a->mark != mark_of(a)) {
		pthread_mutex_unlock(&hp->lock);
		host_owns(h, a, "realloc");
		return NULL;
	}
	unlink_alloc(a);
	a->mark = 0;
	alloc_hdr *b = realloc(a, sizeof *b + size);
	if (!b) {
		a->mark = mark_of(a);
		link_alloc(hp, a); /* the old block stays valid */
		pthread_mutex_unlock(&hp->lock);
		return NULL;
	}
	b->size = size;
	b->mark = mark_of(b);
	link_alloc(hp, b);
	pthread_mutex_unlock(&hp->lock);
	return b + 1;
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
	hp->head.next = hp->head.prev = &hp->head;
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
	while (hp->head.next != &hp->head) {
		alloc_hdr *a = hp->head.next;
		unlink_alloc(a);
		leaked += a->size;
		blocks++;
		free(a);
	}
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
