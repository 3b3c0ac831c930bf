/* verify_cmd.c — `usmp verify`, `usmp simulate` and `usmp bound`: check a plan
 * with the verifier or by replaying it in real memory; print lower bounds. */
#include "cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_CAPACITY = CLI_LONG_ONLY };

/* The options of verify, simulate and bound. */
static const cli_option check_options[] = {
	{OPT_CAPACITY, "capacity", "BYTES", 0,
	 "size limit of a CSV problem's pool (1048576, 1M)"},
	{'h', "help", NULL, 0, "print this help and exit"},
	{0, NULL, NULL, 0, NULL},
};

/* Parse the options of `cmd` and check it got `operands` operands. Returns
 * the index of the first operand; -1 after printing an error; -2 after
 * printing the help. */
static int parse(const cli_command *cmd, int argc, char **argv,
                 int operands, uint64_t *capacity)
{
	cli_parser ps;
	int c;
	cli_parser_init(&ps, cmd);
	while ((c = cli_next_option(&ps, argc, argv)) != -1) {
		if (c == 'h') {
			cli_print_help(cmd);
			return -2;
		}
		if (c != OPT_CAPACITY)
			return -1;
		if (cli_parse_bytes(optarg, capacity) || *capacity == 0) {
			cli_error("--capacity %s: expected a positive byte count "
			          "(e.g. 1048576 or 1M)", optarg);
			return -1;
		}
	}
	if (argc - optind != operands) {
		cli_error("usage: usmp %s %s [--capacity BYTES]", cmd->name,
		          cmd->operands);
		return -1;
	}
	return optind;
}

/* verify and simulate: parse `cmd`'s options, read PROBLEM and PLAN into
 * *p and *plan. Returns -1 when both were read (*first is PROBLEM's index
 * in argv), else the exit status, having freed what it read. */
static int load_problem_and_plan(const cli_command *cmd, int argc, char **argv,
                                 int *first, usmp_problem **p,
                                 usmp_plan **plan)
{
	uint64_t capacity = USMP_UNBOUNDED;
	*p = NULL;
	*plan = NULL;
	*first = parse(cmd, argc, argv, 2, &capacity);
	if (*first < 0)
		return *first == -2 ? EXIT_DONE : EXIT_USAGE;
	/* stdin holds one document: the second read would see only its end */
	if (strcmp(argv[*first], "-") == 0 && strcmp(argv[*first + 1], "-") == 0) {
		cli_error("%s: PROBLEM and PLAN cannot both be standard input (-)",
		          cmd->name);
		return EXIT_USAGE;
	}
	int code;
	*p = cli_load_problem(argv[*first], capacity, &code);
	if (!*p)
		return code;
	int st = usmp_plan_read(*p, argv[*first + 1], USMP_FORMAT_AUTO, plan);
	if (st) {
		cli_error("%s", *plan ? usmp_plan_error(*plan) : "out of memory");
		usmp_plan_destroy(*plan);
		usmp_problem_destroy(*p);
		return st == USMP_ERR_NOMEM || !*plan ? EXIT_NOMEM : EXIT_USAGE;
	}
	/* A read that succeeds says which claims of the file it dropped. */
	if (*usmp_plan_error(*plan))
		cli_error("note: %s", usmp_plan_error(*plan));
	return -1;
}

static int cmd_verify(int argc, char **argv)
{
	usmp_problem *p;
	usmp_plan *plan;
	int first, st;
	int code = load_problem_and_plan(&cli_verify_command, argc, argv, &first,
	                                 &p, &plan);
	if (code >= 0)
		return code;
	if ((st = usmp_plan_verify(plan, p)) == USMP_ERR_INVALID_PLAN) {
		cli_error("%s: invalid plan: %s", argv[first + 1],
		          usmp_plan_error(plan));
		code = EXIT_OTHER;
	} else if (st == USMP_ERR_NOMEM) {
		/* Nothing was proven either way: never "invalid plan". */
		cli_error("%s: cannot verify: out of memory (the verifier could "
		          "not finish; nothing is known about the plan)",
		          argv[first + 1]);
		code = EXIT_NOMEM;
	} else if (st) {
		cli_error("%s: cannot verify: %s", argv[first + 1],
		          usmp_plan_error(plan));
		code = cli_exit_for(st);
	} else {
		/* Pools of up to 2^64 - 1 bytes each: the sum may pass 64 bits. */
		uint64_t total = 0;
		bool past = false;
		for (uint32_t j = 0; j < usmp_problem_pool_count(p); j++) {
			uint64_t s = usmp_plan_pool_size(plan, j);
			past = past || total + s < total;
			total = past ? UINT64_MAX : total + s;
		}
		printf("%s: valid plan for %s (%u buffer%s, %s%llu byte%s in all "
		       "pools)\n",
		       cli_shown(argv[first + 1]), cli_shown(argv[first]),
		       usmp_problem_buffer_count(p),
		       cli_s(usmp_problem_buffer_count(p)), past ? "more than " : "",
		       (unsigned long long)total, cli_s(past ? 2 : total));
		for (uint32_t i = 0; i < usmp_plan_part_count(plan); i++) {
			usmp_part_info pi = {.struct_size = sizeof pi};
			char lead[32];
			snprintf(lead, sizeof lead, "  part %u: ", i + 1);
			if (!usmp_plan_part(plan, i, &pi))
				cli_print_spill(stdout, lead, p, plan, &pi);
		}
		code = EXIT_DONE;
	}
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	return code;
}

static int cmd_simulate(int argc, char **argv)
{
	usmp_problem *p;
	usmp_plan *plan;
	int first, st;
	int code = load_problem_and_plan(&cli_simulate_command, argc, argv,
	                                 &first, &p, &plan);
	if (code >= 0)
		return code;
	code = EXIT_DONE;
	if ((st = usmp_plan_simulate(plan, p))) {
		cli_error("%s: %s: %s", argv[first + 1],
		          st == USMP_ERR_INVALID_PLAN ? "replay failed" : "cannot replay",
		          usmp_plan_error(plan));
		code = st == USMP_ERR_INVALID_PLAN ? EXIT_OTHER : cli_exit_for(st);
	} else {
		printf("%s: replayed %u buffer%s; every byte intact at its last "
		       "use\n", cli_shown(argv[first + 1]),
		       usmp_problem_buffer_count(p),
		       cli_s(usmp_problem_buffer_count(p)));
	}
	usmp_plan_destroy(plan);
	usmp_problem_destroy(p);
	return code;
}

/* x in decimal, exactly (a sum of limits may pass 64 bits). */
static const char *u128_text(unsigned __int128 x, char buf[48])
{
	int k = 47;
	buf[k] = '\0';
	do {
		buf[--k] = (char)('0' + (int)(x % 10));
		x /= 10;
	} while (x);
	return buf + k;
}

/* The bound of a group against what its pools hold together, when every
 * one of them has a size limit: over it no plan fits (usmp plan exits 3).
 * The limits are added up exactly; a bound of 2^64 - 1 may stand for more
 * (the library's bound saturates), so past it only usmp plan can say. */
static void against_limits(const usmp_problem *p, const uint32_t *pools,
                           uint32_t n, unsigned long long bound)
{
	unsigned __int128 total = 0;
	char t[48], d[48];
	for (uint32_t i = 0; i < n; i++) {
		usmp_pool_info info = {.struct_size = sizeof info};
		if (usmp_problem_pool_info(p, pools[i], &info) != USMP_OK ||
		    info.size_limit == USMP_UNBOUNDED)
			return; /* an unbounded pool holds any bound */
		total += info.size_limit;
	}
	if (!n)
		return;
	const char *what = n == 1 ? "the pool's size limit"
	                         : "the pools' size limits together";
	int saturated = bound == ULLONG_MAX;
	if (bound > total)
		printf("; over %s (%s byte%s) by %s%s byte%s: no plan fits", what,
		       u128_text(total, t), total == 1 ? "" : "s",
		       saturated ? "at least " : "",
		       u128_text(bound - total, d), cli_s(bound - total));
	else if (saturated)
		printf("; %s: %s bytes, and the lower bound is 2^64 - 1 bytes or "
		       "more: usmp plan says whether a plan fits", what,
		       u128_text(total, t));
	else
		printf("; within %s (%s byte%s), %s byte%s to spare: a plan "
		       "may fit (usmp plan says)", what, u128_text(total, t),
		       total == 1 ? "" : "s", u128_text(total - bound, d),
		       total - bound == 1 ? "" : "s");
}

static int cmd_bound(int argc, char **argv)
{
	uint64_t capacity = USMP_UNBOUNDED;
	uint32_t *start = NULL, *pools = NULL;
	int code = EXIT_USAGE;
	int first = parse(&cli_bound_command, argc, argv, 1, &capacity);
	if (first < 0)
		return first == -2 ? EXIT_DONE : EXIT_USAGE;
	usmp_problem *p = cli_load_problem(argv[first], capacity, &code);
	if (!p)
		return code;
	uint32_t groups = usmp_problem_prepare_group_count(p);
	if (*usmp_problem_error(p)) {
		cli_error("%s", usmp_problem_error(p));
		goto fail;
	}
	/* Each group's pools in pool order, by one counting pass: O(pools +
	 * groups), so a million one-pool groups print in a moment. */
	uint32_t np = usmp_problem_pool_count(p);
	start = calloc((size_t)groups + 1, sizeof *start);
	pools = malloc((np ? np : 1) * sizeof *pools);
	if (!start || !pools) {
		cli_error("%s: out of memory", cli_shown(argv[first]));
		code = EXIT_NOMEM;
		goto fail;
	}
	for (uint32_t j = 0; j < np; j++) {
		uint32_t g = usmp_problem_prepare_pool_group(p, j);
		if (g < groups)
			start[g + 1]++;
	}
	for (uint32_t g = 0; g < groups; g++)
		start[g + 1] += start[g];
	for (uint32_t j = 0; j < np; j++) {
		uint32_t g = usmp_problem_prepare_pool_group(p, j);
		if (g < groups)
			pools[start[g]++] = j;
	}
	for (uint32_t g = 0, at = 0; g < groups; g++) {
		unsigned long long bound = usmp_problem_prepare_group_bound(p, g);
		/* 2^64 - 1: the library's bound saturates there */
		printf("group %u: lower bound %s%llu byte%s; pools:", g,
		       bound == ULLONG_MAX ? "at least " : "", bound,
		       cli_s(bound));
		uint32_t from = at;
		for (; at < start[g]; at++)
			printf(" %s",
			       cli_shown(usmp_problem_pool_name(p, pools[at])));
		/* A CSV problem's one pool: the bound against --capacity. */
		if (capacity != USMP_UNBOUNDED && bound > capacity)
			printf("; over the capacity (%llu byte%s) by %s%llu byte%s: "
			       "no plan fits", (unsigned long long)capacity,
			       cli_s(capacity), bound == ULLONG_MAX ? "at least " : "",
			       bound - (unsigned long long)capacity,
			       cli_s(bound - (unsigned long long)capacity));
		else if (capacity != USMP_UNBOUNDED)
			printf("; within the capacity (%llu byte%s), %llu byte%s to "
			       "spare: a plan may fit (usmp plan says)",
			       (unsigned long long)capacity, cli_s(capacity),
			       (unsigned long long)capacity - bound,
			       cli_s(capacity - bound));
		else
			against_limits(p, pools + from, at - from, bound);
		putchar('\n');
	}
	code = EXIT_DONE;
fail:
	free(start);
	free(pools);
	usmp_problem_destroy(p);
	return code;
}

const cli_command cli_verify_command = {
	"verify", "PROBLEM PLAN",
	"exit 0 when the plan is valid, 1 with the first violation when not",
	check_options, cmd_verify,
};

const cli_command cli_simulate_command = {
	"simulate", "PROBLEM PLAN",
	"replay the plan in real memory, checking every byte",
	check_options, cmd_simulate,
};

const cli_command cli_bound_command = {
	"bound", "PROBLEM", "the lower bound of each pool group",
	check_options, cmd_bound,
};
