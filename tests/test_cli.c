/* placeholder */
#include <criterion/criterion.h>
#include "support.h"
Test(placeholder_cli, builds) { cr_assert(1); }
