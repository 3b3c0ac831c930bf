/* isolate.c — run one algorithm call in a child process, so that a plugin
 * that crashes, hangs or scribbles becomes an error instead of killing the host.
 *
 * The child is a fork() of the caller: it sees the problem view as a private
 * copy-on-write snapshot (nothing it writes reaches the host), and returns
 * its placements through a shared anonymous mapping followed by a PROT_NONE
 * guard page, so writing past the output array faults in the child. The
 * child dies with the caller (child.c) and is killed by the rule of
 * usmp__isolate_hung(), stated in docs/abi.md ("Isolation"). */
#include "host.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The isolated call of the one dispatch path; the kill rule's numbers are
 * in budget.h. */
#include "dispatch.h"

/* Bytes of log messages an isolated call may leave for the host's log
 * function (usmp_registry_set_log). */
#define LOG_BYTES (64 * 1024)

/* What the child reports back, at the start of the shared mapping. */
typedef struct shared_result {
	int status;
	int reported;
	int optimal;
	int done;
	int stopped;
	double call_s; /* the child's usmp__call.call_s */
	/* Set by the watcher when the caller's cancel flag turns non-zero:
	 * the child's should_stop() reads this, as the caller's flag is in
	 * memory the child only has a copy of. */
	volatile int cancel;
	usmp__watch watch; /* the child's deadline and first-plan state */
	uint64_t proven_bound;
	char message[512];
	char who[256];
	char overrun_by[USMP__HOST_NAME]; /* the call's hc->overrun_by */
	int overrun_cause;                /* and hc->overrun_cause */
	char proved_by[USMP__HOST_NAME];  /* and hc->proved_by */
	/* Log records for the host's function: a level byte, who logged
	 * (usmp__host_who), a NUL, the message, a NUL. log_used is published
	 * after the record is written. */
	uint32_t log_used;
	uint32_t log_dropped; /* messages that did not fit */
	char log[LOG_BYTES];
} shared_result;

/* The child's log function when the host set one: the host replays the
 * records through its own after the call (the child must not call into
 * the host's code, whose state it only has a copy of). Called under the
 * call's lock (host.c), one message at a time. */
static void log_to_shared(void *ctx, int level, const char *algorithm,
                          const char *message)
{
	shared_result *res = ctx;
	size_t used = res->log_used, len = strlen(message);
	size_t wlen = strlen(algorithm);
	if (used > LOG_BYTES || wlen + len + 3 > LOG_BYTES - used) {
		res->log_dropped++;
		return;
	}
	res->log[used] = (char)level;
	memcpy(res->log + used + 1, algorithm, wlen + 1);
	memcpy(res->log + used + wlen + 2, message, len + 1);
	__atomic_store_n(&res->log_used, (uint32_t)(used + wlen + len + 3),
	                 __ATOMIC_RELEASE);
}

/* Pass what the child logged to the host's log function, in order. The
 * child may have scribbled on the records: every read stays in bounds. */
static void replay_log(usmp__host_ctx *hc, shared_result *res)
{
	char who[160];
	size_t used = __atomic_load_n(&res->log_used, __ATOMIC_ACQUIRE);
	if (!hc->log_fn)
		return;
	usmp__host_who(hc, who, sizeof who);
	if (used > LOG_BYTES)
		used = LOG_BYTES;
	for (size_t at = 0; at + 1 < used;) {
		const char *name = res->log + at + 1;
		const char *end = res->log + used;
		const char *nul = memchr(name, '\0', (size_t)(end - name));
		if (!nul || nul + 1 >= end)
			break;
		const char *text = nul + 1;
		int level = res->log[at];
		nul = memchr(text, '\0', (size_t)(end - text));
		if (!nul)
			break;
		/* A name the call could not have logged under is not taken. */
		if (strncmp(name, who, strlen(who)))
			name = who;
		if (level >= USMP_LOG_ERROR && level <= hc->log_level)
			hc->log_fn(hc->log_ctx, level, name, text);
		at = (size_t)(nul - res->log) + 1;
	}
	if (res->log_dropped && hc->log_level >= USMP_LOG_WARN) {
		char line[128];
		snprintf(line, sizeof line, "%u more log messages dropped (an "
		         "isolated call keeps %d KiB of them)", res->log_dropped,
		         LOG_BYTES / 1024);
		hc->log_fn(hc->log_ctx, USMP_LOG_WARN, who, line);
	}
}

static size_t round_page(size_t n, size_t page)
{
	return (n + page - 1) / page * page;
}

/* In the child: the call, in process, into the shared mapping. */
static void child_run(usmp__call *c, usmp_placement *out, shared_result *res)
{
	usmp__host_ctx *hc = c->hc;
	usmp__call in_child = *c;
	hc->watch = &res->watch;
	if (hc->cancel)
		hc->cancel = &res->cancel;
	if (hc->log_fn) {
		hc->log_fn = log_to_shared;
		hc->log_ctx = res;
	}
	in_child.out = out;
	in_child.who = in_child.error = NULL;
	int st = usmp__invoke(&in_child);
	res->reported = hc->reported;
	res->optimal = hc->optimal;
	res->stopped = hc->stopped;
	res->call_s = in_child.call_s;
	res->proven_bound = hc->proven_bound;
	memcpy(res->message, hc->last_message, sizeof res->message);
	memcpy(res->overrun_by, hc->overrun_by, sizeof res->overrun_by);
	res->overrun_cause = hc->overrun_cause;
	memcpy(res->proved_by, hc->proved_by, sizeof res->proved_by);
	if (in_child.who)
		snprintf(res->who, sizeof res->who, "%s", in_child.who);
	res->status = st;
	__atomic_store_n(&res->done, 1, __ATOMIC_RELEASE);
	_exit(0);
}

bool usmp__isolate_hung(const usmp__watch *w, double started, double grace)
{
	double dl = w->deadline;
	if (dl <= 0)
		return usmp__now() >= started + USMP__ISOLATE_CAP;
	if (__atomic_load_n(&w->patient, __ATOMIC_SEQ_CST) > 0)
		return false;
	double from = w->patient_end > dl ? w->patient_end : dl;
	return usmp__now() >= from + grace + w->patient_time;
}

/* What the child's call left in its context, into the parent's. */
static void take_result(usmp__host_ctx *hc, const shared_result *res)
{
	hc->reported = res->reported;
	hc->optimal = res->optimal;
	hc->stopped = res->stopped;
	hc->proven_bound = res->proven_bound;
	memcpy(hc->last_message, res->message, sizeof hc->last_message);
	hc->last_message[sizeof hc->last_message - 1] = '\0';
	memcpy(hc->overrun_by, res->overrun_by, sizeof hc->overrun_by);
	hc->overrun_by[sizeof hc->overrun_by - 1] = '\0';
	hc->overrun_cause = res->overrun_cause;
	memcpy(hc->proved_by, res->proved_by, sizeof hc->proved_by);
	hc->proved_by[sizeof hc->proved_by - 1] = '\0';
}

/* Wait for the child, polled like usmp__child_wait, but the deadline may
 * move, and the caller's cancel is passed on (*cancelled: when the
 * watcher saw it, 0 when it did not). Returns 1 when the child is to be
 * killed: hung by the rule of usmp__isolate_hung, or still running a grace
 * after the cancel. */
static int watch_child(pid_t pid, const usmp__host_ctx *hc,
                       shared_result *res, double started, double grace,
                       double *cancelled)
{
	long ns = 20 * 1000;
	while (!usmp__child_exited(pid)) {
		if (!*cancelled && usmp__cancelled(hc->cancel)) {
			__atomic_store_n(&res->cancel, 1, __ATOMIC_SEQ_CST);
			*cancelled = usmp__now();
			ns = 20 * 1000;
		}
		if (*cancelled ? usmp__now() >= *cancelled + grace
		               : usmp__isolate_hung(&res->watch, started, grace))
			return 1;
		struct timespec ts = {0, ns};
		nanosleep(&ts, NULL);
		if (ns < 2 * 1000 * 1000)
			ns *= 2;
	}
	return 0;
}

int usmp__isolated_call(usmp__call *c, double grace)
{
	usmp_registry *r = c->r;
	const usmp__algo *a = c->algo;
	usmp__host_ctx *hc = c->hc;
	usmp_placement *out = c->out;
	char **msg = &c->error;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t n = c->view->buffer_count;
	size_t res_bytes = round_page(sizeof(shared_result), page);
	size_t out_bytes = round_page(n * sizeof *out, page);
	/* Placements end exactly at the guard page when n*16 fills whole
	 * pages; otherwise a scribble first lands in the slack before it. */
	size_t total = res_bytes + out_bytes + page;
	char *named = NULL; /* the culprit's name, once the child runs */
	int st = USMP_OK;

	unsigned char *map = mmap(NULL, total, PROT_READ | PROT_WRITE,
	                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		usmp__set_msg(msg, "cannot map memory for an isolated call: %s",
		              strerror(errno));
		return USMP_ERR_NOMEM;
	}
	shared_result *res = (shared_result *)map;
	usmp_placement *shared_out =
		(usmp_placement *)(map + res_bytes + out_bytes - n * sizeof *out);
	if (mprotect(map + res_bytes + out_bytes, page, PROT_NONE)) {
		usmp__set_msg(msg, "cannot protect the guard page: %s",
		              strerror(errno));
		st = USMP_ERR_INTERNAL;
		goto out;
	}
	memcpy(shared_out, out, n * sizeof *out);
	res->status = USMP_ERR_INTERNAL;
	res->watch.deadline = hc->deadline;
	res->cancel = usmp__cancelled(hc->cancel); /* a cancel before the fork */

	pid_t pid = usmp__child_fork("usmp-isolated");
	if (pid < 0) {
		usmp__set_msg(msg, "cannot fork an isolated call: %s",
		              strerror(errno));
		st = USMP_ERR_INTERNAL;
		goto out;
	}
	if (pid == 0)
		child_run(c, shared_out, res); /* never returns */

	/* Name the culprit by algorithm and plugin file. */
	usmp_plugin_info info = {.struct_size = sizeof info};
	named = !a->builtin && !usmp_registry_plugin(r, a->plugin, &info)
		? usmp__format_msg("algorithm \"%s\" (plugin \"%s\", %s)",
		                   a->name, info.name, info.path)
		: usmp__format_msg("algorithm \"%s\"", a->name);
	const char *culprit = named ? named : "the algorithm";
	double started = usmp__now(), cancelled = 0;
	int killed = watch_child(pid, hc, res, started, grace, &cancelled);
	/* Every way out reaps the child and kills its group. */
	int wstatus = usmp__child_reap(pid);
	replay_log(hc, res);
	if (!killed && wstatus == -1) {
		usmp__set_msg(msg, "lost the isolated call: %s", strerror(errno));
		st = USMP_ERR_INTERNAL;
		goto out;
	}
	if (killed && cancelled) {
		usmp__set_msg(msg, "%s did not stop within %.1f s of the call "
		              "being cancelled; killed (an algorithm checks "
		              "host->should_stop() every few milliseconds)",
		              culprit, grace);
		hc->stopped = 1;
		st = USMP_ERR_STOPPED;
	} else if (killed && res->watch.deadline <= 0) {
		usmp__set_msg(msg, "%s did not return within %.0f s, the limit of "
		              "an isolated call without a time limit; killed (set a "
		              "time limit to allow longer)", culprit,
		              USMP__ISOLATE_CAP);
		st = USMP_ERR_PLUGIN;
	} else if (killed) {
		usmp__set_msg(msg, "%s did not return within its time limit plus "
		              "grace; killed after %.1f s", culprit,
		              usmp__now() - started);
		c->overran = true;
		st = USMP_ERR_PLUGIN;
	} else if (WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);
		usmp__set_msg(msg, "%s crashed with signal %d (%s)", culprit, sig,
		              strsignal(sig));
		st = USMP_ERR_PLUGIN;
	} else if (!__atomic_load_n(&res->done, __ATOMIC_ACQUIRE)) {
		usmp__set_msg(msg, "%s exited (status %d) instead of returning",
		              culprit,
		              WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
		st = USMP_ERR_PLUGIN;
	} else {
		st = res->status;
		memcpy(out, shared_out, n * sizeof *out);
		take_result(hc, res);
		c->call_s = res->call_s;
		res->who[sizeof res->who - 1] = '\0';
		if (res->who[0]) {
			free(c->who);
			c->who = usmp__strdup(res->who);
		}
	}
out:
	free(named);
	munmap(map, total);
	return st;
}
