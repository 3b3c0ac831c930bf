/* interpose.c — another library's usmp_problem_error, for tests/test_firsthour4.c:
 * loaded RTLD_GLOBAL before libusmp, it shows whether libusmp's own calls
 * of its exported functions can be bound to another copy's. */
const char *usmp_problem_error(const void *p);

const char *usmp_problem_error(const void *p)
{
	(void)p;
	return "INTERPOSED";
}
