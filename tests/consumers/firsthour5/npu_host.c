/* npu_host.c — an NPU compiler's planning step, built out of tree against an
 * installed usmp with pkg-config alone: SRAM and DRAM, overlap rules. */
#include <stdio.h>
#include <string.h>
#include <usmp/usmp.h>

/* The NPU's SRAM (64 KiB) and DRAM (unbounded), the CPU's RAM; a chain of
 * six NPU tensors that may spill, three partial-overlap rules (relu in
 * place, a depthwise conv 4 KiB below its input, an output leading its
 * input by 1 KiB); two CPU buffers. */
static int build(usmp_problem *p)
{
	static const struct { const char *name; uint64_t size; int64_t b, e; } t[] = {
		{"in", 24576, 0, 2}, {"conv1", 32768, 1, 3}, {"relu1", 32768, 2, 4},
		{"dw2", 16384, 3, 5}, {"pw2", 40960, 4, 6}, {"out", 8192, 5, 7},
	};
	uint32_t sram, dram, cpu, id[6], c;
	int rc = 0;

	rc |= usmp_problem_add_pool(p, "sram", 65536, 16, &sram);
	rc |= usmp_problem_add_pool_target(p, sram, "ethos-u55");
	rc |= usmp_problem_add_pool(p, "dram", USMP_UNBOUNDED, 16, &dram);
	rc |= usmp_problem_add_pool_target(p, dram, "ethos-u55");
	rc |= usmp_problem_add_pool(p, "cpu_ram", USMP_UNBOUNDED, 8, &cpu);
	rc |= usmp_problem_add_pool_target(p, cpu, "cortex-m55");
	for (int i = 0; i < 6 && !rc; i++) {
		rc |= usmp_problem_add_buffer(p, t[i].name, t[i].size, 16, &id[i]);
		rc |= usmp_problem_set_live(p, id[i], t[i].b, t[i].e);
		rc |= usmp_problem_add_candidate(p, id[i], sram);
		rc |= usmp_problem_add_candidate(p, id[i], dram);
	}
	if (rc)
		return rc;
	rc |= usmp_problem_add_overlap(p, id[1], id[2], 0);
	rc |= usmp_problem_add_overlap(p, id[2], id[3], -4096);
	rc |= usmp_problem_add_overlap(p, id[4], id[5], 1024);
	rc |= usmp_problem_add_buffer(p, "cpu.pre", 1000, 8, &c);
	rc |= usmp_problem_set_live(p, c, 0, 2);
	rc |= usmp_problem_add_candidate(p, c, cpu);
	rc |= usmp_problem_add_buffer(p, "cpu.post", 3000, 8, &c);
	rc |= usmp_problem_set_live(p, c, 1, 3);
	rc |= usmp_problem_add_candidate(p, c, cpu);
	return rc;
}

/* Usage: npu_host auto | npu_host rules RULES | npu_host spec ALGO. Prints
 * one line per part and pool, then "verify ok"; on failure "error STATUS:
 * MESSAGE" and exit 1. */
int main(int argc, char **argv)
{
	usmp_problem *p = usmp_problem_create();
	usmp_registry *r = NULL;
	usmp_plan *plan = NULL;
	usmp_plan_options o = {.struct_size = sizeof o};
	int rc;

	if (argc < 2 || !p || build(p) != USMP_OK) {
		fprintf(stderr, "npu_host: %s\n", p ? usmp_problem_error(p) : "usage");
		return 2;
	}
	rc = usmp_registry_create(NULL, &r);
	if (rc == USMP_OK && argc > 2 && strcmp(argv[1], "rules") == 0 &&
	    (rc = usmp_registry_bind_rules(r, argv[2])) != USMP_OK) {
		printf("error %s: %s\n", usmp_status_name(rc), usmp_registry_error(r));
		goto out;
	}
	if (argc > 2 && strcmp(argv[1], "spec") == 0)
		o.algorithm = argv[2];
	if (rc == USMP_OK)
		rc = usmp_plan_compute(r, p, &o, &plan);
	if (rc != USMP_OK) {
		printf("error %s: %s\n", usmp_status_name(rc),
		       plan ? usmp_plan_error(plan) : "no registry");
		goto out;
	}
	for (uint32_t i = 0; i < usmp_plan_part_count(plan); i++) {
		usmp_part_info pi = {.struct_size = sizeof pi};
		usmp_plan_part(plan, i, &pi);
		printf("part %s %s rule=%s size=%llu bound=%llu spill=%llu\n",
		       pi.target, pi.algorithm, pi.rule, (unsigned long long)pi.size,
		       (unsigned long long)pi.lower_bound,
		       (unsigned long long)pi.spill);
	}
	for (uint32_t q = 0; q < usmp_problem_pool_count(p); q++)
		printf("pool %s %llu\n", usmp_problem_pool_name(p, q),
		       (unsigned long long)usmp_plan_pool_size(plan, q));
	rc = usmp_plan_verify(plan, p);
	printf("verify %s\n", rc == USMP_OK ? "ok" : usmp_plan_error(plan));
out:
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
	return rc != USMP_OK;
}
