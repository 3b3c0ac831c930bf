/* test_log.c — usmp_registry_set_log: a host's log function receives what
 * algorithms log (level, algorithm name, text), filtered by level, isolated or not. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <usmp/usmp.h>

#include "support.h"

/* What the log function received. */
typedef struct seen {
	int count;
	int level[32];
	char algorithm[32][64];
	char message[32][256];
} seen;

static void record(void *ctx, int level, const char *algorithm,
                   const char *message)
{
	seen *s = ctx;
	if (s->count >= 32)
		return;
	s->level[s->count] = level;
	snprintf(s->algorithm[s->count], sizeof s->algorithm[0], "%s", algorithm);
	snprintf(s->message[s->count], sizeof s->message[0], "%s", message);
	s->count++;
}

/* The index of the first message containing `text`, or -1. */
static int find(const seen *s, const char *text)
{
	for (int i = 0; i < s->count; i++)
		if (strstr(s->message[i], text))
			return i;
	return -1;
}

static usmp_registry *fixture(const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.so", test_fixture_plugindir(), name);
	return test_registry(path);
}

static usmp_problem *small_problem(void)
{
	usmp_problem *p = usmp_problem_create();
	for (int i = 0; i < 4; i++) {
		char name[16];
		uint32_t id;
		snprintf(name, sizeof name, "t%d", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 64, 16, &id), USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, id, i, i + 2), USMP_OK);
	}
	return p;
}

/* Plan with `algo` (knob values `params`) and return the status. */
static int plan(usmp_registry *r, const char *algo, const char *const *params,
                uint32_t n, uint32_t flags)
{
	usmp_problem *p = small_problem();
	usmp_plan_options o = {.struct_size = sizeof o, .flags = flags,
	                       .algorithm = algo, .params = params,
	                       .param_count = n};
	usmp_plan *out = NULL;
	int st = usmp_plan_compute(r, p, &o, &out);
	usmp_plan_destroy(out);
	usmp_problem_destroy(p);
	return st;
}

static void receives_plugin_lines(uint32_t flags)
{
	usmp_registry *r = fixture("echo");
	seen s = {0};
	cr_assert_eq(usmp_registry_set_log(r, record, &s, USMP_LOG_DEBUG), USMP_OK);
	const char *params[] = {"i=7", "s=word"};
	cr_assert_eq(plan(r, "fx_echo", params, 2, flags), USMP_OK);
	int i = find(&s, "i=7");
	cr_assert_geq(i, 0, "no echo line among %d messages", s.count);
	cr_assert_eq(s.level[i], USMP_LOG_INFO);
	cr_assert_str_eq(s.algorithm[i], "fx_echo");
	cr_assert(strstr(s.message[i], "s=<word>"), "%s", s.message[i]);
	cr_assert_null(strchr(s.message[i], '\n'));
	usmp_registry_destroy(r);
}

Test(log, a_plugins_lines_reach_the_function_with_level_and_algorithm)
{
	receives_plugin_lines(USMP_PLAN_NO_ISOLATE);
}

Test(log, an_isolated_plugins_lines_reach_the_function_in_the_caller)
{
	receives_plugin_lines(USMP_PLAN_ISOLATE);
}

Test(log, messages_above_the_level_are_filtered)
{
	usmp_registry *r = fixture("good_v1_1");
	seen s = {0};
	cr_assert_eq(usmp_registry_set_log(r, record, &s, USMP_LOG_ERROR), USMP_OK);
	const char *bad[] = {"order=sideways"};
	cr_assert_neq(plan(r, "fx_good", bad, 1, USMP_PLAN_NO_ISOLATE), USMP_OK);
	cr_assert_eq(s.count, 1, "%d messages", s.count);
	cr_assert_eq(s.level[0], USMP_LOG_ERROR);
	cr_assert_str_eq(s.algorithm[0], "fx_good");
	cr_assert_str_eq(s.message[0], "order must be size or none");
	usmp_registry_destroy(r);

	/* fx_echo logs at info: nothing passes a warn level. */
	r = fixture("echo");
	memset(&s, 0, sizeof s);
	cr_assert_eq(usmp_registry_set_log(r, record, &s, USMP_LOG_WARN), USMP_OK);
	cr_assert_eq(plan(r, "fx_echo", NULL, 0, USMP_PLAN_NO_ISOLATE), USMP_OK);
	cr_assert_eq(s.count, 0, "got \"%s\"", s.message[0]);
	cr_assert_eq(usmp_registry_set_log(r, record, &s, USMP_LOG_INFO), USMP_OK);
	cr_assert_eq(plan(r, "fx_echo", NULL, 0, USMP_PLAN_NO_ISOLATE), USMP_OK);
	cr_assert_geq(find(&s, "s=<hello>"), 0, "%d messages", s.count);
	usmp_registry_destroy(r);
}

Test(log, progress_reports_are_logged_at_debug)
{
	usmp_registry *r = test_registry(NULL);
	seen s = {0};
	cr_assert_eq(usmp_registry_set_log(r, record, &s, USMP_LOG_DEBUG), USMP_OK);
	cr_assert_eq(plan(r, "auto", NULL, 0, 0), USMP_OK);
	int i = find(&s, "best so far: ");
	cr_assert_geq(i, 0, "%d messages", s.count);
	cr_assert_eq(s.level[i], USMP_LOG_DEBUG);
	/* auto's, or the member's that made the plan ("auto/first_fit"). */
	cr_assert(!strncmp(s.algorithm[i], "auto", 4) &&
	          (!s.algorithm[i][4] || s.algorithm[i][4] == '/'), "%s",
	          s.algorithm[i]);
	/* Two buffers of 64 bytes are alive at once at most. */
	cr_assert(strstr(s.message[i], " bytes"), "%s", s.message[i]);
	usmp_registry_destroy(r);
}

Test(log, the_env_level_follows_usmp_log_and_unknown_values_are_silent)
{
	usmp_registry *r = fixture("echo");
	seen s = {0};
	cr_assert_eq(usmp_registry_set_log(r, record, &s, USMP_LOG_LEVEL_ENV),
	             USMP_OK);
	setenv("USMP_LOG", "info", 1);
	cr_assert_eq(plan(r, "fx_echo", NULL, 0, USMP_PLAN_NO_ISOLATE), USMP_OK);
	cr_assert_geq(find(&s, "s=<hello>"), 0, "%d messages", s.count);
	memset(&s, 0, sizeof s);
	setenv("USMP_LOG", "warn", 1);
	cr_assert_eq(plan(r, "fx_echo", NULL, 0, USMP_PLAN_NO_ISOLATE), USMP_OK);
	cr_assert_eq(s.count, 0);
	setenv("USMP_LOG", "verbose", 1); /* not a level: the default, silent */
	cr_assert_eq(plan(r, "fx_echo", NULL, 0, USMP_PLAN_NO_ISOLATE), USMP_OK);
	cr_assert_eq(s.count, 0, "got \"%s\"", s.message[0]);
	unsetenv("USMP_LOG");
	usmp_registry_destroy(r);
}

Test(log, a_bad_level_is_refused)
{
	usmp_registry *r = fixture("echo");
	seen s = {0};
	cr_assert_eq(usmp_registry_set_log(r, record, &s, USMP_LOG_DEBUG + 1),
	             USMP_ERR_INVALID);
	cr_assert_eq(usmp_registry_set_log(r, record, &s, -2), USMP_ERR_INVALID);
	cr_assert_eq(usmp_registry_set_log(NULL, record, &s, USMP_LOG_INFO),
	             USMP_ERR_INVALID);
	/* The refused calls changed nothing: stderr logging, silent. */
	cr_assert_eq(plan(r, "fx_echo", NULL, 0, USMP_PLAN_NO_ISOLATE), USMP_OK);
	cr_assert_eq(s.count, 0);
	usmp_registry_destroy(r);
}

/* Run a plan with fd 2 sent to a file; what was written there. */
static char *stderr_of_plan(usmp_registry *r, uint32_t flags)
{
	char *path = test_tmpfile(".err");
	fflush(stderr);
	int saved = dup(2);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	int st = plan(r, "fx_echo", NULL, 0, flags);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	cr_assert_eq(st, USMP_OK);
	char *text = test_read_file(path);
	unlink(path);
	free(path);
	return text;
}

Test(log, null_restores_the_stderr_logger)
{
	setenv("USMP_LOG", "info", 1);
	usmp_registry *r = fixture("echo");
	seen s = {0};
	cr_assert_eq(usmp_registry_set_log(r, record, &s, USMP_LOG_INFO), USMP_OK);
	for (int isolate = 0; isolate < 2; isolate++) {
		uint32_t flags = isolate ? USMP_PLAN_ISOLATE : USMP_PLAN_NO_ISOLATE;
		char *text = stderr_of_plan(r, flags);
		cr_assert_str_eq(text, "", "stderr while a function is set");
		free(text);
	}
	cr_assert_eq(s.count, 2);
	cr_assert_eq(usmp_registry_set_log(r, NULL, NULL, 0), USMP_OK);
	for (int isolate = 0; isolate < 2; isolate++) {
		uint32_t flags = isolate ? USMP_PLAN_ISOLATE : USMP_PLAN_NO_ISOLATE;
		char *text = stderr_of_plan(r, flags);
		cr_assert(strstr(text, "usmp: fx_echo: b=false i=-1 "), "stderr: %s",
		          text);
		free(text);
	}
	cr_assert_eq(s.count, 2, "the function is no longer called");
	unsetenv("USMP_LOG");
	usmp_registry_destroy(r);
}
