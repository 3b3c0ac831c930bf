/* out_guard.c — what `usmp plan` checks before any work on its output files:
 * outputs that cannot be opened or would overwrite the input or each other. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

/* Most links followed in the last component (the kernel's limit). */
#define MAX_LINK_HOPS 40

/* Where a symbolic link at `path` points (relative to the link's own
 * directory), heap string; NULL when `path` is no link. */
static char *link_target(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
		return NULL;
	char buf[4096];
	ssize_t n = readlink(path, buf, sizeof buf - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	const char *slash = strrchr(path, '/');
	if (buf[0] == '/' || !slash)
		return strdup(buf);
	size_t dl = (size_t)(slash - path) + 1;
	char *out = malloc(dl + (size_t)n + 1);
	if (out) {
		memcpy(out, path, dl);
		memcpy(out + dl, buf, (size_t)n + 1);
	}
	return out;
}

/* `path` with its directory resolved ("./a.json" and "a.json" agree), for a
 * file that does not exist yet; NULL when the directory does not exist. A
 * dangling symbolic link stands for the file it would create: its target,
 * link by link, is resolved instead (writing through it writes there). */
static char *canonical(const char *path)
{
	char *hop = NULL;
	for (int k = 0; k < MAX_LINK_HOPS; k++) {
		char *next = link_target(hop ? hop : path);
		if (!next)
			break;
		free(hop);
		hop = next;
	}
	if (hop)
		path = hop;
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
	free(hop);
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

/* Whether `path` names the file open on descriptor fd (the problem read
 * from "-", or the plan or picture written to "-"): the same inode. A
 * character device (/dev/null, a terminal) may be named twice, as by
 * same_file. */
static int names_fd(const char *path, int fd)
{
	struct stat sp, sf;

	if (stat(path, &sp) != 0 || fstat(fd, &sf) != 0)
		return 0;
	return sp.st_dev == sf.st_dev && sp.st_ino == sf.st_ino &&
	       !S_ISCHR(sp.st_mode);
}

/* An output that is a directory, or whose directory is missing, fails now
 * with the message the write would give, rather than after planning. */
static int openable(const char *path)
{
	struct stat st;
	const char *slash;
	int err = 0;

	if (is_stdout(path))
		return 0;
	slash = strrchr(path, '/');
	if (stat(path, &st) == 0) {
		err = S_ISDIR(st.st_mode) ? EISDIR : 0;
	} else if (slash) {
		size_t n = (size_t)(slash - path) + 1; /* keeps "/" of "/x" */
		char *dir = malloc(n + 1);
		if (!dir)
			return 0; /* the write will say */
		memcpy(dir, path, n);
		dir[n] = '\0';
		if (stat(dir, &st) != 0)
			err = errno;
		else if (!S_ISDIR(st.st_mode))
			err = ENOTDIR;
		free(dir);
	}
	if (err)
		cli_error("%s: cannot open for writing: %s", path, strerror(err));
	return err ? -1 : 0;
}

int cli_check_outputs(const char *problem, const char *output, const char *svg)
{
	int from_stdin = strcmp(problem, "-") == 0;

	if (openable(output) || (svg && openable(svg)))
		return -1;

	if (!is_stdout(output) && (from_stdin ? names_fd(output, STDIN_FILENO)
	                                      : same_file(problem, output))) {
		cli_error("-o %s names the problem file %s; refusing to overwrite "
		          "the input", output,
		          from_stdin ? "- (standard input)" : problem);
		return -1;
	}
	if (!svg)
		return 0;
	if (!is_stdout(svg) && (from_stdin ? names_fd(svg, STDIN_FILENO)
	                                   : same_file(problem, svg))) {
		cli_error("--svg %s names the problem file %s; refusing to "
		          "overwrite the input", svg,
		          from_stdin ? "- (standard input)" : problem);
		return -1;
	}
	if (is_stdout(output) && is_stdout(svg)) {
		cli_error("the plan and --svg %s would both go to stdout; give "
		          "one of them a file with -o or --svg", svg);
		return -1;
	}
	/* A path to the file standard output is open on (/dev/stdout,
	 * /dev/fd/1, its name) beside "-": written twice, one document would
	 * overwrite or run into the other. */
	if ((is_stdout(output) && names_fd(svg, STDOUT_FILENO)) ||
	    (is_stdout(svg) && names_fd(output, STDOUT_FILENO))) {
		cli_error("%s%s and --svg %s would both go to stdout (%s is "
		          "standard output's file); give one of them another file",
		          output ? "-o " : "the plan", output ? output : "", svg,
		          is_stdout(svg) ? output : svg);
		return -1;
	}
	if (!is_stdout(output) && !is_stdout(svg) && same_file(output, svg)) {
		cli_error("-o %s and --svg %s name the same file", output, svg);
		return -1;
	}
	return 0;
}
