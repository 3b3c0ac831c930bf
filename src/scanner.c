/* scanner.c — reading plugins in a forked scanner process before the host
 * loads them, so a constructor that crashes, exits or hangs costs only its plugin.
 *
 * One child reads every plugin in turn (dlopen, descriptor, checks: the
 * registry's checker) and reports through a pipe: "begin i", the plugin's
 * diagnostic lines (each with its kind; the algorithm names a refused plugin
 * declared come as lines too), then "pass i" or "refused i". When the child dies or
 * stays silent for USMP__SCAN_TIMEOUT seconds, the plugin it had begun is
 * failed with the reason and a new child carries on with the next one. */
#include "registry_private.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Longest diagnostic line passed back, in bytes (longer ones are cut). */
#define MAX_LINE 4096

enum { REC_BEGIN = 1, REC_LINE, REC_PASS, REC_REFUSED };

typedef struct rec_head {
	uint32_t kind, index, len;
	int32_t line_kind; /* REC_LINE: usmp_diagnostic_kind or USMP__DIAG_DECLARED */
} rec_head;

typedef struct sink {
	int fd;
	uint32_t index;
} sink;

/* ---- the child ----------------------------------------------------------- */

static void put(int fd, uint32_t kind, uint32_t index, int line_kind,
                const char *text)
{
	char buf[sizeof(rec_head) + MAX_LINE];
	size_t len = text ? strnlen(text, MAX_LINE) : 0;
	rec_head h = {kind, index, (uint32_t)len, line_kind};
	size_t total = sizeof h + len, done = 0;

	memcpy(buf, &h, sizeof h);
	if (len)
		memcpy(buf + sizeof h, text, len);
	while (done < total) {
		ssize_t w = write(fd, buf + done, total - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1); /* the parent stopped listening */
		done += (size_t)w;
	}
}

static void emit(void *s, int kind, const char *line)
{
	sink *k = s;
	put(k->fd, REC_LINE, k->index, kind, line);
}

static void child_main(int fd, const usmp__scan_item *items, size_t from,
                       size_t n, usmp__scan_check check)
{
	for (size_t i = from; i < n; i++) {
		sink k = {fd, (uint32_t)i};
		put(fd, REC_BEGIN, k.index, 0, NULL);
		bool ok = check(items[i].path, emit, &k);
		put(fd, ok ? REC_PASS : REC_REFUSED, k.index, 0, NULL);
	}
	/* No exit handlers: they belong to the parent, and the plugins' own
	 * destructors are not worth the risk. */
	_exit(0);
}

/* ---- the parent ---------------------------------------------------------- */

static void drop_lines(usmp__scan_item *it)
{
	for (size_t i = 0; i < it->line_count; i++)
		free(it->lines[i]);
	it->line_count = 0;
}

static int add_line(usmp__scan_item *it, int kind, const char *text,
                    size_t len)
{
	char *line;

	if (usmp__grow((void **)&it->lines, &it->line_cap, it->line_count + 1,
	               sizeof *it->lines) != USMP_OK ||
	    usmp__grow((void **)&it->kinds, &it->kind_cap, it->line_count + 1,
	               sizeof *it->kinds) != USMP_OK)
		return USMP_ERR_NOMEM;
	line = strndup(text, len);
	if (!line)
		return USMP_ERR_NOMEM;
	it->kinds[it->line_count] = kind;
	it->lines[it->line_count++] = line;
	return USMP_OK;
}

/* Fail `it` with one line, "PATH: <why>". */
static int fail_item(usmp__scan_item *it, const char *fmt, ...)
	USMP__PRINTF(2, 3);
static int fail_item(usmp__scan_item *it, const char *fmt, ...)
{
	char why[512], line[4096 + 600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	snprintf(line, sizeof line, "%s: %s", it->path, why);
	drop_lines(it);
	it->outcome = USMP__SCAN_FAILED;
	return add_line(it, USMP_DIAG_PLUGIN_SKIPPED, line, strlen(line));
}

/* What happened to the plugin the child was loading when it ended. */
static int blame(usmp__scan_item *it, bool hung, int wstatus)
{
	if (hung)
		return fail_item(it, "did not finish loading within %.0f s (read "
		                     "in a scanner process); killed and skipped",
		                 USMP__SCAN_TIMEOUT);
	if (wstatus != -1 && WIFSIGNALED(wstatus))
		return fail_item(it, "crashed with signal %d (%s) while loading "
		                     "(read in a scanner process); skipped",
		                 WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
	if (wstatus != -1 && WIFEXITED(wstatus))
		return fail_item(it, "exited with status %d while loading (read in "
		                     "a scanner process); skipped",
		                 WEXITSTATUS(wstatus));
	return fail_item(it, "lost the scanner process while loading it; "
	                     "skipped");
}

/* Take the complete records at the start of buf[0..*have). */
static int take_records(usmp__scan_item *items, size_t n, char *buf,
                        size_t *have, long *current, size_t *done_upto,
                        double *last)
{
	size_t at = 0;
	int rc = USMP_OK;

	while (*have - at >= sizeof(rec_head)) {
		rec_head h;
		memcpy(&h, buf + at, sizeof h);
		if (h.len > MAX_LINE || h.index >= n ||
		    (h.line_kind != USMP__DIAG_DECLARED &&
		     (h.line_kind < USMP_DIAG_OTHER ||
		      h.line_kind > USMP_DIAG_SHADOWED))) {
			rc = USMP_ERR_INTERNAL; /* not from our child */
			break;
		}
		if (*have - at < sizeof h + h.len)
			break;
		usmp__scan_item *it = &items[h.index];
		switch (h.kind) {
		case REC_BEGIN:
			*current = (long)h.index;
			*last = usmp__now();
			break;
		case REC_LINE:
			rc = add_line(it, h.line_kind, buf + at + sizeof h, h.len);
			break;
		case REC_PASS:
		case REC_REFUSED:
			it->outcome = h.kind == REC_PASS ? USMP__SCAN_PASS
			                                 : USMP__SCAN_REFUSED;
			*current = -1;
			*done_upto = (size_t)h.index + 1;
			*last = usmp__now();
			break;
		default:
			rc = USMP_ERR_INTERNAL;
		}
		if (rc != USMP_OK)
			break;
		at += sizeof h + h.len;
	}
	memmove(buf, buf + at, *have - at);
	*have -= at;
	return rc;
}

/* One scanner child, from items[from] on; *next is where the next child
 * starts (n when every item has an outcome). */
static int run_child(usmp__scan_item *items, size_t n, size_t from,
                     usmp__scan_check check, size_t *next)
{
	char buf[4 * (sizeof(rec_head) + MAX_LINE)];
	size_t have = 0, done_upto = from;
	long current = -1;
	bool hung = false, eof = false;
	int fds[2], rc = USMP_OK, wstatus;
	double last;
	pid_t pid;

	*next = n;
	if (pipe2(fds, O_CLOEXEC) != 0) {
		for (size_t i = from; i < n && rc == USMP_OK; i++)
			rc = fail_item(&items[i], "cannot start the plugin scanner: "
			                          "pipe: %s; skipped", strerror(errno));
		return rc;
	}
	pid = usmp__child_fork("usmp-scan");
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		for (size_t i = from; i < n && rc == USMP_OK; i++)
			rc = fail_item(&items[i], "cannot start the plugin scanner: "
			                          "fork: %s; skipped", strerror(e));
		return rc;
	}
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1], items, from, n, check); /* never returns */
	}
	close(fds[1]);
	last = usmp__now();
	while (!eof) {
		int ms = (int)((last + USMP__SCAN_TIMEOUT - usmp__now()) * 1e3);
		if (ms <= 0) {
			hung = true;
			break;
		}
		struct pollfd pfd = {fds[0], POLLIN, 0};
		int p = poll(&pfd, 1, ms);
		if (p <= 0)
			continue; /* timed out (checked above) or interrupted */
		ssize_t got = read(fds[0], buf + have, sizeof buf - have);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0) {
			eof = true;
			break;
		}
		have += (size_t)got;
		rc = take_records(items, n, buf, &have, &current, &done_upto,
		                  &last);
		if (rc == USMP_ERR_INTERNAL) {
			hung = false;
			break; /* garbage on the pipe: treat like a lost child */
		}
		if (rc != USMP_OK)
			break;
	}
	close(fds[0]);
	/* The pipe closed: the child is ending (or closed it and hangs). */
	if (eof && !usmp__child_wait(pid, last + USMP__SCAN_TIMEOUT))
		hung = true;
	wstatus = usmp__child_reap(pid);
	if (rc == USMP_ERR_NOMEM)
		return rc;
	rc = USMP_OK;
	if (current >= 0) {
		rc = blame(&items[current], hung, wstatus);
		*next = (size_t)current + 1;
	} else if (done_upto < n) {
		/* Ended between two plugins: try again from the next one, or,
		 * when this child made no progress at all, give that one up. */
		*next = done_upto;
		if (done_upto == from) {
			rc = blame(&items[from], hung, wstatus);
			*next = from + 1;
		}
	}
	return rc;
}

int usmp__scan(usmp__scan_item *items, size_t n, usmp__scan_check check)
{
	size_t from = 0;

	for (size_t i = 0; i < n; i++) {
		items[i].outcome = 0;
		drop_lines(&items[i]);
	}
	while (from < n) {
		size_t next;
		int rc = run_child(items, n, from, check, &next);
		if (rc != USMP_OK)
			return rc;
		from = next;
	}
	return USMP_OK;
}

void usmp__scan_finish(usmp__scan_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		drop_lines(&items[i]);
		free(items[i].lines);
		free(items[i].kinds);
		items[i].lines = NULL;
		items[i].kinds = NULL;
		items[i].line_cap = 0;
		items[i].kind_cap = 0;
	}
}
