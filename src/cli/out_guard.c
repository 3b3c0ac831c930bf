/* out_guard.c — what `usmp plan` checks and guards around its output files:
 * outputs that would overwrite the input or each other, and signals mid-write. */
#include "cli.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The signals that end usmp and remove the temporary file being written. */
static const int guarded[] = {SIGINT, SIGTERM, SIGHUP};

/* The temporary file the library is writing (usmp_set_temp_hook), for the
 * signal handler: the handler reads only these two. */
static char temp_path[PATH_MAX];
static volatile sig_atomic_t temp_known;

static int is_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

/* `path` with its directory resolved ("./a.json" and "a.json" agree), for a
 * file that does not exist yet; NULL when the directory does not exist. */
static char *canonical(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = NULL, *real = NULL, *out = NULL;

	if (slash) {
		dir = strdup(path);
		if (!dir)
			goto done;
		dir[slash - path + 1] = '\0';
	}
	real = realpath(dir ? dir : ".", NULL);
	if (!real)
		goto done;
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(real) + strlen(base) + 2;
	out = malloc(n);
	if (out)
		snprintf(out, n, "%s/%s", real, base);
done:
	free(dir);
	free(real);
	return out;
}

/* Whether two paths name the same regular file: the same inode when both
 * exist, the same resolved name when neither does. Devices, FIFOs and the
 * like may be named twice (`-o /dev/null --svg /dev/null`). */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	int ha = stat(a, &sa) == 0, hb = stat(b, &sb) == 0;

	if (ha && hb)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
		       S_ISREG(sa.st_mode);
	if (ha || hb)
		return 0;
	char *ca = canonical(a), *cb = canonical(b);
	int same = ca && cb ? strcmp(ca, cb) == 0 : strcmp(a, b) == 0;
	free(ca);
	free(cb);
	return same;
}

int cli_check_outputs(const char *problem, const char *output, const char *svg)
{
	int from_stdin = strcmp(problem, "-") == 0;

	if (!from_stdin && !is_stdout(output) && same_file(problem, output)) {
		cli_error("-o %s names the problem file %s; refusing to overwrite "
		          "the input", output, problem);
		return -1;
	}
	if (!svg)
		return 0;
	if (!from_stdin && !is_stdout(svg) && same_file(problem, svg)) {
		cli_error("--svg %s names the problem file %s; refusing to "
		          "overwrite the input", svg, problem);
		return -1;
	}
	if (is_stdout(output) && is_stdout(svg)) {
		cli_error("the plan and --svg %s would both go to stdout; give "
		          "one of them a file with -o or --svg", svg);
		return -1;
	}
	if (!is_stdout(output) && !is_stdout(svg) && same_file(output, svg)) {
		cli_error("-o %s and --svg %s name the same file", output, svg);
		return -1;
	}
	return 0;
}

/* A guarded signal: remove the temporary file, then end as the signal's
 * default action would (async-signal-safe calls only). */
static void on_signal(int sig)
{
	if (temp_known)
		unlink(temp_path);
	signal(sig, SIG_DFL);
	raise(sig); /* delivered when the handler returns */
}

/* The library's temporary-file hook: the path is copied with the guarded
 * signals blocked, so the handler never sees half of it. */
static void on_temp(const char *path, int active, void *ctx)
{
	sigset_t set, old;
	size_t n = strlen(path);

	(void)ctx;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++)
		sigaddset(&set, guarded[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	temp_known = 0;
	if (active && n < sizeof temp_path) {
		memcpy(temp_path, path, n + 1);
		temp_known = 1;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void cli_guard_temp_files(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++)
		sigaddset(&sa.sa_mask, guarded[i]);
	usmp_set_temp_hook(on_temp, NULL);
	for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++) {
		struct sigaction old;
		/* A signal the caller ignores (nohup) stays ignored. */
		if (sigaction(guarded[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(guarded[i], &sa, NULL);
	}
}
