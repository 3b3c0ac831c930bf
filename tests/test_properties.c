/* test_properties.c — properties of every algorithm on random problems. */
#include <criterion/criterion.h>
#include <usmp/usmp.h>

Test(properties, library_reports_its_version)
{
	cr_assert_not_null(usmp_version());
}
