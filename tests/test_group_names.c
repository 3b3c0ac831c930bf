/* test_group_names.c — the group calls under their names that say they
 * prepare the problem, and the deprecated names, which behave the same. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <usmp/usmp.h>

/* Two buffers of 100 and 60 bytes, alive together, and no pool: preparing
 * adds the "default" pool. */
static usmp_problem *two_buffers(void)
{
	usmp_problem *p = usmp_problem_create();
	uint32_t a, b;
	cr_assert_not_null(p);
	cr_assert_eq(usmp_problem_add_buffer(p, "a", 100, 0, &a), USMP_OK);
	cr_assert_eq(usmp_problem_add_buffer(p, "b", 60, 0, &b), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, a, 0, 2), USMP_OK);
	cr_assert_eq(usmp_problem_set_live(p, b, 1, 3), USMP_OK);
	cr_assert_eq(usmp_problem_pool_count(p), 0);
	return p;
}

Test(group_names, prepare_names_change_the_problem_and_answer)
{
	usmp_problem *p = two_buffers();
	cr_assert_eq(usmp_problem_prepare_group_count(p), 1);
	cr_assert_eq(usmp_problem_pool_count(p), 1, "the default pool is added");
	cr_assert_str_eq(usmp_problem_pool_name(p, 0), "default");
	cr_assert_eq(usmp_problem_prepare_pool_group(p, 0), 0);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 0), 160);
	usmp_problem_destroy(p);
}

Test(group_names, deprecated_names_do_the_same)
{
	usmp_problem *p = two_buffers(), *q = two_buffers();
	/* Each name prepares the problem on its own: pool_group first. */
	cr_assert_eq(usmp_problem_pool_group(q, 0),
	             usmp_problem_prepare_pool_group(p, 0));
	cr_assert_eq(usmp_problem_pool_count(q), usmp_problem_pool_count(p));
	cr_assert_eq(usmp_problem_pool_count(q), 1);
	cr_assert_eq(usmp_problem_group_count(q),
	             usmp_problem_prepare_group_count(p));
	cr_assert_eq(usmp_problem_group_bound(q, 0),
	             usmp_problem_prepare_group_bound(p, 0));
	cr_assert_eq(usmp_problem_group_bound(q, 0), 160);
	/* Out of range: the same failure value and message. */
	cr_assert_eq(usmp_problem_group_bound(q, 7), 0);
	cr_assert_eq(usmp_problem_prepare_group_bound(p, 7), 0);
	cr_assert_str_eq(usmp_problem_error(q), usmp_problem_error(p));
	cr_assert(strstr(usmp_problem_error(q), "group 7 out of range") != NULL,
	          "%s", usmp_problem_error(q));
	cr_assert_eq(usmp_problem_pool_group(q, 5), UINT32_MAX);
	cr_assert_eq(usmp_problem_prepare_pool_group(p, 5), UINT32_MAX);
	cr_assert_str_eq(usmp_problem_error(q), usmp_problem_error(p));
	usmp_problem_destroy(p);
	usmp_problem_destroy(q);
}

Test(group_names, null_problem_fails_soft_under_both_names)
{
	cr_assert_eq(usmp_problem_prepare_group_count(NULL), 0);
	cr_assert_eq(usmp_problem_group_count(NULL), 0);
	cr_assert_eq(usmp_problem_prepare_group_bound(NULL, 0), 0);
	cr_assert_eq(usmp_problem_group_bound(NULL, 0), 0);
	cr_assert_eq(usmp_problem_prepare_pool_group(NULL, 0), UINT32_MAX);
	cr_assert_eq(usmp_problem_pool_group(NULL, 0), UINT32_MAX);
}
