/* test_containment.c — plugins cannot outlive, crash or subvert usmp: isolated
 * children die with it, misbehaving constructors cost only their plugin (the
 * scanner), unsafe plugin files are skipped, and a bare file name is a file. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "support.h"

extern char **environ;

/* Under AddressSanitizer a SIGSEGV is caught by ASan's handler, which reports
 * and ends the process itself: the parent sees an exit, not the signal. */
#if defined(__SANITIZE_ADDRESS__)
#define CTOR_CRASH_WORDS "while loading"
#else
#define CTOR_CRASH_WORDS "crashed with signal 11"
#endif

/* Bounded polling: up to 1000 tries 10 ms apart. */
#define TRIES 1000

static void nap(void)
{
	struct timespec ts = {0, 10 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

static char *load_fixture(const char *name)
{
	return test_fmt("%s/load/%s.so", test_fixture_plugindir(), name);
}

static char *fixture(const char *name)
{
	return test_fmt("%s/%s.so", test_fixture_plugindir(), name);
}

/* ---- /proc --------------------------------------------------------------- */

typedef struct proc_stat {
	char comm[64];
	char state;
	pid_t ppid, pgrp;
} proc_stat;

/* Read /proc/PID/stat; false when the process is gone. */
static bool read_stat(pid_t pid, proc_stat *ps)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	if (!open || !close || close < open)
		return false;
	snprintf(ps->comm, sizeof ps->comm, "%.*s", (int)(close - open - 1),
	         open + 1);
	int ppid, pgrp;
	if (sscanf(close + 1, " %c %d %d", &ps->state, &ppid, &pgrp) != 3)
		return false;
	ps->ppid = ppid;
	ps->pgrp = pgrp;
	return true;
}

/* Alive: exists and is not a zombie (in a container nobody may reap it). */
static bool alive(pid_t pid)
{
	proc_stat ps;
	return read_stat(pid, &ps) && ps.state != 'Z' && ps.state != 'X';
}

/* Calls fn(pid, &stat, ctx) for every process; stops when fn returns true. */
static bool each_process(bool (*fn)(pid_t, const proc_stat *, void *),
                         void *ctx)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool hit = false;
	cr_assert_not_null(d);
	while (!hit && (e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		proc_stat ps;
		if (*end || pid <= 0 || !read_stat((pid_t)pid, &ps))
			continue;
		hit = fn((pid_t)pid, &ps, ctx);
	}
	closedir(d);
	return hit;
}

typedef struct kids {
	pid_t parent;
	pid_t pids[64];
	int count;
	const char *want_comm; /* stop at a child of this name */
} kids;

static bool collect_child(pid_t pid, const proc_stat *ps, void *ctx)
{
	kids *k = ctx;
	if (ps->ppid != k->parent || ps->state == 'Z')
		return false;
	if (k->count < 64)
		k->pids[k->count++] = pid;
	return k->want_comm && strcmp(ps->comm, k->want_comm) == 0;
}

static bool in_group(pid_t pid, const proc_stat *ps, void *ctx)
{
	(void)pid;
	return ps->pgrp == *(pid_t *)ctx && ps->state != 'Z' && ps->state != 'X';
}

/* ---- 1. children die with usmp -------------------------------------------- */

/* Start `usmp plan ... -a fx_hang --isolate -o out` with default signal
 * actions. */
static pid_t start_hanging_plan(const char *out)
{
	char *plugin = fixture("hang");
	char *env_path = test_fmt("USMP_PLUGIN_PATH=%s", plugin);
	char *problem = test_fmt("%s/examples/mobilenet_v2.json", test_source_root());
	char *argv[] = {(char *)test_cli(), "plan", problem, "-a", "fx_hang",
	                "--isolate", "-q", "-o", (char *)out, NULL};
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = calloc(n + 2, sizeof *envp);
	cr_assert_not_null(envp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "USMP_PLUGIN_PATH=", 17) != 0)
			envp[k++] = environ[i];
	envp[k++] = env_path;

	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, deflt;
	sigemptyset(&none);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGINT);
	sigaddset(&deflt, SIGTERM);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &deflt);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
	                                POSIX_SPAWN_SETSIGDEF);
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv, envp);
	cr_assert_eq(rc, 0, "posix_spawn %s: %s", argv[0], strerror(rc));
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	free(envp);
	free(env_path);
	free(plugin);
	free(problem);
	return pid;
}

/* The names in dir other than "." and ".."; 0 when it cannot be read. */
static int entries_in(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void signal_kills_usmp_and_its_children(int sig)
{
	/* A previous plan at -o: the signal must leave it as it was. */
	char dir[] = "/tmp/usmp-sig-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char *out = test_fmt("%s/plan.json", dir);
	static const char previous[] = "{\"previous\": \"plan\"}\n";
	FILE *f = fopen(out, "w");
	cr_assert_not_null(f);
	fputs(previous, f);
	fclose(f);
	pid_t usmp = start_hanging_plan(out);
	kids k = {.parent = usmp, .want_comm = "usmp-isolated"};
	int tries = 0;
	for (; tries < TRIES; tries++) {
		k.count = 0;
		if (each_process(collect_child, &k))
			break;
		nap();
	}
	if (tries == TRIES)
		kill(usmp, SIGKILL);
	cr_assert_lt(tries, TRIES, "no isolated child of usmp (pid %d) appeared",
	             (int)usmp);

	cr_assert_eq(kill(usmp, sig), 0);
	int wstatus = 0;
	pid_t w = 0;
	for (tries = 0; tries < TRIES && w == 0; tries++) {
		w = waitpid(usmp, &wstatus, WNOHANG);
		if (w == 0)
			nap();
	}
	if (w == 0)
		kill(usmp, SIGKILL), waitpid(usmp, NULL, 0);
	cr_assert_eq(w, usmp, "usmp did not exit after signal %d", sig);
	cr_assert(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == sig,
	          "usmp ended with wait status 0x%x, not by signal %d", wstatus,
	          sig);

	for (int i = 0; i < k.count; i++) {
		pid_t child = k.pids[i], group = child;
		for (tries = 0; tries < TRIES && alive(child); tries++)
			nap();
		bool left = alive(child);
		if (left)
			kill(child, SIGKILL);
		cr_assert(!left, "child %d of usmp survived signal %d", (int)child,
		          sig);
		for (tries = 0; tries < TRIES && each_process(in_group, &group);
		     tries++)
			nap();
		cr_assert_lt(tries, TRIES, "a process of group %d survived",
		             (int)group);
	}
	char *now = test_read_file(out);
	cr_assert_str_eq(now, previous, "the previous plan changed");
	cr_assert_eq(entries_in(dir), 1, "a file beside the plan was left in %s",
	             dir);
	free(now);
	unlink(out);
	rmdir(dir);
	free(out);
}

Test(containment, sigterm_to_usmp_kills_its_isolated_child, .timeout = 60)
{
	signal_kills_usmp_and_its_children(SIGTERM);
}

Test(containment, sigint_to_usmp_kills_its_isolated_child, .timeout = 60)
{
	signal_kills_usmp_and_its_children(SIGINT);
}

/* The isolated child sits in a process group of its own, so a terminal's ^C
 * (sent to the foreground group) reaches usmp, not the plugin. */
Test(containment, isolated_child_has_its_own_process_group, .timeout = 60)
{
	pid_t usmp = start_hanging_plan("/dev/null");
	kids k = {.parent = usmp, .want_comm = "usmp-isolated"};
	int tries = 0;
	for (; tries < TRIES; tries++) {
		k.count = 0;
		if (each_process(collect_child, &k))
			break;
		nap();
	}
	proc_stat child = {0}, parent = {0};
	bool got = tries < TRIES && read_stat(k.pids[k.count - 1], &child) &&
	           read_stat(usmp, &parent);
	kill(usmp, SIGKILL);
	waitpid(usmp, NULL, 0);
	cr_assert(got, "no isolated child of usmp appeared");
	cr_assert_eq(child.pgrp, k.pids[k.count - 1]);
	cr_assert_neq(child.pgrp, parent.pgrp);
}

/* The rule docs/abi.md ("Isolation") states: with no deadline, a fixed cap;
 * with one, a grace past it, never while a first plan is being made. */
Test(containment, isolated_call_without_a_deadline_is_killed_at_the_cap)
{
	double now = usmp__now();
	usmp__watch w = {0};
	/* no deadline: only the cap counts */
	cr_assert_not(usmp__isolate_hung(&w, now - USMP__ISOLATE_CAP + 5, 1.0));
	cr_assert(usmp__isolate_hung(&w, now - USMP__ISOLATE_CAP - 1, 1.0));
	/* a deadline 3 s ago: hung with a grace of 1 s, not with 10 s */
	w.deadline = now - 3;
	cr_assert(usmp__isolate_hung(&w, now - 5, 1.0));
	cr_assert_not(usmp__isolate_hung(&w, now - 5, 10.0));
	/* making its first plan: never hung, however late */
	w.patient = 1;
	cr_assert_not(usmp__isolate_hung(&w, now - 5, 1.0));
	/* a first plan that ended 0.5 s ago and took 2 s: the grace counts from
	 * its end, and its time is added */
	w.patient = 0;
	w.patient_end = now - 0.5;
	w.patient_time = 2.0;
	cr_assert_not(usmp__isolate_hung(&w, now - 5, 1.0));
	w.patient_end = now - 3.5;
	cr_assert(usmp__isolate_hung(&w, now - 5, 1.0));
}

/* ---- 2. the plugin scanner -------------------------------------------------- */

typedef struct misbehaviour {
	const char *fixture;
	const char *reason; /* words of the diagnostic */
} misbehaviour;

static const misbehaviour crash = {"ctor_crash", CTOR_CRASH_WORDS};
static const misbehaviour exits = {"ctor_exit", "exited with status 0 while "
                                                "loading"};
static const misbehaviour hangs = {"ctor_hang", "did not finish loading "
                                                "within 10 s"};

/* `usmp list -v` with the bad plugin before a good one: exit 0, the bad one
 * named with its reason, the good one (read by a restarted scanner) listed. */
static void list_survives(const misbehaviour *m)
{
	char *bad = load_fixture(m->fixture), *good = fixture("good_v1_1");
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s:%s' '%s' list -v", bad, good,
	                test_cli());
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	char *line = test_fmt("%s: ", bad);
	const char *at = strstr(out, line);
	cr_assert(at, "%s not named:\n%s", bad, out);
	cr_assert(strstr(at, m->reason), "no \"%s\":\n%s", m->reason, out);
	cr_assert(strstr(out, "read in a scanner process"), "%s", out);
	cr_assert(strstr(out, "\nfx_good  (good_v1_1)"), "good plugin missing:\n%s",
	          out);
	cr_assert_null(strstr(out, "fx_ctor"), "%s", out);
	free(line), free(out), free(cmd), free(bad), free(good);
}

/* `usmp plan --isolate` with the bad plugin present: exit 0, a plan that
 * verifies, and the skipped plugin named with its reason on stderr. */
static void plan_survives(const misbehaviour *m)
{
	char *bad = load_fixture(m->fixture), *good = fixture("good_v1_1");
	char *plan = test_tmpfile(".json");
	/* fx_good stacks every buffer: a problem with an unbounded pool */
	char *problem = test_write_tmp(".json",
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 16, \"live\": [0, 2]},"
		"{\"name\": \"b\", \"size\": 32, \"live\": [1, 3]}]}");
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s:%s' '%s' plan '%s' -a fx_good "
	                "--isolate -o '%s'", bad, good, test_cli(), problem, plan);
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	char *line = test_fmt("usmp: note: %s: ", bad);
	const char *at = strstr(out, line);
	cr_assert(at, "%s not named:\n%s", bad, out);
	cr_assert(strstr(at, m->reason), "no \"%s\":\n%s", m->reason, out);
	free(cmd), free(out);
	cmd = test_fmt("USMP_PLUGIN_PATH= '%s' verify '%s' '%s'", test_cli(), problem,
	          plan);
	st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "the plan does not verify (exit %d): %s", st, out);
	remove(plan);
	remove(problem);
	free(line), free(out), free(cmd), free(bad), free(good), free(plan),
		free(problem);
}

Test(containment, list_survives_a_plugin_whose_constructor_crashes)
{
	list_survives(&crash);
}

Test(containment, list_survives_a_plugin_whose_constructor_exits)
{
	list_survives(&exits);
}

Test(containment, list_survives_a_plugin_whose_constructor_hangs,
     .timeout = 120)
{
	list_survives(&hangs);
}

Test(containment, plan_isolate_survives_a_plugin_whose_constructor_crashes)
{
	plan_survives(&crash);
}

Test(containment, plan_isolate_survives_a_plugin_whose_constructor_exits)
{
	plan_survives(&exits);
}

Test(containment, plan_isolate_survives_a_plugin_whose_constructor_hangs,
     .timeout = 120)
{
	plan_survives(&hangs);
}

/* Through the API: diagnostics keep search order across a scanner restart,
 * and every check of an in-process load is made in the scanner too. */
Test(containment, registry_keeps_search_order_across_a_scanner_crash)
{
	char *path = test_fmt("%s/good_v1_0.so:%s/load/ctor_crash.so:%s/v2_only.so:"
	                 "%s/good_v1_1.so",
	                 test_fixture_plugindir(), test_fixture_plugindir(),
	                 test_fixture_plugindir(), test_fixture_plugindir());
	usmp_registry *r = test_registry_any(path);
	cr_assert_eq(usmp_registry_plugin_count(r), 2);
	usmp_plugin_info a = {.struct_size = sizeof a}, b = a;
	usmp_registry_plugin(r, 0, &a);
	usmp_registry_plugin(r, 1, &b);
	cr_assert_str_eq(a.name, "good_v1_0");
	cr_assert_str_eq(b.name, "good_v1_1");
	cr_assert_eq(usmp_registry_diagnostic_count(r), 2);
	const char *d0 = usmp_registry_diagnostic(r, 0);
	const char *d1 = usmp_registry_diagnostic(r, 1);
	cr_assert(strstr(d0, "ctor_crash.so: ") && strstr(d0, CTOR_CRASH_WORDS),
	          "%s", d0);
	cr_assert(strstr(d1, "v2_only.so: built for plugin ABI major 2"), "%s",
	          d1);
	usmp_registry_destroy(r);
	free(path);
}

/* ---- 3. unsafe plugin files: world-writable or foreign-owned ------------- */

static void copy_file(const char *from, const char *to, mode_t mode)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;
	cr_assert(in && out, "%s -> %s", from, to);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		cr_assert_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
	cr_assert_eq(chmod(to, mode), 0);
}

/* A fresh directory (mode `dir_mode`) holding good_v1_1.so as `name`
 * (mode `file_mode`). Returns the directory; *file its plugin. */
static char *plugin_dir(mode_t dir_mode, const char *name, mode_t file_mode,
                        char **file)
{
	char tmpl[] = "/tmp/usmp-containment-XXXXXX";
	cr_assert_not_null(mkdtemp(tmpl));
	char *good = fixture("good_v1_1");
	*file = test_fmt("%s/%s", tmpl, name);
	copy_file(good, *file, file_mode);
	cr_assert_eq(chmod(tmpl, dir_mode), 0);
	free(good);
	return strdup(tmpl);
}

static void remove_dir(char *dir, char *file)
{
	chmod(dir, 0700);
	remove(file);
	rmdir(dir);
	free(file);
	free(dir);
}

/* The user that owns neither the test's files nor usmp. */
#define NOBODY 65534

/* `usmp list -v` with USMP_PLUGIN_PATH=dir, with and without the opt-in.
 * `dir_owner`, `file_owner`: chown to NOBODY when set (needs root). */
static void insecure_is_skipped_unless_allowed(mode_t dir_mode,
                                               mode_t file_mode,
                                               bool dir_owner, bool file_owner,
                                               const char *why_fmt)
{
	char *file, *dir = plugin_dir(dir_mode, "good_v1_1.so", file_mode, &file);
	if (file_owner)
		cr_assert_eq(chown(file, NOBODY, NOBODY), 0, "%s", strerror(errno));
	if (dir_owner)
		cr_assert_eq(chown(dir, NOBODY, NOBODY), 0, "%s", strerror(errno));
	char *why = test_fmt(why_fmt, dir);
	char *want = test_fmt("%s: skipped: %s; set USMP_ALLOW_INSECURE_PLUGINS=1 to "
	                 "load it anyway", file, why);
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' '%s' list -v", dir, test_cli());
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, want), "no \"%s\":\n%s", want, out);
	cr_assert_null(strstr(out, "fx_good"), "%s", out);
	free(out), free(cmd);

	cmd = test_fmt("USMP_ALLOW_INSECURE_PLUGINS=1 USMP_PLUGIN_PATH='%s' '%s' list -v",
	          dir, test_cli());
	st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, "\nfx_good  (good_v1_1)"), "%s", out);
	cr_assert_null(strstr(out, "USMP_ALLOW_INSECURE_PLUGINS"), "%s", out);
	free(out), free(cmd), free(want), free(why);
	remove_dir(dir, file);
}

Test(containment, world_writable_plugin_is_skipped_unless_allowed)
{
	insecure_is_skipped_unless_allowed(0755, 0666, false, false,
	                                   "world-writable (mode 0666)");
}

Test(containment, plugin_in_a_world_writable_directory_is_skipped_unless_allowed)
{
	insecure_is_skipped_unless_allowed(0777, 0644, false, false,
	                                   "its directory %s is world-writable "
	                                   "without the sticky bit (mode 0777)");
}

/* Under umask 002 (a private group per user) files and directories are
 * group-writable: they load, with no diagnostic and no opt-in. */
Test(containment, group_writable_plugin_and_directory_load)
{
	char *file, *dir = plugin_dir(0775, "good_v1_1.so", 0664, &file);
	char *cmd = test_fmt("USMP_PLUGIN_PATH='%s' '%s' list -v", dir, test_cli());
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, "\nfx_good  (good_v1_1)"), "%s", out);
	cr_assert_null(strstr(out, "skipped"), "%s", out);
	free(out), free(cmd);
	usmp_registry *r = test_registry(file); /* asserts no diagnostic */
	cr_assert_eq(usmp_registry_plugin_count(r), 1);
	usmp_registry_destroy(r);
	remove_dir(dir, file);
}

/* Owned by another user (not root): skipped like the dynamic loader would. */
Test(containment, foreign_owned_plugin_is_skipped_unless_allowed)
{
	if (geteuid() != 0)
		cr_skip_test("giving a file to another user needs root");
	insecure_is_skipped_unless_allowed(0755, 0644, false, true,
	                                   "owned by uid 65534, neither this user "
	                                   "(uid 0) nor root");
}

Test(containment, plugin_in_a_foreign_owned_directory_is_skipped_unless_allowed)
{
	if (geteuid() != 0)
		cr_skip_test("giving a directory to another user needs root");
	insecure_is_skipped_unless_allowed(0755, 0644, true, false,
	                                   "its directory %s is owned by uid "
	                                   "65534, neither this user (uid 0) nor "
	                                   "root");
}

/* Like /tmp: world-writable but sticky, nobody may replace another's file. */
Test(containment, plugin_in_a_sticky_directory_loads)
{
	char *file, *dir = plugin_dir(01777, "good_v1_1.so", 0644, &file);
	usmp_registry *r = test_registry(file); /* asserts no diagnostic */
	cr_assert_eq(usmp_registry_plugin_count(r), 1);
	usmp_registry_destroy(r);
	remove_dir(dir, file);
}

/* A host that asks for no environment gets no opt-in from it either. */
Test(containment, no_env_registry_ignores_the_insecure_opt_in)
{
	char *file, *dir = plugin_dir(0755, "good_v1_1.so", 0666, &file);
	setenv("USMP_ALLOW_INSECURE_PLUGINS", "1", 1);
	usmp_registry *r = test_registry_any(dir);
	cr_assert_eq(usmp_registry_plugin_count(r), 0);
	cr_assert_eq(usmp_registry_diagnostic_count(r), 1);
	cr_assert(strstr(usmp_registry_diagnostic(r, 0), "skipped: "
	                                                 "world-writable (mode 0666)"),
	          "%s", usmp_registry_diagnostic(r, 0));
	usmp_registry_destroy(r);
	unsetenv("USMP_ALLOW_INSECURE_PLUGINS");
	remove_dir(dir, file);
}

/* ---- 4. a path entry that is a bare file name ----------------------------- */

/* USMP_PLUGIN_PATH=mine.so means ./mine.so, not the dynamic loader's search
 * path (where dlopen("mine.so") would look, and fail or find another). */
Test(containment, plugin_path_file_without_a_slash_is_the_file_here)
{
	char *file, *dir = plugin_dir(0755, "mine.so", 0644, &file);
	char *cmd = test_fmt("cd '%s' && USMP_PLUGIN_PATH=mine.so '%s' list -v", dir,
	                test_cli());
	char *out = NULL;
	int st = test_run(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert(strstr(out, "\nfx_good  (good_v1_1)"), "%s", out);
	cr_assert(strstr(out, "algorithms: ./mine.so\n"), "%s", out);
	cr_assert_null(strstr(out, "cannot load"), "%s", out);
	free(out), free(cmd);
	remove_dir(dir, file);
}
