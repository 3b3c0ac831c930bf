/* test_xla.c — a real XLA memory trace from the repository (tests/data/xla/B.csv,
 * google/iopddl, Apache-2.0): read row for row, its bound, a plan of it. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* The lower bound bench/data/xla/README.md records for B (`usmp bound`). */
#define B_BOUND 170672020u

typedef struct row {
	int64_t lower, upper;
	uint64_t size;
} row;

static char *b_path(void)
{
	char *path = malloc(4096);
	cr_assert_not_null(path);
	snprintf(path, 4096, "%s/tests/data/xla/B.csv", test_source_root());
	return path;
}

/* The file's data rows, parsed here without the library; *n = their count. */
static row *b_rows(size_t *n)
{
	char *path = b_path();
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	char line[256];
	cr_assert_not_null(fgets(line, sizeof line, f), "%s is empty", path);
	cr_assert_str_eq(line, "id,lower,upper,size\n");
	size_t cap = 1024, count = 0;
	row *r = malloc(cap * sizeof *r);
	cr_assert_not_null(r);
	while (fgets(line, sizeof line, f)) {
		long long id, lo, hi;
		unsigned long long size;
		cr_assert_eq(sscanf(line, "%lld,%lld,%lld,%llu", &id, &lo, &hi, &size),
		             4, "%s:%zu: %s", path, count + 2, line);
		if (count == cap) {
			cap *= 2;
			r = realloc(r, cap * sizeof *r);
			cr_assert_not_null(r);
		}
		r[count++] = (row){lo, hi, size};
	}
	fclose(f);
	free(path);
	*n = count;
	return r;
}

/* Largest total size alive at once: at each buffer's start, the sizes of all
 * buffers alive then (half-open ranges), O(n^2). */
static uint64_t max_total_alive(const row *r, size_t n)
{
	uint64_t best = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t sum = 0;
		for (size_t j = 0; j < n; j++)
			if (r[j].lower <= r[i].lower && r[i].lower < r[j].upper)
				sum += r[j].size;
		best = sum > best ? sum : best;
	}
	return best;
}

static usmp_problem *read_b(void)
{
	char *path = b_path();
	usmp_problem *p = usmp_problem_create();
	cr_assert_not_null(p);
	cr_assert_eq(usmp_problem_read(p, path, USMP_FORMAT_AUTO, USMP_UNBOUNDED),
	             USMP_OK, "%s", usmp_problem_error(p));
	free(path);
	return p;
}

Test(xla, b_is_read_row_for_row_and_its_bound_is_the_largest_total_alive)
{
	size_t n;
	row *r = b_rows(&n);
	cr_assert_eq(n, 665, "B.csv has %zu rows", n);
	usmp_problem *p = read_b();
	cr_assert_eq(usmp_problem_buffer_count(p), n);
	for (size_t i = 0; i < n; i++) {
		const usmp__buffer *b = &p->buffers[i];
		cr_assert(b->flags & USMP_BUFFER_LIVE, "row %zu", i);
		cr_assert_eq(b->begin, r[i].lower, "row %zu", i);
		cr_assert_eq(b->end, r[i].upper, "row %zu", i);
		cr_assert_eq(b->size, r[i].size, "row %zu", i);
	}
	uint64_t want = max_total_alive(r, n);
	cr_assert_eq(want, B_BOUND, "the file's largest total alive is %llu",
	             (unsigned long long)want);
	cr_assert_eq(usmp_problem_prepare_group_count(p), 1);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), want, "bound %llu",
	             (unsigned long long)usmp_problem_prepare_group_bound(p, 0));
	usmp_problem_destroy(p);
	free(r);
}

Test(xla, first_fit_plans_b_validly_and_no_smaller_than_its_bound)
{
	size_t n;
	row *r = b_rows(&n);
	usmp_problem *p = read_b();
	usmp_registry *reg = test_registry(NULL);
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "first_fit"};
	usmp_plan *plan = test_plan_ok(reg, p, &o);
	cr_assert_eq(usmp_plan_verify(plan, p), USMP_OK, "%s",
	             usmp_plan_error(plan));
	uint64_t pool = usmp_plan_pool_size(plan, 0);
	cr_assert_geq(pool, B_BOUND, "pool %llu below the bound",
	              (unsigned long long)pool);
	usmp_part_info pi = test_part(plan, 0);
	cr_assert_eq(pi.lower_bound, B_BOUND);
	cr_assert_str_eq(pi.algorithm, "first_fit");
	/* and checked again here: every buffer inside the pool, no two buffers
	 * alive together share a byte */
	uint64_t *off = malloc(n * sizeof *off);
	cr_assert_not_null(off);
	for (size_t i = 0; i < n; i++) {
		uint32_t pl;
		cr_assert_eq(usmp_plan_placement(plan, (uint32_t)i, &pl, &off[i]),
		             USMP_OK);
		cr_assert_eq(pl, 0);
		cr_assert_leq(off[i] + r[i].size, pool, "buffer %zu", i);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			int live = r[i].lower < r[j].upper && r[j].lower < r[i].upper;
			int bytes = off[i] < off[j] + r[j].size &&
			            off[j] < off[i] + r[i].size;
			cr_assert(!(live && bytes), "buffers %zu and %zu overlap", i, j);
		}
	free(off);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(reg);
	usmp_problem_destroy(p);
	free(r);
}

Test(xla, b_csv_is_the_bench_trace_unpacked)
{
	char *path = b_path();
	char *want = test_read_file(path);
	cr_assert_not_null(want, "cannot read %s", path);
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "gzip -dc '%s/bench/data/xla/B.csv.gz'",
	         test_source_root());
	char *got = NULL;
	cr_assert_eq(test_run(cmd, &got), 0, "%s: %s", cmd, got ? got : "");
	cr_assert_not_null(got);
	cr_assert_eq(strlen(got), strlen(want), "%s: %zu bytes, %s: %zu", cmd,
	             strlen(got), path, strlen(want));
	cr_assert(strcmp(got, want) == 0, "%s differs from %s", cmd, path);
	free(got);
	free(want);
	free(path);
}
