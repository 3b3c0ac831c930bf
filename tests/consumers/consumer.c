/* consumer.c — the program the CMake and Meson consumer projects build: it
 * plans three buffers with the shipped best_fit plugin and prints the plan. */
#include <usmp/usmp.h>

#include <stdio.h>

int main(void)
{
	static const struct { const char *name; uint64_t size; int64_t a, b; }
	bufs[] = {{"a", 1000, 0, 2}, {"b", 2000, 1, 3}, {"c", 1000, 2, 4}};
	usmp_problem *p = usmp_problem_create();
	usmp_registry *r = NULL;
	usmp_plan *plan = NULL;
	usmp_plan_options o = {.struct_size = sizeof o, .algorithm = "best_fit"};
	uint32_t pool, id, major, minor;
	int rc = 1;

	if (!p || usmp_problem_add_pool(p, "sram", 1u << 20, 16, &pool))
		goto fail;
	for (int i = 0; i < 3; i++)
		if (usmp_problem_add_buffer(p, bufs[i].name, bufs[i].size, 16, &id) ||
		    usmp_problem_set_live(p, id, bufs[i].a, bufs[i].b))
			goto fail;
	if (usmp_registry_create(NULL, &r))
		goto fail;
	if (usmp_plan_compute(r, p, &o, &plan)) {
		fprintf(stderr, "plan: %s\n", usmp_plan_error(plan));
		goto fail;
	}
	usmp_abi_version(&major, &minor);
	printf("usmp %s, ABI %u.%u\n", usmp_version(), major, minor);
	for (uint32_t i = 0; i < 3; i++) {
		uint64_t off;
		usmp_plan_placement(plan, i, NULL, &off);
		printf("%s %llu\n", bufs[i].name, (unsigned long long)off);
	}
	printf("size %llu verify %s\n",
	       (unsigned long long)usmp_plan_pool_size(plan, pool),
	       usmp_status_name(usmp_plan_verify(plan, p)));
	rc = 0;
fail:
	if (rc)
		fprintf(stderr, "consumer: %s\n",
		        p ? usmp_problem_error(p) : "out of memory");
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
	return rc;
}
