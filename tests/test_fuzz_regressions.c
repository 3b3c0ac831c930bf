
/* The structured generator's first finding
 * (corpus/solve/regress-exact-live-length-overflow.json): exact's greedy
 * start compared live-range lengths as end - begin in int64, which
 * overflows for [-(2^63 - 1), 2) (UBSan: signed integer overflow). Lengths
 * are now unsigned; exact plans the problem. */
Test(fuzz_regressions, exact_orders_live_ranges_wider_than_int64)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"wide\", \"size\": 19, \"live\": "
		"[-9223372036854775807, 2]},"
		"{\"name\": \"late\", \"size\": 38, \"live\": "
		"[9223372036854775806, 9223372036854775807]},"
		"{\"name\": \"short\", \"size\": 7, \"live\": [-1, 5]},"
		"{\"name\": \"free\", \"size\": 72}]}",
		"regress-exact-live-length-overflow.json");
	usmp_registry *r = registry();
	usmp_plan *plan = plan_ok(r, p, "exact");
	/* wide and short meet; late meets neither; free meets nobody. */
	cr_assert_eq(usmp_plan_pool_size(plan, 0), 72);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}

/* A valid plan whose group bound JSON cannot say
 * (corpus/solve/regress-json-bound-past-int64.json): the writer names the
 * field (pools[0].lower_bound) and the CLI the file, exit 2, nothing on
 * stdout. */
Test(fuzz_regressions, json_plan_names_a_bound_past_int64)
{
	static const char text[] =
		"{\"usmp\": 1, \"pools\": [{\"name\": \"p0\"}, {\"name\": \"p1\"}], "
		"\"buffers\": [{\"name\": \"big\", \"size\": 9223372036854775807, "
		"\"live\": [0, 9]}, {\"name\": \"small\", \"size\": 41, "
		"\"live\": [-3, 6], \"pools\": [\"p1\"]}]}\n";
	char *path = test_write_tmp(".json", text);
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof cmd, "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' plan "
	         "'%s' -a first_fit 2>&1 >/dev/null", test_cli(), path);
	cr_assert_eq(test_run(cmd, &out), 2, "%s", out);
	char want[4200];
	snprintf(want, sizeof want, "usmp: %s: writing its plan: "
	         "pools[0].lower_bound: 9223372036854775848 is too large for the "
	         "JSON format\n", path);
	cr_assert(strstr(out, want), "%s\nlacks\n%s", out, want);
	free(out);
	/* The same plan as CSV is refused (two pools), never half-written. */
	snprintf(cmd, sizeof cmd, "USMP_PLUGIN_PATH= USMP_ALGORITHM= '%s' plan "
	         "'%s' -a first_fit 2>/dev/null | wc -c", test_cli(), path);
	cr_assert_eq(test_run(cmd, &out), 0);
	cr_assert_eq(atoi(out), 0, "stdout had %s bytes", out);
	free(out);
	free(path);
}

/* Two buffers of 2^63 - 1 bytes alive together: a valid plan of 2^64 - 2
 * bytes; the JSON writer names the pool it cannot size. */
Test(fuzz_regressions, json_plan_names_the_pool_past_int64)
{
	usmp_problem *p = test_parse_json(
		"{\"usmp\": 1, \"buffers\": ["
		"{\"name\": \"a\", \"size\": 9223372036854775807, \"live\": [0, 2]},"
		"{\"name\": \"b\", \"size\": 9223372036854775807, \"live\": [1, 3]}]}",
		"model.json");
	usmp_registry *r = registry();
	usmp_plan *plan = plan_ok(r, p, "first_fit");
	char *path = test_tmpfile(".json");
	cr_assert_eq(usmp_plan_write(plan, p, path, USMP_FORMAT_JSON),
	             USMP_ERR_INVALID);
	cr_assert_str_eq(usmp_plan_error(plan),
	                 "pool size: 18446744073709551614 is too large for the "
	                 "JSON format (pools[0] \"default\")");
	free(path);
	usmp_plan_destroy(plan);
	usmp_registry_destroy(r);
	usmp_problem_destroy(p);
}
