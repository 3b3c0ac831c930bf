/* test_output.c — output files: a failed write leaves the target as it was
 * and no temporary file; special files are never removed; signals leave nothing. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <usmp/usmp.h>

#include "support.h"

/* The user the permission test falls back to when root cannot shed its
 * power to bypass file permissions. */
#define NOBODY 65534

/* A fresh directory, world-searchable so a test may drop to NOBODY. */
static char *make_dir(void)
{
	char *dir = strdup("/tmp/usmp-out-XXXXXX");
	cr_assert(dir && mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	cr_assert_eq(chmod(dir, 0755), 0);
	return dir;
}

static char *in_dir(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = malloc(n);
	cr_assert_not_null(path);
	snprintf(path, n, "%s/%s", dir, name);
	return path;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* The whole file equals `text`, byte for byte. */
static void assert_content(const char *path, const char *text)
{
	char *got = test_read_file(path);
	cr_assert_not_null(got, "%s is gone", path);
	cr_assert_str_eq(got, text, "%s changed", path);
	free(got);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directory's entries, sorted and comma-separated: a temporary file left
 * behind shows up here. */
static void assert_entries(const char *dir, const char *want)
{
	char *names[64], list[4096];
	size_t n = 0, used = 0;
	DIR *d = opendir(dir);
	struct dirent *e;

	cr_assert_not_null(d, "opendir %s", dir);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		cr_assert_lt(n, 64);
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, by_name);
	list[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
		                         i ? "," : "", names[i]);
		free(names[i]);
	}
	cr_assert_str_eq(list, want, "entries of %s", dir);
}

/* Remove the directory and what the test left in it. */
static void remove_dir(char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	free(dir);
}

static const char small_problem[] =
	"{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}], \"buffers\": ["
	"{\"name\": \"a\", \"size\": 100, \"live\": [0, 2]},"
	"{\"name\": \"b\", \"size\": 50, \"live\": [1, 3]},"
	"{\"name\": \"c\", \"size\": 100, \"live\": [2, 4]}]}";

/* A one-pool problem of n buffers in a chain of short lifetimes: quick to
 * plan, with a plan of about 50 bytes per buffer. */
static void write_chain_problem(const char *path, int n)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	fputs("{\"usmp\": 1, \"pools\": [{\"name\": \"sram\"}], \"buffers\": [", f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s{\"name\": \"t%d\", \"size\": %d, \"live\": [%d, %d]}",
		        i ? ",\n" : "", i, 16 + i % 7 * 16, i, i + 2);
	fputs("]}\n", f);
	cr_assert_eq(fclose(f), 0);
}

/* A copy of examples/board_m55_u55.json (three pools) at `path`. */
static void copy_board(const char *path)
{
	char src[4096];
	snprintf(src, sizeof src, "%s/examples/board_m55_u55.json",
	         test_source_root());
	char *text = test_read_file(src);
	cr_assert_not_null(text, "cannot read %s", src);
	write_text(path, text);
	free(text);
}

/* How a child running `usmp` is set up (fork + exec, no shell). */
typedef struct spawn_opts {
	const char *stop_at;  /* USMP_TEST_STOP_AT of the stop_at.so shim */
	int no_tmpfile;       /* the shim denies O_TMPFILE */
	rlim_t fsize;         /* RLIMIT_FSIZE when not 0 (SIGXFSZ ignored) */
	int unprivileged;     /* when root: file permissions apply */
	int umask;            /* umask when >= 0 */
	const char *err_path; /* stdout and stderr go here (else /dev/null) */
} spawn_opts;

/* build/tests/shim/stop_at.so (tests/shim/stop_at.c). */
static const char *shim_path(void)
{
	static char shim[4096];
	struct stat st;
	snprintf(shim, sizeof shim, "%s/tests/shim/stop_at.so",
	         test_build_root());
	cr_assert_eq(stat(shim, &st), 0, "%s: %s", shim, strerror(errno));
	return shim;
}

static pid_t spawn_usmp(const spawn_opts *o, const char *const *args)
{
	const char *argv[32];
	const char *preload = o->stop_at || o->no_tmpfile ? shim_path() : NULL;
	size_t n = 0;
	argv[n++] = "usmp";
	while (*args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;

	pid_t pid = fork();
	cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
	if (pid)
		return pid;
	/* The child: only plain calls from here to exec. */
	int fd = open(o->err_path ? o->err_path : "/dev/null",
	              O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(126);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	setenv("USMP_PLUGIN_PATH", "", 1);
	setenv("USMP_ALGORITHM", "", 1);
	if (o->stop_at)
		setenv("USMP_TEST_STOP_AT", o->stop_at, 1);
	if (o->no_tmpfile)
		setenv("USMP_TEST_NO_TMPFILE", "1", 1);
	if (preload) {
		char asan[1024];
		const char *old = getenv("ASAN_OPTIONS");
		/* ASan wants its runtime first; the shim comes before it. */
		snprintf(asan, sizeof asan, "%s%sverify_asan_link_order=0",
		         old ? old : "", old && *old ? ":" : "");
		setenv("ASAN_OPTIONS", asan, 1);
		setenv("LD_PRELOAD", preload, 1);
	}
	if (o->fsize) {
		struct rlimit rl = {o->fsize, o->fsize};
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(126);
	}
	if (o->umask >= 0)
		umask((mode_t)o->umask);
	/* Root stays root but without the capabilities that bypass file
	 * permissions (dropped from the bounding set, so exec cannot give
	 * them back); failing that, it becomes NOBODY. */
	if (o->unprivileged && geteuid() == 0 &&
	    (prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0) != 0 ||
	     prctl(PR_CAPBSET_DROP, CAP_DAC_READ_SEARCH, 0, 0, 0) != 0 ||
	     prctl(PR_CAPBSET_DROP, CAP_FOWNER, 0, 0, 0) != 0) &&
	    (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 ||
	     setuid(NOBODY) != 0))
		_exit(126);
	execv(test_cli(), (char *const *)argv);
	_exit(127);
}

/* Wait for the child's end; its wait status. */
static int wait_end(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
	return st;
}

static int exit_code(int st)
{
	cr_assert(WIFEXITED(st), "usmp did not exit normally (status 0x%x)", st);
	cr_assert(WEXITSTATUS(st) != 126 && WEXITSTATUS(st) != 127,
	          "the child could not set itself up or run %s (exit %d)",
	          test_cli(), WEXITSTATUS(st));
	return WEXITSTATUS(st);
}

/* ---- a format that cannot hold the plan ---------------------------------- */

Test(output, failed_csv_write_keeps_the_existing_plan)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *old = in_dir(dir, "old.csv"), *out = NULL, want[4200];
	copy_board(problem);
	write_text(old, "id,lower,upper,size,offset\nprevious,0,1,4,0\n");
	int st = test_usmp(&out, "plan '%s' -q -o '%s'", problem, old);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	snprintf(want, sizeof want, "usmp: writing %s: cannot write the plan as CSV: "
	         "CSV holds one pool\n", old);
	cr_assert_str_eq(out, want);
	assert_content(old, "id,lower,upper,size,offset\nprevious,0,1,4,0\n");
	assert_entries(dir, "old.csv,p.json");
	free(out), free(old), free(problem);
	remove_dir(dir);
}

static usmp_plan *plan_of(usmp_problem *p)
{
	usmp_registry *r = test_registry(NULL);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *plan = NULL;
	cr_assert_eq(usmp_plan_compute(r, p, &o, &plan), USMP_OK, "%s",
	             plan ? usmp_plan_error(plan) : "no plan");
	usmp_registry_destroy(r);
	return plan;
}

/* Whether the file system under `dir` has O_TMPFILE (else usmp falls back
 * to a named temporary file). */
static int has_tmpfile(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_WRONLY, 0600);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

Test(output, api_format_check_comes_before_any_file)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *old = in_dir(dir, "old.csv"), *fresh = in_dir(dir, "new.csv"),
	     *lost = in_dir(dir, "no/old.csv");
	usmp_problem *p = usmp_problem_create();
	copy_board(problem);
	write_text(old, "previous\n");
	cr_assert_eq(usmp_problem_read(p, problem, USMP_FORMAT_AUTO,
	                               USMP_UNBOUNDED), USMP_OK);
	usmp_plan *plan = plan_of(p);
	cr_assert_eq(usmp_plan_write(plan, p, old, USMP_FORMAT_AUTO),
	             USMP_ERR_UNSUPPORTED);
	cr_assert(strstr(usmp_plan_error(plan), "old.csv: cannot write the plan "
	                 "as CSV: CSV holds one pool"), "%s",
	          usmp_plan_error(plan));
	cr_assert_eq(usmp_problem_write(p, fresh, USMP_FORMAT_AUTO),
	             USMP_ERR_UNSUPPORTED);
	cr_assert(strstr(usmp_problem_error(p), "new.csv: cannot write as CSV"),
	          "%s", usmp_problem_error(p));
	/* In a missing directory the format is still what fails: nothing
	 * was opened before the check. */
	cr_assert_eq(usmp_plan_write(plan, p, lost, USMP_FORMAT_AUTO),
	             USMP_ERR_UNSUPPORTED);
	cr_assert(strstr(usmp_plan_error(plan), "cannot write the plan as CSV"),
	          "%s", usmp_plan_error(plan));
	assert_content(old, "previous\n");
	assert_entries(dir, "old.csv,p.json");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	free(lost), free(old), free(fresh), free(problem);
	remove_dir(dir);
}

/* The directory's inotify events since `in` started watching, as
 * "EVENT NAME,..." with a temporary name of `base` shown as ".T" and the
 * unnamed (O_TMPFILE) file as "#". */
static void read_events(int in, const char *base, char *list, size_t size)
{
	char buf[65536], prefix[300], last[300] = "";
	size_t used = 0;
	ssize_t n;

	snprintf(prefix, sizeof prefix, ".%s.usmp-", base);
	list[0] = '\0';
	while ((n = read(in, buf, sizeof buf)) > 0) {
		for (char *at = buf; at < buf + n;) {
			const struct inotify_event *e = (const void *)at;
			const char *name = e->len ? e->name : "";
			const char *what = e->mask & IN_CREATE ? "create"
			                 : e->mask & IN_MODIFY ? "modify"
			                 : e->mask & IN_CLOSE_WRITE ? "close_write"
			                 : e->mask & IN_MOVED_FROM ? "moved_from"
			                 : e->mask & IN_MOVED_TO ? "moved_to"
			                 : e->mask & IN_DELETE ? "delete" : "other";
			char entry[300];
			if (strncmp(name, prefix, strlen(prefix)) == 0)
				name = ".T";
			else if (name[0] == '#') /* the unnamed file: "#INODE" */
				name = "#";
			snprintf(entry, sizeof entry, "%s %s", what, name);
			at += sizeof *e + e->len;
			if (strcmp(entry, last) == 0)
				continue; /* one line per run of writes */
			snprintf(last, sizeof last, "%s", entry);
			used += (size_t)snprintf(list + used, size - used, "%s%s",
			                         used ? "," : "", entry);
			cr_assert_lt(used, size);
		}
	}
	cr_assert(n < 0 && errno == EAGAIN, "inotify read: %s", strerror(errno));
}

/* With O_TMPFILE the document is written to the unnamed file only: the one
 * name it gets is created complete (a link) and renamed over the target at
 * once; the old file is never written in place. */
Test(output, api_writes_no_named_temporary_file)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *target = in_dir(dir, "plan.json"), *fresh = in_dir(dir, "copy.json"),
	     events[4096];
	usmp_problem *p = usmp_problem_create();
	write_text(problem, small_problem);
	cr_assert_eq(usmp_problem_read(p, problem, USMP_FORMAT_AUTO,
	                               USMP_UNBOUNDED), USMP_OK);
	usmp_plan *plan = plan_of(p);
	write_text(target, "previous\n");
	if (!has_tmpfile(dir))
		cr_skip_test("%s has no O_TMPFILE (the fallback is tested with "
		             "the shim)", dir);
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	cr_assert_geq(in, 0, "inotify_init1: %s", strerror(errno));
	cr_assert_geq(inotify_add_watch(in, dir, IN_CREATE | IN_MODIFY |
	                                IN_CLOSE_WRITE | IN_MOVED_FROM |
	                                IN_MOVED_TO | IN_DELETE), 0);
	cr_assert_eq(usmp_plan_write(plan, p, target, USMP_FORMAT_AUTO), USMP_OK,
	             "%s", usmp_plan_error(plan));
	read_events(in, "plan.json", events, sizeof events);
	cr_assert_str_eq(events, "modify #,create .T,moved_from .T,"
	                 "moved_to plan.json,close_write #");
	/* A new file the same way. */
	cr_assert_eq(usmp_problem_write(p, fresh, USMP_FORMAT_JSON), USMP_OK,
	             "%s", usmp_problem_error(p));
	read_events(in, "copy.json", events, sizeof events);
	cr_assert_str_eq(events, "modify #,create .T,moved_from .T,"
	                 "moved_to copy.json,close_write #");
	close(in);
	char *text = test_read_file(target);
	cr_assert(text && strstr(text, "\"offset\""), "%s", text);
	free(text);
	text = test_read_file(fresh);
	cr_assert(text && strstr(text, "\"live\""), "%s", text);
	free(text);
	assert_entries(dir, "copy.json,p.json,plan.json");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	free(fresh), free(target), free(problem);
	remove_dir(dir);
}

Test(output, api_missing_directory_is_named)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *lost = in_dir(dir, "no/plan.json"), want[4200];
	usmp_problem *p = usmp_problem_create();
	write_text(problem, small_problem);
	cr_assert_eq(usmp_problem_read(p, problem, USMP_FORMAT_AUTO,
	                               USMP_UNBOUNDED), USMP_OK);
	usmp_plan *plan = plan_of(p);
	cr_assert_eq(usmp_plan_write(plan, p, lost, USMP_FORMAT_AUTO),
	             USMP_ERR_IO);
	snprintf(want, sizeof want, "%s: cannot open for writing: No such file "
	         "or directory", lost);
	cr_assert_str_eq(usmp_plan_error(plan), want);
	assert_entries(dir, "p.json");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	free(lost), free(problem);
	remove_dir(dir);
}

/* ---- outputs that would overwrite the input or each other ---------------- */

Test(output, plan_over_the_problem_file_is_refused)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *link = in_dir(dir, "link.json"), *out = NULL, want[4200];
	write_text(problem, small_problem);
	cr_assert_eq(symlink("p.json", link), 0);
	int st = test_usmp(&out, "plan '%s' -q -o '%s'", problem, problem);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	snprintf(want, sizeof want, "usmp: -o %s names the problem file %s; "
	         "refusing to overwrite the input\n", problem, problem);
	cr_assert_str_eq(out, want);
	free(out);
	/* The same file by another name: a link, or a path through ".". */
	st = test_usmp(&out, "plan '%s' -q -o '%s'", problem, link);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "names the problem file"), "%s", out);
	free(out);
	st = test_usmp(&out, "plan '%s' -q -o '%s/./p.json'", problem, dir);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	free(out);
	st = test_usmp(&out, "plan '%s' -q -o '%s/plan.json' --svg '%s'", problem,
	          dir, problem);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "--svg") && strstr(out, "names the problem file"),
	          "%s", out);
	free(out);
	assert_content(problem, small_problem);
	assert_entries(dir, "link.json,p.json");
	free(link), free(problem);
	remove_dir(dir);
}

Test(output, plan_and_picture_to_one_file_are_refused)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *x = in_dir(dir, "x"), *out = NULL, want[4200];
	write_text(problem, small_problem);
	int st = test_usmp(&out, "plan '%s' -q -o '%s' --svg '%s'", problem, x, x);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	snprintf(want, sizeof want, "usmp: -o %s and --svg %s name the same "
	         "file\n", x, x);
	cr_assert_str_eq(out, want);
	free(out);
	assert_entries(dir, "p.json"); /* refused before any work */
	/* An existing file named two ways. */
	write_text(x, "previous\n");
	st = test_usmp(&out, "plan '%s' -q -o '%s' --svg '%s/./x'", problem, x, dir);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "name the same file"), "%s", out);
	free(out);
	assert_content(x, "previous\n");
	/* Both to stdout. */
	st = test_usmp(&out, "plan '%s' -q --svg -", problem);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert(strstr(out, "would both go to stdout"), "%s", out);
	free(out);
	assert_entries(dir, "p.json,x");
	free(x), free(problem);
	remove_dir(dir);
}

/* ---- special files -------------------------------------------------------- */

static void assert_char_device(const char *path, dev_t rdev)
{
	struct stat st;
	cr_assert_eq(lstat(path, &st), 0, "%s is gone: %s", path, strerror(errno));
	cr_assert(S_ISCHR(st.st_mode), "%s is no longer a character device",
	          path);
	cr_assert_eq(st.st_rdev, rdev, "%s is another device now", path);
}

Test(output, dev_null_is_written_and_stays_a_device)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"), *out = NULL;
	struct stat before;
	write_text(problem, small_problem);
	cr_assert_eq(stat("/dev/null", &before), 0);
	cr_assert(S_ISCHR(before.st_mode));
	out = test_usmp_ok("plan '%s' -q -o /dev/null --svg /dev/null", problem);
	cr_assert_str_eq(out, "");
	free(out);
	assert_char_device("/dev/null", before.st_rdev);
	/* Through the API too: written directly, no temporary file. */
	usmp_problem *p = usmp_problem_create();
	cr_assert_eq(usmp_problem_read(p, problem, USMP_FORMAT_AUTO,
	                               USMP_UNBOUNDED), USMP_OK);
	usmp_plan *plan = plan_of(p);
	cr_assert_eq(usmp_plan_write(plan, p, "/dev/null", USMP_FORMAT_CSV),
	             USMP_OK, "%s", usmp_plan_error(plan));
	cr_assert_eq(usmp_problem_write(p, "/dev/null", USMP_FORMAT_JSON),
	             USMP_OK, "%s", usmp_problem_error(p));
	assert_char_device("/dev/null", before.st_rdev);
	assert_entries(dir, "p.json");
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	free(problem);
	remove_dir(dir);
}

Test(output, dev_full_is_named_and_left_alone)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"), *out = NULL;
	struct stat before;
	write_text(problem, small_problem);
	cr_assert_eq(stat("/dev/full", &before), 0, "no /dev/full here");
	int st = test_usmp(&out, "plan '%s' -q -o /dev/full", problem);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert_str_eq(out, "usmp: /dev/full: write failed: No space left on "
	                      "device\n");
	free(out);
	st = test_usmp(&out, "plan '%s' -q -o '%s/plan.json' --svg /dev/full", problem,
	          dir);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	cr_assert_str_eq(out, "usmp: /dev/full: write failed: No space left on "
	                      "device\n");
	free(out);
	assert_char_device("/dev/full", before.st_rdev);
	assert_entries(dir, "p.json,plan.json");
	free(problem);
	remove_dir(dir);
}

Test(output, dev_stdout_is_written_through_and_kept)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *redirected = in_dir(dir, "redirected.json"), *out = NULL;
	struct stat before, after;
	write_text(problem, small_problem);
	cr_assert_eq(lstat("/dev/stdout", &before), 0);
	out = test_usmp_ok("plan '%s' -q -o /dev/stdout", problem);
	cr_assert(strstr(out, "\"offset\""), "%s", out);
	free(out);
	/* stdout a regular file (a shell redirection): the plan lands in it. */
	out = test_usmp_ok("plan '%s' -q -o /dev/stdout >'%s'", problem, redirected);
	free(out);
	char *text = test_read_file(redirected);
	cr_assert(text && strstr(text, "\"offset\""), "%s", text);
	free(text);
	cr_assert_eq(lstat("/dev/stdout", &after), 0, "/dev/stdout is gone");
	cr_assert_eq(after.st_mode, before.st_mode);
	cr_assert_eq(after.st_ino, before.st_ino);
	assert_entries(dir, "p.json,redirected.json");
	free(redirected), free(problem);
	remove_dir(dir);
}

/* ---- failures on regular files ------------------------------------------- */

Test(output, missing_directory_is_named)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"), *out = NULL,
	     want[4200];
	write_text(problem, small_problem);
	int st = test_usmp(&out, "plan '%s' -q -o '%s/no/plan.json'", problem, dir);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	snprintf(want, sizeof want, "usmp: %s/no/plan.json: cannot open for "
	         "writing: No such file or directory\n", dir);
	cr_assert_str_eq(out, want);
	free(out);
	assert_entries(dir, "p.json");
	free(problem);
	remove_dir(dir);
}

Test(output, directory_as_output_is_named)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *sub = in_dir(dir, "sub"), *out = NULL, want[4200];
	write_text(problem, small_problem);
	cr_assert_eq(mkdir(sub, 0755), 0);
	int st = test_usmp(&out, "plan '%s' -q -o '%s'", problem, sub);
	cr_assert_eq(st, 2, "exit %d: %s", st, out);
	snprintf(want, sizeof want, "usmp: %s: cannot open for writing: Is a "
	         "directory\n", sub);
	cr_assert_str_eq(out, want);
	free(out);
	assert_entries(sub, "");
	assert_entries(dir, "p.json,sub");
	free(sub), free(problem);
	remove_dir(dir);
}

/* A directory and a file usmp may not write (mode 0555 and 0444; the
 * child that runs usmp as root sheds the capabilities that ignore modes). */
Test(output, read_only_directory_and_file_are_named)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *ro = in_dir(dir, "ro"), *old = in_dir(dir, "ro/old.json"),
	     *open_dir = in_dir(dir, "open"), *locked = in_dir(dir, "open/old.json"),
	     *err = in_dir(dir, "err.txt"), want[4200];
	write_text(problem, small_problem);
	cr_assert_eq(mkdir(ro, 0755), 0);
	cr_assert_eq(mkdir(open_dir, 0777), 0);
	cr_assert_eq(chmod(open_dir, 0777), 0);
	write_text(old, "previous\n");
	write_text(locked, "locked\n");
	cr_assert_eq(chmod(locked, 0444), 0);
	cr_assert_eq(chmod(ro, 0555), 0);
	cr_assert_eq(chmod(dir, 0777), 0); /* for err.txt */

	spawn_opts o = {.unprivileged = 1, .umask = -1, .err_path = err};
	const char *args[] = {"plan", problem, "-q", "-o", old, NULL};
	cr_assert_eq(exit_code(wait_end(spawn_usmp(&o, args))), 2);
	snprintf(want, sizeof want, "usmp: %s: cannot open for writing: "
	         "Permission denied\n", old);
	assert_content(err, want);
	assert_content(old, "previous\n");
	assert_entries(ro, "old.json");

	/* The directory is writable but the file is not: not replaced. */
	const char *args2[] = {"plan", problem, "-q", "-o", locked, NULL};
	cr_assert_eq(exit_code(wait_end(spawn_usmp(&o, args2))), 2);
	snprintf(want, sizeof want, "usmp: %s: cannot open for writing: "
	         "Permission denied\n", locked);
	assert_content(err, want);
	assert_content(locked, "locked\n");
	assert_entries(open_dir, "old.json");
	chmod(ro, 0755);
	free(err), free(locked), free(open_dir), free(old), free(ro), free(problem);
	remove_dir(dir);
}

Test(output, disk_full_on_a_regular_file_keeps_it)
{
	static const char *const names[] = {"old.json", "old.csv", "old.svg"};
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *err = test_tmpfile(".err"), want[4200];
	/* Files past 1000 bytes fail to grow (EFBIG), as on a full disk
	 * (ENOSPC): with 200 buffers when the last buffer is flushed, with
	 * 4000 (a plan of about 200 kB) while the writer is still writing. */
	for (int n = 200; n <= 4000; n += 3800) {
		write_chain_problem(problem, n);
		for (int k = 0; k < 3; k++) {
			char *old = in_dir(dir, names[k]);
			write_text(old, "previous\n");
			spawn_opts o = {.fsize = 1000, .umask = -1, .err_path = err};
			const char *args[] = {"plan", problem, "-q", "-a", "first_fit",
			                      "-o", k == 2 ? "/dev/null" : old,
			                      k == 2 ? "--svg" : NULL, old, NULL};
			cr_assert_eq(exit_code(wait_end(spawn_usmp(&o, args))), 2,
			             "%d buffers, %s", n, names[k]);
			snprintf(want, sizeof want, "usmp: %s: write failed: File too "
			         "large\n", old);
			assert_content(err, want);
			assert_content(old, "previous\n");
			unlink(old);
			free(old);
			assert_entries(dir, "p.json");
		}
	}
	unlink(err);
	free(err), free(problem);
	remove_dir(dir);
}

/* The library alone, in a child under the same file size limit: the
 * problem writer prints record by record, so the failure comes mid-write. */
Test(output, api_disk_full_mid_write_names_the_file)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *old = in_dir(dir, "old.json"), msg[4200] = "", want[4200];
	int fds[2], rc = -1;
	write_chain_problem(problem, 4000);
	write_text(old, "previous\n");
	cr_assert_eq(pipe(fds), 0);
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		struct rlimit rl = {1000, 1000};
		usmp_problem *p = usmp_problem_create();
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0 ||
		    usmp_problem_read(p, problem, USMP_FORMAT_AUTO,
		                      USMP_UNBOUNDED) != USMP_OK)
			_exit(1);
		rc = usmp_problem_write(p, old, USMP_FORMAT_JSON);
		snprintf(msg, sizeof msg, "%d %s", rc, usmp_problem_error(p));
		(void)!write(fds[1], msg, strlen(msg));
		usmp_problem_destroy(p);
		_exit(0);
	}
	close(fds[1]);
	ssize_t got = read(fds[0], msg, sizeof msg - 1);
	close(fds[0]);
	cr_assert_eq(exit_code(wait_end(pid)), 0);
	cr_assert_gt(got, 0);
	msg[got] = '\0';
	snprintf(want, sizeof want, "%d %s: write failed: File too large",
	         USMP_ERR_IO, old);
	cr_assert_str_eq(msg, want);
	assert_content(old, "previous\n");
	assert_entries(dir, "old.json,p.json");
	free(old), free(problem);
	remove_dir(dir);
}

/* ---- what a replaced file keeps ------------------------------------------ */

static mode_t mode_of(const char *path)
{
	struct stat st;
	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	return st.st_mode & 07777;
}

Test(output, mode_is_kept_and_new_files_follow_the_umask)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *kept = in_dir(dir, "kept.json"), *fresh = in_dir(dir, "new.json"),
	     *link = in_dir(dir, "link.json");
	write_text(problem, small_problem);
	write_text(kept, "previous\n");
	cr_assert_eq(chmod(kept, 0604), 0);
	cr_assert_eq(symlink("kept.json", link), 0);

	spawn_opts o = {.umask = 027};
	const char *a1[] = {"plan", problem, "-q", "-o", kept, NULL};
	cr_assert_eq(exit_code(wait_end(spawn_usmp(&o, a1))), 0);
	cr_assert_eq(mode_of(kept), 0604);
	const char *a2[] = {"plan", problem, "-q", "-o", fresh, NULL};
	cr_assert_eq(exit_code(wait_end(spawn_usmp(&o, a2))), 0);
	cr_assert_eq(mode_of(fresh), 0640);
	/* Through a link: the file it points to is replaced, the link stays. */
	write_text(kept, "previous\n");
	const char *a3[] = {"plan", problem, "-q", "-o", link, NULL};
	cr_assert_eq(exit_code(wait_end(spawn_usmp(&o, a3))), 0);
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
	char *text = test_read_file(kept);
	cr_assert(text && strstr(text, "\"offset\""), "%s", text);
	free(text);
	cr_assert_eq(mode_of(kept), 0604);
	assert_entries(dir, "kept.json,link.json,new.json,p.json");
	free(link), free(fresh), free(kept), free(problem);
	remove_dir(dir);
}

/* ---- signals ------------------------------------------------------------- */

/* Start `usmp plan PROBLEM -o OUT` (a chain of 2000 buffers, first_fit) with
 * the shim, and wait until it stops itself at the shim's step. */
static pid_t held_usmp(const spawn_opts *o, const char *problem,
                       const char *out)
{
	const char *args[] = {"plan", problem, "-q", "-a", "first_fit", "-o", out,
	                      NULL};
	pid_t pid = spawn_usmp(o, args);
	int ws;
	cr_assert_eq(waitpid(pid, &ws, WUNTRACED), pid);
	cr_assert(WIFSTOPPED(ws) && WSTOPSIG(ws) == SIGSTOP,
	          "usmp did not stop at %s (status 0x%x)", o->stop_at, ws);
	return pid;
}

/* Send `sig` (0: none) to the held usmp, let it go on, and wait. */
static int release(pid_t pid, int sig)
{
	if (sig)
		cr_assert_eq(kill(pid, sig), 0);
	cr_assert_eq(kill(pid, SIGCONT), 0);
	return wait_end(pid);
}

/* The end of the plan of write_chain_problem(, 2000) is in `text`. */
static void assert_complete_plan(const char *text, const char *where)
{
	cr_assert(text && strstr(text, "\"t1999\""), "%s: no complete plan: %.200s",
	          where, text ? text : "(nothing)");
}

/* The content of the unnamed file (a descriptor whose file is a deleted
 * "#N" in `dir`) the held process `pid` writes; NULL when it has none. */
static char *unnamed_file_of(pid_t pid, const char *dir)
{
	char fds[64], link[4200], target[4200];
	char *text = NULL;
	struct dirent *e;
	snprintf(fds, sizeof fds, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(fds);
	cr_assert_not_null(d, "%s: %s", fds, strerror(errno));
	while (!text && (e = readdir(d)) != NULL) {
		snprintf(link, sizeof link, "%s/%s", fds, e->d_name);
		ssize_t n = readlink(link, target, sizeof target - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		size_t dl = strlen(dir);
		if (strncmp(target, dir, dl) == 0 && target[dl] == '/' &&
		    strstr(target, " (deleted)"))
			text = test_read_file(link);
	}
	closedir(d);
	return text;
}

/* The named temporary files of plan.json in `dir`. */
static int temp_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int temps = 0;
	cr_assert_not_null(d);
	while ((e = readdir(d)) != NULL)
		temps += strncmp(e->d_name, ".plan.json.usmp-", 16) == 0;
	closedir(d);
	return temps;
}

/* usmp stops itself with the plan complete and synced in its unnamed
 * temporary file, before naming it; the test then sends `sig`. The signal
 * is bound to land inside the write, whatever the timing; usmp installs no
 * handler, and nothing is left because the file never had a name. */
static void signal_before_naming(int sig)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *old = in_dir(dir, "plan.json");
	write_chain_problem(problem, 2000);
	write_text(old, "previous plan\n");
	if (!has_tmpfile(dir))
		cr_skip_test("%s has no O_TMPFILE", dir);

	spawn_opts o = {.stop_at = "synced", .umask = -1};
	pid_t pid = held_usmp(&o, problem, old);
	/* Held: the complete plan sits in a file with no name. */
	char *text = unnamed_file_of(pid, dir);
	assert_complete_plan(text, "the unnamed file");
	free(text);
	assert_entries(dir, "p.json,plan.json");
	assert_content(old, "previous plan\n");

	int ws = release(pid, sig);
	cr_assert(WIFSIGNALED(ws) && WTERMSIG(ws) == sig,
	          "usmp did not end by signal %d (status 0x%x)", sig, ws);
	assert_content(old, "previous plan\n");
	assert_entries(dir, "p.json,plan.json");
	free(old), free(problem);
	remove_dir(dir);
}

Test(output, sigterm_during_the_write_keeps_the_previous_plan)
{
	signal_before_naming(SIGTERM);
}

Test(output, sigint_during_the_write_keeps_the_previous_plan)
{
	signal_before_naming(SIGINT);
}

/* A signal that comes while the file is being named (linkat, then rename)
 * waits until it is in place: usmp ends by the signal with the new plan
 * written and no temporary name left. Were the signal not held back, usmp
 * would die before the link and plan.json would be the previous one. */
Test(output, sigterm_while_naming_ends_after_the_rename)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *old = in_dir(dir, "plan.json");
	write_chain_problem(problem, 2000);
	write_text(old, "previous plan\n");
	if (!has_tmpfile(dir))
		cr_skip_test("%s has no O_TMPFILE", dir);
	spawn_opts o = {.stop_at = "link", .umask = -1};
	pid_t pid = held_usmp(&o, problem, old);
	assert_entries(dir, "p.json,plan.json");
	int ws = release(pid, SIGTERM);
	cr_assert(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGTERM,
	          "usmp did not end by SIGTERM (status 0x%x)", ws);
	char *text = test_read_file(old);
	assert_complete_plan(text, old);
	free(text);
	assert_entries(dir, "p.json,plan.json");
	free(old), free(problem);
	remove_dir(dir);
}

/* Without O_TMPFILE (denied by the shim): a named temporary file, renamed
 * over the target when complete, removed on failure; a signal while it is
 * written leaves it behind (documented), the target intact. */
Test(output, without_o_tmpfile_a_named_temporary_file_is_used)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *old = in_dir(dir, "plan.json"), *err = test_tmpfile(".err"),
	     want[4200];
	write_chain_problem(problem, 2000);
	write_text(old, "previous plan\n");

	/* Held before the rename: the complete plan is in the named file. */
	spawn_opts o = {.stop_at = "rename", .no_tmpfile = 1, .umask = -1};
	pid_t pid = held_usmp(&o, problem, old);
	cr_assert_eq(temp_files(dir), 1, "no named temporary file while held");
	assert_content(old, "previous plan\n");
	cr_assert_eq(exit_code(release(pid, 0)), 0);
	char *text = test_read_file(old);
	assert_complete_plan(text, old);
	free(text);
	assert_entries(dir, "p.json,plan.json");

	/* A failed write removes it. */
	write_text(old, "previous plan\n");
	spawn_opts full = {.no_tmpfile = 1, .fsize = 1000, .umask = -1,
	                   .err_path = err};
	const char *args[] = {"plan", problem, "-q", "-a", "first_fit", "-o", old,
	                      NULL};
	cr_assert_eq(exit_code(wait_end(spawn_usmp(&full, args))), 2);
	snprintf(want, sizeof want, "usmp: %s: write failed: File too large\n",
	         old);
	assert_content(err, want);
	assert_content(old, "previous plan\n");
	assert_entries(dir, "p.json,plan.json");

	/* SIGTERM while held: usmp dies, the target is intact, and the
	 * named temporary file stays (no handler removes it). */
	pid = held_usmp(&o, problem, old);
	int ws = release(pid, SIGTERM);
	cr_assert(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGTERM,
	          "usmp did not end by SIGTERM (status 0x%x)", ws);
	assert_content(old, "previous plan\n");
	cr_assert_eq(temp_files(dir), 1);
	unlink(err);
	free(err), free(old), free(problem);
	remove_dir(dir);
}

/* A FIFO nobody drains: usmp blocks writing it; SIGTERM ends it, and the
 * FIFO is still there (special files are never removed). */
Test(output, sigterm_while_blocked_on_a_fifo_keeps_the_fifo)
{
	char *dir = make_dir(), *problem = in_dir(dir, "p.json"),
	     *fifo = in_dir(dir, "fifo");
	struct stat st;
	write_chain_problem(problem, 4000); /* a plan well past a pipe's 64 kB */
	cr_assert_eq(mkfifo(fifo, 0644), 0);
	int rd = open(fifo, O_RDONLY | O_NONBLOCK);
	cr_assert_geq(rd, 0);

	spawn_opts o = {.umask = -1};
	const char *args[] = {"plan", problem, "-q", "-a", "first_fit", "-o", fifo,
	                      NULL};
	pid_t pid = spawn_usmp(&o, args);
	/* Wait for the first bytes: usmp is then writing the plan, which
	 * cannot all fit in the pipe while nothing reads it. */
	char byte;
	for (;;) {
		struct pollfd pfd = {.fd = rd, .events = POLLIN};
		int ws;
		cr_assert_eq(waitpid(pid, &ws, WNOHANG), 0,
		             "usmp ended before writing (status 0x%x)", ws);
		if (poll(&pfd, 1, 100) == 1 && read(rd, &byte, 1) == 1)
			break;
	}
	cr_assert_eq(byte, '{');
	cr_assert_eq(kill(pid, SIGTERM), 0);
	int ws = wait_end(pid);
	cr_assert(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGTERM,
	          "usmp did not end by SIGTERM (status 0x%x)", ws);
	close(rd);
	cr_assert_eq(lstat(fifo, &st), 0, "the FIFO is gone");
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
	assert_entries(dir, "fifo,p.json");
	free(fifo), free(problem);
	remove_dir(dir);
}
