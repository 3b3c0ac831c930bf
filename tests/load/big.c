/* big.c — one problem of N buffers built through the API (no file), planned
 * with first_fit or best_fit in process; prints time and peak memory of
 * each phase and the bytes per buffer.
 *   big PLUGIN_DIR N [first_fit|best_fit] */
#include "common.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: big PLUGIN_DIR N [ALGORITHM]\n");
		return 2;
	}
	uint32_t n = (uint32_t)strtoul(argv[2], NULL, 10);
	const char *algo = argc > 3 ? argv[3] : "first_fit";
	long base = proc_kib("VmHWM");
	usmp_registry *r = load_registry(argv[1]);
	long with_registry = proc_kib("VmHWM");
	double t0 = now_s();
	usmp_problem *p = usmp_problem_create();
	char name[32];
	uint64_t s = 1;
	/* A long trace: about 64 buffers alive at any time, like an unrolled
	 * network; sizes 64 B .. 64 KiB, alignment 16. */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id;
		snprintf(name, sizeof name, "t%u", i);
		if (usmp_problem_add_buffer(p, name, 64 + rand64(&s) % 65536, 16,
		                            &id) != USMP_OK ||
		    usmp_problem_set_live(p, id, i, i + 1 + (int64_t)(rand64(&s) % 128))
		            != USMP_OK) {
			fprintf(stderr, "build failed at %u: %s\n", i,
			        usmp_problem_error(p));
			return 1;
		}
	}
	double t_build = now_s() - t0;
	long built = proc_kib("VmHWM");
	t0 = now_s();
	uint64_t bound = usmp_problem_prepare_group_bound(p, 0);
	double t_bound = now_s() - t0;
	long bounded = proc_kib("VmHWM");
	usmp_plan_options o = {.struct_size = sizeof o,
	                       .flags = USMP_PLAN_NO_ISOLATE, .algorithm = algo};
	usmp_plan *plan = NULL;
	t0 = now_s();
	double c0 = cpu_s();
	int rc = usmp_plan_compute(r, p, &o, &plan);
	double t_plan = now_s() - t0;
	long planned = proc_kib("VmHWM");
	if (rc != USMP_OK) {
		fprintf(stderr, "%s: %s\n", algo, usmp_plan_error(plan));
		return 1;
	}
	double c_plan = cpu_s() - c0;
	t0 = now_s();
	c0 = cpu_s();
	if (usmp_plan_verify(plan, p) != USMP_OK) {
		fprintf(stderr, "verify: %s\n", usmp_plan_error(plan));
		return 1;
	}
	double t_verify = now_s() - t0, c_verify = cpu_s() - c0;
	uint64_t size = usmp_plan_pool_size(plan, 0);
	printf("%s n=%u: build %.2f s, bound %.2f s, plan (with its verify) "
	       "%.2f s wall %.2f s cpu, verify again %.2f s wall %.2f s cpu; "
	       "size %llu, bound %llu, ratio %.4f\n", algo, n, t_build, t_bound,
	       t_plan, c_plan, t_verify, c_verify, (unsigned long long)size,
	       (unsigned long long)bound,
	       bound ? (double)size / (double)bound : 0.0);
	printf("peak KiB: start %ld, registry %ld, problem %ld, bound %ld, plan "
	       "%ld; problem %.1f B/buffer, peak %.1f B/buffer\n",
	       base, with_registry, built, bounded, planned,
	       (double)(built - with_registry) * 1024.0 / n,
	       (double)(planned - with_registry) * 1024.0 / n);
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	usmp_registry_destroy(r);
	return 0;
}
