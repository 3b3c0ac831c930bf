/* test_deadline.c — what the whole-command time limit rests on, untimed: the
 * load factor, the CSV plan text, auto's first-plan line, the timing line. */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "internal.h"
#include "support.h"

/* ---- the load factor (budget.h) ----------------------------------------- */

Test(deadline, the_load_factor_is_half_the_wall_per_cpu_second_clamped)
{
	/* too little CPU time to tell, or nonsense: 1 */
	cr_assert_eq(usmp__budget_load(5.0, 0.001), 1.0);
	cr_assert_eq(usmp__budget_load(5.0, 0.0), 1.0);
	cr_assert_eq(usmp__budget_load(0.0, 1.0), 1.0);
	cr_assert_eq(usmp__budget_load(-1.0, 1.0), 1.0);
	/* an idle machine, and twice the wall (the reserves' own doubling) */
	cr_assert_eq(usmp__budget_load(1.0, 1.0), 1.0);
	cr_assert_eq(usmp__budget_load(2.0, 1.0), 1.0);
	/* three times the wall: 1.5; six: 3 */
	cr_assert_float_eq(usmp__budget_load(3.0, 1.0), 1.5, 1e-12);
	cr_assert_float_eq(usmp__budget_load(1.2, 0.2), 3.0, 1e-12);
	/* never past LOAD_MAX */
	cr_assert_eq(usmp__budget_load(100.0, 1.0), USMP__LOAD_MAX);
	double nan = 0.0 / 0.0;
	cr_assert_eq(usmp__budget_load(nan, 1.0), 1.0);
	cr_assert_eq(usmp__budget_load(1.0, nan), 1.0);
}

/* ---- the CSV plan writer: the same bytes as printf -------------------- */

/* A one-pool problem of n buffers with the given names, ranges, sizes and
 * alignments, and a plan placing buffer i at offsets[i] (not checked: the
 * writer writes what it is given). */
static usmp_plan *plan_with(usmp_problem *p, uint32_t n, const char *const *names,
                            const int64_t *begin, const int64_t *end,
                            const uint64_t *size, const uint64_t *align,
                            const uint64_t *offsets)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id;
		cr_assert_eq(usmp_problem_add_buffer(p, names[i], size[i], align[i], &id),
		             USMP_OK, "%s", usmp_problem_error(p));
		cr_assert_eq(usmp_problem_set_live(p, id, begin[i], end[i]), USMP_OK,
		             "%s", usmp_problem_error(p));
	}
	cr_assert_eq(usmp__problem_prepare(p), USMP_OK, "%s", usmp_problem_error(p));
	usmp_plan *plan = usmp__plan_alloc(p);
	cr_assert_not_null(plan);
	for (uint32_t i = 0; i < n; i++) {
		plan->placements[i].pool = 0;
		plan->placements[i].offset = offsets[i];
	}
	return plan;
}

/* The text the CSV plan writer must produce, built with printf. */
static char *expected_csv(uint32_t n, const char *const *names,
                          const int64_t *begin, const int64_t *end,
                          const uint64_t *size, const uint64_t *align,
                          const uint64_t *offsets, int align_column)
{
	size_t cap = 64, len = 0;
	for (uint32_t i = 0; i < n; i++)
		cap += strlen(names[i]) + 5 * 22;
	char *s = malloc(cap);
	cr_assert_not_null(s);
	len += (size_t)snprintf(s + len, cap - len, "id,lower,upper,size%s,offset\n",
	                        align_column ? ",alignment" : "");
	for (uint32_t i = 0; i < n; i++) {
		len += (size_t)snprintf(s + len, cap - len, "%s,%" PRId64 ",%" PRId64
		                        ",%" PRIu64, names[i], begin[i], end[i], size[i]);
		if (align_column)
			len += (size_t)snprintf(s + len, cap - len, ",%" PRIu64,
			                        align[i] ? align[i] : 1);
		len += (size_t)snprintf(s + len, cap - len, ",%" PRIu64 "\n", offsets[i]);
	}
	return s;
}

/* Write plan as CSV and compare the file with want, byte for byte. */
static void assert_writes(usmp_plan *plan, usmp_problem *p, const char *want)
{
	char *path = test_tmpfile(".csv");
	cr_assert_eq(usmp_plan_write(plan, p, path, USMP_FORMAT_CSV), USMP_OK, "%s",
	             usmp_plan_error(plan));
	char *got = test_read_file(path);
	cr_assert_not_null(got);
	size_t i = 0;
	while (got[i] && got[i] == want[i])
		i++;
	cr_assert(got[i] == want[i], "the CSV differs from printf's at byte %zu "
	          "of %zu: ...%.40s... (want ...%.40s...)", i, strlen(want),
	          got + (i > 20 ? i - 20 : 0), want + (i > 20 ? i - 20 : 0));
	free(got);
	remove(path);
	free(path);
}

Test(deadline, the_csv_plan_is_the_text_printf_would_write)
{
	/* Many rows (the writer's 64 KiB buffer fills many times), ids from
	 * one character to 3,000, negative times, numbers of every width up
	 * to 20 digits, alignments (an alignment column) and none. */
	enum { N = 5000 };
	static char *names[N];
	static int64_t begin[N], end[N];
	static uint64_t size[N], align[N], offsets[N];
	uint64_t seed = 14;
	for (uint32_t i = 0; i < N; i++) {
		size_t k = i % 97 == 0 ? 1000 + (size_t)test_rand_range(&seed, 0, 2000)
		                       : 1 + (size_t)test_rand_range(&seed, 0, 12);
		names[i] = malloc(k + 16);
		cr_assert_not_null(names[i]);
		int w = snprintf(names[i], k + 16, "b%u_", i);
		for (size_t c = (size_t)w; c < k + (size_t)w; c++)
			names[i][c] = (char)('a' + (c * 7 + i) % 26);
		names[i][k + (size_t)w] = '\0';
		int digits = (int)test_rand_range(&seed, 0, 18);
		int64_t mag = 1;
		for (int d = 0; d < digits; d++)
			mag *= 10;
		begin[i] = (int64_t)test_rand_range(&seed, 0, (uint64_t)mag) *
		           (test_chance(&seed, 30) ? -1 : 1);
		end[i] = begin[i] + 1 + (int64_t)test_rand_range(&seed, 0, 1000);
		size[i] = test_rand_range(&seed, 1, (uint64_t)1 << test_rand_range(&seed, 0, 62));
		align[i] = test_chance(&seed, 10) ? (uint64_t)1 << test_rand_range(&seed, 1, 12) : 0;
		offsets[i] = test_chance(&seed, 5) ? UINT64_MAX - test_rand_range(&seed, 0, 9)
		                                  : test_rand_range(&seed, 0, (uint64_t)1 << test_rand_range(&seed, 0, 63));
	}
	offsets[0] = 0;
	begin[1] = INT64_MIN + 1;
	end[1] = INT64_MIN + 2;
	begin[2] = INT64_MAX - 1;
	end[2] = INT64_MAX;
	usmp_problem *p = usmp_problem_create();
	usmp_plan *plan = plan_with(p, N, (const char *const *)names, begin, end, size,
	                            align, offsets);
	char *want = expected_csv(N, (const char *const *)names, begin, end, size,
	                          align, offsets, 1);
	assert_writes(plan, p, want);
	free(want);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);

	/* no alignment above 1: no alignment column */
	for (uint32_t i = 0; i < N; i++)
		align[i] = 0;
	p = usmp_problem_create();
	plan = plan_with(p, N, (const char *const *)names, begin, end, size, align,
	                 offsets);
	want = expected_csv(N, (const char *const *)names, begin, end, size, align,
	                    offsets, 0);
	assert_writes(plan, p, want);
	free(want);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	for (uint32_t i = 0; i < N; i++)
		free(names[i]);
}

/* Write a one-buffer plan whose CSV row is exactly `len` bytes: an id of
 * 'x's, then ",-5,7,100,123456789012". Returns usmp_plan_write's status
 * (the written text checked when it is USMP_OK). */
static int write_row_of(size_t len)
{
	const char *tail = ",-5,7,100,123456789012"; /* with the offset */
	size_t k = len - strlen(tail);
	char *name = malloc(k + 1);
	cr_assert_not_null(name);
	memset(name, 'x', k);
	name[k] = '\0';
	usmp_problem *p = usmp_problem_create();
	const char *names[] = {name};
	int64_t b[] = {-5}, e[] = {7};
	uint64_t z[] = {100}, a[] = {0}, off[] = {123456789012ull};
	usmp_plan *plan = plan_with(p, 1, names, b, e, z, a, off);
	char *path = test_tmpfile(".csv");
	int st = usmp_plan_write(plan, p, path, USMP_FORMAT_CSV);
	if (st == USMP_OK) {
		char *got = test_read_file(path);
		char *want = test_fmt("id,lower,upper,size,offset\n%s%s\n", name, tail);
		cr_assert_str_eq(got, want);
		free(got);
		free(want);
	} else {
		cr_assert(strstr(usmp_plan_error(plan), "4096"), "%s",
		          usmp_plan_error(plan));
	}
	remove(path);
	free(path);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	free(name);
	return st;
}

Test(deadline, a_csv_row_is_counted_as_written_at_the_4096_byte_line_limit)
{
	/* the row's length is counted without printing it: a negative time
	 * and a 12-digit offset counted right, to the byte */
	cr_assert_eq(write_row_of(4096), USMP_OK);
	cr_assert_eq(write_row_of(4097), USMP_ERR_UNSUPPORTED);
}

/* ---- auto says when its first plan came in ------------------------------ */

typedef struct lines {
	int count, found, level;
	char text[256];
} lines;

static void keep_first_plan(void *ctx, int level, const char *algorithm,
                            const char *message)
{
	lines *l = ctx;
	l->count++;
	if (!l->found && strstr(message, "first plan by ") &&
	    !strcmp(algorithm, "auto")) {
		l->found = 1;
		l->level = level;
		snprintf(l->text, sizeof l->text, "%s", message);
	}
}

Test(deadline, auto_logs_its_first_plan_and_whether_it_met_its_deadline)
{
	usmp_registry *r = test_registry(NULL);
	lines l = {0};
	cr_assert_eq(usmp_registry_set_log(r, keep_first_plan, &l, USMP_LOG_INFO),
	             USMP_OK);
	/* overlapping pairs: laying the buffers end to end is above the bound,
	 * so a member makes the first plan */
	usmp_problem *p = usmp_problem_create();
	for (int i = 0; i < 6; i++) {
		char name[16];
		uint32_t id;
		snprintf(name, sizeof name, "t%d", i);
		cr_assert_eq(usmp_problem_add_buffer(p, name, 64 << (i % 3), 16, &id),
		             USMP_OK);
		cr_assert_eq(usmp_problem_set_live(p, id, i, i + 2), USMP_OK);
	}
	usmp_plan_options o = {.struct_size = sizeof o, .time_limit = 30,
	                       .flags = USMP_PLAN_NO_ISOLATE};
	usmp_plan *plan = test_plan_ok(r, p, &o);
	cr_assert(l.found, "no first-plan line among %d log lines", l.count);
	cr_assert_eq(l.level, USMP_LOG_INFO);
	cr_assert(!strncmp(l.text, "first plan by first_fit:order=size after ", 41),
	          "%s", l.text);
	cr_assert(strstr(l.text, " ms, within its deadline") ||
	          strstr(l.text, " ms past its deadline"), "%s", l.text);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
}

/* ---- the command's timing line ------------------------------------------ */

Test(deadline, usmp_plan_prints_its_phases_under_usmp_log_debug_only)
{
	char *prob = test_write_tmp(".csv", "id,lower,upper,size\na,0,2,8\nb,1,3,16\n"
	                                    "c,2,4,8\n");
	char *out = test_tmpfile(".csv"), *text = NULL;
	char *cmd = test_fmt("USMP_LOG=debug %s plan --time-limit 30 %s -o %s 2>&1",
	                     test_cli(), prob, out);
	cr_assert_eq(test_run(cmd, &text), 0, "%s", text);
	const char *t = strstr(text, "usmp: timing: read ");
	cr_assert_not_null(t, "%s", text);
	double read, planned, written, done, cpu;
	cr_assert_eq(sscanf(t, "usmp: timing: read %lf s, planned %lf s, written "
	                    "%lf s, done %lf s after the process started; CPU %lf s",
	                    &read, &planned, &written, &done, &cpu), 5, "%s", t);
	/* phases in the order they ran, counted from the process's start */
	cr_assert(read > 0 && read <= planned && planned <= written &&
	          written <= done, "%s", t);
	free(text);
	free(cmd);
	text = NULL;
	cmd = test_fmt("USMP_LOG=info %s plan --time-limit 30 %s -o %s 2>&1",
	               test_cli(), prob, out);
	cr_assert_eq(test_run(cmd, &text), 0, "%s", text);
	cr_assert_null(strstr(text, "timing:"), "%s", text);
	free(text);
	free(cmd);
	remove(out);
	remove(prob);
	free(out);
	free(prob);
}
