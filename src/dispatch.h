/* dispatch.h — the one way libusmp calls an algorithm, built-in or plugin,
 * in this process or isolated in a child (dispatch.c, invoke.c, isolate.c).
 *
 * Every call is a usmp__call: plan.c fills one per part, auto (portfolio.c)
 * one per member, and usmp__dispatch runs it. Below it, usmp__invoke is the
 * one in-process call (a built-in directly, a plugin through libffi) and
 * usmp__isolated_call runs usmp__invoke in a forked child. Built-ins receive
 * the usmp__call itself, so nothing goes from a usmp_host back to its
 * context (host_data) outside host.c. */
#ifndef USMP_DISPATCH_H
#define USMP_DISPATCH_H

#include "budget.h"
#include "host.h"
#include "registry.h"

/* One algorithm call: what runs, on what, how; and what it left. */
struct usmp__call {
	usmp_registry *r;
	const usmp__algo *algo;
	const usmp__knobs *knobs; /* NULL: the algorithm's defaults */
	const usmp_view *view;
	usmp__host_ctx *hc;       /* the call's services (a plugin gets hc->host) */
	usmp_placement *out;      /* in: fixed and warm-start placements; out: plan */
	uint32_t flags;           /* USMP_PLAN_ISOLATE / USMP_PLAN_NO_ISOLATE */
	bool member;              /* run by a portfolio (USMP__GRACE_MEMBER) */
	bool default_budget;      /* hc->deadline is the default, not the caller's */

	/* Set by a built-in run in this process (never across isolation):
	 * out holds, byte for byte, a plan it checked with usmp__verify
	 * against view, so the caller need not sweep it again. */
	bool verified;

	/* Set by the call; the caller frees them (usmp__call_finish). */
	char *who;   /* a portfolio's winner ("first_fit:order=size"), or NULL */
	char *error; /* why an isolated call ended without returning (a crash,
	                a hang, an exit), or NULL: then the status is its own */
	bool overran; /* killed by the watcher past its deadline plus grace */
	/* Seconds the plugin's algorithm function itself ran (in its child
	 * process when isolated: no fork, wait or copying), 0 for a built-in
	 * or a call that never returned. */
	double call_s;
};

/* Run the call: isolated when usmp__dispatch_isolates says so, else in this
 * process. Returns the algorithm's status; when c->error is set, the status
 * is USMP_ERR_PLUGIN (or INTERNAL/NOMEM) for a call that never returned. */
int usmp__dispatch(usmp__call *c);
/* Free what a call left (c->who, c->error). */
void usmp__call_finish(usmp__call *c);

/* Whether algorithm a runs in a child process, given the caller's flags:
 * USMP_PLAN_ISOLATE / NO_ISOLATE decide when set; otherwise a plugin found
 * outside the shipped plugin directory (paths.c) is isolated, and so is a
 * portfolio when any plugin is (any could be its member). */
bool usmp__dispatch_isolates(const usmp_registry *r, const usmp__algo *a,
                             uint32_t flags);

/* The capabilities (USMP_CAP_*) planning view v needs. */
uint32_t usmp__caps_needed(const usmp_view *v);
/* USMP_ERR_UNSUPPORTED (message in *msg when msg is not NULL) when the view
 * uses a feature algorithm a does not declare it handles: several candidate
 * pools, fixed offsets, explicit conflict edges. */
int usmp__check_caps(const usmp__algo *a, const usmp_view *v, char **msg);

/* ---- invoke.c: the in-process call ----------------------------------------- */

/* Call c->algo in this process: a built-in gets c itself, a plugin gets
 * c->hc->host and its knobs through libffi. Knobs of another algorithm are
 * USMP_ERR_INTERNAL. Returns the algorithm's status. */
int usmp__invoke(usmp__call *c);

/* ---- isolate.c: the call in a child process -------------------------------- */

/* Run usmp__invoke(c) in a forked child; placements come back through
 * shared memory ending at a guard page. A crash, an exit or a hang (the
 * kill rule: usmp__isolate_hung, with `grace`) becomes USMP_ERR_PLUGIN with
 * c->error set. Otherwise returns the algorithm's status with hc's reported
 * bound, last message and c->who updated. */
int usmp__isolated_call(usmp__call *c, double grace);

#endif /* USMP_DISPATCH_H */
