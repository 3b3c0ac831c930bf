/* budget.h — libusmp's time policy in one place: every number that decides
 * how long a call, a part, a portfolio member or an isolated child may run.
 *
 * Who reads what: plan.c splits the call's budget over parts (default
 * budgets, the post-planning share); dispatch.c gives an isolated call its
 * grace; isolate.c applies the kill rule (usmp__isolate_hung, stated in
 * docs/abi.md "Isolation"); portfolio.c divides auto's part among its
 * members. Why these numbers: docs/decisions.md (14) and docs/algorithms.md
 * ("Time budget", "auto"). */
#ifndef USMP_BUDGET_H
#define USMP_BUDGET_H

/* No includes but <stdint.h>: USMP_DEFAULT_TIME_LIMIT(_AUTO) below come
 * from usmp.h where the macros are used, included there as a library file
 * must include it (USMP_BUILDING_LIBRARY first, for the exports). */
#include <stdint.h>

/* ---- the default budgets (the caller set no time limit) ------------------ */

/* Seconds for the whole call: a portfolio's (auto, tuned for "a good plan
 * soon") and any other algorithm's. Public, so they live in usmp.h; an
 * algorithm's own longer time_limit knob replaces the second (plan.c). */
#define USMP__BUDGET_PORTFOLIO USMP_DEFAULT_TIME_LIMIT_AUTO
#define USMP__BUDGET_ALGORITHM USMP_DEFAULT_TIME_LIMIT

/* ---- sharing the call's budget between parts (plan.c) -------------------- */

/* Seconds per buffer of what follows an algorithm's return, kept back from
 * the deadline it works to (plan.c: part_post; the command: plan_cmd.c),
 * as CPU seconds times the load factor below.
 * Measured 2026-12-03 in CPU seconds (CLOCK_PROCESS_CPUTIME_ID read around
 * each phase of `usmp plan F --time-limit 1` and `3`, debugoptimized;
 * bench/auto/RESULTS.md, "The whole usmp plan command at 500k and 1M
 * buffers", and `USMP_LOG=debug usmp plan`'s timing line) on field.py's
 * xla_1m_10k (1M buffers, one pool) and xla_500k_10k, taken at the upper
 * end and doubled (the load factor's floor):
 *   VERIFY  one usmp__verify of a plan (the buffer checks, three radix sorts
 *           and the neighbour sweep): 0.20-0.27 s at 1M, 0.08-0.10 s at 500k;
 *   FINISH  a part after its plan is verified: measuring, copying it into
 *           the plan, freeing the view: 0.03-0.04 s at 1M;
 *   WRITE   writing the plan as JSON or CSV and freeing the plan, the
 *           problem and the registry: 0.10-0.13 s at 1M as JSON,
 *           0.12-0.18 s as CSV (bench/deadline/RESULTS.md). */
#define USMP__BUDGET_VERIFY_PER_BUFFER 0.5e-6
#define USMP__BUDGET_FINISH_PER_BUFFER 0.08e-6
#define USMP__BUDGET_WRITE_PER_BUFFER 0.36e-6

/* The load factor: the wall seconds one CPU second of the caller's thread
 * took so far (on a machine shared with other jobs, several), by which the
 * reserves above are scaled, halved since they are doubled already: 1 on
 * an idle machine or before LOAD_MIN_CPU CPU seconds were spent (too little
 * to tell), at most LOAD_MAX (past it the reserve would eat the budget of a
 * short limit; the first plan is late then anyway). */
#define USMP__LOAD_MIN_CPU 0.02
#define USMP__LOAD_MAX 4.0

static inline double usmp__budget_load(double wall, double cpu)
{
	if (!(cpu >= USMP__LOAD_MIN_CPU) || !(wall > 0))
		return 1.0;
	double f = wall / cpu / 2.0;
	return f < 1.0 ? 1.0 : f > USMP__LOAD_MAX ? USMP__LOAD_MAX : f;
}

/* ---- an isolated call (dispatch.c, isolate.c) ---------------------------- */

/* The grace past its deadline before an isolated call counts as hung: a
 * base, a share of its budget and a time per buffer (a heuristic that
 * finishes its pass over a million buffers late is slow, not hung). */
#define USMP__GRACE_BASE 1.0
#define USMP__GRACE_SHARE 0.1
#define USMP__GRACE_PER_BUFFER 20e-6

static inline double usmp__isolate_grace(double budget, uint32_t buffers)
{
	return USMP__GRACE_BASE + USMP__GRACE_SHARE * (budget > 0 ? budget : 0) +
	       USMP__GRACE_PER_BUFFER * buffers;
}

/* The grace of a portfolio member run isolated by the portfolio (a
 * volunteer): short, so that it is killed before any watcher of the
 * portfolio's own call would kill the portfolio. */
#define USMP__GRACE_MEMBER 0.2

/* Seconds auto adds to a volunteer's estimate when it runs in a child
 * process (portfolio.c, run_volunteers): the fork, the wait and the plan's
 * way back, no part of its declared cost. Until a volunteer of the call ran
 * isolated this constant, then what the last one measured (its wall time
 * less its function's own). Measured 2026-12-04: 4.3 ms for the 19-buffer
 * problem of tests/test_volunteer.c (`USMP_LOG=info usmp plan`, the
 * volunteer's "with its child process" line), taken at twice that and
 * rounded up. */
#define USMP__ISOLATE_OVERHEAD 0.01

/* Wall-clock seconds an isolated call may run when it has no deadline. */
#define USMP__ISOLATE_CAP 600.0

/* ---- auto's shares of its part (portfolio.c) ----------------------------- */

/* On a part that goes to exact_window, the share of the time left that the
 * other heuristics may take first (only when all the cheap ones fit it). */
#define USMP__AUTO_WINDOW_SHARE 0.25

/* Under the default budget, a part whose first plan alone overran it still
 * gets as long again for the window search, at most this base plus this
 * per buffer, in seconds (a budget the caller set is never stretched). */
#define USMP__AUTO_STRETCH_BASE 1.0
#define USMP__AUTO_STRETCH_PER_BUFFER 8e-6

/* Which member makes auto's first plan, by estimated cost (portfolio.c,
 * auto_first_plan): first_fit's seconds on a part of n buffers with A alive
 * at once (measure_shape) are estimated as FIT_PER_ALIVE x n x A; when that
 * exceeds the time left, the first plan comes from the member estimated
 * cheapest instead (a time-index greedy: TIME_PER_BUFFER x n), and first_fit
 * runs after it only when its estimate fits the time left.
 * Measured 2026-12-03 (bench/auto/RESULTS.md): CPU seconds of the whole
 * `usmp plan -a first_fit` (debugoptimized) per buffer x alive: the XLA
 * traces 0.8-1.45 ns (P: 59,063 buffers, 5,310 alive, 0.32 s; A: 30,011 and
 * 3,147, 0.13 s); field.py's xla family 1.5-3.2 ns with 9,000-30,000 alive
 * (xla_50k_10k: 50k and 10,705, 1.29 s; xla_500k_10k: 500k and 20,163,
 * 25 s; xla_1m_10k: 1M and 30,044, ~60 s), up to 5.6 ns with 2,000 alive.
 * The constant is the real traces' upper end: the estimate under-reads the
 * generated shapes by up to 2x, so no XLA trace is taken from first_fit
 * (P estimates 0.47 s), while 500k and 1M buffers with 20,000-30,000 alive
 * estimate 15 s and 45 s. TVM's greedies (one time index, O(log n) per
 * placement): 3.1 s CPU for the whole process at 1M buffers, 1.9 s at
 * 500k, 0.73 s at 200k, reading the file included. */
#define USMP__AUTO_FIT_PER_ALIVE 1.5e-9
#define USMP__AUTO_TIME_PER_BUFFER 3e-6

/* first_fit_sweep (plugins/sweep: a treap of the alive ranges, O(log n) a
 * buffer): CPU seconds of the whole `usmp plan -a first_fit_sweep` per
 * buffer, measured 2026-12-03 (bench/auto/RESULTS.md, debugoptimized): 1.8 s
 * at xla_500k_10k, 4.0 s at xla_1m_10k (the greedy: 1.6 s and 3.5 s), taken
 * at the upper end. The first plan by estimate may come from a member up to
 * FIRST_SLACK times the cheapest one's estimate when its gain for the shape
 * is higher (portfolio.c, first_by_estimate): the sweep's plans are 1.04-1.06
 * times the bound on field.py's xla shapes, the greedy's 2.9-3.0 times. */
#define USMP__AUTO_SWEEP_PER_BUFFER 4e-6
#define USMP__AUTO_FIRST_SLACK 2.0

#endif /* USMP_BUDGET_H */
