/* host.h — calling an algorithm: the services table it gets (host.c), the call
 * itself in process (invoke.c) or in a child process (isolate.c). */
#ifndef USMP_HOST_H
#define USMP_HOST_H

#include "budget.h"
#include "registry.h"
#include "view.h"

/* ---- host.c: the services table handed to algorithms ----------------------- */

/* What a running call tells whoever watches it (isolate.c's parent, through
 * shared memory): the deadline it works to now, and whether it is making
 * the first plan, which is never killed for time. */
typedef struct usmp__watch {
	volatile double deadline; /* usmp__now() value, 0 = none */
	volatile int patient;     /* > 0 while the first plan is being made */
	volatile double patient_end; /* when the last patient stretch ended */
	volatile double patient_start;
	volatile double patient_time; /* seconds spent making first plans */
} usmp__watch;

/* Room for an algorithm's name with its NUL (registry.c allows 128
 * characters). */
#define USMP__HOST_NAME 132

/* Whether the caller's cancel flag (usmp_plan_options.cancel, NULL: none)
 * is set. An atomic load, so a host that sets the flag with an atomic store
 * from another thread (docs/hosts.md) has no data race with the library. */
static inline int usmp__cancelled(const volatile int *flag)
{
	return flag && __atomic_load_n(flag, __ATOMIC_RELAXED);
}

/* The state of one algorithm call behind its usmp_host table. */
struct usmp__host_ctx {
	usmp_host host; /* what plugins get; host.host_data points back here */
	const usmp_view *view;
	usmp__watch *watch; /* NULL, or shared with the watcher (isolate.c) */
	usmp__interval_index index; /* built on the first neighbour walk */
	int index_state; /* 0 not built, 1 built, 2 out of memory (linear) */
	double deadline; /* usmp__now() value, 0 = none */
	const volatile int *cancel;
	uint64_t best_size;    /* smallest progress() report, UINT64_MAX when none */
	uint64_t proven_bound; /* from report_bound() */
	int optimal;
	int reported;
	int stopped;            /* should_stop() said yes for time or cancel */
	int log_level;          /* messages at or below it are shown (log.c) */
	usmp_log_fn log_fn;     /* where they go; NULL: stderr */
	void *log_ctx;          /* log_fn's first argument */
	char last_message[512]; /* latest error/warning the algorithm logged */
	void *priv;             /* lock and allocation list (host.c) */
	const char *algorithm;  /* for log messages */
	/* The first volunteer that wrote into the view of a portfolio's call
	 * (portfolio.c), or NULL: the call's failure names it. */
	const usmp__algo *view_writer;
	/* The volunteer of a portfolio's call that its watcher killed past
	 * the deadline (portfolio.c), "" when none: the part ran over its
	 * limit for it, not for its first plan. */
	char overrun_by[USMP__HOST_NAME];
	int overrun_cause; /* usmp_overrun_cause of a portfolio's call */
	/* The exact member of a portfolio's call whose failure proved that no
	 * plan fits (portfolio.c), "" when none: the part's failure is then a
	 * proof, said as that member's (plan.c). */
	char proved_by[USMP__HOST_NAME];
	const char *member;     /* the member a portfolio runs now, or NULL:
	                           its lines say "algorithm/member"
	                           (usmp__dispatch sets it) */
	volatile int patient;   /* > 0: making the first plan, which only a
	                           cancel stops (should_stop ignores the
	                           deadline; usmp__host_patient) */
};

/* A services table for one call of `algorithm` on `v`, logging as registry
 * r says (usmp_registry_set_log). */
int usmp__host_init(usmp__host_ctx *c, const usmp_registry *r,
                    const usmp_view *v, double deadline,
                    const volatile int *cancel, const char *algorithm);
/* Who a log line of the call names (the usmp_log_fn's `algorithm`): the
 * algorithm, or "algorithm/member" while a portfolio runs a member. */
void usmp__host_who(const usmp__host_ctx *c, char *buf, size_t size);
/* Frees leftover allocations (logging a leak) and the index. */
void usmp__host_finish(usmp__host_ctx *c);
/* Move the call's deadline (and the watcher's copy). */
void usmp__host_set_deadline(usmp__host_ctx *c, double deadline);
/* Start (on) or end (off) making the first plan: a watcher never kills the
 * call for time in between, and should_stop says true only on a cancel. */
void usmp__host_patient(usmp__host_ctx *c, bool on);

/* ---- invoke.c: the libffi call of a plugin's algorithm --------------------- */

/* Calling an algorithm, in process or isolated: dispatch.h. */
/* Prepare a's libffi call description from its signature (at load). */
int usmp__invoke_prepare(usmp__algo *a, char **msg);
/* Free what usmp__invoke_prepare made. */
void usmp__invoke_finish(usmp__algo *a);

/* ---- isolate.c: the watcher of an isolated call ----------------------------- */

/* The kill rule, the code of what docs/abi.md ("Isolation") states: for a
 * call that started at `started`, with a deadline (w->deadline), true once
 * past it, or past the end of its first plan, by `grace` plus the time its
 * first plan took, and never while it makes its first plan; without one,
 * true USMP__ISOLATE_CAP (budget.h) seconds after it started. The isolated
 * call itself: usmp__isolated_call (dispatch.h). */
bool usmp__isolate_hung(const usmp__watch *w, double started, double grace);

#endif /* USMP_HOST_H */
