/* verify_cmd.c — `usmp verify`, `usmp simulate` and `usmp bound`: check a plan
 * with the verifier or by replaying it in real memory; print lower bounds. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* Parse the shared options of verify and bound: --capacity only. Returns
 * the index of the first operand, or -1 after printing an error. */
static int parse_capacity(int argc, char **argv, uint64_t *capacity)
{
	static const struct option longopts[] = {
		{"capacity", required_argument, NULL, 'C'},
		{0, 0, 0, 0},
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c != 'C')
			return -1;
		if (cli_parse_bytes(optarg, capacity) || *capacity == 0) {
			cli_error("--capacity %s: expected a positive byte count", optarg);
			return -1;
		}
	}
	return optind;
}

int cmd_verify(int argc, char **argv)
{
	uint64_t capacity = USMP_UNBOUNDED;
	int first = parse_capacity(argc, argv, &capacity);
	if (first < 0 || argc - first != 2) {
		if (first >= 0)
			cli_error("usage: usmp verify PROBLEM PLAN [--capacity BYTES]");
		return EXIT_USAGE;
	}
	usmp_problem *p = cli_load_problem(argv[first], capacity);
	if (!p)
		return EXIT_USAGE;
	usmp_plan *plan = NULL;
	int code;
	int st = usmp_plan_read(p, argv[first + 1], USMP_FORMAT_AUTO, &plan);
	if (st) {
		cli_error("%s", plan ? usmp_plan_error(plan) : "out of memory");
		code = EXIT_USAGE;
	} else if ((st = usmp_plan_verify(plan, p))) {
		cli_error("%s: invalid plan: %s", argv[first + 1],
		          usmp_plan_error(plan));
		code = EXIT_OTHER;
	} else {
		uint64_t total = 0;
		for (uint32_t j = 0; j < usmp_problem_pool_count(p); j++)
			total += usmp_plan_pool_size(plan, j);
		printf("%s: valid plan for %s (%u buffers, %llu bytes in all pools)\n",
		       argv[first + 1], argv[first], usmp_problem_buffer_count(p),
		       (unsigned long long)total);
		code = EXIT_DONE;
	}
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	return code;
}

int cmd_simulate(int argc, char **argv)
{
	uint64_t capacity = USMP_UNBOUNDED;
	int first = parse_capacity(argc, argv, &capacity);
	if (first < 0 || argc - first != 2) {
		if (first >= 0)
			cli_error("usage: usmp simulate PROBLEM PLAN [--capacity BYTES]");
		return EXIT_USAGE;
	}
	usmp_problem *p = cli_load_problem(argv[first], capacity);
	if (!p)
		return EXIT_USAGE;
	usmp_plan *plan = NULL;
	int code = EXIT_DONE;
	int st = usmp_plan_read(p, argv[first + 1], USMP_FORMAT_AUTO, &plan);
	if (st) {
		cli_error("%s", plan ? usmp_plan_error(plan) : "out of memory");
		code = EXIT_USAGE;
	} else if ((st = usmp_plan_simulate(plan, p))) {
		cli_error("%s: %s: %s", argv[first + 1],
		          st == USMP_ERR_INVALID_PLAN ? "replay failed" : "cannot replay",
		          usmp_plan_error(plan));
		code = st == USMP_ERR_INVALID_PLAN ? EXIT_OTHER : cli_exit_for(st);
	} else {
		printf("%s: replayed %u buffers; every byte intact at its last use\n",
		       argv[first + 1], usmp_problem_buffer_count(p));
	}
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	return code;
}

int cmd_bound(int argc, char **argv)
{
	uint64_t capacity = USMP_UNBOUNDED;
	int first = parse_capacity(argc, argv, &capacity);
	if (first < 0 || argc - first != 1) {
		if (first >= 0)
			cli_error("usage: usmp bound PROBLEM [--capacity BYTES]");
		return EXIT_USAGE;
	}
	usmp_problem *p = cli_load_problem(argv[first], capacity);
	if (!p)
		return EXIT_USAGE;
	uint32_t groups = usmp_problem_group_count(p);
	if (*usmp_problem_error(p)) {
		cli_error("%s", usmp_problem_error(p));
		usmp_problem_destroy(p);
		return EXIT_USAGE;
	}
	for (uint32_t g = 0; g < groups; g++) {
		printf("group %u: lower bound %llu bytes; pools:", g,
		       (unsigned long long)usmp_problem_group_bound(p, g));
		for (uint32_t j = 0; j < usmp_problem_pool_count(p); j++)
			if (usmp_problem_pool_group(p, j) == g)
				printf(" %s", usmp_problem_pool_name(p, j));
		putchar('\n');
	}
	usmp_problem_destroy(p);
	return EXIT_DONE;
}
